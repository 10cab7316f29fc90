package functions

import "testing"

// pg_deeplake's contains and text @> text (not in PostgreSQL itself).
func TestContains(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"contains", []string{"'agent memory'", "'memo'"}, "t", "boolean"},
		{"contains", []string{"'agent memory'", "'Memo'"}, "f", "boolean"},
		{"contains", []string{"'abc'", "''"}, "t", "boolean"},
		{"contains", []string{"NULL", "'a'"}, NULL, "boolean"},
		{"@>", []string{"'abc'::text", "'b'"}, "t", "boolean"},
		{"@>", []string{"'abc'", "'b'"}, "t", "boolean"},
		{"@>", []string{"'abc'::varchar", "'d'::text"}, "f", "boolean"},
	})
}
