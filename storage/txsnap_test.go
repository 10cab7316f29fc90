package storage

import (
	"sort"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
)

// TestRefresh: a READ COMMITTED transaction moves to the latest committed
// state between statements and keeps its own changes; a truncate
// committed after one of its deletes still conflicts at commit.
func TestRefresh(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{})
	defer db.Close()
	def := kvTable(t, db, "t")
	insert(t, db, def, []any{1, "a"})
	a := db.Begin()
	if err := a.Insert(def.ID, makeRecord(t, def, []any{2, "own"})); err != nil {
		t.Fatal(err)
	}
	sp := a.Savepoint()
	insert(t, db, def, []any{3, "other"})
	if got := rowsString(scanRows(t, a, def.ID, false)); got != "[[1 a] [2 own]]" {
		t.Fatalf("before Refresh: %s", got)
	}
	if !a.Refresh() {
		t.Fatal("Refresh refused")
	}
	rs := scanRows(t, a, def.ID, false)
	sort.Slice(rs, func(i, j int) bool { return rs[i][0].(int) < rs[j][0].(int) })
	if got := rowsString(rs); got != "[[1 a] [2 own] [3 other]]" {
		t.Fatalf("after Refresh: %s", got)
	}
	// Rolling back to a savepoint taken before the refresh keeps the new
	// snapshot's catalog and rows.
	a.RollbackTo(sp)
	if a.Catalog() != db.Catalog() {
		t.Fatal("RollbackTo brought back an old catalog")
	}
	mustCommit(t, a)
	r := db.Begin()
	rs = scanRows(t, r, def.ID, false)
	r.Rollback()
	sort.Slice(rs, func(i, j int) bool { return rs[i][0].(int) < rs[j][0].(int) })
	if got := rowsString(rs); got != "[[1 a] [2 own] [3 other]]" {
		t.Fatalf("committed: %s", got)
	}

	// A delete made before a refresh is judged from its own snapshot.
	a = db.Begin()
	rows := scanRows(t, a, def.ID, true)
	if err := a.Delete(def.ID, []int64{rows[0][2].(int64)}); err != nil {
		t.Fatal(err)
	}
	b := db.Begin()
	if err := b.Truncate(def.ID); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, b)
	a.Refresh()
	if sqlstate(a.Commit()) != "40001" {
		t.Fatal("a delete committed over a concurrent truncate")
	}

	// A transaction that ran DDL keeps its snapshot.
	c := db.Begin()
	if _, err := c.CreateTable(&catalog.TableDef{Schema: catalog.PublicSchema, Name: "u", Columns: []catalog.ColumnDef{col("x", def.Columns[0].Type)}}); err != nil {
		t.Fatal(err)
	}
	if c.Refresh() {
		t.Fatal("Refresh moved a transaction that ran DDL")
	}
	c.Rollback()
}
