package storage

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// twoServers opens two servers on one fake bucket, a first (it leads),
// with table t (id int8 primary key, v text) holding ids [0, rows) that
// both see.
func twoServers(t *testing.T, rows int) (a, b *DB, def *catalog.TableDef, st func() *DB) {
	t.Helper()
	store := fakeS3(t)
	a = openDB(t, t.TempDir(), Options{Store: store})
	t.Cleanup(func() { a.crash() })
	b = openDB(t, t.TempDir(), Options{Store: store})
	t.Cleanup(func() { b.crash() })
	def = kvTable(t, a, "t")
	if rows > 0 {
		insert(t, a, def, kvRows(0, rows)...)
	}
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	// restart opens a new server on the bucket once both crashed.
	st = func() *DB {
		a.crash()
		b.crash()
		db := openDB(t, t.TempDir(), Options{Store: store})
		t.Cleanup(func() { db.Close() })
		return db
	}
	return a, b, def, st
}

// lostRaces is how many group commits of db lost the log to another
// server.
func lostRaces(db *DB) uint64 { return db.epoch() }

// rowIDsOf returns the rows of table id with their row IDs as db's next
// transaction sees them, and fails the test when two share a row ID.
func rowIDsOf(t *testing.T, db *DB, id uint64) string {
	t.Helper()
	if err := db.CatchUp(); err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	defer tx.Rollback()
	rows := scanRows(t, tx, id, true)
	seen := map[int64]bool{}
	for _, r := range rows {
		rid := r[len(r)-1].(int64)
		if seen[rid] {
			t.Fatalf("row ID %d twice: %v", rid, rows)
		}
		seen[rid] = true
	}
	return rowsString(rows)
}

// sameRows checks that both servers see the rows want, under the same
// row IDs, none twice.
func sameRows(t *testing.T, a, b *DB, id uint64, want string) {
	t.Helper()
	caughtUp(t, a, id, want)
	caughtUp(t, b, id, want)
	if ra, rb := rowIDsOf(t, a, id), rowIDsOf(t, b, id); ra != rb {
		t.Fatalf("row IDs differ: %s on one server, %s on the other", ra, rb)
	}
}

// rowID returns the row ID of the row of key k that tx sees.
func rowID(t *testing.T, tx *Tx, def *catalog.TableDef, k int) int64 {
	t.Helper()
	for _, r := range scanRows(t, tx, def.ID, true) {
		if r[0] == k {
			return r[len(r)-1].(int64)
		}
	}
	t.Fatalf("no row %d", k)
	return 0
}

// updateRow replaces the row of key k by (k, v) in tx, as UPDATE does:
// delete the old version, insert the new one.
func updateRow(t *testing.T, tx *Tx, def *catalog.TableDef, k int, v string) {
	t.Helper()
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, k)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{k, v})); err != nil {
		t.Fatal(err)
	}
}

// TestRebaseAppends: a transaction of several inserts on one server whose
// group commit loses the log to another server's insert into the same
// table is rebased and commits: its rows get new row IDs (the other
// server's rows may carry the ones it drew), both servers see every row
// under the same IDs, and so does a restart.
func TestRebaseAppends(t *testing.T) {
	a, b, def, restart := twoServers(t, 3)
	tx := b.Begin()
	for k := 10; k < 13; k++ {
		if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(k, k+1)...)); err != nil {
			t.Fatal(err)
		}
	}
	insert(t, a, def, kvRows(3, 5)...) // takes the log object b's commit wants
	lost := lostRaces(b)
	mustCommit(t, tx)
	if lostRaces(b) == lost {
		t.Fatal("b's commit did not lose the log to a's")
	}
	want := "[[0 v] [1 v] [10 v] [11 v] [12 v] [2 v] [3 v] [4 v]]"
	sameRows(t, a, b, def.ID, want)
	expectRows(t, restart(), def.ID, want)
}

