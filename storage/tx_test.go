package storage

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func kvTable(t testing.TB, db *DB, name string) *catalog.TableDef {
	return createTable(t, db, name, []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)}, 0)
}

func insert(t testing.TB, db *DB, def *catalog.TableDef, rows ...[]any) {
	t.Helper()
	tx := db.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, rows...)); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	mustCommit(t, tx)
}

func expectRows(t *testing.T, db *DB, id uint64, want string) {
	t.Helper()
	tx := db.Begin()
	defer tx.Rollback()
	if got := rowsString(scanRows(t, tx, id, false)); got != want {
		t.Fatalf("rows = %s, want %s", got, want)
	}
}

func TestInsertScanDeleteTruncate(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, nil}, []any{3, "c"})
	expectRows(t, db, def.ID, "[[1 a] [2 <nil>] [3 c]]")

	// Delete row 2 through a scan's row IDs.
	tx := db.Begin()
	rows := scanRows(t, tx, def.ID, true)
	var del []int64
	for _, r := range rows {
		if r[0] == 2 {
			del = append(del, r[2].(int64))
		}
	}
	if err := tx.Delete(def.ID, del); err != nil {
		t.Fatal(err)
	}
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[[1 a] [3 c]]" {
		t.Fatalf("in tx: %s", got)
	}
	// Not visible to others before commit.
	expectRows(t, db, def.ID, "[[1 a] [2 <nil>] [3 c]]")
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 a] [3 c]]")

	// Own inserts, then deleting one of them.
	tx = db.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{4, "d"}, []any{5, "e"})); err != nil {
		t.Fatal(err)
	}
	rows = scanRows(t, tx, def.ID, true)
	for _, r := range rows {
		if r[0] == 5 {
			tx.Delete(def.ID, []int64{r[2].(int64)})
		}
	}
	if n := tx.RowCount(def.ID); n != 3 {
		t.Fatalf("RowCount = %d", n)
	}
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 a] [3 c] [4 d]]")

	// Truncate, then insert in the same tx.
	tx = db.Begin()
	if err := tx.Truncate(def.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "again"})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 again]]")

	// Rollback has no effect.
	tx = db.Begin()
	tx.Insert(def.ID, makeRecord(t, def, []any{9, "x"}))
	tx.Rollback()
	expectRows(t, db, def.ID, "[[1 again]]")
}

func TestSnapshotIsolation(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	old := db.Begin()
	insert(t, db, def, []any{2, "b"})
	if got := rowsString(scanRows(t, old, def.ID, false)); got != "[[1 a]]" {
		t.Fatalf("old snapshot sees %s", got)
	}
	old.Rollback()
	expectRows(t, db, def.ID, "[[1 a] [2 b]]")
}

func TestReopenAfterClose(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, "b"})
	tx := db.Begin()
	rows := scanRows(t, tx, def.ID, true)
	tx.Delete(def.ID, []int64{rows[0][2].(int64)})
	mustCommit(t, tx)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A clean close leaves no WAL behind and one segment.
	if ents, _ := os.ReadDir(filepath.Join(dir, "wal")); len(ents) != 0 {
		t.Fatalf("wal files after Close: %v", ents)
	}
	db = openDB(t, dir, Options{})
	defer db.Close()
	expectRows(t, db, def.ID, "[[2 b]]")
	if d := db.Catalog().Table("public", "t"); d == nil || d.ID != def.ID {
		t.Fatalf("catalog after reopen: %+v", d)
	}
	// Row IDs continue past the old ones and keys are still unique.
	tx = db.Begin()
	err := tx.Insert(def.ID, makeRecord(t, def, []any{2, "dup"}))
	if sqlstate(err) != "23505" {
		t.Fatalf("duplicate after reopen: %v", err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "a2"})); err != nil {
		t.Fatal(err)
	}
	rows = scanRows(t, tx, def.ID, true)
	if rows[0][2].(int64) <= rows[1][2].(int64) {
		t.Fatalf("row IDs did not advance: %v", rows)
	}
	mustCommit(t, tx)
}

// crashImage copies the directory of db while it is open (no Close): what
// a kill -9 would leave, since every commit was fsynced. Background work
// is paused during the copy so that the copy is a consistent disk image.
func crashImage(t *testing.T, db *DB) string {
	img := t.TempDir()
	unfreeze := db.freeze()
	defer unfreeze()
	copyDir(t, db.Dir(), img)
	return img
}

