package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
)

// fetch returns FetchRows' rows as "[key value rowid]" strings.
func fetch(t *testing.T, tx *Tx, id uint64, rowIDs []int64) []string {
	t.Helper()
	rec, err := tx.FetchRows(context.Background(), id, []int{1, 0}, rowIDs)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumCols() != 3 || rec.Schema().Field(2).Name != catalog.RowIDColumn {
		t.Fatalf("schema %s", rec.Schema())
	}
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		out = append(out, fmt.Sprint([]any{goValue(rec.Column(1), i), goValue(rec.Column(0), i),
			rec.Column(2).(*array.Int64).Value(i)}))
	}
	return out
}

func TestFetchRows(t *testing.T) {
	db := openDB(t, t.TempDir(), Options{FlushRows: 1 << 30})
	defer db.Close()
	def := kvTable(t, db, "t")
	var rows [][]any
	for k := 0; k < 3000; k++ {
		rows = append(rows, []any{k, fmt.Sprint("v", k)})
	}
	insert(t, db, def, rows[:1000]...)
	db.flushTable(def.ID, true)
	insert(t, db, def, rows[1000:2000]...)
	db.flushTable(def.ID, true)
	insert(t, db, def, rows[2000:]...) // tail
	tx := db.Begin()
	byKey := map[int]int64{}
	for _, r := range scanRows(t, tx, def.ID, true) {
		byKey[r[0].(int)] = r[2].(int64)
	}
	tx.Delete(def.ID, []int64{byKey[5], byKey[2500]})
	mustCommit(t, tx)

	tx = db.Begin()
	defer tx.Rollback()
	if err := tx.Insert(def.ID, makeRecord(t, def, []any{9000, "own"}, []any{9001, "own deleted"})); err != nil {
		t.Fatal(err)
	}
	for _, r := range scanRows(t, tx, def.ID, true) {
		byKey[r[0].(int)] = r[2].(int64)
	}
	tx.Delete(def.ID, []int64{byKey[9001], byKey[7]})
	want := func(k int, v string) string { return fmt.Sprint([]any{k, v, byKey[k]}) }
	ids := []int64{byKey[2999], byKey[0], byKey[5], byKey[1500], byKey[1501], byKey[1502], byKey[9000],
		byKey[2500], 987654321, byKey[7], byKey[9001], byKey[0], -1, byKey[999], byKey[1000]}
	got := fetch(t, tx, def.ID, ids)
	exp := []string{want(2999, "v2999"), want(0, "v0"), want(1500, "v1500"), want(1501, "v1501"), want(1502, "v1502"),
		want(9000, "own"), want(0, "v0"), want(999, "v999"), want(1000, "v1000")}
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Fatalf("FetchRows:\n got %v\nwant %v", got, exp)
	}
	if got := fetch(t, tx, def.ID, nil); len(got) != 0 {
		t.Fatalf("no IDs: %v", got)
	}
	// Another transaction does not see tx's changes.
	other := db.Begin()
	defer other.Rollback()
	got = fetch(t, other, def.ID, []int64{byKey[7], byKey[9000], byKey[5]})
	if fmt.Sprint(got) != fmt.Sprint([]string{want(7, "v7")}) {
		t.Fatalf("other tx: %v", got)
	}
}