// TestRebaseUpdates: updates of different rows on two servers both
// commit, the loser rebased; an update and a delete of a row the other
// server updated meanwhile fail with 40001 and leave nothing behind.
func TestRebaseUpdates(t *testing.T) {
	a, b, def, restart := twoServers(t, 4)

	tx := b.Begin()
	updateRow(t, tx, def, 1, "b")
	updateRow(t, tx, def, 2, "b")
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(20, 21)...)); err != nil {
		t.Fatal(err)
	}
	other := a.Begin()
	updateRow(t, other, def, 0, "a")
	mustCommit(t, other)
	lost := lostRaces(b)
	mustCommit(t, tx)
	if lostRaces(b) == lost {
		t.Fatal("b's commit did not lose the log to a's")
	}
	sameRows(t, a, b, def.ID, "[[0 a] [1 b] [2 b] [20 v] [3 v]]")

	// The same row: the loser fails, whether it updated or deleted it.
	for _, del := range []bool{false, true} {
		tx = b.Begin()
		if del {
			if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 3)}); err != nil {
				t.Fatal(err)
			}
		} else {
			updateRow(t, tx, def, 3, "b")
		}
		other = a.Begin()
		updateRow(t, other, def, 3, fmt.Sprintf("a%v", del))
		mustCommit(t, other)
		if err := tx.Commit(); sqlstate(err) != "40001" {
			t.Fatalf("delete %v of a row the other server updated: %v, want 40001", del, err)
		}
	}
	sameRows(t, a, b, def.ID, "[[0 a] [1 b] [2 b] [20 v] [3 atrue]]")
	expectRows(t, restart(), def.ID, "[[0 a] [1 b] [2 b] [20 v] [3 atrue]]")
}

// TestRebaseUniqueKey: a rebased insert of a key the other server's
// commit inserted fails with 23505, as the second inserter of a key does
// on one server and in PostgreSQL; under INSERT ... ON CONFLICT with
// 40001 (running it again takes the other path). Its other rows are not
// committed either.
func TestRebaseUniqueKey(t *testing.T) {
	a, b, def, restart := twoServers(t, 1)
	for _, upsert := range []bool{false, true} {
		k := 5
		if upsert {
			k = 6
		}
		tx := b.Begin()
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{100 + k, "b"})); err != nil {
			t.Fatal(err)
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, []any{k, "b"})); err != nil {
			t.Fatal(err)
		}
		if upsert {
			tx.MarkUpsert(def.ID)
		}
		insert(t, a, def, []any{k, "a"})
		want := "23505"
		if upsert {
			want = "40001"
		}
		if err := tx.Commit(); sqlstate(err) != want {
			t.Fatalf("upsert %v: commit of a key the other server inserted: %v, want %s", upsert, err, want)
		} else if !upsert && !strings.Contains(pgerr.From(err).Detail, "(id)=(5)") {
			t.Fatalf("the detail of %v: %q", err, pgerr.From(err).Detail)
		}
	}
	sameRows(t, a, b, def.ID, "[[0 v] [5 a] [6 a]]")
	expectRows(t, restart(), def.ID, "[[0 v] [5 a] [6 a]]")
}

// TestRebaseCaughtUpBeforeCommit: a transaction that inserted rows and
// commits after its server applied another server's insert into the same
// table (no lost race) commits too, under new row IDs.
func TestRebaseCaughtUpBeforeCommit(t *testing.T) {
	a, b, def, _ := twoServers(t, 0)
	tx := b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(1, 3)...)); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, kvRows(3, 5)...) // the same row IDs, drawn on a
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	lost := lostRaces(b)
	mustCommit(t, tx)
	if lostRaces(b) != lost {
		t.Fatal("b's commit lost a race")
	}
	sameRows(t, a, b, def.ID, "[[1 v] [2 v] [3 v] [4 v]]")
}

