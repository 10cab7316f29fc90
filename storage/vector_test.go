package storage

import (
	"context"
	"math"
	"math/rand"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// clustered returns n vectors of dim around a few centres, as embeddings
// are, deterministically.
func clustered(rng *rand.Rand, n, dim int) [][]float32 {
	centres := make([][]float32, 16)
	for c := range centres {
		centres[c] = make([]float32, dim)
		for i := range centres[c] {
			centres[c][i] = float32(rng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for r := range out {
		c := centres[rng.Intn(len(centres))]
		out[r] = make([]float32, dim)
		for i := range out[r] {
			out[r][i] = c[i] + 0.3*float32(rng.NormFloat64())
		}
	}
	return out
}

func cosineDist(a, b []float32) float32 {
	var dot, aa, bb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return float32(1 - dot/math.Sqrt(aa*bb))
}

// exactTop is the k row IDs nearest to q among rows (row ID -> vector).
func exactTop(rows map[int64][]float32, q []float32, k int) []int64 {
	ids := make([]int64, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		di, dj := cosineDist(rows[ids[i]], q), cosineDist(rows[ids[j]], q)
		if di != dj {
			return di < dj
		}
		return ids[i] < ids[j]
	})
	return ids[:min(k, len(ids))]
}

// recall is the share of want found in got.
func recall(got []VectorHit, want []int64) float64 {
	found := 0
	for _, w := range want {
		for _, g := range got {
			if g.RowID == w {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(want))
}

// waitVectorBuilds waits until no vector index build is queued or running.
func waitVectorBuilds(t testing.TB, db *DB) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		db.vecMu.Lock()
		busy := db.vecRunning || len(db.vecQueue) > 0
		db.vecMu.Unlock()
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("vector index builds did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestVectorSearch checks a vector index's search against exact search:
// the segments' indexes are built after each flush, the search's recall is
// at least 0.9, a deleted row never comes back, the unflushed tail is
// searched exactly, after a restart the indexes are read from their
// files, not built again, and a corrupt file means an exact search of
// that segment and a rebuild.
func TestVectorSearch(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := createTable(t, db, "mem", []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: "mem_emb", Table: def.ID, Method: "hnsw",
		Columns: []int{def.Columns[1].ID}, Options: map[string]string{"m": "16", "ef_construction": "64"}}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)

	rng := rand.New(rand.NewSource(7))
	const dim = 32
	vecs := clustered(rng, 4700, dim)
	rows := map[int64][]float32{}
	next := 0
	insert := func(n int) {
		tx := db.Begin()
		var batch [][]any
		for i := 0; i < n; i++ {
			batch = append(batch, []any{next, vecs[next]})
			next++
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, batch...)); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	for s := 0; s < 3; s++ {
		insert(1500)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	insert(200) // stays in the tail
	// Row IDs: read them back with the vectors.
	tx = db.Begin()
	for _, r := range scanRows(t, tx, def.ID, true) {
		rows[r[2].(int64)] = vecs[r[0].(int)]
	}
	tx.Rollback()
	if len(rows) != 4700 {
		t.Fatalf("%d rows", len(rows))
	}

	search := func(q []float32) []VectorHit {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		hits, err := tx.VectorSearch(context.Background(), def.ID, ix, q, 10, VectorEffort{Ef: 100}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	queries := clustered(rng, 20, dim)
	// Flushes queued the segments' builds.
	waitVectorBuilds(t, db)
	// A row of the unflushed tail is found exactly: its own vector is its
	// nearest.
	if hits := search(vecs[4650]); len(hits) == 0 || hits[0].Dist > 1e-5 || rows[hits[0].RowID] == nil || cosineDist(rows[hits[0].RowID], vecs[4650]) > 1e-5 {
		t.Fatalf("tail row not found first: %v", hits)
	}
	total := 0.0
	for _, q := range queries {
		hits := search(q)
		if len(hits) != 10 {
			t.Fatalf("%d hits", len(hits))
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Dist < hits[i-1].Dist {
				t.Fatalf("hits not nearest first: %v", hits)
			}
		}
		total += recall(hits, exactTop(rows, q, 10))
	}
	if avg := total / float64(len(queries)); avg < 0.9 {
		t.Fatalf("indexed search: mean recall@10 %.3f", avg)
	}

	// Deleted rows never come back.
	q := queries[0]
	best := search(q)
	tx = db.Begin()
	if err := tx.Delete(def.ID, []int64{best[0].RowID, best[1].RowID}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	delete(rows, best[0].RowID)
	delete(rows, best[1].RowID)
	for _, h := range search(q) {
		if h.RowID == best[0].RowID || h.RowID == best[1].RowID {
			t.Fatalf("deleted row %d found", h.RowID)
		}
	}

	// A restart reads the index files.
	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	total = 0
	for _, q := range queries {
		total += recall(search(q), exactTop(rows, q, 10))
	}
	db.vecMu.Lock()
	queued := len(db.vecQueue) + len(db.vecQueued)
	db.vecMu.Unlock()
	if queued != 0 {
		t.Fatalf("%d builds queued after a restart: the files were not read", queued)
	}
	if avg := total / float64(len(queries)); avg < 0.9 {
		t.Fatalf("after restart: mean recall@10 %.3f", avg)
	}

	// A LIMIT near the segments' size scores their rows exactly: the
	// answer is exact search's, every row of it.
	for _, q := range queries[:2] {
		tx := db.Begin()
		hits, err := tx.VectorSearch(context.Background(), def.ID, ix, q, 1000, VectorEffort{Ef: 40}, nil)
		tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		if r := recall(hits, exactTop(rows, q, 1000)); len(hits) != 1000 || r != 1 {
			t.Fatalf("top-1000: %d rows, recall %.3f", len(hits), r)
		}
	}
	// A LIMIT of 2^63 - 1 finds every row.
	tx = db.Begin()
	all, err := tx.VectorSearch(context.Background(), def.ID, ix, queries[0], math.MaxInt64, VectorEffort{Ef: 40}, nil)
	tx.Rollback()
	if err != nil || len(all) != len(rows) {
		t.Fatalf("LIMIT 2^63-1: %d rows of %d, %v", len(all), len(rows), err)
	}
	// A query of another dimension than the indexed vectors ranks a row
	// first at -Inf, for the caller's exact ranking to fail on, without
	// scoring the segments.
	tx = db.Begin()
	hits, err := tx.VectorSearch(context.Background(), def.ID, ix, []float32{1, 2, 3}, 10, VectorEffort{Ef: 40}, nil)
	tx.Rollback()
	if err != nil || len(hits) == 0 || !math.IsInf(float64(hits[0].Dist), -1) {
		t.Fatalf("a query of another dimension: %v, %v", hits, err)
	}

	// A corrupt file: exact search, and a rebuild.
	st := db.published.Load().tables[def.ID]
	spec, _ := vectorSpec(ix, def)
	seg := st.segments[0]
	path := vecIndexPath(seg.path, spec.key)
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	for _, q := range queries[:3] {
		if r := recall(search(q), exactTop(rows, q, 10)); r < 0.9 {
			t.Fatalf("with a corrupt index file: recall %.2f", r)
		}
	}
	waitVectorBuilds(t, db)
	if _, err := readVecIndexFile(seg, spec.key); err != nil {
		t.Fatalf("not rebuilt: %v", err)
	}
}

// vectorTable creates table name (id bigint, emb real[]) with an index of
// method (hnsw, ivfflat) and options on emb, and returns both.
func vectorTable(t testing.TB, db *DB, name, method string, options map[string]string) (*catalog.TableDef, *catalog.IndexDef) {
	t.Helper()
	def := createTable(t, db, name, []catalog.ColumnDef{col("id", types.Int8T), col("emb", types.ArrayOf(types.Float4T, 1))})
	ix := &catalog.IndexDef{Schema: catalog.PublicSchema, Name: name + "_emb", Table: def.ID, Method: method,
		Columns: []int{def.Columns[1].ID}, Options: options}
	tx := db.Begin()
	if err := tx.CreateIndex(ix); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	return def, ix
}

// insertSegment inserts rows from..to-1 of vecs (id i, vector vecs[i])
// into a vectorTable in one transaction and flushes them into a segment.
func insertSegment(t testing.TB, db *DB, def *catalog.TableDef, vecs [][]float32, from, to int) {
	t.Helper()
	var batch [][]any
	for i := from; i < to; i++ {
		batch = append(batch, []any{i, vecs[i]})
	}
	tx := db.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, batch...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := db.flushTable(def.ID, true); err != nil {
		t.Fatal(err)
	}
}
