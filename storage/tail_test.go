package storage

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/objstore"
)

// TestTailFollower: a second server on the store sees the first one's
// commits in its next transaction — rows, deletes, CREATE TABLE, ADD
// COLUMN and a unique index, which it then enforces — while a transaction
// it began before a commit keeps its snapshot; it keeps its place in the
// log across the writer's checkpoints.
func TestTailFollower(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()

	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 3)...)
	caughtUp(t, b, def.ID, "[[0 v] [1 v] [2 v]]")

	// Snapshot isolation: a transaction of b that began before a's commit.
	old := b.Begin()
	tx := a.Begin()
	if err := tx.Delete(def.ID, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(3, 4)...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	caughtUp(t, b, def.ID, "[[0 v] [2 v] [3 v]]")
	if got := rowsString(scanRows(t, old, def.ID, false)); got != "[[0 v] [1 v] [2 v]]" {
		t.Fatalf("the older snapshot sees %s", got)
	}
	old.Rollback()

	// DDL: a new table, a new column and a unique index.
	def2 := createTable(t, a, "u", []catalog.ColumnDef{col("id", types.Int8T)}, 0)
	insert(t, a, def2, []any{7})
	tx = a.Begin()
	nd := tx.Catalog().Tables[def.ID].Clone()
	nd.Columns = append(nd.Columns, catalog.ColumnDef{ID: 3, Name: "w", Type: types.TextT})
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateIndex(&catalog.IndexDef{Schema: catalog.PublicSchema, Name: "t_v", Table: def.ID, Method: "btree", Columns: []int{1}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	caughtUp(t, b, def2.ID, "[[7]]")
	tx = b.Begin() // caught up above
	bdef := tx.Catalog().Tables[def.ID]
	tx.Rollback()
	if len(bdef.Columns) != 3 || bdef.Columns[2].Name != "w" {
		t.Fatalf("the follower's table after ADD COLUMN: %+v", bdef.Columns)
	}
	insert(t, a, bdef, []any{10, "x", "y"})
	caughtUp(t, b, def.ID, "[[0 v <nil>] [10 x y] [2 v <nil>] [3 v <nil>]]")
	// The unique index is the follower's too: it rejects a's key.
	tx = b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, bdef, []any{10, "z", "z"})); sqlstate(err) != "23505" {
		t.Fatalf("duplicate key on the follower: %v", err)
	}
	tx.Rollback()

	// Checkpoints of the writer while the follower tails: it finds the
	// log objects it has not read yet.
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def2, []any{8})
	if err := a.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def2, []any{9})
	caughtUp(t, b, def2.ID, "[[7] [8] [9]]")

	// The follower writes once it caught up; the first server sees it.
	insert(t, b, def2, []any{11})
	caughtUp(t, a, def2.ID, "[[11] [7] [8] [9]]")
}

// caughtUp is expectRows after a catch-up of db with the other servers.
func caughtUp(t *testing.T, db *DB, id uint64, want string) {
	t.Helper()
	if err := db.CatchUp(); err != nil {
		t.Fatalf("CatchUp: %v", err)
	}
	expectRows(t, db, id, want)
}

// TestTailMaxStaleness: with MaxStaleness a transaction begins without a
// catch-up while the last one is younger, and with one once it is older.
func TestTailMaxStaleness(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st, MaxStaleness: 300 * time.Millisecond})
	defer b.crash()
	def := kvTable(t, a, "t")
	caughtUp(t, b, def.ID, "[]")
	insert(t, a, def, kvRows(0, 1)...)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	tx := b.Begin()
	if tx.Catalog().Tables[def.ID] == nil {
		t.Fatal("the follower does not see the table")
	}
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[]" {
		t.Fatalf("within max staleness the follower saw %s: it caught up", got)
	}
	tx.Rollback()
	time.Sleep(350 * time.Millisecond)
	caughtUp(t, b, def.ID, "[[0 v]]")
}

