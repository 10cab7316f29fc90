package functions

// pg_get_expr(pg_node_tree, relation_oid [, pretty]): the SQL text of a
// stored expression (column defaults in pg_attrdef.adbin, check
// constraints in pg_constraint.conbin, index predicates in
// pg_index.indpred) over the columns of the relation. PostgreSQL stores
// these as analysed trees and decompiles them here; cairn's pg_node_tree
// columns hold the text PostgreSQL would print, which an ExprCatalog
// prints again in the pretty form when asked (without one, or for text
// it cannot read, the text is returned as it is).

import "github.com/cairn-db/cairn/sql/types"

// ExprCatalog is the part of a Catalog that prints a stored expression
// again: ExprDef is pg_get_expr of text over relation rel's columns.
type ExprCatalog interface {
	ExprDef(text string, rel int64, pretty bool) string
}

func init() {
	expr := func(ctx *Context, a []any, pretty bool) (any, error) {
		if ctx == nil || ctx.Catalog == nil {
			return a[0], nil
		}
		ec, ok := ctx.Catalog.(ExprCatalog)
		if !ok {
			return a[0], nil
		}
		return ec.ExprDef(a[0].(string), a[1].(int64), pretty), nil
	}
	Register(allStable(
		fn("pg_get_expr", targs(tText, types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return expr(ctx, a, false)
		}),
		fn("pg_get_expr", targs(tText, types.OidT, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return expr(ctx, a, a[2].(bool))
		}),
	)...)
}
