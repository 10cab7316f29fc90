package functions

// pg_get_indexdef(index_oid) and pg_get_indexdef(index_oid, column_no,
// pretty): an index's CREATE INDEX statement, from Context.Catalog (NULL
// for an OID naming no index, or without a catalog). A column_no other
// than 0 asks for that key of the index alone ("" past the last), which
// JDBC's getIndexInfo reads as the column's name. pretty prints the
// table bare where the search path finds it and expressions with only
// the parentheses precedence needs, as psql's \d shows them.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	def := func(ctx *Context, id, colno int64, pretty bool) any {
		if ctx == nil || ctx.Catalog == nil {
			return nil
		}
		s, ok := ctx.Catalog.IndexDef(id, int(colno), pretty)
		if !ok {
			return nil
		}
		return s
	}
	Register(allStable(
		fn("pg_get_indexdef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), 0, false), nil
		}),
		fn("pg_get_indexdef", targs(types.OidT, tInt4, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), a[1].(int64), a[2].(bool)), nil
		}),
	)...)
}
