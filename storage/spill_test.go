package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
)

// spillOpts makes every few hundred rows of a transaction spill, and keeps
// flushes out of the way.
var spillOpts = Options{SpillBytes: 4 << 10, FlushRows: 1 << 30}

// wordRows builds rows (id, "w<id> common") for ids [from, to).
func wordRows(from, to int) [][]any {
	var rows [][]any
	for i := from; i < to; i++ {
		rows = append(rows, []any{i, fmt.Sprintf("w%d common", i)})
	}
	return rows
}

// insertBatches inserts ids [0, n) in batches of 100 through tx.
func insertBatches(t *testing.T, tx *Tx, def *catalog.TableDef, from, to int) {
	t.Helper()
	for i := from; i < to; i += 100 {
		if err := tx.Insert(def.ID, makeRecord(t, def, wordRows(i, min(i+100, to))...)); err != nil {
			t.Fatalf("Insert: %v", err)
		}
	}
}

// segmentFiles lists the segment files in the table's folder.
func segmentFiles(t *testing.T, db *DB, def *catalog.TableDef) []string {
	t.Helper()
	rt := db.lookupRT(def.ID)
	ents, err := os.ReadDir(rt.dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "seg-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestSpillReadsCommitsAndRecovers: a transaction larger than SpillBytes
// writes its rows to segment files as it goes, reads them back (scan,
// fetch, key lookups, text search), deletes some of them again, and its
// commit survives a crash with the deletions applied and the keys unique.
func TestSpillReadsCommitsAndRecovers(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, spillOpts)
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{-1, "committed before"})

	tx := db.Begin()
	insertBatches(t, tx, def, 0, 2000)
	tt := tx.tables[def.ID]
	if len(tt.spilled) < 2 {
		t.Fatalf("spilled %d segments, want several", len(tt.spilled))
	}
	if got := len(scanRows(t, tx, def.ID, false)); got != 2001 {
		t.Fatalf("scan in the transaction: %d rows, want 2001", got)
	}
	parts, err := tx.ScanPartitions(context.Background(), def.ID, []int{0}, false, 3)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range parts {
		for p.Next() {
			n += int(p.Record().NumRows())
		}
		p.Release()
	}
	if n != 2001 {
		t.Fatalf("partitioned scan: %d rows, want 2001", n)
	}
	// A key of a spilled row is taken.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{5, "again"})); sqlstate(err) != "23505" {
		t.Fatalf("duplicate of a spilled key: %v, want 23505", err)
	}
	// Delete rows 0..9 (spilled) through their row IDs.
	withIDs := scanRows(t, tx, def.ID, true)
	var del []int64
	for _, r := range withIDs {
		if id := r[0].(int); id >= 0 && id < 10 {
			del = append(del, r[2].(int64))
		}
	}
	if err := tx.Delete(def.ID, del); err != nil {
		t.Fatal(err)
	}
	rec, err := tx.FetchRows(context.Background(), def.ID, []int{0}, []int64{del[0], withIDs[len(withIDs)-1][2].(int64)})
	if err != nil {
		t.Fatal(err)
	}
	if rec.NumRows() != 1 {
		t.Fatalf("fetch of a deleted and a live spilled row: %d rows, want 1", rec.NumRows())
	}
	rec.Release()
	m, err := tx.TextSearch(context.Background(), def.ID, 1, []string{"w1500", "w3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.RowIDs) != 1 { // w3 was deleted
		t.Fatalf("text search over spilled rows: %d matches, want 1", len(m.RowIDs))
	}
	// The key of a deleted spilled row is free again.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{5, "reinserted"})); err != nil {
		t.Fatalf("reinserting a deleted spilled key: %v", err)
	}
	mustCommit(t, tx)
	// Every row of the transaction went to its files (the last ones at
	// COMMIT), none to the tail and the WAL.
	if n := db.head.Load().tables[def.ID].tailRows; n != 1 {
		t.Fatalf("tail holds %d rows after the commit, want 1 (the row committed before)", n)
	}

	crash := t.TempDir()
	copyDir(t, dir, crash)
	want := rowsString(scanAll(t, db, def))
	db2 := openDB(t, crash, spillOpts)
	defer db2.Close()
	if got := rowsString(scanAll(t, db2, def)); got != want {
		t.Fatalf("after recovery:\n got %.200s\nwant %.200s", got, want)
	}
	if n := len(scanAll(t, db2, def)); n != 1+2000-10+1 {
		t.Fatalf("after recovery: %d rows", n)
	}
	tx2 := db2.Begin()
	defer tx2.Rollback()
	if err := tx2.Insert(def.ID, makeRecord(t, def, []any{1999, "dup"})); sqlstate(err) != "23505" {
		t.Fatalf("duplicate of a recovered spilled key: %v, want 23505", err)
	}

	// A checkpoint lists the spilled segments in the manifest; a restart
	// from it needs no WAL.
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	_, segs, _, err := readManifest(db.lookupRT(def.ID).dir)
	if err != nil {
		t.Fatal(err)
	}
	var listed int64
	for _, s := range segs {
		listed += s.rows
	}
	if listed < 1+2000-10+1 { // compaction may have dropped the deleted rows
		t.Fatalf("manifest lists %d rows, want every committed one", listed)
	}
	crash2 := t.TempDir()
	copyDir(t, dir, crash2)
	db3 := openDB(t, crash2, spillOpts)
	defer db3.Close()
	if got := rowsString(scanAll(t, db3, def)); got != want {
		t.Fatalf("after checkpoint and restart: rows differ")
	}
}