func TestCrashRecovery(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, "b"})
	// DDL and DML in one transaction.
	tx := db.Begin()
	d2, err := tx.CreateTable(&catalog.TableDef{Schema: "public", Name: "u", Columns: []catalog.ColumnDef{col("x", types.Int4T)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(d2.ID, makeRecord(t, d2, []any{7})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	tx = db.Begin()
	rows := scanRows(t, tx, def.ID, true)
	tx.Delete(def.ID, []int64{rows[1][2].(int64)})
	mustCommit(t, tx)
	// An uncommitted transaction leaves nothing.
	open := db.Begin()
	open.Insert(def.ID, makeRecord(t, def, []any{3, "uncommitted"}))

	img := crashImage(t, db)
	db2 := openDB(t, img, Options{})
	expectRows(t, db2, def.ID, "[[1 a]]")
	expectRows(t, db2, d2.ID, "[[7]]")
	// Recovery twice in a row (crash during recovery) is fine too.
	img2 := crashImage(t, db2)
	db2.Close()
	db3 := openDB(t, img2, Options{})
	expectRows(t, db3, def.ID, "[[1 a]]")
	db3.Close()
	open.Rollback()
	db.Close()
}

func TestCrashAfterFlushAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 2})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, "b"}, []any{3, "c"})
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	insert(t, db, def, []any{4, "d"})
	tx := db.Begin()
	rows := scanRows(t, tx, def.ID, true)
	tx.Delete(def.ID, []int64{rows[0][2].(int64)})
	mustCommit(t, tx)
	tx = db.Begin()
	tx.Truncate(def.ID)
	tx.Insert(def.ID, makeRecord(t, def, []any{10, "z"}))
	mustCommit(t, tx)
	insert(t, db, def, []any{11, "y"})
	img := crashImage(t, db)
	db.Close()
	db2 := openDB(t, img, Options{FlushRows: 2})
	defer db2.Close()
	expectRows(t, db2, def.ID, "[[10 z] [11 y]]")
}

func TestTornWALTail(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	insert(t, db, def, []any{2, "b"})
	img := crashImage(t, db)
	db.Close()

	last := lastWAL(t, img)
	fr := walFrames(t, last)
	end := fr[len(fr)-1].off + fr[len(fr)-1].size
	// Cut the last record in half: its end never reached the disk.
	f, err := os.OpenFile(last, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, 10), end-10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	db2 := openDB(t, img, Options{})
	expectRows(t, db2, def.ID, "[[1 a]]")
	insert(t, db2, def, []any{3, "c"})
	db2.Close()
	db3 := openDB(t, img, Options{})
	expectRows(t, db3, def.ID, "[[1 a] [3 c]]")
	db3.Close()

	// A flipped byte in the last record fails its checksum.
	img2 := t.TempDir()
	db = openDB(t, img2, Options{})
	def = kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	insert(t, db, def, []any{2, "b"})
	img3 := crashImage(t, db)
	db.Close()
	last = lastWAL(t, img3)
	fr = walFrames(t, last)
	flipByte(t, last, fr[len(fr)-1].off+fr[len(fr)-1].size-5)
	db4 := openDB(t, img3, Options{})
	expectRows(t, db4, def.ID, "[[1 a]]")
	db4.Close()
}

// TestWALPastItsZeroFill writes records past the zeros a WAL file is
// filled with ahead of them, crashes, and finds every record: the zeros
// end the log, and a record written over them or past them is read back.
func TestWALPastItsZeroFill(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 20})
	def := kvTable(t, db, "t")
	big := strings.Repeat("x", 300<<10)
	n := 3 * walPrealloc / len(big)
	for i := 0; i < n; i++ {
		insert(t, db, def, []any{i, big})
	}
	img := crashImage(t, db)
	db.Close()
	last := lastWAL(t, img)
	if st, err := os.Stat(last); err != nil || st.Size() < 2*walPrealloc {
		t.Fatalf("wal file %s: %v, %v; want the records of several zero-fills", last, st, err)
	}
	db2 := openDB(t, img, Options{FlushRows: 1 << 20})
	defer db2.Close()
	tx := db2.Begin()
	defer tx.Rollback()
	rows := scanRows(t, tx, def.ID, false)
	if len(rows) != n {
		t.Fatalf("%d rows after recovery, want %d", len(rows), n)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if fmt.Sprint(r[1]) != big {
			t.Fatalf("row %v after recovery: %d bytes of text, want %d", r[0], len(fmt.Sprint(r[1])), len(big))
		}
		seen[fmt.Sprint(r[0])] = true
	}
	for i := 0; i < n; i++ {
		if !seen[fmt.Sprint(i)] {
			t.Fatalf("row %d is missing after recovery", i)
		}
	}
}

