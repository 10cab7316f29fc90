package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The crash loop: concurrent writers commit numbered transactions (inserts
// of a few or of thousands of rows, single-row and bulk updates, deletes,
// and one row in a second table per transaction) while the server process
// is SIGKILLed at random instants. After every restart each acknowledged
// transaction must be there exactly, each unacknowledged one entirely or
// not at all, and nothing else.

const (
	crashDim     = 48
	crashWriters = 4
)

// crashKind is how a row got its current value.
type crashKind uint8

const (
	kindInsert crashKind = iota
	kindUpdate
	kindBulk
)

// crashVal is the state of one row: the transaction that last wrote it and
// how. The row's columns are a function of (id, tx, kind).
type crashVal struct {
	tx   int64
	kind crashKind
}

func crashNote(id int64, v crashVal) string {
	if v.kind == kindBulk {
		return fmt.Sprintf("bulk %d", v.tx)
	}
	return fmt.Sprintf("%d/%d/%d", id, v.tx, v.kind)
}

// crashVector is a vector of arbitrary float32 bit patterns (no NaN), so a
// conversion anywhere on the way shows.
func crashVector(id int64, v crashVal) []float32 {
	seed := id*1_000_003 + v.tx*7 + int64(v.kind)
	if v.kind == kindBulk {
		seed = v.tx * 7919
	}
	h := fnv.New64a()
	fmt.Fprint(h, seed)
	r := rand.New(rand.NewSource(int64(h.Sum64())))
	out := make([]float32, crashDim)
	for i := range out {
		for {
			f := math.Float32frombits(r.Uint32())
			if !math.IsNaN(float64(f)) {
				out[i] = f
				break
			}
		}
	}
	out[0] = float32(math.Copysign(0, -1)) // negative zero
	return out
}

// crashTx is one transaction a writer runs: the rows it writes (with their
// new values) and the rows it deletes.
type crashTx struct {
	n       int64
	w       int
	inserts []int64
	updates []int64
	bulk    []int64
	deletes []int64
	// committing is set once COMMIT was sent.
	committing bool
}

// crashWriter owns the rows whose id / 1e9 is its number; its model holds
// the acknowledged state of those rows.
type crashWriter struct {
	w      int
	model  map[int64]crashVal
	nextID int64
	// inflight is the transaction that was running when the server died.
	inflight *crashTx
	acked    []int64 // transaction numbers acknowledged
}

// apply folds tx into the writer's model.
func (cw *crashWriter) apply(tx *crashTx) {
	for _, id := range tx.inserts {
		cw.model[id] = crashVal{tx: tx.n, kind: kindInsert}
	}
	for _, id := range tx.updates {
		cw.model[id] = crashVal{tx: tx.n, kind: kindUpdate}
	}
	for _, id := range tx.bulk {
		cw.model[id] = crashVal{tx: tx.n, kind: kindBulk}
	}
	for _, id := range tx.deletes {
		delete(cw.model, id)
	}
	cw.acked = append(cw.acked, tx.n)
}

// plan draws the next transaction.
func (cw *crashWriter) plan(r *rand.Rand, n int64) *crashTx {
	tx := &crashTx{n: n, w: cw.w}
	live := make([]int64, 0, len(cw.model))
	for id := range cw.model {
		live = append(live, id)
	}
	slices.Sort(live)
	r.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	take := func(k int) []int64 {
		k = min(k, len(live))
		out := live[:k]
		live = live[k:]
		return out
	}
	var ins int
	switch x := r.Intn(100); {
	case x < 8:
		ins = 1500 + r.Intn(1500) // large enough to flush while it commits
	case x < 30:
		ins = 100 + r.Intn(300)
	default:
		ins = 1 + r.Intn(20)
	}
	if len(cw.model) > 6000 {
		ins /= 4
	}
	for i := 0; i < ins; i++ {
		cw.nextID++
		tx.inserts = append(tx.inserts, int64(cw.w)*1_000_000_000+cw.nextID)
	}
	if r.Intn(2) == 0 {
		tx.updates = take(1 + r.Intn(8))
	}
	if r.Intn(4) == 0 {
		tx.bulk = take(10 + r.Intn(200))
	}
	if r.Intn(3) == 0 {
		k := 1 + r.Intn(30)
		if len(cw.model) > 4000 {
			k = 200 + r.Intn(800)
		}
		tx.deletes = take(k)
	}
	return tx
}

// run executes tx on conn; it returns nil once COMMIT is acknowledged.
func (tx *crashTx) run(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		return err
	}
	for start := 0; start < len(tx.inserts); start += 500 {
		chunk := tx.inserts[start:min(start+500, len(tx.inserts))]
		var sb strings.Builder
		sb.WriteString("INSERT INTO ev (id, tx, w, note, emb) VALUES ")
		args := make([]any, 0, 5*len(chunk))
		for i, id := range chunk {
			if i > 0 {
				sb.WriteString(", ")
			}
			k := len(args)
			fmt.Fprintf(&sb, "($%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5)
			v := crashVal{tx: tx.n, kind: kindInsert}
			args = append(args, id, tx.n, tx.w, crashNote(id, v), crashVector(id, v))
		}
		if _, err := conn.Exec(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	if len(tx.updates) > 0 {
		b := &pgx.Batch{}
		for _, id := range tx.updates {
			v := crashVal{tx: tx.n, kind: kindUpdate}
			b.Queue("UPDATE ev SET tx = $1, note = $2, emb = $3 WHERE id = $4", tx.n, crashNote(id, v), crashVector(id, v), id)
		}
		res := conn.SendBatch(ctx, b)
		for range tx.updates {
			tag, err := res.Exec()
			if err != nil {
				res.Close()
				return err
			}
			if tag.RowsAffected() != 1 {
				res.Close()
				return fmt.Errorf("tx %d: update touched %d rows", tx.n, tag.RowsAffected())
			}
		}
		if err := res.Close(); err != nil {
			return err
		}
	}
	if len(tx.bulk) > 0 {
		v := crashVal{tx: tx.n, kind: kindBulk}
		tag, err := conn.Exec(ctx, "UPDATE ev SET tx = $1, note = $2, emb = $3 WHERE id = ANY($4)", tx.n, crashNote(0, v), crashVector(0, v), tx.bulk)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(tx.bulk)) {
			return fmt.Errorf("tx %d: bulk update touched %d rows, want %d", tx.n, tag.RowsAffected(), len(tx.bulk))
		}
	}
	if len(tx.deletes) > 0 {
		tag, err := conn.Exec(ctx, "DELETE FROM ev WHERE id = ANY($1)", tx.deletes)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(tx.deletes)) {
			return fmt.Errorf("tx %d: delete touched %d rows, want %d", tx.n, tag.RowsAffected(), len(tx.deletes))
		}
	}
	if _, err := conn.Exec(ctx, "INSERT INTO txlog (tx, w, rows) VALUES ($1, $2, $3)", tx.n, tx.w, len(tx.inserts)); err != nil {
		return err
	}
	tx.committing = true
	tag, err := conn.Exec(ctx, "COMMIT")
	if err != nil {
		return err
	}
	if tag.String() != "COMMIT" {
		return fmt.Errorf("tx %d: COMMIT answered %q", tx.n, tag.String())
	}
	return nil
}

func TestCrashLoop(t *testing.T) {
	kills, budget := 24, 80*time.Second
	if testing.Short() {
		kills, budget = 20, 45*time.Second
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	flags := []string{"--flush-rows", "400", "--wal-checkpoint-bytes", strconv.Itoa(3 << 20)}

	p := startLogged(t, dir, flags...)
	setup := p.connect(t)
	mustExec(t, setup, `CREATE TABLE ev (id bigint PRIMARY KEY, tx bigint NOT NULL, w int NOT NULL, note text, emb float4[])`)
	mustExec(t, setup, `CREATE TABLE txlog (tx bigint PRIMARY KEY, w int NOT NULL, rows int NOT NULL)`)
	setup.Close(context.Background())

	writers := make([]*crashWriter, crashWriters)
	for i := range writers {
		writers[i] = &crashWriter{w: i + 1, model: map[int64]crashVal{}}
	}
	var txCounter int64
	var mu sync.Mutex // guards txCounter and r
	start := time.Now()
	var totalAcked, totalInflightApplied, totalInflightAbsent, midFlush, killed int
	for iter := 0; ; iter++ {
		// At least 20 kills; then up to the target count for half the
		// budget, and as many as fit in the budget.
		if elapsed := time.Since(start); killed >= 20 && (killed >= kills && elapsed > budget/2 || elapsed > budget) {
			break
		}
		if iter > 0 {
			p = startLogged(t, dir, flags...)
			if p.addr == "" {
				keepFailedDir(t, dir)
				t.Fatalf("iteration %d: server did not start:\n%s", iter, p.log())
			}
			applied, absent := verifyCrash(t, p, writers, iter)
			totalInflightApplied += applied
			totalInflightAbsent += absent
		}
		// Writers run until the kill.
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		acked := make([]int, len(writers))
		for i, cw := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := pgx.Connect(ctx, p.connString())
				if err != nil {
					return // killed before it connected
				}
				defer conn.Close(context.Background())
				for ctx.Err() == nil {
					mu.Lock()
					txCounter++
					tx := cw.plan(rand.New(rand.NewSource(r.Int63())), txCounter)
					mu.Unlock()
					if err := tx.run(ctx, conn); err != nil {
						if st := sqlState(err); st != "" && st != "57P01" && st != "25P02" {
							t.Errorf("writer %d tx %d: %v", cw.w, tx.n, err)
						}
						cw.inflight = tx
						return
					}
					cw.apply(tx)
					acked[i]++
				}
			}()
		}
		mu.Lock()
		wait := time.Duration(100+r.Intn(1400)) * time.Millisecond
		graceful := iter%7 == 6
		mu.Unlock()
		time.Sleep(wait)
		if graceful {
			p.cmd.Process.Signal(syscall.SIGTERM)
			if code := p.wait(20 * time.Second); code != 0 {
				t.Fatalf("iteration %d: exit code %d after SIGTERM:\n%s", iter, code, p.log())
			}
		} else {
			p.kill()
			killed++
			// A temporary file left behind shows the kill landed in a
			// flush or compaction.
			if tmp, _ := filepath.Glob(filepath.Join(dir, "tables", "*", "*", "*.tmp")); len(tmp) > 0 {
				midFlush++
			}
		}
		cancel()
		wg.Wait()
		noPanic(t, p.log())
		if t.Failed() {
			t.FailNow()
		}
		n := 0
		for _, a := range acked {
			n += a
		}
		totalAcked += n
	}
	t.Logf("%d SIGKILLs (%d in a flush or compaction); %d transactions acknowledged; unacknowledged at a kill: %d found applied, %d absent; %s",
		killed, midFlush, totalAcked, totalInflightApplied, totalInflightAbsent, time.Since(start).Round(time.Millisecond))
	p = startLogged(t, dir, flags...)
	verifyCrash(t, p, writers, -1)
	p.kill()
}