// BenchmarkTailCatchUp measures DB.CatchUp on a second server: when it is
// up to date (the GET of the next log object is a 404) and when the
// first server committed one row since (one log object to apply). The
// store is gofakes3 in the process, or the bucket CAIRN_BENCH_STORE names
// (s3://bucket/prefix, with the AWS_* environment pointing at it, e.g.
// moto_server on loopback).
func BenchmarkTailCatchUp(b *testing.B) {
	for _, name := range []string{"up-to-date", "one-commit"} {
		b.Run(name, func(b *testing.B) {
			var st objstore.Store
			if url := os.Getenv("CAIRN_BENCH_STORE"); url != "" {
				var err error
				if st, err = objstore.Open(context.Background(), fmt.Sprintf("%s/%d", url, time.Now().UnixNano())); err != nil {
					b.Fatal(err)
				}
			} else {
				st = fakeS3(b)
			}
			w := openDB(b, b.TempDir(), Options{Store: st})
			defer w.Close()
			r := openDB(b, b.TempDir(), Options{Store: st})
			defer r.crash()
			def := createTable(b, w, "t", []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)})
			b.ResetTimer()
			for i := range b.N {
				if name == "one-commit" {
					b.StopTimer()
					tx := w.Begin()
					if err := tx.Insert(def.ID, makeRecord(b, def, []any{i, "v"})); err != nil {
						b.Fatal(err)
					}
					mustCommit(b, tx)
					b.StartTimer()
				}
				if err := r.CatchUp(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTailConflicts: a transaction of the follower that began before a
// commit of the writer it then applied fails with 40001 when it deletes a
// row that commit deleted, and commits when it inserts into a table that
// commit inserted into (its rows get new row IDs: the writer's may carry
// the ones it drew); both servers see the same rows under the same IDs.
func TestTailConflicts(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 3)...)
	caughtUp(t, b, def.ID, "[[0 v] [1 v] [2 v]]")

	del := b.Begin()
	if err := del.Delete(def.ID, []int64{1}); err != nil {
		t.Fatal(err)
	}
	ins := b.Begin()
	if err := ins.Insert(def.ID, makeRecord(t, def, kvRows(10, 11)...)); err != nil {
		t.Fatal(err)
	}
	tx := a.Begin()
	if err := tx.Delete(def.ID, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(3, 4)...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if err := del.Commit(); sqlstate(err) != "40001" {
		t.Fatalf("delete of a row the writer deleted: %v", err)
	}
	mustCommit(t, ins) // under new row IDs (rebase.go)
	caughtUp(t, a, def.ID, "[[0 v] [10 v] [2 v] [3 v]]")
	tx = a.Begin()
	rows := rowsString(scanRows(t, tx, def.ID, true))
	tx.Rollback()
	tx = b.Begin()
	if got := rowsString(scanRows(t, tx, def.ID, true)); got != rows {
		t.Fatalf("row IDs differ: %s on the writer, %s on the follower", rows, got)
	}
	tx.Rollback()
}

// TestTailReaderWritesNoFiles: a server that never wrote to the store may
// share it with a writer it has not heard from yet, so it neither flushes
// the tails it recovered nor checkpoints, not even at Close.
func TestTailReaderWritesNoFiles(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 3)...)
	before := storeKeys(t, st, "")
	b := openDB(t, t.TempDir(), Options{Store: st, FlushRows: 1})
	caughtUp(t, b, def.ID, "[[0 v] [1 v] [2 v]]")
	if err := b.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if after := storeKeys(t, st, ""); !slices.Equal(before, after) {
		t.Fatalf("the reader changed the store: %v, then %v", before, after)
	}
}

// TestTailSequences: two servers drawing from one sequence never hand out
// a value twice, whether a reservation races another server's unrelated
// commit (the loser retries it: nextval never fails with 40001) or the
// other server's reservation of the same sequence, drawn by DB.NextVal or
// inside a transaction; descending and cycling sequences, setval on one
// server and a restart keep it so.
func TestTailSequences(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	tx := a.Begin()
	for _, d := range []*catalog.SequenceDef{
		{Schema: "public", Name: "up", Increment: 1, Min: 1, Max: math.MaxInt64, Start: 1},
		{Schema: "public", Name: "down", Increment: -3, Min: -1000000, Max: -1, Start: -1},
		{Schema: "public", Name: "ring", Increment: 1, Min: 1, Max: 1000000, Start: 1, Cycle: true},
	} {
		if err := tx.CreateSequence(d); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[int64]string{}
	row := 0
	draw := func(db *DB, who, seq string, inTx bool) {
		t.Helper()
		// Another server's commit first: db's next put loses its race.
		other := a
		if db == a {
			other = b
		}
		if err := other.CatchUp(); err != nil {
			t.Fatal(err)
		}
		insert(t, other, def, kvRows(row, row+1)...)
		row++
		var v int64
		var err error
		if inTx {
			tx := db.Begin()
			if v, err = tx.NextVal("public", seq); err == nil {
				if err = tx.Insert(def.ID, makeRecord(t, def, kvRows(row, row+1)...)); err == nil {
					row++
					err = tx.Commit()
					if sqlstate(err) == "40001" {
						err = nil // the insert lost; the value stays drawn
					}
				}
			} else {
				tx.Rollback()
			}
		} else {
			v, err = db.NextVal("public", seq)
		}
		if err != nil {
			t.Fatalf("%s: nextval(%s): %v", who, seq, err)
		}
		if seen[seq] == nil {
			seen[seq] = map[int64]string{}
		}
		if prev, ok := seen[seq][v]; ok {
			t.Fatalf("%s: nextval(%s) = %d, handed out before by %s", who, seq, v, prev)
		}
		seen[seq][v] = who
	}
	for i := range 40 {
		for _, seq := range []string{"up", "down"} {
			draw(a, fmt.Sprint("a", i), seq, i%2 == 0)
			draw(b, fmt.Sprint("b", i), seq, i%3 == 0)
			draw(b, fmt.Sprint("b'", i), seq, false)
		}
	}
	// A cycling sequence repeats only after a whole cycle.
	for i := range 30 {
		draw(a, fmt.Sprint("a", i), "ring", false)
		draw(b, fmt.Sprint("b", i), "ring", i%2 == 0)
	}
	if err := a.SetVal("public", "ring", 999999, true); err != nil {
		t.Fatal(err)
	}
	seen["ring"] = map[int64]string{}
	for i, want := range []int64{1000000, 1} {
		if v, err := a.NextVal("public", "ring"); err != nil || v != want {
			t.Fatalf("nextval(ring) after setval(999999) = %d, %v; want %d", v, err, want)
		}
		seen["ring"][want] = fmt.Sprint("a wrapping ", i)
	}
	for i := range 20 {
		draw(b, fmt.Sprint("b after the wrap", i), "ring", false)
		draw(a, fmt.Sprint("a after the wrap", i), "ring", false)
	}

	// setval on one server moves the other's next value.
	if err := a.SetVal("public", "up", 5000, true); err != nil {
		t.Fatal(err)
	}
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if v, err := b.NextVal("public", "up"); err != nil || v != 5001 {
		t.Fatalf("nextval on the other server after setval(5000) = %d, %v; want 5001", v, err)
	}
	// setval racing a commit of the other server is retried too.
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, kvRows(row, row+1)...)
	row++
	if err := b.SetVal("public", "up", 7000, false); err != nil {
		t.Fatalf("setval losing the log race: %v", err)
	}
	if v, err := a.NextVal("public", "up"); err != nil || v != 7000 {
		t.Fatalf("nextval after the other server's setval(7000, false) = %d, %v; want 7000", v, err)
	}
	delete(seen, "up")
	seen["up"] = map[int64]string{7000: "a"}

	// A restart of one server resumes past every value either handed out.
	b.crash()
	b = openDB(t, t.TempDir(), Options{Store: st})
	for i := range 10 {
		for _, seq := range []string{"up", "down"} {
			draw(b, fmt.Sprint("restarted b", i), seq, false)
			draw(a, fmt.Sprint("a after restart", i), seq, i%2 == 1)
		}
	}
}

// TestTailSameCommitTwoServers: two servers committing byte for byte the
// same change (one key, under the same row ID, at the same LSN) race for
// one log object: exactly one wins; the other's commit, rebased, fails
// with 23505 (the key is the winner's), and so does its retry, so the key
// has one acknowledged insert.
func TestTailSameCommitTwoServers(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(0, 1)...)
	caughtUp(t, b, def.ID, "[[0 v]]")
	ta, tb := a.Begin(), b.Begin()
	for _, tx := range []*Tx{ta, tb} {
		if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(5, 6)...)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, ta)
	if err := tb.Commit(); sqlstate(err) != "23505" {
		t.Fatalf("the second server's identical commit: %v, want 23505", err)
	}
	tx := b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(5, 6)...)); sqlstate(err) != "23505" {
		t.Fatalf("its retry: %v, want 23505", err)
	}
	tx.Rollback()
	caughtUp(t, b, def.ID, "[[0 v] [5 v]]")
}

