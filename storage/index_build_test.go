package storage

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// plainTable creates public.name(id int8, v text) with no key.
func plainTable(t *testing.T, db *DB, name string) *catalog.TableDef {
	return createTable(t, db, name, []catalog.ColumnDef{col("id", types.Int8T), col("v", types.TextT)})
}

// addPrimaryKey starts a transaction that adds a primary key on column id
// of def; the caller commits it.
func addPrimaryKey(t *testing.T, db *DB, def *catalog.TableDef) *Tx {
	t.Helper()
	tx := db.Begin()
	nd := tx.Catalog().Tables[def.ID].Clone()
	nd.PrimaryKey = []int{1}
	nd.Uniques = append(nd.Uniques, catalog.UniqueDef{Name: def.Name + "_pkey", Columns: []int{1}})
	if err := tx.AlterTable(nd); err != nil {
		t.Fatalf("AlterTable: %v", err)
	}
	return tx
}

// commitRows commits a transaction that deletes rows dels of def and
// inserts row.
func commitRows(db *DB, def *catalog.TableDef, dels []int64, row []any) error {
	tx := db.Begin()
	defer tx.Rollback()
	if len(dels) > 0 {
		if err := tx.Delete(def.ID, dels); err != nil {
			return err
		}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(int64(row[0].(int)))
	b.Field(1).(*array.StringBuilder).Append(row[1].(string))
	rec := b.NewRecord()
	defer rec.Release()
	if err := tx.Insert(def.ID, rec); err != nil {
		return err
	}
	return tx.Commit()
}

// TestOnlineIndexCatchUp commits rows between the index built ahead of a
// constraint's commit and the commit lock (the last catch-up, under the
// lock, must see them): a duplicate fails the constraint's commit with
// 23505, other rows end up in the index, and a key whose row was deleted
// and inserted again (an UPDATE) is no duplicate.
func TestOnlineIndexCatchUp(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 64})
	defer db.Close()
	defer func() { testHookIndexesBuilt = nil }()
	var rows [][]any
	for i := 1; i <= 500; i++ {
		rows = append(rows, []any{i, "v"})
	}

	// A duplicate committed in the window fails the constraint.
	a := plainTable(t, db, "a")
	insert(t, db, a, rows...)
	waitFlushed(t, db, a.ID, 1)
	tx := addPrimaryKey(t, db, a)
	var hookErr0 error
	testHookIndexesBuilt = func() {
		testHookIndexesBuilt = nil
		hookErr0 = commitRows(db, a, nil, []any{5, "again"})
	}
	err := tx.Commit()
	if hookErr0 != nil {
		t.Fatal(hookErr0)
	}
	if pe := pgerr.From(err); pe == nil || pe.Code != "23505" || pe.Message != `could not create unique index "a_pkey"` {
		t.Fatalf("commit over a duplicate committed during the build: %v", err)
	}

	// Rows committed in the window (a new key, and a key deleted and
	// inserted again) are indexed: inserting them once more is 23505.
	b := plainTable(t, db, "b")
	insert(t, db, b, rows...)
	tx = addPrimaryKey(t, db, b)
	// The hook runs under the table's flushMu: it reports errors instead
	// of failing the test there (the deferred Close would wait for it).
	var hookErr error
	testHookIndexesBuilt = func() {
		testHookIndexesBuilt = nil
		hookErr = commitRows(db, b, nil, []any{1000, "new"})
		if hookErr != nil {
			return
		}
		up := db.Begin()
		defer up.Rollback()
		rows := scanRows(t, up, b.ID, true)
		for _, r := range rows {
			if fmt.Sprint(r[0]) == "7" {
				hookErr = commitRows(db, b, []int64{r[2].(int64)}, []any{7, "updated"})
			}
		}
	}
	mustCommit(t, tx)
	if hookErr != nil {
		t.Fatal(hookErr)
	}
	if testHookIndexesBuilt != nil {
		t.Fatal("the index was not built ahead of the commit")
	}
	for _, id := range []int{1000, 7, 500} {
		in := db.Begin()
		err := in.Insert(b.ID, makeRecord(t, b, []any{id, "dup"}))
		if err == nil {
			err = in.Commit()
		}
		in.Rollback()
		if sqlstate(err) != "23505" {
			t.Fatalf("insert of key %d after the primary key was added: %v", id, err)
		}
	}
	insert(t, db, b, []any{1001, "fine"})
}
