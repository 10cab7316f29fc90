package syscat

import (
	"fmt"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// Every relation's rows have one datum per column, of the column's type.
func TestRowsMatchColumns(t *testing.T) {
	cat := &catalog.Catalog{
		Schemas: map[string]*catalog.SchemaDef{"public": {Name: "public"}},
		Tables: map[uint64]*catalog.TableDef{1: {ID: 1, Schema: "public", Name: "mem",
			Columns:    []catalog.ColumnDef{{ID: 1, Name: "id", Type: types.Int8T, NotNull: true}, {ID: 2, Name: "task", Type: types.TextT, Default: "'x'::text"}},
			PrimaryKey: []int{1}, Checks: []catalog.CheckDef{{Name: "c", Expr: "id > 0"}}}},
		Sequences: map[string]*catalog.SequenceDef{"public.mem_id_seq": {Schema: "public", Name: "mem_id_seq", Start: 1, Increment: 1, Min: 1, Max: 1 << 62}},
		Indexes:   map[string]*catalog.IndexDef{"public.mem_task": {Schema: "public", Name: "mem_task", Table: 1, Method: "btree", Columns: []int{2}}},
	}
	v := NewView(cat, "cairn", "cairn", []string{"public"})
	for _, r := range allRelations() {
		for _, row := range r.Rows(v) {
			if len(row) != len(r.Cols) {
				t.Fatalf("%s.%s: row of %d datums for %d columns", r.Schema, r.Name, len(row), len(r.Cols))
			}
			for i, d := range row {
				if d == nil {
					continue
				}
				if err := format(d, r.Cols[i].T); err != nil {
					t.Fatalf("%s.%s column %s (%s): datum %T %v: %v", r.Schema, r.Name, r.Cols[i].Name, r.Cols[i].T, d, d, err)
				}
			}
		}
	}
	if oid, err := v.Lookup(types.RegClass, "mem"); err != nil || oid != TableOID(1) {
		t.Fatalf("'mem'::regclass = %d, %v", oid, err)
	}
	if name, ok := v.Name(types.RegClass, TableOID(1)); !ok || name != "mem" {
		t.Fatalf("regclass name %q", name)
	}
	if !v.TableVisible(TableOID(1)) {
		t.Fatal("mem not visible")
	}
}

// format renders a datum, turning a panic (a datum of the wrong Go type)
// into an error.
func format(d any, t types.T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	types.FormatText(d, t)
	return nil
}

// reloptions prints WITH options as PostgreSQL's flatten_reloptions does:
// values that read as plain identifiers bare, others as literals.
func TestReloptions(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"m=16", "ef_construction=64"}, "m='16', ef_construction='64'"},
		{[]string{"index_type=bm25"}, "index_type=bm25"},
		{[]string{"index_type=BM25"}, "index_type='BM25'"},
		{[]string{"index_type=it's"}, "index_type='it''s'"},
		{[]string{"buffering=on"}, "buffering='on'"}, // ON is a reserved keyword
		{[]string{"x=select"}, "x='select'"},
	} {
		if got := reloptions(c.in); got != c.want {
			t.Errorf("reloptions(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