// TestTailPutCommitSurvivesLaterLoss: a commit whose record a group
// commit put succeeds, even when the next group commit lost the log to
// another server before the commit's own wait for durability ran, and
// is not put twice; only the commits of the losing group are rebased.
func TestTailPutCommitSurvivesLaterLoss(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	caughtUp(t, b, def.ID, "[]")
	// commit starts a commit of key k on b and returns once its record is
	// appended: its wait for durability blocks on syncMu, which the test
	// holds.
	commit := func(k int) chan error {
		lsn := func() uint64 {
			b.mu.Lock()
			defer b.mu.Unlock()
			return b.lastLSN
		}
		before := lsn()
		tx := b.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(k, k+1)...)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- tx.Commit() }()
		for lsn() == before {
			time.Sleep(time.Millisecond)
		}
		return done
	}
	b.syncMu.Lock()
	first := commit(1)
	if err := b.syncLocked(); err != nil { // puts the first commit
		b.syncMu.Unlock()
		t.Fatal(err)
	}
	if err := a.CatchUp(); err != nil {
		b.syncMu.Unlock()
		t.Fatal(err)
	}
	insert(t, a, def, kvRows(2, 3)...) // takes b's next log object
	second := commit(3)
	if err := b.syncLocked(); sqlstate(err) != "40001" {
		b.syncMu.Unlock()
		t.Fatalf("the group commit after a's commit: %v, want 40001", err)
	}
	b.syncMu.Unlock()
	if err := <-first; err != nil {
		t.Fatalf("the commit put before the lost race: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("the commit of the lost group, rebased: %v", err)
	}
	caughtUp(t, b, def.ID, "[[1 v] [2 v] [3 v]]")
	caughtUp(t, a, def.ID, "[[1 v] [2 v] [3 v]]")
}