func TestUniqueWithinAndAcrossTx(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	// Within one record.
	tx := db.Begin()
	err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "a"}, []any{1, "b"}))
	pe := pgerr.From(err)
	if pe.Code != "23505" || pe.Message != `duplicate key value violates unique constraint "t_pkey"` ||
		pe.Detail != "Key (id)=(1) already exists." {
		t.Fatalf("err = %v (%s)", err, pe.Detail)
	}
	// The failed insert had no effect.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "a"})); err != nil {
		t.Fatal(err)
	}
	// Against the transaction's earlier rows.
	if sqlstate(tx.Insert(def.ID, makeRecord(t, def, []any{1, "c"}))) != "23505" {
		t.Fatal("no error for duplicate within tx")
	}
	// NULLs never conflict.
	tx.Insert(def.ID, makeRecord(t, def, []any{nil, "n1"}))
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{nil, "n2"})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	// Against committed rows.
	tx = db.Begin()
	if sqlstate(tx.Insert(def.ID, makeRecord(t, def, []any{1, "x"}))) != "23505" {
		t.Fatal("no error for duplicate of committed row")
	}
	tx.Rollback()
	// Delete + insert of the same key in one tx (UPDATE) is fine.
	tx = db.Begin()
	rows := scanRows(t, tx, def.ID, true)
	for _, r := range rows {
		if r[0] == 1 {
			tx.Delete(def.ID, []int64{r[2].(int64)})
		}
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{1, "updated"})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 updated] [<nil> n1] [<nil> n2]]")

	// Two concurrent transactions insert the same key: the second to
	// commit fails.
	// The second waits for the first's lock on the key, and fails once
	// the first commits.
	a, b := db.Begin(), db.Begin()
	if err := a.Insert(def.ID, makeRecord(t, def, []any{5, "a"})); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- b.Insert(def.ID, makeRecord(t, def, []any{5, "b"})) }()
	time.Sleep(20 * time.Millisecond)
	mustCommit(t, a)
	if sqlstate(<-done) != "23505" {
		t.Fatal("second inserter did not fail")
	}
	b.Rollback()
	expectRows(t, db, def.ID, "[[1 updated] [5 a] [<nil> n1] [<nil> n2]]")
	// After a delete commits, the key is free again.
	tx = db.Begin()
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[0] == 5 {
			tx.Delete(def.ID, []int64{r[2].(int64)})
		}
	}
	mustCommit(t, tx)
	insert(t, db, def, []any{5, "again"})
}