// scanAll reads the committed rows of def.
func scanAll(t *testing.T, db *DB, def *catalog.TableDef) [][]any {
	t.Helper()
	tx := db.Begin()
	defer tx.Rollback()
	return scanRows(t, tx, def.ID, false)
}

// TestSpillRollbackRemovesFiles: the files of a transaction that rolls
// back (whole, or to a savepoint taken before it spilled) go away, and
// nothing of it is visible.
func TestSpillRollbackRemovesFiles(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, spillOpts)
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{-1, "keep"})

	tx := db.Begin()
	insertBatches(t, tx, def, 0, 1000)
	if len(segmentFiles(t, db, def)) == 0 {
		t.Fatal("no spilled files")
	}
	tx.Rollback()
	if files := segmentFiles(t, db, def); len(files) != 0 {
		t.Fatalf("files left after rollback: %v", files)
	}

	tx = db.Begin()
	insertBatches(t, tx, def, 0, 300)
	sp := tx.Savepoint()
	insertBatches(t, tx, def, 300, 1500)
	tx.RollbackTo(sp)
	if got := len(scanRows(t, tx, def.ID, false)); got != 301 {
		t.Fatalf("after rollback to savepoint: %d rows, want 301", got)
	}
	// Keys of the rolled-back rows are free.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1000, "free"})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if n := len(scanAll(t, db, def)); n != 302 {
		t.Fatalf("committed %d rows, want 302", n)
	}
	kept := map[string]bool{}
	for _, s := range db.head.Load().tables[def.ID].segments {
		kept[s.name] = true
	}
	for _, f := range segmentFiles(t, db, def) {
		if strings.HasSuffix(f, ".parquet") && !kept[f] {
			t.Fatalf("file %s of a rolled-back spill is left", f)
		}
	}

	// A crash before commit leaves files that recovery removes.
	tx = db.Begin()
	insertBatches(t, tx, def, 5000, 6000)
	crash := t.TempDir()
	copyDir(t, dir, crash)
	tx.Rollback()
	db2 := openDB(t, crash, spillOpts)
	defer db2.Close()
	if n := len(scanAll(t, db2, def)); n != 302 {
		t.Fatalf("after a crash mid-transaction: %d rows, want 302", n)
	}
	for _, f := range segmentFiles(t, db2, def) {
		if strings.HasSuffix(f, ".parquet") {
			if _, err := os.Stat(filepath.Join(db.lookupRT(def.ID).dir, f)); err != nil {
				t.Fatalf("recovery kept %s, which no commit lists", f)
			}
		}
	}
}

