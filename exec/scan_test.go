package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// testTable creates public.t (id int8, name text, emb float4[]) holding
// n rows (id i, name "n<i%3>", emb {i, -i}) inserted in several
// transactions, and returns the database and the table.
func testTable(t *testing.T, n int) (*storage.DB, *catalog.TableDef) {
	t.Helper()
	db, err := storage.Open(t.TempDir(), storage.Options{FlushRows: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tx := db.Begin()
	def, err := tx.CreateTable(&catalog.TableDef{Schema: "public", Name: "t", Columns: []catalog.ColumnDef{
		{Name: "id", Type: types.Int8T},
		{Name: "name", Type: types.TextT},
		{Name: "emb", Type: types.Float4ArrayT},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	cols := []sql.Col{col("id", types.Int8T), col("name", types.TextT), col("emb", types.Float4ArrayT)}
	for start := 0; start < n; start += 10 {
		var rows [][]any
		for i := start; i < min(start+10, n); i++ {
			emb := &types.Array{Elem: types.Float4T, Dims: []int{2}, Elems: []any{float64(i), float64(-i)}}
			rows = append(rows, row(int64(i), "n"+string(rune('0'+i%3)), emb))
		}
		tx := db.Begin()
		rt := &Runtime{Tx: tx, DB: db}
		op, err := Build(rt, values(cols, rows...))
		if err != nil {
			t.Fatal(err)
		}
		err = Drain(context.Background(), op, func(rec arrow.Record) error { return tx.Insert(def.ID, rec) })
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return db, def
}

func scanNode(def *catalog.TableDef, withRowID bool, cols ...int) *sql.Scan {
	n := &sql.Scan{Table: def, Cols: cols, WithRowID: withRowID}
	for _, c := range cols {
		n.Out = append(n.Out, sql.Col{Name: def.Columns[c].Name, T: def.Columns[c].Type, Table: def.Name})
	}
	if withRowID {
		n.Out = append(n.Out, sql.Col{Name: "__rowid", T: types.Int8T, Hidden: true})
	}
	return n
}

func TestScan(t *testing.T) {
	db, def := testTable(t, 45)
	tx := db.Begin()
	defer tx.Rollback()
	rt := testRuntime(t)
	rt.Tx, rt.DB = tx, db

	got := collect(t, rt, &sql.Sort{Input: scanNode(def, false, 2, 0), Keys: []sql.SortKey{{Expr: ref(1, types.Int8T)}}})
	if len(got) != 45 {
		t.Fatalf("%d rows", len(got))
	}
	for i, r := range got {
		emb := r[0].(*types.Array)
		if r[1] != int64(i) || len(emb.Elems) != 2 || emb.Elems[1] != float64(-i) {
			t.Fatalf("row %d = %v %+v", i, r, emb)
		}
	}
	// Filter + aggregate over the scan, with row IDs.
	scan := scanNode(def, true, 0, 1)
	filter := &sql.Filter{Input: scan, Cond: call(opGt, ref(0, types.Int8T), i64(39))}
	agg := aggNode(filter, []sql.Expr{ref(1, types.TextT)}, sql.AggCall{Agg: aggCountStar, Name: "count", T: types.Int8T})
	sorted := &sql.Sort{Input: agg, Keys: []sql.SortKey{{Expr: ref(0, types.TextT)}}}
	wantRows(t, collect(t, rt, sorted), row("n0", int64(1)), row("n1", int64(2)), row("n2", int64(2)))
	rows := collect(t, rt, scan)
	seen := map[any]bool{}
	for _, r := range rows {
		if r[2] == nil || seen[r[2]] {
			t.Fatalf("row ID %v missing or repeated", r[2])
		}
		seen[r[2]] = true
	}
}

func TestNextVal(t *testing.T) {
	db, _ := testTable(t, 3)
	tx := db.Begin()
	if err := tx.CreateSequence(&catalog.SequenceDef{Schema: "public", Name: "s", Start: 1, Increment: 1, Min: 1, Max: 1 << 62}); err != nil {
		t.Fatal(err)
	}
	rt := testRuntime(t)
	rt.Tx, rt.DB = tx, db
	in := intRows(1, row(int64(1)), row(int64(2)), row(int64(3)))
	wantVals(t, "nextval", evalOver(t, rt, &sql.NextVal{Schema: "public", Name: "s"}, in), int64(1), int64(2), int64(3))
	if v, err := EvalScalar(context.Background(), rt, &sql.NextVal{Schema: "public", Name: "s"}); err != nil || v != int64(4) {
		t.Fatalf("nextval = %v, %v", v, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