func TestUniqueKeyEncoding(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	tx := db.Begin()
	def, err := tx.CreateTable(&catalog.TableDef{Schema: "public", Name: "n", Columns: []catalog.ColumnDef{
		col("a", types.NumericT), col("b", types.Float8T)},
		Uniques: []catalog.UniqueDef{{Name: "n_a_key", Columns: []int{1}}, {Name: "n_b_key", Columns: []int{2}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{"1.50", 0.0})); err != nil {
		t.Fatal(err)
	}
	err = tx.Insert(def.ID, makeRecord(t, def, []any{"01.5", 1.0}))
	if pe := pgerr.From(err); pe.Code != "23505" || pe.Message != `duplicate key value violates unique constraint "n_a_key"` {
		t.Fatalf("numeric: %v", err)
	}
	negZero := 0.0
	negZero = -negZero
	err = tx.Insert(def.ID, makeRecord(t, def, []any{"2", negZero}))
	if pe := pgerr.From(err); pe.Code != "23505" || pe.Detail != "Key (b)=(-0) already exists." {
		t.Fatalf("float: %v %q", err, pgerr.From(err).Detail)
	}
	tx.Rollback()
}

func TestDeleteConflict(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, "b"})
	rowOf := func(rows [][]any, k int) int64 {
		for _, r := range rows {
			if r[0] == k {
				return r[2].(int64)
			}
		}
		t.Fatalf("no row %d", k)
		return 0
	}
	a, b := db.Begin(), db.Begin()
	ra, rb := scanRows(t, a, def.ID, true), scanRows(t, b, def.ID, true)
	a.Delete(def.ID, []int64{rowOf(ra, 1)})
	// b waits for a's lock on the row; once a commits, b has lost.
	done := make(chan error, 1)
	go func() { done <- b.Delete(def.ID, []int64{rowOf(rb, 1)}) }()
	select {
	case err := <-done:
		t.Fatalf("second delete of a locked row did not wait: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	mustCommit(t, a)
	err := <-done
	if pe := pgerr.From(err); pe.Code != "40001" || pe.Message != "could not serialize access due to concurrent update" || !IsConflict(err) {
		t.Fatalf("err = %v", err)
	}
	b.Rollback()
	// A row deleted by a commit after the snapshot: no wait, a conflict.
	insert(t, db, def, []any{1, "a"})
	a, b = db.Begin(), db.Begin()
	ra, rb = scanRows(t, a, def.ID, true), scanRows(t, b, def.ID, true)
	a.Delete(def.ID, []int64{rowOf(ra, 1)})
	mustCommit(t, a)
	if err := b.Delete(def.ID, []int64{rowOf(rb, 1)}); !IsConflict(err) {
		t.Fatalf("delete of a row deleted since the snapshot: %v", err)
	}
	b.Rollback()
	// A waiter whose holder rolls back goes ahead.
	insert(t, db, def, []any{1, "a"})
	a, b = db.Begin(), db.Begin()
	ra, rb = scanRows(t, a, def.ID, true), scanRows(t, b, def.ID, true)
	a.Delete(def.ID, []int64{rowOf(ra, 1)})
	go func() { done <- b.Delete(def.ID, []int64{rowOf(rb, 1)}) }()
	time.Sleep(20 * time.Millisecond)
	a.Rollback()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustCommit(t, b)
	expectRows(t, db, def.ID, "[[2 b]]")
	// Two transactions locking rows in opposite orders: one of them gets
	// 40P01 instead of waiting for ever.
	insert(t, db, def, []any{5, "x"}, []any{6, "y"})
	a, b = db.Begin(), db.Begin()
	ra, rb = scanRows(t, a, def.ID, true), scanRows(t, b, def.ID, true)
	if err := a.Delete(def.ID, []int64{rowOf(ra, 5)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(def.ID, []int64{rowOf(rb, 6)}); err != nil {
		t.Fatal(err)
	}
	go func() { done <- a.Delete(def.ID, []int64{rowOf(ra, 6)}) }()
	time.Sleep(20 * time.Millisecond)
	if err := b.Delete(def.ID, []int64{rowOf(rb, 5)}); sqlstate(err) != "40P01" {
		t.Fatalf("deadlock: %v", err)
	}
	b.Rollback()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustCommit(t, a)
	expectRows(t, db, def.ID, "[[2 b]]")
	// Deleting different rows concurrently is fine.
	insert(t, db, def, []any{3, "c"}, []any{4, "d"})
	a, b = db.Begin(), db.Begin()
	ra, rb = scanRows(t, a, def.ID, true), scanRows(t, b, def.ID, true)
	if err := a.Delete(def.ID, []int64{rowOf(ra, 2)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(def.ID, []int64{rowOf(rb, 3)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, a)
	mustCommit(t, b)
	expectRows(t, db, def.ID, "[[4 d]]")
	// A delete against a concurrent truncate fails.
	a, b = db.Begin(), db.Begin()
	ra = scanRows(t, a, def.ID, true)
	a.Delete(def.ID, []int64{ra[0][2].(int64)})
	b.Truncate(def.ID)
	mustCommit(t, b)
	if sqlstate(a.Commit()) != "40001" {
		t.Fatal("delete after concurrent truncate committed")
	}
}

func TestDDL(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	tx := db.Begin()
	if sqlstate(tx.CreateSchema("public", 0)) != "42P06" {
		t.Fatal("duplicate schema")
	}
	if err := tx.CreateSchema("ws", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CreateTable(&catalog.TableDef{Schema: "nope", Name: "t", Columns: []catalog.ColumnDef{col("a", types.Int4T)}}); sqlstate(err) != "3F000" {
		t.Fatalf("unknown schema: %v", err)
	}
	d, err := tx.CreateTable(&catalog.TableDef{Schema: "ws", Name: "t", Columns: []catalog.ColumnDef{col("a", types.Int4T), col("b", types.TextT)}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Columns[0].ID != 1 || d.Columns[1].ID != 2 || d.NextColumnID != 3 || d.ID == 0 {
		t.Fatalf("ids: %+v", d)
	}
	if _, err := tx.CreateTable(&catalog.TableDef{Schema: "ws", Name: "t", Columns: []catalog.ColumnDef{col("a", types.Int4T)}}); sqlstate(err) != "42P07" {
		t.Fatalf("duplicate table: %v", err)
	}
	if _, err := tx.CreateTable(&catalog.TableDef{Schema: "ws", Name: "x", Columns: []catalog.ColumnDef{col("a", types.Int4T), col("a", types.Int4T)}}); sqlstate(err) != "42701" {
		t.Fatalf("duplicate column: %v", err)
	}
	if err := tx.CreateSequence(&catalog.SequenceDef{Schema: "ws", Name: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateIndex(&catalog.IndexDef{Schema: "ws", Name: "t_b_idx", Table: d.ID, Method: "btree", Columns: []int{2}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateIndex(&catalog.IndexDef{Schema: "ws", Name: "t", Table: d.ID, Method: "btree", Columns: []int{2}}); sqlstate(err) != "42P07" {
		t.Fatalf("index name clash: %v", err)
	}
	// Not visible outside before commit.
	if db.Catalog().Table("ws", "t") != nil {
		t.Fatal("uncommitted table visible")
	}
	if tx.Catalog().Table("ws", "t") == nil {
		t.Fatal("tx does not see its table")
	}
	mustCommit(t, tx)
	if db.Catalog().Table("ws", "t") == nil || db.Catalog().Index("ws", "t_b_idx") == nil {
		t.Fatal("committed DDL not visible")
	}

	tx = db.Begin()
	if sqlstate(tx.DropSchema("ws", false)) != "2BP01" {
		t.Fatal("drop non-empty schema")
	}
	if sqlstate(tx.DropSchema("nope", false)) != "3F000" {
		t.Fatal("drop unknown schema")
	}
	if sqlstate(tx.DropTable(12345)) != "42P01" {
		t.Fatal("drop unknown table")
	}
	if sqlstate(tx.DropIndex("ws", "nope")) != "42704" {
		t.Fatal("drop unknown index")
	}
	if sqlstate(tx.DropSequence("ws", "nope")) != "42P01" {
		t.Fatal("drop unknown sequence")
	}
	tx.Rollback()

	// Rename a table and a column; the data stays.
	d = db.Catalog().Table("ws", "t")
	tx = db.Begin()
	tx.Insert(d.ID, makeRecord(t, d, []any{1, "one"}))
	mustCommit(t, tx)
	tx = db.Begin()
	nd := d.Clone()
	nd.Name = "t2"
	nd.Columns[1].Name = "bee"
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	expectRows(t, db, d.ID, "[[1 one]]")
	if _, c := db.Catalog().Tables[d.ID].Column("bee"); c == nil || db.Catalog().Table("ws", "t2") == nil {
		t.Fatal("rename not applied")
	}

	tx = db.Begin()
	if err := tx.DropSchema("ws", true); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	if db.Catalog().Schemas["ws"] != nil || db.Catalog().Tables[d.ID] != nil || len(db.Catalog().Sequences) != 0 {
		t.Fatal("cascade left objects")
	}
	db.Close()
	db = openDB(t, dir, Options{})
	defer db.Close()
	if db.Catalog().Schemas["ws"] != nil || db.Catalog().Schemas["public"] == nil {
		t.Fatalf("schemas after reopen: %v", db.Catalog().Schemas)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "tables", "ws")); len(ents) != 0 {
		t.Fatalf("dropped table folder remains: %v", ents)
	}
}

func TestConcurrentDDLRebase(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	a, b := db.Begin(), db.Begin()
	if _, err := a.CreateTable(&catalog.TableDef{Schema: "public", Name: "a", Columns: []catalog.ColumnDef{col("x", types.Int4T)}}); err != nil {
		t.Fatal(err)
	}
	db2, err := b.CreateTable(&catalog.TableDef{Schema: "public", Name: "b", Columns: []catalog.ColumnDef{col("x", types.Int4T)}})
	if err != nil {
		t.Fatal(err)
	}
	b.Insert(db2.ID, makeRecord(t, db2, []any{1}))
	mustCommit(t, a)
	mustCommit(t, b)
	c := db.Catalog()
	if c.Table("public", "a") == nil || c.Table("public", "b") == nil {
		t.Fatal("a table is missing")
	}
	expectRows(t, db, db2.ID, "[[1]]")
	// The same name created concurrently: the second fails.
	a, b = db.Begin(), db.Begin()
	a.CreateTable(&catalog.TableDef{Schema: "public", Name: "same", Columns: []catalog.ColumnDef{col("x", types.Int4T)}})
	b.CreateTable(&catalog.TableDef{Schema: "public", Name: "same", Columns: []catalog.ColumnDef{col("x", types.Int4T)}})
	mustCommit(t, a)
	if sqlstate(b.Commit()) != "42P07" {
		t.Fatal("second create of the same name committed")
	}
}

func TestAlterAddColumnReadsNull(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{FlushRows: 2})
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"}, []any{2, "b"}) // flushed to a segment
	insert(t, db, def, []any{3, "c"})                // stays in the tail
	waitFlushed(t, db, def.ID, 1)
	tx := db.Begin()
	nd := tx.Catalog().Tables[def.ID].Clone()
	nd.Columns = append(nd.Columns, col("extra", types.Int4T))
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	nd = tx.Catalog().Tables[def.ID]
	if nd.Columns[2].ID != 3 {
		t.Fatalf("new column ID %d", nd.Columns[2].ID)
	}
	if err := tx.Insert(def.ID, makeRecord(t, nd, []any{4, "d", 40})); err != nil {
		t.Fatal(err)
	}
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[[1 a <nil>] [2 b <nil>] [3 c <nil>] [4 d 40]]" {
		t.Fatalf("in tx: %s", got)
	}
	mustCommit(t, tx)
	// Drop the text column: its values disappear, the rest stays.
	tx = db.Begin()
	nd = tx.Catalog().Tables[def.ID].Clone()
	nd.Columns = append(nd.Columns[:1], nd.Columns[2])
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 <nil>] [2 <nil>] [3 <nil>] [4 40]]")
	db.Close()
	db = openDB(t, dir, Options{FlushRows: 2})
	defer db.Close()
	expectRows(t, db, def.ID, "[[1 <nil>] [2 <nil>] [3 <nil>] [4 40]]")
	// Adding a unique constraint over duplicates fails.
	insert(t, db, db.Catalog().Tables[def.ID], []any{5, 40})
	tx = db.Begin()
	nd = tx.Catalog().Tables[def.ID].Clone()
	nd.Uniques = append(nd.Uniques, catalog.UniqueDef{Name: "t_extra_key", Columns: []int{3}})
	err := tx.AlterTable(nd)
	if pe := pgerr.From(err); pe.Code != "23505" || pe.Message != `could not create unique index "t_extra_key"` {
		t.Fatalf("err = %v", err)
	}
	if len(tx.Catalog().Tables[def.ID].Uniques) != 0 {
		t.Fatal("failed ALTER changed the catalog")
	}
	tx.Rollback()
}

// waitFlushed waits until table id has at least n segments.
func waitFlushed(t *testing.T, db *DB, id uint64, n int) {
	t.Helper()
	for i := 0; i < 2000; i++ {
		if ts := db.published.Load().tables[id]; ts != nil && len(ts.segments) >= n {
			return
		}
		sleepMS(5)
	}
	t.Fatalf("table %d never reached %d segments", id, n)
}

func TestSequences(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	tx := db.Begin()
	if err := tx.CreateSequence(&catalog.SequenceDef{Schema: "public", Name: "s"}); err != nil {
		t.Fatal(err)
	}
	// A sequence created in the transaction counts inside it.
	if v, err := tx.NextVal("public", "s"); err != nil || v != 1 {
		t.Fatalf("tx nextval = %d, %v", v, err)
	}
	mustCommit(t, tx)
	for want := int64(2); want <= 5; want++ {
		v, err := db.NextVal("public", "s")
		if err != nil || v != want {
			t.Fatalf("nextval = %d, %v; want %d", v, err, want)
		}
	}
	// Crash: values handed out are never handed out again.
	img := crashImage(t, db)
	db2 := openDB(t, img, Options{})
	v, _ := db2.NextVal("public", "s")
	if v <= 5 {
		t.Fatalf("after crash nextval = %d", v)
	}
	db2.Close()
	// setval then clean close keeps the exact value.
	if err := db.SetVal("public", "s", 100, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := db.NextVal("public", "s"); v != 101 {
		t.Fatalf("after setval nextval = %d", v)
	}
	if sqlstate(db.SetVal("public", "s", 0, true)) != "22003" {
		t.Fatal("setval out of bounds")
	}
	db.Close()
	db = openDB(t, dir, Options{})
	if v, _ := db.NextVal("public", "s"); v != 102 {
		t.Fatalf("after reopen nextval = %d", v)
	}
	// A transaction's nextval of a committed sequence logs its reservation
	// without an fsync; ending the transaction (rollback or a commit with
	// nothing else to log) makes it durable.
	for _, end := range []string{"rollback", "commit"} {
		tx = db.Begin()
		for i := 0; i < 3*seqReserve; i++ {
			if _, err := tx.NextVal("public", "s"); err != nil {
				t.Fatal(err)
			}
		}
		lsn := tx.seqLSN
		if lsn == 0 || db.durableLSN.Load() >= lsn {
			t.Fatalf("%s: reservation at LSN %d synced before the transaction ended (durable %d)", end, lsn, db.durableLSN.Load())
		}
		if end == "rollback" {
			tx.Rollback()
		} else {
			mustCommit(t, tx)
		}
		if db.durableLSN.Load() < lsn {
			t.Fatalf("%s: reservation at LSN %d not durable (durable %d)", end, lsn, db.durableLSN.Load())
		}
	}
	// Limits.
	tx = db.Begin()
	tx.CreateSequence(&catalog.SequenceDef{Schema: "public", Name: "small", Start: 1, Increment: 1, Min: 1, Max: 2})
	mustCommit(t, tx)
	db.NextVal("public", "small")
	db.NextVal("public", "small")
	_, err := db.NextVal("public", "small")
	if pe := pgerr.From(err); pe.Code != "2200H" || pe.Message != `nextval: reached maximum value of sequence "small" (2)` {
		t.Fatalf("err = %v", err)
	}
	if _, err := db.NextVal("public", "missing"); sqlstate(err) != "42P01" {
		t.Fatalf("missing: %v", err)
	}
	// A cycling sequence starts again at its minimum, and a crash after
	// the cycle does not hand the same values out again: the cycle is
	// logged although its values lie below the reservation before it.
	tx = db.Begin()
	tx.CreateSequence(&catalog.SequenceDef{Schema: "public", Name: "ring", Start: 1, Increment: 1, Min: 1, Max: 40, Cycle: true})
	mustCommit(t, tx)
	var got []int64
	for range 42 {
		v, err := db.NextVal("public", "ring")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if got[39] != 40 || got[40] != 1 || got[41] != 2 {
		t.Fatalf("cycle: %v", got[38:])
	}
	img = crashImage(t, db)
	db2 = openDB(t, img, Options{})
	if v, _ := db2.NextVal("public", "ring"); v <= 2 {
		t.Fatalf("after a cycle and a crash nextval = %d, handed out before", v)
	}
	db2.Close()
	db.Close()
}

func TestSavepoints(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	tx := db.Begin()
	tx.Insert(def.ID, makeRecord(t, def, []any{1, "a"}))
	sp := tx.Savepoint()
	tx.Insert(def.ID, makeRecord(t, def, []any{2, "b"}))
	tx.Truncate(def.ID)
	d2, _ := tx.CreateTable(&catalog.TableDef{Schema: "public", Name: "u", Columns: []catalog.ColumnDef{col("x", types.Int4T)}})
	tx.RollbackTo(sp)
	if tx.Catalog().Tables[d2.ID] != nil {
		t.Fatal("table survived rollback to savepoint")
	}
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[[1 a]]" {
		t.Fatalf("after rollback to: %s", got)
	}
	// The key 2 is free again.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{2, "b2"})); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	expectRows(t, db, def.ID, "[[1 a] [2 b2]]")
}

func TestScanCancel(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tx := db.Begin()
	defer tx.Rollback()
	r, err := tx.Scan(ctx, def.ID, []int{0}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.Next() || r.Err() == nil || sqlstate(r.Err()) != "57014" {
		t.Fatalf("cancelled scan: %v", r.Err())
	}
}

func TestDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir, Options{})
	if _, err := Open(dir, Options{Logger: quietLogger()}); err == nil {
		t.Fatal("second Open of the same directory succeeded")
	}
	db.Close()
	db = openDB(t, dir, Options{})
	db.Close()
}

// TestCommitCoalescesSmallInserts commits a transaction of 2,500
// single-row INSERTs and a deleted one: the tail holds them merged into
// batches of at most tailMergeRows rows (one concatenation per run, not
// one per row), and a crash image replays the same rows.
func TestCommitCoalescesSmallInserts(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 20})
	defer db.Close()
	def := kvTable(t, db, "t")
	const n = 2500
	tx := db.Begin()
	for i := 1; i <= n; i++ {
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{i, fmt.Sprint("v", i)})); err != nil {
			t.Fatal(err)
		}
	}
	// A row deleted again inside the transaction is not committed.
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{n + 1, "gone"})); err != nil {
		t.Fatal(err)
	}
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[1] == "gone" {
			if err := tx.Delete(def.ID, []int64{r[2].(int64)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	mustCommit(t, tx)
	tail := db.head.Load().tables[def.ID].tail
	if len(tail) != (n+tailMergeRows-1)/tailMergeRows {
		t.Errorf("tail has %d batches for %d rows, want them merged by %d", len(tail), n, tailMergeRows)
	}
	check := func(db *DB) {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		rows := scanRows(t, tx, def.ID, false)
		if len(rows) != n {
			t.Fatalf("%d rows, want %d", len(rows), n)
		}
		for _, r := range rows {
			if fmt.Sprint(r[1]) != fmt.Sprint("v", r[0]) {
				t.Fatalf("row %v", r)
			}
		}
	}
	check(db)
	db2 := openDB(t, crashImage(t, db), Options{})
	defer db2.Close()
	check(db2)
}

// TestTailSingleRowCommits commits 3,000 single-row INSERTs one by one:
// the tail merges them as a binary counter carries (appendTail), into
// two full batches of tailMergeRows rows and one batch per bit of the
// remaining 952 rows, the rows in commit order; a crash image, whose
// replay merges the same way, holds the same rows.
func TestTailSingleRowCommits(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 20})
	defer db.Close()
	def := kvTable(t, db, "t")
	const n = 3000
	for i := 1; i <= n; i++ {
		insert(t, db, def, []any{i, fmt.Sprint("v", i)})
	}
	rest := n % tailMergeRows
	want := []int{tailMergeRows, tailMergeRows}
	for bit := tailMergeRows; bit > 0; bit >>= 1 {
		if rest&bit != 0 {
			want = append(want, bit)
		}
	}
	check := func(db *DB) {
		t.Helper()
		var sizes []int
		var ids []int64
		for _, b := range db.head.Load().tables[def.ID].tail {
			sizes = append(sizes, b.n)
			ids = append(ids, b.rowIDs.Int64Values()...)
		}
		if !slices.Equal(sizes, want) {
			t.Errorf("tail batches of %v rows, want %v", sizes, want)
		}
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != n {
			t.Errorf("the tail's %d row IDs are not %d ascending ones", len(ids), n)
		}
		tx := db.Begin()
		defer tx.Rollback()
		rows := scanRows(t, tx, def.ID, false)
		if len(rows) != n {
			t.Fatalf("%d rows, want %d", len(rows), n)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			k := fmt.Sprint(r[0])
			if fmt.Sprint(r[1]) != "v"+k || seen[k] {
				t.Fatalf("row %v", r)
			}
			seen[k] = true
		}
	}
	check(db)
	db2 := openDB(t, crashImage(t, db), Options{})
	defer db2.Close()
	check(db2)
}

// TestWriteAfterConcurrentAlter checks that rows and column positions
// prepared against a table's columns before an ALTER TABLE committed are
// refused with 40001 (the client retries, and plans afresh), not an
// internal error.
func TestWriteAfterConcurrentAlter(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	stale := makeRecord(t, def, []any{1, "a"}) // planned before the ALTER
	defer stale.Release()
	tx := db.Begin()
	nd := tx.Catalog().Tables[def.ID].Clone()
	nd.Columns = append(nd.Columns, col("extra", types.Int4T))
	if err := tx.AlterTable(nd); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	tx = db.Begin()
	defer tx.Rollback()
	if err := tx.Insert(def.ID, stale); sqlstate(err) != "40001" {
		t.Errorf("insert of a record planned before the ALTER: %v, want 40001", err)
	}
	if _, err := tx.Scan(context.Background(), def.ID, []int{5}, false); sqlstate(err) != "40001" {
		t.Errorf("scan of a column position gone: %v, want 40001", err)
	}
}

// keyMap behaves as one map of strings whether a key is one integer
// (kept by value) or anything else, including nine-byte keys that only
// look like an integer's.
func TestKeyMapIsAMapOfStrings(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	m, want := newKeyMap(), map[string]int64{}
	key := func() string {
		switch rng.Intn(4) {
		case 0:
			return string(appendKeyInt(nil, rng.Int63n(64)-32))
		case 1:
			return string(appendKeyInt([]byte{'i'}, rng.Int63n(4))) // ten bytes
		case 2:
			return "s" + strconv.Itoa(rng.Intn(64))
		}
		return string(appendKeyInt(nil, math.MinInt64+rng.Int63n(2)))
	}
	for step := 0; step < 5000; step++ {
		k := key()
		switch rng.Intn(3) {
		case 0:
			row := rng.Int63()
			m.set(k, row)
			want[k] = row
		case 1:
			m.del(k)
			delete(want, k)
		}
		got, hit := m.get(k)
		gotB, hitB := m.getBytes([]byte(k))
		w, ok := want[k]
		if got != w || hit != ok || gotB != w || hitB != ok {
			t.Fatalf("step %d, key %q: get %d %v, getBytes %d %v, want %d %v", step, k, got, hit, gotB, hitB, w, ok)
		}
	}
	m.deleteRows(func(r int64) bool { return r%2 == 0 })
	maps.DeleteFunc(want, func(_ string, r int64) bool { return r%2 == 0 })
	if m.len() != len(want) {
		t.Fatalf("%d keys after deleteRows, want %d", m.len(), len(want))
	}
	for k, w := range want {
		if got, hit := m.get(k); !hit || got != w {
			t.Fatalf("key %q: %d %v after deleteRows, want %d", k, got, hit, w)
		}
	}
}
