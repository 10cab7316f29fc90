package main

import (
	"context"
	"io"
	"log/slog"
	"math"
	"math/rand"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/wire"
	"github.com/jackc/pgx/v5/pgtype"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {90, 90}, {99, 99}, {100, 100}, {0, 1}} {
		if got := percentile(d, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one = %v", got)
	}
}

func TestParseIntsAndSelect(t *testing.T) {
	if got, err := parseInts("1, 4"); err != nil || len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("parseInts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,x", "-2"} {
		if _, err := parseInts(bad); err == nil {
			t.Errorf("parseInts(%q) accepted", bad)
		}
	}
	if qs, err := selectQueries("bm25,point"); err != nil || len(qs) != 2 || qs[0].name != "bm25" {
		t.Errorf("selectQueries = %v, %v", qs, err)
	}
	if qs, _ := selectQueries("all"); len(qs) != len(queries) {
		t.Errorf("all = %d queries", len(qs))
	}
	if qs, _ := selectQueries("none"); len(qs) != 0 {
		t.Errorf("none = %d queries", len(qs))
	}
	if _, err := selectQueries("cosine,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown query: %v", err)
	}
}

// TestDatasetDeterministic pins the dataset: the same seed gives the same
// rows, embeddings are unit length and metadata follows the cluster.
func TestDatasetDeterministic(t *testing.T) {
	a, b := newDataset(8), newDataset(8)
	for i := 0; i < 50; i++ {
		ta, ma, ea := a.row()
		tb, mb, eb := b.row()
		if ta != tb || ma != mb || len(ea) != 8 {
			t.Fatalf("row %d differs: %q %q / %q %q", i, ta, ma, tb, mb)
		}
		var n float64
		for j := range ea {
			if ea[j] != eb[j] {
				t.Fatalf("row %d embedding differs", i)
			}
			n += float64(ea[j]) * float64(ea[j])
		}
		if math.Abs(n-1) > 1e-5 {
			t.Fatalf("row %d: |e|^2 = %v", i, n)
		}
		if len(strings.Fields(ta)) != 6 || !strings.Contains(ma, `"repo"`) {
			t.Fatalf("row %d: %q %q", i, ta, ma)
		}
	}
	g := newParamGen(8, []int64{1, 2, 3})
	p, q := g.params(5), g.params(5)
	if p.text != q.text || p.repo != q.repo || p.id != q.id || p.vec[0] != q.vec[0] {
		t.Fatal("params are not deterministic")
	}
	if n := len(p.terms); n < 2 || n > 3 {
		t.Fatalf("query text %q has %d terms", p.text, n)
	}
}

func TestTokenize(t *testing.T) {
	got := strings.Join(tokenize("Fix OOM-crash, in etl2 pipeline!"), "|")
	if got != "fix|oom|crash|in|etl2|pipeline" {
		t.Errorf("tokenize = %q", got)
	}
}

// testReference builds a reference of rows random rows without a server.
func testReference(rows, dim int) *reference {
	ref := &reference{byID: map[int64]int{}, repoRows: map[string]int{}, dim: dim}
	d := newDataset(dim)
	for i := 0; i < rows; i++ {
		task, _, emb := d.row()
		id := int64(i + 1)
		repo := repos[i%len(repos)]
		ref.byID[id] = i
		ref.ids = append(ref.ids, id)
		ref.tasks = append(ref.tasks, task)
		ref.repos = append(ref.repos, repo)
		ref.repoRows[repo]++
		toks := map[string]bool{}
		for _, w := range tokenize(task) {
			toks[w] = true
		}
		ref.tokens = append(ref.tokens, toks)
		ref.emb = append(ref.emb, emb...)
	}
	return ref
}

