package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

func countRows(t *testing.T, tx *Tx, id uint64) int {
	t.Helper()
	r, err := tx.Scan(context.Background(), id, []int{0}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	n := 0
	for r.Next() {
		n += int(r.Record().NumRows())
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return n
}

func TestFlushAndCompaction(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 1 << 30})
	def := kvTable(t, db, "t")
	const batches, per = 12, 10
	var old *Tx
	var oldReaderRows int
	for b := 0; b < batches; b++ {
		var rows [][]any
		for i := 0; i < per; i++ {
			k := b*per + i
			rows = append(rows, []any{k, fmt.Sprint("v", k)})
		}
		insert(t, db, def, rows...)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
		if b == 2 {
			old = db.Begin()
		}
	}
	if n := len(db.published.Load().tables[def.ID].segments); n != batches {
		t.Fatalf("%d segments, want %d", n, batches)
	}
	// Delete every even key.
	tx := db.Begin()
	var del []int64
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[0].(int)%2 == 0 {
			del = append(del, r[2].(int64))
		}
	}
	tx.Delete(def.ID, del)
	mustCommit(t, tx)

	// A reader on an old snapshot, started before the compaction.
	oldReader, err := old.Scan(context.Background(), def.ID, []int{0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !oldReader.Next() {
		t.Fatal(oldReader.Err())
	}
	oldReaderRows += int(oldReader.Record().NumRows())

	before := db.published.Load().tables[def.ID].deleted.GetCardinality()
	for i := 0; i < 3; i++ {
		if err := db.compactTable(def.ID); err != nil {
			t.Fatal(err)
		}
	}
	ts := db.published.Load().tables[def.ID]
	if len(ts.segments) > 2*smallSegments {
		t.Fatalf("%d segments after compaction", len(ts.segments))
	}
	if after := ts.deleted.GetCardinality(); after >= before {
		t.Fatalf("deleted set not pruned: %d -> %d", before, after)
	}
	// The old snapshot still reads everything it saw.
	for oldReader.Next() {
		oldReaderRows += int(oldReader.Record().NumRows())
	}
	if oldReader.Err() != nil {
		t.Fatal(oldReader.Err())
	}
	oldReader.Release()
	if oldReaderRows != 3*per {
		t.Fatalf("old reader saw %d rows", oldReaderRows)
	}
	if n := countRows(t, old, def.ID); n != 3*per {
		t.Fatalf("old snapshot sees %d rows", n)
	}
	old.Rollback()
	// Replaced files are gone once no snapshot uses them.
	files, _ := filepath.Glob(filepath.Join(dir, "tables", "public", fmt.Sprint(def.ID), "seg-*.parquet"))
	if len(files) != len(ts.segments) {
		t.Fatalf("%d files for %d segments", len(files), len(ts.segments))
	}

	check := func(db *DB) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		rows := scanRows(t, tx, def.ID, false)
		if len(rows) != batches*per/2 {
			t.Fatalf("%d rows", len(rows))
		}
		for _, r := range rows {
			if r[0].(int)%2 == 0 {
				t.Fatalf("deleted row %v is back", r)
			}
		}
		// Unique index: a live key conflicts, a deleted (and compacted)
		// key is free.
		if sqlstate(tx.Insert(def.ID, makeRecord(t, def, []any{1, "x"}))) != "23505" {
			t.Fatal("live key accepted twice")
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{0, "x"})); err != nil {
			t.Fatal(err)
		}
	}
	check(db)
	db.Close()
	db = openDB(t, dir, Options{})
	check(db)
	db.Close()
}

func TestBackgroundFlushAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 100, WALCheckpointBytes: 32 << 10})
	def := kvTable(t, db, "t")
	for b := 0; b < 50; b++ {
		var rows [][]any
		for i := 0; i < 40; i++ {
			rows = append(rows, []any{b*40 + i, "some text to fill the log"})
		}
		insert(t, db, def, rows...)
	}
	// Background work catches up: segments exist, compaction keeps them
	// few, the WAL was checkpointed.
	for i := 0; i < 400; i++ {
		ts := db.published.Load().tables[def.ID]
		files, _ := listWALFiles(filepath.Join(dir, "wal"))
		if len(ts.segments) > 0 && len(ts.segments) <= 2*smallSegments+1 && len(files) <= 2 && ts.tailRows < 100 {
			break
		}
		sleepMS(10)
	}
	ts := db.published.Load().tables[def.ID]
	if len(ts.segments) == 0 || len(ts.segments) > 2*smallSegments+1 {
		t.Fatalf("%d segments", len(ts.segments))
	}
	tx := db.Begin()
	if n := countRows(t, tx, def.ID); n != 2000 {
		t.Fatalf("%d rows", n)
	}
	tx.Rollback()
	img := crashImage(t, db)
	db.Close()
	db = openDB(t, img, Options{})
	defer db.Close()
	tx = db.Begin()
	defer tx.Rollback()
	if n := countRows(t, tx, def.ID); n != 2000 {
		t.Fatalf("after crash: %d rows", n)
	}
}