// TestRebaseStatementRenumbers: a READ COMMITTED statement that moves a
// transaction's snapshot past another server's insert into a table the
// transaction inserted into gives its rows new row IDs, savepoints
// included: no statement sees two rows under one ID, its own deletes and
// a rollback to a savepoint still find their rows, and it commits.
func TestRebaseStatementRenumbers(t *testing.T) {
	a, b, def, restart := twoServers(t, 0)
	tx := b.Begin()
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(1, 3)...)); err != nil {
		t.Fatal(err)
	}
	sp := tx.Savepoint()
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(3, 5)...)); err != nil {
		t.Fatal(err)
	}
	insert(t, a, def, kvRows(10, 14)...) // the same row IDs, drawn on a
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if !tx.Refresh() {
		t.Fatal("the snapshot did not move")
	}
	ids := map[int64]bool{}
	rows := scanRows(t, tx, def.ID, true)
	for _, r := range rows {
		if ids[r[2].(int64)] {
			t.Fatalf("a statement sees row ID %d twice: %v", r[2], rows)
		}
		ids[r[2].(int64)] = true
	}
	if got := len(rows); got != 8 {
		t.Fatalf("the statement sees %v", rows)
	}
	// Its own row 4 deleted under its new ID; then back to the savepoint.
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 4)}); err != nil {
		t.Fatal(err)
	}
	if got := rowsString(scanRows(t, tx, def.ID, false)); got != "[[1 v] [10 v] [11 v] [12 v] [13 v] [2 v] [3 v]]" {
		t.Fatalf("after deleting its row 4: %s", got)
	}
	tx.RollbackTo(sp)
	if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(5, 6)...)); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	want := "[[1 v] [10 v] [11 v] [12 v] [13 v] [2 v] [5 v]]"
	sameRows(t, a, b, def.ID, want)
	expectRows(t, restart(), def.ID, want)
}

