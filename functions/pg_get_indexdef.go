package functions

// pg_get_indexdef(index_oid) and pg_get_indexdef(index_oid, column_no,
// pretty): an index's CREATE INDEX statement, from Context.Catalog (NULL
// for an OID naming no index, or without a catalog). A column_no other
// than 0 asks for that key of the index alone ("" past the last), which
// JDBC's getIndexInfo reads as the column's name. cairn prints one form,
// so pretty changes nothing.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	def := func(ctx *Context, id, colno int64) any {
		if ctx == nil || ctx.Catalog == nil {
			return nil
		}
		s, ok := ctx.Catalog.IndexDef(id, int(colno))
		if !ok {
			return nil
		}
		return s
	}
	Register(allStable(
		fn("pg_get_indexdef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), 0), nil
		}),
		fn("pg_get_indexdef", targs(types.OidT, tInt4, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), a[1].(int64)), nil
		}),
	)...)
}
