package sql

import (
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// TestRuleText checks RuleText's two forms, and that its plain text is a
// fixed point (a catalog holding either the text as written or the text
// printed shows the same), outside the server; pg/deparse_constraints.test
// checks the text against PostgreSQL's.
func TestRuleText(t *testing.T) {
	cat := testCatalog()
	def := cat.Tables[1]
	def.Columns = append(def.Columns,
		catalog.ColumnDef{ID: 5, Name: "name", Type: types.T{Family: types.Varchar, Mod: 20}},
		catalog.ColumnDef{ID: 6, Name: "price", Type: types.NumericT})
	cases := []struct{ in, plain, pretty string }{
		{"id > 0", "(id > 0)", "id > 0"},
		{"name <> 'x' AND price > 0", "(((name)::text <> 'x'::text) AND (price > (0)::numeric))", "name::text <> 'x'::text AND price > 0::numeric"},
		{"task IN ('a', 'b')", "(task = ANY (ARRAY['a'::text, 'b'::text]))", "task = ANY (ARRAY['a'::text, 'b'::text])"},
		{"id BETWEEN 1 AND 10 OR task LIKE 'a%'", "(((id >= 1) AND (id <= 10)) OR (task ~~ 'a%'::text))", "id >= 1 AND id <= 10 OR task ~~ 'a%'::text"},
		{"id * 2 + 1 > (id - 1) * 3", "(((id * 2) + 1) > ((id - 1) * 3))", "(id * 2 + 1) > ((id - 1) * 3)"},
		{"length(name) < 5", "(length((name)::text) < 5)", "length(name::text) < 5"},
		{"-id < 0 AND id <> -5", "(((- id) < 0) AND (id <> '-5'::integer))", "(- id) < 0 AND id <> '-5'::integer"},
	}
	for _, c := range cases {
		for _, pretty := range []bool{false, true} {
			want := c.plain
			if pretty {
				want = c.pretty
			}
			got, err := RuleText(cat, c.in, syscat.ExprContext{Table: def, Pretty: pretty})
			if err != nil || got != want {
				t.Errorf("RuleText(%q, pretty %v) = %q, %v; want %q", c.in, pretty, got, err, want)
				continue
			}
			if again, err := RuleText(cat, got, syscat.ExprContext{Table: def, Pretty: pretty}); err != nil || again != got {
				t.Errorf("RuleText(%q) = %q, %v: not a fixed point", got, again, err)
			}
		}
	}
	// A DEFAULT is coerced to its column's type, the cast not shown.
	for in, want := range map[string]string{"'x'": "'x'::text", "0": "0", "-1": "'-1'::integer", "now()": "now()"} {
		got, err := RuleText(cat, in, syscat.ExprContext{Table: def, Column: &def.Columns[1].Type})
		if err != nil || got != want {
			t.Errorf("DEFAULT %s = %q, %v; want %q", in, got, err, want)
		}
	}
	// A form not modelled is an error: the caller keeps the stored text.
	if got, err := RuleText(cat, "embedding[1:2] IS NOT NULL", syscat.ExprContext{Table: def}); err == nil {
		t.Errorf("an array slice printed as %q", got)
	}
}