// TestRebaseSchemaChanges: a transaction that changed the schema is
// rebased when its group commit loses the log, its DDL replayed on the
// catalog with the other server's commits: a table it created (with rows)
// and a column it added commit beside the other server's rows, and a
// restart sees them. It fails with 40001, saying why, when it created a
// table under the ID the other server gave a table it created (a retry
// commits), or altered a table the other server altered too.
func TestRebaseSchemaChanges(t *testing.T) {
	a, b, def, restart := twoServers(t, 1)
	commitLost := func(tx *Tx, other func()) error {
		t.Helper()
		other()
		lost := lostRaces(b)
		err := tx.Commit()
		if lostRaces(b) == lost {
			t.Fatal("b's commit did not lose the log to a's")
		}
		return err
	}

	tx := b.Begin()
	u, err := tx.CreateTable(&catalog.TableDef{Schema: catalog.PublicSchema, Name: "u",
		Columns: []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(u.ID, makeRecord(t, u, kvRows(7, 9)...)); err != nil {
		t.Fatal(err)
	}
	withW := def.Clone()
	withW.Columns = append(withW.Columns, col("w", types.Int8T))
	if err := tx.AlterTable(withW); err != nil {
		t.Fatal(err)
	}
	if err := commitLost(tx, func() { insert(t, a, def, kvRows(1, 2)...) }); err != nil {
		t.Fatalf("a schema change that lost the log to an insert: %v", err)
	}
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, a, b, u.ID, "[[7 v] [8 v]]")
	sameRows(t, a, b, def.ID, "[[0 v <nil>] [1 v <nil>]]")

	// Two tables created at once on two servers get IDs of their own:
	// the one whose commit lost the log is rebased, not failed.
	tx = b.Begin()
	x, err := tx.CreateTable(&catalog.TableDef{Schema: catalog.PublicSchema, Name: "x",
		Columns: []catalog.ColumnDef{col("id", types.Int8T)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Insert(x.ID, makeRecord(t, x, []any{3})); err != nil {
		t.Fatal(err)
	}
	var y *catalog.TableDef
	if err := commitLost(tx, func() { y = createTable(t, a, "y", []catalog.ColumnDef{col("id", types.Int8T)}) }); err != nil {
		t.Fatalf("a table created while the other server created one: %v", err)
	}
	if x.ID == y.ID {
		t.Fatalf("tables created at once on two servers share ID %d", x.ID)
	}
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*DB{a, b} {
		cat := db.Catalog()
		if cat.Tables[x.ID] == nil || cat.Tables[x.ID].Name != "x" || cat.Tables[y.ID] == nil || cat.Tables[y.ID].Name != "y" {
			t.Fatalf("catalog after both creates: x %v, y %v", cat.Tables[x.ID], cat.Tables[y.ID])
		}
	}
	sameRows(t, a, b, x.ID, "[[3]]")

	tx = b.Begin()
	withZ := withW.Clone()
	withZ.Columns = append(withZ.Columns, col("z", types.Int8T))
	if err := tx.AlterTable(withZ); err != nil {
		t.Fatal(err)
	}
	err = commitLost(tx, func() {
		alter := a.Begin()
		withQ := withW.Clone()
		withQ.Columns = append(withQ.Columns, col("q", types.TextT))
		if err := alter.AlterTable(withQ); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, alter)
	})
	if sqlstate(err) != "40001" {
		t.Fatalf("an ALTER TABLE of a table the other server altered meanwhile: %v, want 40001", err)
	}

	db := restart()
	expectRows(t, db, u.ID, "[[7 v] [8 v]]")
	tx = db.Begin()
	defer tx.Rollback()
	var names []string
	for _, d := range tx.Catalog().Tables {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "t u x y" {
		t.Fatalf("tables after a restart: %s, want t u x y", got)
	}
	if cols := tx.Catalog().Tables[def.ID].Columns; len(cols) != 4 || cols[2].Name != "w" || cols[3].Name != "q" {
		t.Fatalf("columns of t after a restart: %v, want id v w q", cols)
	}
}

// TestRebaseSpilled: a large transaction, whose rows the leader spilled
// to segment files of its own, is rebased when its group commit loses the
// log to another server's commit into another table, or to a delete in
// its own table, and its rows in memory as well as in its files commit.
// When the other server inserted rows that carry the IDs of its spilled
// rows, its commit writes them again under new IDs, whether it lost the
// log or caught up before, and commits; so does its next statement under
// READ COMMITTED, savepoints included. A statement whose snapshot moves
// past the other server's rows while they carry none of those IDs goes
// on. No row ID is twice in the table, and a restart sees every
// committed row.
func TestRebaseSpilled(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st, SpillBytes: 4 << 10, FlushRows: 1 << 30})
	defer a.crash()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	if !a.home.(*objectHome).leads() {
		t.Fatal("the first server does not lead")
	}
	def := kvTable(t, a, "t")
	other := kvTable(t, a, "u")
	insert(t, a, def, kvRows(0, 2)...)
	caughtUp(t, b, def.ID, "[[0 v] [1 v]]")
	rows := 2
	// spill begins a transaction on a that spills rows [from, from+400)
	// of t and holds 3 more in memory.
	spill := func(from int) *Tx {
		if err := a.CatchUp(); err != nil {
			t.Fatal(err)
		}
		tx := a.Begin()
		insertBatches(t, tx, def, from, from+400)
		if len(tx.tables[def.ID].spilled) == 0 {
			t.Fatal("the transaction did not spill")
		}
		if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(from+400, from+403)...)); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	wantRows := func(db *DB) {
		t.Helper()
		if err := db.CatchUp(); err != nil {
			t.Fatal(err)
		}
		rowIDsOf(t, db, def.ID) // none twice
		tx := db.Begin()
		defer tx.Rollback()
		if got := len(scanRows(t, tx, def.ID, false)); got != rows {
			t.Fatalf("%d rows, want %d", got, rows)
		}
	}
	commitLost := func(tx *Tx) {
		t.Helper()
		lost := lostRaces(a)
		mustCommit(t, tx)
		if lostRaces(a) == lost {
			t.Fatal("the spilled transaction did not lose the log")
		}
		rows += 403
	}
	bInserts := func(from, to int) {
		t.Helper()
		if err := b.CatchUp(); err != nil {
			t.Fatal(err)
		}
		insert(t, b, def, kvRows(from, to)...)
		rows += to - from
	}

	// Another table; a delete in its own table.
	tx := spill(1000)
	insert(t, b, other, kvRows(0, 3)...)
	commitLost(tx)
	wantRows(a)
	tx = spill(2000)
	del := b.Begin()
	if err := del.Delete(def.ID, []int64{rowID(t, del, def, 0)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, del)
	rows--
	commitLost(tx)
	wantRows(a)
	wantRows(b)

	// The other server's rows carry the IDs of spilled rows (b draws its
	// IDs past the same rows as a): the spilled rows are written again,
	// the old files go.
	tx = spill(3000)
	var files []string
	for _, seg := range tx.tables[def.ID].spilled {
		files = append(files, seg.path)
	}
	bInserts(5000, 5001)
	commitLost(tx)
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the spilled file %s written again: %v, want it removed", f, err)
		}
	}
	wantRows(a)
	wantRows(b)

	// A transaction that rolls back burns 1,000 row IDs on a: b's
	// one-row insert does not reach the next one's, whose next statement
	// renumbers its rows in memory and goes on.
	burn := a.Begin()
	insertBatches(t, burn, def, 20000, 21000)
	burn.Rollback()
	tx = spill(4000)
	bInserts(6000, 6001)
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if !tx.Refresh() {
		t.Fatal("the snapshot did not move")
	}
	if got := len(scanRows(t, tx, def.ID, true)); got != rows+403 {
		t.Fatalf("the next statement sees %d rows, want %d", got, rows+403)
	}
	mustCommit(t, tx)
	rows += 403

	// b's insert of 2,000 rows reaches the spilled rows' IDs: the next
	// statement writes them again under new IDs, the savepoint's state
	// too (a deletion after it undone, another made), and it commits.
	tx = spill(8000)
	sp := tx.Savepoint()
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 8000)}); err != nil {
		t.Fatal(err)
	}
	bInserts(30000, 32000)
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if !tx.Refresh() {
		t.Fatal("the snapshot did not move")
	}
	sees := func(want int) {
		t.Helper()
		ids := map[int64]bool{}
		got := scanRows(t, tx, def.ID, true)
		for _, r := range got {
			if ids[r[2].(int64)] {
				t.Fatalf("a statement sees row ID %d twice", r[2])
			}
			ids[r[2].(int64)] = true
		}
		if len(got) != want {
			t.Fatalf("the statement sees %d rows, want %d", len(got), want)
		}
	}
	sees(rows + 402)
	tx.RollbackTo(sp)
	sees(rows + 403)
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 8001)}); err != nil {
		t.Fatal(err)
	}
	sees(rows + 402)
	mustCommit(t, tx)
	rows += 402
	wantRows(a)
	wantRows(b)
	// The same at commit, a spilled row deleted again.
	tx = spill(12500)
	if err := tx.Delete(def.ID, []int64{rowID(t, tx, def, 12600)}); err != nil {
		t.Fatal(err)
	}
	bInserts(10001, 12001)
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	rows += 402
	wantRows(a)
	wantRows(b)
	a.crash()
	b.crash()
	db := openDB(t, t.TempDir(), Options{Store: st})
	defer db.Close()
	wantRows(db)
}

