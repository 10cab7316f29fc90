package functions

// pg_get_expr(pg_node_tree, relation_oid [, pretty]): the SQL text of a
// stored expression (column defaults in pg_attrdef.adbin, check
// constraints in pg_constraint.conbin, index predicates). PostgreSQL
// stores these as parsed trees and decompiles them here; cairn stores the
// SQL text itself (its pg_node_tree columns are text), so the expression
// is returned as it is.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	expr := func(_ *Context, a []any) (any, error) { return a[0], nil }
	Register(allStable(
		fn("pg_get_expr", targs(tText, types.OidT), tText, expr),
		fn("pg_get_expr", targs(tText, types.OidT, tBool), tText, expr),
	)...)
}
