package storage

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// fkTables creates parent (id int PRIMARY KEY, note text) holding ids and
// child (id int, pid int REFERENCES parent ON DELETE onDelete).
func fkTables(t *testing.T, db *DB, onDelete string, ids ...int) (parent, child *catalog.TableDef) {
	t.Helper()
	parent = createTable(t, db, "parent", []catalog.ColumnDef{col("id", types.Int4T), col("note", types.TextT)}, 0)
	tx := db.Begin()
	def := &catalog.TableDef{Schema: catalog.PublicSchema, Name: "child", Columns: []catalog.ColumnDef{col("id", types.Int4T), col("pid", types.Int4T)},
		ForeignKeys: []catalog.ForeignKeyDef{{Name: "child_pid_fkey", Columns: []int{2}, RefTable: parent.ID, RefColumns: []int{1}, OnDelete: onDelete, OnUpdate: onDelete}}}
	child, err := tx.CreateTable(def)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		insertRow(t, tx, parent, id, "p")
	}
	mustCommit(t, tx)
	return parent, child
}

func insertRow(t *testing.T, tx *Tx, def *catalog.TableDef, vals ...any) {
	t.Helper()
	rec := makeRecord(t, def, vals)
	defer rec.Release()
	if err := tx.Insert(def.ID, rec); err != nil {
		t.Fatalf("Insert: %v", err)
	}
}

// addChild checks and inserts child row (id, pid) as the executor does.
func addChild(t *testing.T, tx *Tx, child *catalog.TableDef, id, pid int) int64 {
	t.Helper()
	rec := makeRecord(t, child, []any{id, pid})
	defer rec.Release()
	ids, ok, err := tx.CheckReferences(child.ID, "child_pid_fkey", []arrow.Array{rec.Column(1)}, []int{0})
	if err != nil || !ok {
		t.Fatalf("CheckReferences: %v, %v", ok, err)
	}
	if err := tx.Insert(child.ID, rec); err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

// parentRow is the row ID of parent id as tx sees it.
func parentRow(t *testing.T, tx *Tx, parent *catalog.TableDef, id int) int64 {
	t.Helper()
	for _, r := range scanRows(t, tx, parent.ID, true) {
		if r[0] == id {
			return r[len(r)-1].(int64)
		}
	}
	t.Fatalf("no parent %d", id)
	return 0
}

// TestForeignKeyCommitChecks runs a child insert and the deletion of its
// parent side by side, both commit orders, for NO ACTION and CASCADE:
// the second to commit fails with PostgreSQL's error for its side (40001
// for the deletion whose cascade missed the child), and neither an
// update that keeps the key nor a reference rolled back to a savepoint
// stops the other.
func TestForeignKeyCommitChecks(t *testing.T) {
	for _, tc := range []struct {
		name, onDelete string
		childFirst     bool
		code, msg      string
	}{
		{"child first, no action", catalog.FKNoAction, true, "23503",
			`update or delete on table "parent" violates foreign key constraint "child_pid_fkey" on table "child" (Key (id)=(1) is still referenced from table "child".)`},
		{"child first, cascade", catalog.FKCascade, true, "40001", ""},
		{"parent first, no action", catalog.FKNoAction, false, "23503",
			`insert or update on table "child" violates foreign key constraint "child_pid_fkey" (Key (pid)=(1) is not present in table "parent".)`},
		{"parent first, cascade", catalog.FKCascade, false, "23503", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t, t.TempDir(), Options{})
			defer db.Close()
			parent, child := fkTables(t, db, tc.onDelete, 1, 2)
			a, b := db.Begin(), db.Begin()
			if got := addChild(t, a, child, 10, 1); got < 0 {
				t.Fatalf("parent 1 not found")
			}
			if err := b.Delete(parent.ID, []int64{parentRow(t, b, parent, 1)}); err != nil {
				t.Fatal(err)
			}
			first, second := a, b
			if !tc.childFirst {
				first, second = b, a
			}
			mustCommit(t, first)
			err := second.Commit()
			if sqlstate(err) != tc.code {
				t.Fatalf("second commit: %v, want %s", err, tc.code)
			}
			if tc.msg != "" {
				if e := pgerrOf(err); e != tc.msg {
					t.Errorf("error %q, want %q", e, tc.msg)
				}
			}
			tx := db.Begin()
			defer tx.Rollback()
			orphans := 0
			parents := map[any]bool{}
			for _, r := range scanRows(t, tx, parent.ID, false) {
				parents[r[0]] = true
			}
			for _, r := range scanRows(t, tx, child.ID, false) {
				if !parents[r[1]] {
					orphans++
				}
			}
			if orphans != 0 {
				t.Errorf("%d orphans", orphans)
			}
		})
	}

	t.Run("key kept", func(t *testing.T) {
		db := openDB(t, t.TempDir(), Options{})
		defer db.Close()
		parent, child := fkTables(t, db, catalog.FKNoAction, 1)
		a, b := db.Begin(), db.Begin()
		addChild(t, a, child, 10, 1)
		// b updates parent 1's note: a new row, the same key.
		if err := b.Delete(parent.ID, []int64{parentRow(t, b, parent, 1)}); err != nil {
			t.Fatal(err)
		}
		insertRow(t, b, parent, 1, "q")
		mustCommit(t, a)
		mustCommit(t, b)
		// And the other way round, against the row b's update made.
		a, b = db.Begin(), db.Begin()
		addChild(t, a, child, 11, 1)
		if err := b.Delete(parent.ID, []int64{parentRow(t, b, parent, 1)}); err != nil {
			t.Fatal(err)
		}
		insertRow(t, b, parent, 1, "r")
		mustCommit(t, b)
		mustCommit(t, a)
	})

	t.Run("savepoint", func(t *testing.T) {
		db := openDB(t, t.TempDir(), Options{})
		defer db.Close()
		parent, child := fkTables(t, db, catalog.FKNoAction, 1, 2)
		a, b := db.Begin(), db.Begin()
		addChild(t, a, child, 10, 2)
		sp := a.Savepoint()
		addChild(t, a, child, 11, 1)
		a.RollbackTo(sp)
		if err := b.Delete(parent.ID, []int64{parentRow(t, b, parent, 1)}); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, b)
		mustCommit(t, a)
	})

	t.Run("own parent", func(t *testing.T) {
		db := openDB(t, t.TempDir(), Options{})
		defer db.Close()
		parent, child := fkTables(t, db, catalog.FKNoAction)
		a := db.Begin()
		insertRow(t, a, parent, 5, "p")
		rec := makeRecord(t, child, []any{1, 5}, []any{2, 6})
		defer rec.Release()
		ids, ok, err := a.CheckReferences(child.ID, "child_pid_fkey", []arrow.Array{rec.Column(1)}, []int{0, 1})
		if err != nil || !ok || ids[0] < 0 || ids[1] != -1 {
			t.Fatalf("CheckReferences: %v %v %v", ids, ok, err)
		}
		if len(a.refs) != 0 {
			t.Errorf("a reference to the transaction's own row was remembered: %v", a.refs)
		}
		a.Rollback()
	})
}