// TestRebaseConcurrent: sessions on two servers run transactions of
// several statements at once: appends to a log table, which always
// commit, and transfers between accounts, which commit or fail with
// 40001. No row is lost or doubled, the balances add up, the servers
// agree on every row ID, and a restart sees exactly what was
// acknowledged.
func TestRebaseConcurrent(t *testing.T) {
	const (
		sessions  = 3
		perServer = 12
		accounts  = 4
	)
	a, b, logDef, restart := twoServers(t, 0)
	acct := createTable(t, a, "acct", []catalog.ColumnDef{col("id", types.Int8T), col("bal", types.Int8T)}, 0)
	tx := a.Begin()
	for i := 0; i < accounts; i++ {
		if err := tx.Insert(acct.ID, makeRecord(t, acct, []any{i, 100})); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var appended []string
	transfers, conflicts := 0, 0
	var wg sync.WaitGroup
	errs := make(chan error, 2*sessions)
	for s, db := range []*DB{a, b, a, b, a, b}[:2*sessions] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perServer; i++ {
				if err := db.CatchUp(); err != nil {
					errs <- err
					return
				}
				// Three statements appending to the log.
				tx := db.Begin()
				var keys []string
				for j := 0; j < 3; j++ {
					k := (s*perServer+i)*3 + j
					if err := tx.Insert(logDef.ID, makeRecord(t, logDef, []any{k, "x"})); err != nil {
						errs <- err
						return
					}
					keys = append(keys, fmt.Sprintf("[%d x]", k))
					tx.Refresh()
				}
				if err := tx.Commit(); err != nil {
					errs <- fmt.Errorf("an append: %w", err)
					return
				}
				mu.Lock()
				appended = append(appended, keys...)
				mu.Unlock()

				// A transfer of 1 between two accounts.
				tx = db.Begin()
				from, to := (s+i)%accounts, (s+i+1)%accounts
				bal := map[int]int{}
				ids := map[int]int64{}
				for _, r := range scanRows(t, tx, acct.ID, true) {
					bal[r[0].(int)], ids[r[0].(int)] = r[1].(int), r[2].(int64)
				}
				err := tx.Delete(acct.ID, []int64{ids[from], ids[to]})
				if err == nil {
					err = tx.Insert(acct.ID, makeRecord(t, acct, []any{from, bal[from] - 1}, []any{to, bal[to] + 1}))
				}
				if err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
				mu.Lock()
				switch sqlstate(err) {
				case "":
					transfers++
				case "40001":
					conflicts++
				default:
					mu.Unlock()
					errs <- fmt.Errorf("a transfer: %w", err)
					return
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d appends, %d transfers, %d conflicts; lost races: %d and %d",
		len(appended), transfers, conflicts, lostRaces(a), lostRaces(b))
	if transfers == 0 {
		t.Fatal("no transfer committed")
	}
	slices.Sort(appended)
	want := "[" + strings.Join(appended, " ") + "]"
	sameRows(t, a, b, logDef.ID, want)
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	sameRows(t, a, b, acct.ID, rowIDsSum(t, a, acct.ID, accounts*100))
	db := restart()
	expectRows(t, db, logDef.ID, want)
	rowIDsSum(t, db, acct.ID, accounts*100)
}

// rowIDsSum checks that the balances of table id (id, bal) add up to sum
// on db, and returns its rows.
func rowIDsSum(t *testing.T, db *DB, id uint64, sum int) string {
	t.Helper()
	tx := db.Begin()
	defer tx.Rollback()
	rows := scanRows(t, tx, id, false)
	total := 0
	for _, r := range rows {
		total += r[1].(int)
	}
	if total != sum {
		t.Fatalf("balances %v add up to %d, want %d", rows, total, sum)
	}
	return rowsString(rows)
}

// TestRebaseForeignKeys: a rebased commit settles its foreign keys on the
// state with the other server's commits: a child of a parent the other
// server deleted fails with 23503, a child of another parent commits, and
// a deletion of a parent the other server's commit gave a child fails
// with 23503 (NO ACTION).
func TestRebaseForeignKeys(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.crash()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	parent, child := fkTables(t, a, catalog.FKNoAction, 1, 2, 3)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}

	tx := b.Begin()
	addChild(t, tx, child, 10, 1)
	other := a.Begin()
	if err := other.Delete(parent.ID, []int64{parentRow(t, other, parent, 1)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, other)
	if err := tx.Commit(); sqlstate(err) != "23503" {
		t.Fatalf("a child of the parent the other server deleted: %v, want 23503", err)
	}

	tx = b.Begin()
	addChild(t, tx, child, 11, 2)
	insert(t, a, parent, []any{4, "p"})
	lost := lostRaces(b)
	mustCommit(t, tx)
	if lostRaces(b) == lost {
		t.Fatal("b's commit did not lose the log to a's")
	}

	tx = b.Begin()
	if err := tx.Delete(parent.ID, []int64{parentRow(t, tx, parent, 3)}); err != nil {
		t.Fatal(err)
	}
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	other = a.Begin()
	addChild(t, other, child, 12, 3)
	mustCommit(t, other)
	if err := tx.Commit(); sqlstate(err) != "23503" {
		t.Fatalf("deleting the parent the other server's commit gave a child: %v, want 23503", err)
	}
	sameRows(t, a, b, parent.ID, "[[2 p] [3 p] [4 p]]")
	sameRows(t, a, b, child.ID, "[[11 2] [12 3]]")
}

// BenchmarkRebase times the commit of a one-row insert that loses the log
// to another server's insert and is rebased, beside a table of 1k or 200k
// rows with a bigint primary key (ns/op: the losing commit alone; a
// commit that finds the other server's insert applied already, by a
// catch-up in the background, does not count).
func BenchmarkRebase(b *testing.B) {
	for _, rows := range []int{1000, 200_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchRebase(b, rows) })
	}
}