// TestTailUpdateRace: an UPDATE (delete, then insert of the new version)
// of a row that another server updated meanwhile, applied between the two
// steps, is a write conflict (40001), not a duplicate of the other
// server's version of the key.
func TestTailUpdateRace(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	insert(t, a, def, kvRows(1, 2)...)
	caughtUp(t, b, def.ID, "[[1 v]]")
	var update func(db *DB, tx *Tx, v string) error
	update = func(db *DB, tx *Tx, v string) error {
		old := scanRows(t, tx, def.ID, true)[0][2].(int64)
		if err := tx.Delete(def.ID, []int64{old}); err != nil {
			return err
		}
		if db == b { // a's update lands between b's delete and insert
			if err := a.CatchUp(); err != nil {
				t.Fatal(err)
			}
			if err := update(a, a.Begin(), "a"); err != nil {
				t.Fatal(err)
			}
			if err := b.CatchUp(); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, v})); err != nil {
			return err
		}
		return tx.Commit()
	}
	tx := b.Begin()
	if err := update(b, tx, "b"); sqlstate(err) != "40001" {
		t.Fatalf("b's update: %v, want 40001", err)
	}
	tx.Rollback()
	caughtUp(t, b, def.ID, "[[1 a]]")
}

// TestTailCatchUpOverPendingCommit: a commit appended while a catch-up
// runs (after the catch-up put this server's pending records) was checked
// without the other server's log object the catch-up applies next: it
// loses the race, instead of failing the catch-up, and is rebased.
func TestTailCatchUpOverPendingCommit(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	caughtUp(t, b, def.ID, "[]")
	insert(t, a, def, kvRows(1, 2)...)
	h := b.home.(*objectHome)
	b.syncMu.Lock() // as the catch-up holds it
	tx := b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(2, 3)...)); err != nil {
		b.syncMu.Unlock()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- tx.Commit() }()
	for {
		b.mu.Lock()
		pending := b.lastLSN > b.durableLSN.Load()
		b.mu.Unlock()
		if pending {
			break
		}
		time.Sleep(time.Millisecond)
	}
	n := b.wal.(*objLog).next
	body, err := h.getAll(context.Background(), logKey(n))
	if err == nil {
		err = h.applyObject(n, body)
	}
	b.syncMu.Unlock()
	if err != nil {
		t.Fatalf("applying a's log object: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the commit appended meanwhile, rebased: %v", err)
	}
	caughtUp(t, b, def.ID, "[[1 v] [2 v]]")
	caughtUp(t, a, def.ID, "[[1 v] [2 v]]")
}