// pgerrOf renders err as "message (detail)".
func pgerrOf(err error) string {
	e := pgerr.From(err)
	return strings.TrimSpace(e.Message + " (" + e.Detail + ")")
}

// TestWALRecordRefs round-trips a table op's references.
func TestWALRecordRefs(t *testing.T) {
	refs := []fkRef{{child: 9, parent: 4, fk: "c_p_fkey", sig: "1", key: "i\x00\x00\x00\x00\x00\x00\x00\x01", row: 77, text: "1"}}
	frame, err := encodeWALRecord(&walRecord{lsn: 3, tables: []walTableOp{{id: 9, refs: refs}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := decodeWALRecord(frame[walHeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.tables) != 1 || len(rec.tables[0].refs) != 1 || rec.tables[0].refs[0] != refs[0] {
		t.Fatalf("decoded %+v", rec.tables)
	}
}

// TestForeignKeyAcrossServers: on an object store a child row committed
// on one server reaches the other's reference history through the log
// record: the other server's deletion of the parent, begun before it,
// fails at commit (23503), and a child inserted on the second server for
// a parent the first deleted meanwhile fails there too.
func TestForeignKeyAcrossServers(t *testing.T) {
	st := fakeS3(t)
	a := openDB(t, t.TempDir(), Options{Store: st})
	defer a.Close()
	parent, child := fkTables(t, a, catalog.FKNoAction, 1, 2)
	b := openDB(t, t.TempDir(), Options{Store: st})
	defer b.crash()

	// b begins deleting parent 1; a commits a child of parent 1.
	del := b.Begin()
	if err := del.Delete(parent.ID, []int64{parentRow(t, del, parent, 1)}); err != nil {
		t.Fatal(err)
	}
	add := a.Begin()
	addChild(t, add, child, 10, 1)
	mustCommit(t, add)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if err := del.Commit(); sqlstate(err) != "23503" {
		t.Fatalf("deleting on one server a parent another server's child references: %v, want 23503", err)
	}

	// a deletes parent 2 while a transaction on b adds a child of it.
	if err := a.CatchUp(); err != nil {
		t.Fatal(err)
	}
	add = b.Begin()
	addChild(t, add, child, 20, 2)
	del = a.Begin()
	if err := del.Delete(parent.ID, []int64{parentRow(t, del, parent, 2)}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, del)
	if err := b.CatchUp(); err != nil {
		t.Fatal(err)
	}
	if err := add.Commit(); sqlstate(err) != "23503" {
		t.Fatalf("a child on one server of a parent another server deleted: %v, want 23503", err)
	}
	if got := rowsString(scanRows(t, b.Begin(), child.ID, false)); got != "[[10 1]]" {
		t.Fatalf("children %s", got)
	}
}