func TestConcurrentCommits(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 500})
	def := createTable(t, db, "t", []catalog.ColumnDef{col("id", types.Int8T), col("w", types.Int4T)}, 0)
	const workers, each = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				tx := db.Begin()
				if err := tx.Insert(def.ID, makeRecord(t, def, []any{w*each + i, w})); err != nil {
					errs <- err
					return
				}
				if err := tx.Commit(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tx := db.Begin()
	if n := countRows(t, tx, def.ID); n != workers*each {
		t.Fatalf("%d rows", n)
	}
	tx.Rollback()
	img := crashImage(t, db)
	db.Close()
	db = openDB(t, img, Options{})
	defer db.Close()
	tx = db.Begin()
	defer tx.Rollback()
	if n := countRows(t, tx, def.ID); n != workers*each {
		t.Fatalf("after crash: %d rows", n)
	}
}

func TestDropTableRemovesFiles(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	db.Checkpoint()
	tdir := filepath.Join(dir, "tables", "public", fmt.Sprint(def.ID))
	if _, err := os.Stat(tdir); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	tx.DropTable(def.ID)
	mustCommit(t, tx)
	if _, err := os.Stat(tdir); !os.IsNotExist(err) {
		t.Fatalf("table folder after drop: %v", err)
	}
}

// TestCheckpointWhileTablesDrop checks that checkpoints racing DROP TABLE
// never fail: a flush writing into a table's folder while the drop
// commits must not find the folder gone under it.
func TestCheckpointWhileTablesDrop(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	defer db.Close()
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := db.Checkpoint(); err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := range 200 {
		def := kvTable(t, db, fmt.Sprint("t", i))
		insert(t, db, def, []any{1, "a"}, []any{2, "b"})
		tx := db.Begin()
		if err := tx.DropTable(def.ID); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
	}
	close(done)
	if err := <-errs; err != nil {
		t.Fatalf("checkpoint while tables drop: %v", err)
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "tables", "public")); err != nil || len(ents) != 0 {
		t.Fatalf("table folders left after the drops: %v %v", ents, err)
	}
}

// TestStress runs writers that insert and delete single rows while
// background flushes and compactions run, then checks the surviving keys
// against a model, live, after a crash and after a clean reopen.
func TestStress(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 50, WALCheckpointBytes: 64 << 10})
	def := createTable(t, db, "t", []catalog.ColumnDef{col("id", types.Int8T), col("w", types.Int4T)}, 0)
	const workers, ops = 4, 300
	var mu sync.Mutex
	live := map[int]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []int
			for i := 0; i < ops; i++ {
				tx := db.Begin()
				if i%3 == 2 && len(mine) > 0 {
					// Delete my oldest key.
					k := mine[0]
					r, err := tx.Scan(context.Background(), def.ID, []int{0}, true)
					if err != nil {
						errs <- err
						return
					}
					var ids []int64
					for r.Next() {
						rec := r.Record()
						for j := 0; j < int(rec.NumRows()); j++ {
							if int(goValue(rec.Column(0), j).(int)) == k {
								ids = append(ids, rec.Column(1).(interface{ Value(int) int64 }).Value(j))
							}
						}
					}
					r.Release()
					if len(ids) != 1 {
						errs <- fmt.Errorf("key %d: %d rows", k, len(ids))
						return
					}
					tx.Delete(def.ID, ids)
					if err := tx.Commit(); err != nil {
						errs <- err
						return
					}
					mine = mine[1:]
					mu.Lock()
					delete(live, k)
					mu.Unlock()
					continue
				}
				k := w*ops + i
				if err := tx.Insert(def.ID, makeRecord(t, def, []any{k, w})); err != nil {
					errs <- err
					return
				}
				if err := tx.Commit(); err != nil {
					errs <- err
					return
				}
				mine = append(mine, k)
				mu.Lock()
				live[k] = true
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check := func(db *DB, stage string) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		got := map[int]bool{}
		for _, r := range scanRows(t, tx, def.ID, false) {
			k := r[0].(int)
			if got[k] {
				t.Fatalf("%s: key %d twice", stage, k)
			}
			got[k] = true
		}
		if len(got) != len(live) {
			t.Fatalf("%s: %d keys, want %d", stage, len(got), len(live))
		}
		for k := range live {
			if !got[k] {
				t.Fatalf("%s: key %d missing", stage, k)
			}
		}
	}
	check(db, "live")
	img := crashImage(t, db)
	db2 := openDB(t, img, Options{FlushRows: 50})
	check(db2, "after crash")
	db2.Close()
	db.Close()
	db = openDB(t, dir, Options{})
	check(db, "after reopen")
	db.Close()
}

