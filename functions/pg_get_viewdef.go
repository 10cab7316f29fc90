package functions

// pg_get_viewdef(view_oid [, pretty | wrap_column]): a view's query, from
// Context.Catalog, as " SELECT ...;" like PostgreSQL's (NULL for an OID
// naming no view, or without a catalog; system views, computed in Go,
// have no SQL to show). cairn prints one form, so pretty and the wrap
// column change nothing.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	def := func(ctx *Context, a []any) (any, error) {
		if ctx == nil || ctx.Catalog == nil {
			return nil, nil
		}
		if s, ok := ctx.Catalog.ViewDef(a[0].(int64)); ok {
			return s, nil
		}
		return nil, nil
	}
	Register(allStable(
		fn("pg_get_viewdef", targs(types.OidT), tText, def),
		fn("pg_get_viewdef", targs(types.OidT, tBool), tText, def),
		fn("pg_get_viewdef", targs(types.OidT, tInt4), tText, def),
	)...)
}