// verifyCrash reads everything back and checks it against the writers'
// models; an unacknowledged transaction found complete is folded in.
func verifyCrash(t *testing.T, p *logProcess, writers []*crashWriter, iter int) (applied, absent int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn := p.connect(t)
	defer conn.Close(context.Background())

	got := map[int64]crashVal{}
	rows, err := conn.Query(ctx, "SELECT id, tx, w, note, emb FROM ev")
	if err != nil {
		t.Fatalf("iteration %d: %v", iter, err)
	}
	for rows.Next() {
		var id, tx int64
		var w int
		var note string
		var emb []float32
		if err := rows.Scan(&id, &tx, &w, &note, &emb); err != nil {
			t.Fatal(err)
		}
		if _, dup := got[id]; dup {
			t.Fatalf("iteration %d: id %d appears twice", iter, id)
		}
		if w != int(id/1_000_000_000) {
			t.Fatalf("iteration %d: row %d has w %d", iter, id, w)
		}
		kind := kindInsert
		switch {
		case strings.HasPrefix(note, "bulk "):
			kind = kindBulk
		case strings.HasSuffix(note, "/1"):
			kind = kindUpdate
		}
		v := crashVal{tx: tx, kind: kind}
		if note != crashNote(id, v) {
			t.Fatalf("iteration %d: row %d note %q, want %q", iter, id, note, crashNote(id, v))
		}
		want := crashVector(id, v)
		if len(emb) != len(want) {
			t.Fatalf("iteration %d: row %d embedding has %d elements", iter, id, len(emb))
		}
		for i := range want {
			if math.Float32bits(emb[i]) != math.Float32bits(want[i]) {
				t.Fatalf("iteration %d: row %d embedding[%d] = %08x, want %08x", iter, id, i, math.Float32bits(emb[i]), math.Float32bits(want[i]))
			}
		}
		got[id] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("iteration %d: %v", iter, err)
	}
	logged := map[int64]bool{}
	rows, err = conn.Query(ctx, "SELECT tx FROM txlog")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tx int64
		if err := rows.Scan(&tx); err != nil {
			t.Fatal(err)
		}
		logged[tx] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	want := map[int64]crashVal{}
	wantLogged := map[int64]bool{}
	for _, cw := range writers {
		if tx := cw.inflight; tx != nil && logged[tx.n] {
			if !tx.committing {
				t.Fatalf("iteration %d: transaction %d is present but never sent COMMIT", iter, tx.n)
			}
			cw.apply(tx)
			applied++
		} else if tx != nil {
			absent++
		}
		cw.inflight = nil
		for id, v := range cw.model {
			want[id] = v
		}
		for _, n := range cw.acked {
			wantLogged[n] = true
		}
	}
	var problems []string
	for id, v := range want {
		g, ok := got[id]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("row %d (tx %d kind %d) is missing", id, v.tx, v.kind))
		case g != v:
			problems = append(problems, fmt.Sprintf("row %d is tx %d kind %d, want tx %d kind %d", id, g.tx, g.kind, v.tx, v.kind))
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			problems = append(problems, fmt.Sprintf("row %d (tx %d kind %d) should not exist", id, g.tx, g.kind))
		}
	}
	for n := range wantLogged {
		if !logged[n] {
			problems = append(problems, fmt.Sprintf("txlog lacks acknowledged transaction %d", n))
		}
	}
	for n := range logged {
		if !wantLogged[n] {
			problems = append(problems, fmt.Sprintf("txlog holds transaction %d, never acknowledged nor in flight", n))
		}
	}
	if len(problems) > 0 {
		keepFailedDir(t, p.dir)
		slices.Sort(problems)
		if len(problems) > 20 {
			problems = append(problems[:20], fmt.Sprintf("... and %d more", len(problems)-20))
		}
		t.Fatalf("iteration %d: %d rows, want %d:\n%s\nserver log:\n%s", iter, len(got), len(want), strings.Join(problems, "\n"), p.log())
	}
	noPanic(t, p.log())
	return applied, absent
}

// keepFailedDir copies a data directory that failed a check to
// $CAIRN_KEEP_FAILED (when set) for a post-mortem.
func keepFailedDir(t *testing.T, dir string) {
	dst := os.Getenv("CAIRN_KEEP_FAILED")
	if dst == "" {
		return
	}
	dst = filepath.Join(dst, filepath.Base(filepath.Dir(dir)))
	if out, err := exec.Command("cp", "-a", dir, dst).CombinedOutput(); err != nil {
		t.Logf("keeping %s: %v %s", dir, err, out)
		return
	}
	t.Logf("data directory kept in %s", dst)
}