func TestTopCosine(t *testing.T) {
	ref := testReference(500, 16)
	q := unitVector(rand.New(rand.NewSource(1)), 16, nil, 1)
	scores, ids := ref.topCosine(q, "billing", 10)
	var all []float64
	for i := range ref.ids {
		if ref.repos[i] == "billing" {
			all = append(all, ref.cosine(i, q))
		}
	}
	sortDesc(all)
	if len(scores) != 10 {
		t.Fatalf("%d scores", len(scores))
	}
	for j := range scores {
		if scores[j] != all[j] || ref.repos[ref.byID[ids[j]]] != "billing" {
			t.Fatalf("rank %d: %v (id %d), want %v", j, scores[j], ids[j], all[j])
		}
	}
}

func sortDesc(x []float64) {
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if x[j] > x[i] {
				x[i], x[j] = x[j], x[i]
			}
		}
	}
}

// TestCheckerCatchesWrongResults feeds the checks correct answers and
// answers broken in each way a check must catch.
func TestCheckerCatchesWrongResults(t *testing.T) {
	ref := testReference(300, 16)
	c := newChecker(ref)
	p := newParamGen(16, ref.ids).params(3)
	row := func(id int64, s float64) resultRow {
		return resultRow{id: id, task: ref.tasks[ref.byID[id]], score: pgtype.Float8{Float64: s, Valid: true}}
	}
	exact := func(repo string) []resultRow {
		scores, ids := ref.topCosine(p.vec, repo, topK)
		var out []resultRow
		for j := range ids {
			out = append(out, row(ids[j], scores[j]))
		}
		return out
	}
	mutate := func(rs []resultRow, f func([]resultRow) []resultRow) []resultRow {
		return f(append([]resultRow(nil), rs...))
	}
	good := exact("")
	if err := c.checkCosine(p, "", good); err != nil {
		t.Fatalf("correct cosine result rejected: %v", err)
	}
	if err := c.checkCosine(p, p.repo, exact(p.repo)); err != nil {
		t.Fatalf("correct filtered result rejected: %v", err)
	}
	for name, bad := range map[string][]resultRow{
		"short":     good[:9],
		"ascending": mutate(good, func(r []resultRow) []resultRow { r[0], r[9] = r[9], r[0]; return r }),
		"null":      mutate(good, func(r []resultRow) []resultRow { r[4].score.Valid = false; return r }),
		"dup":       mutate(good, func(r []resultRow) []resultRow { r[9] = r[8]; return r }),
		"task":      mutate(good, func(r []resultRow) []resultRow { r[2].task = "x"; return r }),
		"not-best":  mutate(good, func(r []resultRow) []resultRow { r[9] = row(r[9].id, r[9].score.Float64-0.5); return r }),
	} {
		if err := c.checkCosine(p, "", bad); err == nil {
			t.Errorf("cosine %s: accepted", name)
		}
	}
	other := repos[(indexOf(repos, p.repo)+1)%len(repos)]
	if err := c.checkCosine(p, p.repo, exact(other)); err == nil {
		t.Errorf("filtered: rows of repo %s accepted for %s", other, p.repo)
	}

	// BM25: any matching rows with decreasing positive scores pass.
	var bm []resultRow
	for i, id := range ref.ids {
		if len(bm) < topK && ref.matchesAny(i, p.terms) {
			bm = append(bm, row(id, float64(20-len(bm))))
		}
	}
	if err := c.checkBM25(p, bm); err != nil {
		t.Fatalf("plausible BM25 result rejected: %v", err)
	}
	for i, id := range ref.ids {
		if !ref.matchesAny(i, p.terms) {
			if err := c.checkBM25(p, mutate(bm, func(r []resultRow) []resultRow { r[9] = row(id, 1); return r })); err == nil {
				t.Errorf("BM25 row without a term accepted")
			}
			break
		}
	}
	if err := c.checkBM25(p, mutate(bm, func(r []resultRow) []resultRow { r[9].score.Float64 = 0; return r })); err == nil {
		t.Errorf("BM25 zero score accepted")
	}

	// Hybrid: the vector arm's rows with fused scores pass; a row in
	// neither arm does not.
	hy := exact("")
	for j := range hy {
		hy[j].score.Float64 = 0.5 - float64(j)*0.01
	}
	if err := c.checkHybrid(p, hy); err != nil {
		t.Fatalf("plausible hybrid result rejected: %v", err)
	}
	_, top := ref.topCosine(p.vec, "", ref.rows())
	for _, id := range top[len(top)-50:] {
		if !ref.matchesAny(ref.byID[id], p.terms) {
			if err := c.checkHybrid(p, mutate(hy, func(r []resultRow) []resultRow { r[9] = row(id, 0.01); return r })); err == nil {
				t.Errorf("hybrid row in neither arm accepted")
			}
			break
		}
	}
	if err := c.checkHybrid(p, mutate(hy, func(r []resultRow) []resultRow { r[0].score.Float64 = 1.5; return r })); err == nil {
		t.Errorf("hybrid score 1.5 accepted")
	}

	// Point lookup.
	meta := []byte(`{"repo": "` + ref.repos[ref.byID[p.id]] + `"}`)
	pt := []resultRow{{id: p.id, task: ref.tasks[ref.byID[p.id]], meta: meta}}
	if err := c.checkPoint(p, pt); err != nil {
		t.Fatalf("point lookup rejected: %v", err)
	}
	if err := c.checkPoint(p, nil); err == nil {
		t.Errorf("empty point lookup accepted")
	}
	if err := c.checkPoint(p, []resultRow{{id: p.id, task: pt[0].task, meta: []byte(`{"repo": "nope"}`)}}); err == nil {
		t.Errorf("point lookup with the wrong repo accepted")
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// startTestServer starts an in-process cairn server over a temporary
// directory and returns its address.
func startTestServer(t *testing.T) string {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := storage.Open(filepath.Join(t.TempDir(), "data"), storage.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Engine: session.NewEngine(db, session.Options{Logger: logger}), Logger: logger}
	go srv.Serve(l)
	t.Cleanup(func() {
		srv.Shutdown(context.Background())
		db.Close()
	})
	return l.Addr().String()
}

// TestEndToEnd loads a small table into an in-process server and runs the
// mix; then it runs a query that errs and one that answers in the wrong
// order and expects them reported as FAIL and WRONG. It tests the
// benchmark, not the server: a server bug shows up here as a failed check
// naming the query.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	addr := startTestServer(t)
	o := &options{addr: addr, table: "bench_test", rows: 600, dim: 16, perStmt: 100, perBatch: 2,
		scans: 1, load: true, queries: "all", clients: []int{1, 2}, n: 8, warmup: 2, verify: true, explain: true,
		jsonPath: filepath.Join(t.TempDir(), "out.json")}
	if err := run(context.Background(), o); err != nil {
		t.Errorf("run: %v", err)
	}

	ctx := context.Background()
	conn, err := pgxConnect(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := readReference(ctx, conn, "bench_test", 16, true)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	broken := []*querySpec{
		{name: "erring", sql: `SELECT id, task, no_such_function(embedding) AS score FROM %[1]s LIMIT 10`,
			args: func(*queryParams) []any { return nil }, scan: scanScored, check: queries[0].check},
		{name: "ascending", sql: `SELECT id, task, embedding <#> $1::float4[] AS score FROM %[1]s ORDER BY score ASC LIMIT 10`,
			args: queries[0].args, scan: scanScored, check: queries[0].check},
	}
	results, _, err := runMix(ctx, dsnFor(addr), "bench_test", broken,
		[]int{1}, 4, 1, time.Minute, newParamGen(16, ref.ids), newChecker(ref), false)
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Errors != 5 || r.ok() || !strings.Contains(r.status(), "no_such_function") {
		t.Errorf("erring query: %+v", r)
	}
	if r := results[1]; r.Wrong != 5 || r.Errors != 0 || r.ok() || !strings.HasPrefix(r.status(), "WRONG 5/5") {
		t.Errorf("ascending query: %+v", r)
	}
}