// TestSpillThenFlushAndCompact: spilled segments and tail flushes mix in
// one table; compaction merges them; every row stays once.
func TestSpillThenFlushAndCompact(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{SpillBytes: 4 << 10, FlushRows: 50})
	defer db.Close()
	def := kvTable(t, db, "t")
	next := 0
	for round := 0; round < 12; round++ {
		tx := db.Begin()
		insertBatches(t, tx, def, next, next+400)
		next += 400
		mustCommit(t, tx)
		insert(t, db, def, []any{100000 + round, "small"})
	}
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := db.compactTable(def.ID); err != nil {
			t.Fatal(err)
		}
	}
	rows := scanAll(t, db, def)
	if len(rows) != next+12 {
		t.Fatalf("%d rows, want %d", len(rows), next+12)
	}
	seen := map[int]bool{}
	for _, r := range rows {
		id := r[0].(int)
		if seen[id] {
			t.Fatalf("row %d twice", id)
		}
		seen[id] = true
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := openDB(t, dir, spillOpts)
	defer db2.Close()
	if n := len(scanAll(t, db2, def)); n != next+12 {
		t.Fatalf("after restart: %d rows, want %d", n, next+12)
	}
}

// TestSpillConcurrentWithFlushAndCheckpoint: bulk transactions that spill
// commit while other sessions commit small inserts and deletes, and
// flushes, compactions and checkpoints run; every committed row is there
// once, in the database and after a restart.
func TestSpillConcurrentWithFlushAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{SpillBytes: 8 << 10, FlushRows: 200, WALCheckpointBytes: 64 << 10})
	def := kvTable(t, db, "t")
	const bulks, bulkRows, smalls = 6, 900, 150
	errs := make(chan error, 3)
	go func() { // bulk loads, one rolled back in three
		for b := 0; b < bulks; b++ {
			tx := db.Begin()
			for i := 0; i < bulkRows; i += 100 {
				if err := tx.Insert(def.ID, makeRecord(t, def, wordRows(b*bulkRows+i, b*bulkRows+i+100)...)); err != nil {
					errs <- err
					return
				}
			}
			if b%3 == 2 {
				tx.Rollback()
				continue
			}
			if err := tx.Commit(); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	go func() { // small commits
		for i := 0; i < smalls; i++ {
			tx := db.Begin()
			if err := tx.Insert(def.ID, makeRecord(t, def, []any{100000 + i, "small"})); err != nil {
				errs <- err
				return
			}
			if err := tx.Commit(); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	go func() { // checkpoints and compactions
		for i := 0; i < 20; i++ {
			if err := db.Checkpoint(); err != nil {
				errs <- err
				return
			}
			if err := db.compactTable(def.ID); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	want := (bulks-bulks/3)*bulkRows + smalls
	check := func(db *DB, label string) {
		t.Helper()
		rows := scanAll(t, db, def)
		seen := map[int]bool{}
		for _, r := range rows {
			id := r[0].(int)
			if seen[id] {
				t.Fatalf("%s: row %d twice", label, id)
			}
			seen[id] = true
		}
		if len(rows) != want {
			t.Fatalf("%s: %d rows, want %d", label, len(rows), want)
		}
	}
	check(db, "live")
	crash := t.TempDir()
	copyDir(t, dir, crash)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2 := openDB(t, dir, Options{})
	check(db2, "after restart")
	db2.Close()
	db3 := openDB(t, crash, Options{})
	defer db3.Close()
	check(db3, "after a crash image")
}

// TestSpillFailureFailsTheTransaction: when a spill cannot be written, the
// insert fails with 58030, and nothing of the transaction is committed.
func TestSpillFailureFailsTheTransaction(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, spillOpts)
	defer db.Close()
	def := kvTable(t, db, "t")
	rt := db.rt(def.ID, def.Schema)
	if err := os.MkdirAll(filepath.Dir(rt.dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file where the table's folder goes: the spill's mkdir fails.
	if err := os.WriteFile(rt.dir, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	var err error
	for i := 0; i < 2000 && err == nil; i += 100 {
		err = tx.Insert(def.ID, makeRecord(t, def, wordRows(i, i+100)...))
	}
	if sqlstate(err) != "58030" {
		t.Fatalf("spill into a blocked folder: %v, want 58030", err)
	}
	tx.Rollback()
	if err := os.Remove(rt.dir); err != nil {
		t.Fatal(err)
	}
	if n := len(scanAll(t, db, def)); n != 0 {
		t.Fatalf("%d rows committed", n)
	}
}

// TestSpillWritesPartsInParallel: a spill of many batches is written as
// one file per processor at the same time; the rows of every part are
// there in the transaction, after the commit (which fsyncs the files) and
// after a crash, and their keys are taken.
func TestSpillWritesPartsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	// 100-row batches of about 3 KiB: a spill takes about ten of them.
	db := openDB(t, dir, Options{SpillBytes: 32 << 10, FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")

	tx := db.Begin()
	tt := tx.table(def.ID)
	from := 0
	for ; len(tt.spilled) == 0; from += 100 {
		insertBatches(t, tx, def, from, from+100)
	}
	if len(tt.spilled) != 2 {
		t.Fatalf("the first spill wrote %d files, want 2", len(tt.spilled))
	}
	if a, b := tt.spilled[0], tt.spilled[1]; a.rows == 0 || b.rows == 0 || a.maxRow >= b.minRow {
		t.Fatalf("parts hold rows %d..%d (%d) and %d..%d (%d): want both, in order", a.minRow, a.maxRow, a.rows, b.minRow, b.maxRow, b.rows)
	}
	insertBatches(t, tx, def, from, 3000)
	if got := len(scanRows(t, tx, def.ID, false)); got != 3000 {
		t.Fatalf("scan in the transaction: %d rows, want 3000", got)
	}
	mustCommit(t, tx)

	crash := t.TempDir()
	copyDir(t, dir, crash)
	db2 := openDB(t, crash, spillOpts)
	defer db2.Close()
	if got, want := rowsString(scanAll(t, db2, def)), rowsString(scanAll(t, db, def)); got != want || len(scanAll(t, db2, def)) != 3000 {
		t.Fatalf("after recovery: %d rows, want the 3000 committed", len(scanAll(t, db2, def)))
	}
	tx2 := db2.Begin()
	defer tx2.Rollback()
	for _, id := range []int{0, from - 1, 2999} {
		if err := tx2.Insert(def.ID, makeRecord(t, def, []any{id, "dup"})); sqlstate(err) != "23505" {
			t.Fatalf("duplicate of spilled key %d: %v, want 23505", id, err)
		}
	}
}

// TestCompactionStopsWhenTableDropped: the merge of a bulk load's spilled
// segments stops when the table is dropped midway (it was a whole merge
// thrown away), and the table's files go.
func TestCompactionStopsWhenTableDropped(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{SpillBytes: 4 << 10, FlushRows: 1 << 30})
	defer func() { testCompactBatch = nil }() // after the worker stopped
	defer db.Close()
	def := kvTable(t, db, "t")
	var batches atomic.Int32
	dropped := make(chan error, 1)
	testCompactBatch = func() {
		if batches.Add(1) == 2 {
			drop := db.Begin()
			err := drop.DropTable(def.ID)
			if err == nil {
				err = drop.Commit()
			}
			dropped <- err
		}
	}
	tx := db.Begin()
	insertBatches(t, tx, def, 0, 4000)
	tableDir := db.lookupRT(def.ID).dir
	mustCommit(t, tx) // the worker merges the spilled segments
	select {
	case err := <-dropped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no merge of the spilled segments")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(tableDir); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dropped table's folder is still there")
		}
	}
	if n := batches.Load(); n != 2 {
		t.Fatalf("the merge read %d batches, want it to stop at the drop (the second)", n)
	}
	if n := db.Counters().Compactions; n != 0 {
		t.Fatalf("%d compactions counted for a dropped table", n)
	}
}