// countingStore is a real store that counts the GETs of each key.
type countingStore struct {
	objstore.Store
	mu   sync.Mutex
	gets map[string]int
}

func (s *countingStore) Get(ctx context.Context, key string) (io.ReadCloser, objstore.Info, error) {
	s.mu.Lock()
	s.gets[key]++
	s.mu.Unlock()
	return s.Store.Get(ctx, key)
}

// take returns the counts so far and starts again.
func (s *countingStore) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gets
	s.gets = map[string]int{}
	return g
}

// TestTailReadsTheCheckpointOncePerSecond: a catch-up GETs the next log
// object every time but the checkpoint object at most once a second while
// a missing log object can only be one not yet written, and again once
// the second has passed; and a follower that checkpoints left behind (its
// next log object deleted) reads it once its last catch-up is older than
// half the retention, and fails with 55000 instead of serving a stale
// state.
func TestTailReadsTheCheckpointOncePerSecond(t *testing.T) {
	st := fakeS3(t)
	w := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: -1})
	defer w.crash()
	def := kvTable(t, w, "t")
	counted := &countingStore{Store: st, gets: map[string]int{}}
	r := openDB(t, t.TempDir(), Options{Store: counted, StoreRetention: time.Hour})
	defer r.crash()
	if err := r.CatchUp(); err != nil {
		t.Fatal(err)
	}
	counted.take()
	insert(t, w, def, kvRows(0, 1)...)
	for range 3 {
		if err := r.CatchUp(); err != nil {
			t.Fatal(err)
		}
	}
	if got := counted.take(); got[storeCheckpointKey] != 0 || got[logKey(r.wal.(*objLog).next)] != 3 {
		t.Fatalf("three catch-ups within a second read %v: want the next log object three times and no checkpoint", got)
	}
	caughtUp(t, r, def.ID, "[[0 v]]")
	time.Sleep(checkpointPoll)
	if err := r.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if got := counted.take(); got[storeCheckpointKey] != 1 {
		t.Fatalf("a catch-up a second later read the checkpoint %d times, want 1", got[storeCheckpointKey])
	}

	// Left behind: two checkpoints of the writer delete the log objects
	// the follower has not read (the writer's retention is none).
	f := openDB(t, t.TempDir(), Options{Store: st, StoreRetention: time.Hour})
	defer f.crash()
	if err := f.CatchUp(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		insert(t, w, def, kvRows(10+i, 11+i)...)
		if err := w.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	if keys := storeKeys(t, st, storeLogPrefix); len(keys) > 0 && keys[0] <= logKey(f.wal.(*objLog).next) {
		t.Fatalf("the writer kept the log objects from %s on: the follower is not left behind", keys[0])
	}
	// (A follower that caught up less than half its retention ago cannot
	// be behind this way; this one's last catch-up is made an hour old.)
	f.home.(*objectHome).caughtUp.Store(time.Now().Add(-time.Hour).UnixNano())
	if err := f.CatchUp(); sqlstate(err) != "55000" {
		t.Fatalf("a follower left behind by two checkpoints: %v, want 55000", err)
	}
}