func benchRebase(b *testing.B, rows int) {
	store := fakeS3(b)
	srvA := openDB(b, b.TempDir(), Options{Store: store})
	defer srvA.crash()
	srvB := openDB(b, b.TempDir(), Options{Store: store})
	defer srvB.crash()
	def := kvTable(b, srvA, "t")
	insert(b, srvA, def, kvRows(0, rows)...)
	if err := srvB.CatchUp(); err != nil {
		b.Fatal(err)
	}
	var took time.Duration
	for i, lost := 0, 0; lost < b.N; i++ {
		tx := srvB.Begin()
		if err := tx.Insert(def.ID, makeRecord(b, def, []any{rows + 2*i, "b"})); err != nil {
			b.Fatal(err)
		}
		insert(b, srvA, def, []any{rows + 2*i + 1, "a"})
		races := lostRaces(srvB)
		start := time.Now()
		mustCommit(b, tx)
		if lostRaces(srvB) != races {
			took += time.Since(start)
			lost++
		}
	}
	b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "ns/op")
}

// TestRebaseSpilledConcurrent: large transactions on the leader, which
// spill, commit while the other server inserts into the same table: every
// one commits (rebased, its spilled rows written again when the other
// server's rows took their IDs), both servers and a restart see every
// row, and no row ID is twice in the table.
func TestRebaseSpilledConcurrent(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st, SpillBytes: 4 << 10, FlushRows: 1 << 30})
	defer a.crash()
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()
	def := kvTable(t, a, "t")
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() {
		for i := 0; i < 6; i++ {
			tx := a.Begin()
			for k := 0; k < 300; k += 100 {
				from := 100000 + i*1000 + k
				if err := tx.Insert(def.ID, makeRecord(t, def, wordRows(from, from+100)...)); err != nil {
					errs <- err
					return
				}
			}
			if len(tx.tables[def.ID].spilled) == 0 {
				errs <- fmt.Errorf("transaction %d did not spill", i)
				return
			}
			if err := tx.Commit(); err != nil {
				errs <- fmt.Errorf("large transaction %d: %w", i, err)
				return
			}
		}
	})
	wg.Go(func() {
		for i := 0; i < 30; i++ {
			if err := b.CatchUp(); err != nil {
				errs <- err
				return
			}
			tx := b.Begin()
			if err := tx.Insert(def.ID, makeRecord(t, def, kvRows(i*20, i*20+20)...)); err != nil {
				errs <- err
				return
			}
			if err := tx.Commit(); err != nil {
				errs <- fmt.Errorf("small transaction %d: %w", i, err)
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("lost races: %d on the leader, %d on the other", lostRaces(a), lostRaces(b))
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	tx := a.Begin()
	got := scanRows(t, tx, def.ID, false)
	tx.Rollback()
	if len(got) != 6*300+30*20 {
		t.Fatalf("%d rows, want %d", len(got), 6*300+30*20)
	}
	sameRows(t, a, b, def.ID, rowsString(got))
	rows := rowIDsOf(t, a, def.ID)
	a.crash()
	b.crash()
	db := openDB(t, t.TempDir(), Options{Store: st})
	defer db.Close()
	if got := rowIDsOf(t, db, def.ID); got != rows {
		t.Fatal("a restart sees other rows or row IDs")
	}
}