// TestMergePlan: compaction merges the small segments (below half the
// limit), smallest first, while the merged segment stays within the limit,
// once there are more than smallSegments of them or a transaction spilled
// two; full segments stay; a bulk load's many segments take several rounds.
func TestMergePlan(t *testing.T) {
	const limit = 100
	for _, c := range []struct {
		name    string
		rows    []int64
		spilled []int // indexes of spilled segments
		want    []int // indexes merged
		more    bool
	}{
		{name: "few small", rows: []int64{10, 10, 10, 10}},
		{name: "five small", rows: []int64{10, 40, 10, 30, 10}, want: []int{0, 1, 2, 3, 4}},
		{name: "within the limit", rows: []int64{30, 20, 10, 40, 25}, want: []int{0, 1, 2, 4}},
		{name: "full ones stay", rows: []int64{50, 90, 100, 400, 10, 10, 10, 10}},
		{name: "full ones stay, small merge", rows: []int64{50, 90, 10, 10, 10, 10, 10}, want: []int{2, 3, 4, 5, 6}},
		{name: "two spilled", rows: []int64{80, 10, 20}, spilled: []int{1, 2}, want: []int{1, 2}},
		{name: "one spilled", rows: []int64{80, 10, 20}, spilled: []int{2}},
		{name: "spilled and small", rows: []int64{45, 10, 20}, spilled: []int{1, 2}, want: []int{0, 1, 2}},
		{name: "the two smallest always", rows: []int64{49, 49, 49, 49, 49}, want: []int{0, 1}},
		// A bulk load: 30 spills of 10 rows become 10-row merges of 100
		// rows, round after round.
		{name: "bulk load", rows: slices.Repeat([]int64{10}, 30), want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, more: true},
		{name: "bulk load, last round", rows: slices.Repeat([]int64{10}, 14), want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "last merge stays small", rows: slices.Repeat([]int64{5}, 14), want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
	} {
		spilled := make([]bool, len(c.rows))
		for _, i := range c.spilled {
			spilled[i] = true
		}
		chosen, more := mergePlan(c.rows, spilled, limit)
		var got []int
		for i, ok := range chosen {
			if ok {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, c.want) || more != c.more {
			t.Errorf("%s: merges %v (more %v), want %v (more %v)", c.name, got, more, c.want, c.more)
		}
	}
}

// TestCompactionRoundsBoundSegments: a table with many small segments is
// merged by the background worker, round after round, into segments of at
// most mergeRows rows each (not one segment of every row), and every row
// stays once.
func TestCompactionRoundsBoundSegments(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	const segs, per = 40, 5
	for b := 0; b < segs; b++ {
		var rows [][]any
		for i := 0; i < per; i++ {
			rows = append(rows, []any{b*per + i, "v"})
		}
		insert(t, db, def, rows...)
		if err := db.flushTable(def.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	db.workMu.Lock()
	db.opts.FlushRows = 4 // mergeRows 64: segments of 60-64 rows
	db.workMu.Unlock()
	db.requestFlush(def.ID)
	var sizes []int64
	for deadline := time.Now().Add(20 * time.Second); ; {
		sizes = db.published.Load().tables[def.ID].segmentRows()
		small := 0
		for _, n := range sizes {
			if n < 32 {
				small++
			}
		}
		if small <= smallSegments {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("compaction stopped at segments of %v rows", sizes)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, n := range sizes {
		if n > 64 {
			t.Fatalf("a merged segment of %d rows, over the limit of 64: %v", n, sizes)
		}
	}
	if len(sizes) < 3 {
		t.Fatalf("segments of %v rows: merged beyond the limit", sizes)
	}
	tx := db.Begin()
	defer tx.Rollback()
	if n := countRows(t, tx, def.ID); n != segs*per {
		t.Fatalf("%d rows after compaction, want %d", n, segs*per)
	}
}
