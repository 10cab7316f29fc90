package functions

// obj_description(oid [, catalog_name]), col_description(table_oid,
// column_number) and shobj_description(oid, catalog_name): the comment on
// an object (COMMENT ON TABLE / VIEW / COLUMN / SCHEMA / FUNCTION), which
// psql's \d+, \dt+, \dv+, \dn+ and \df+ and drivers' REMARKS columns
// show; NULL when it has none. cairn keeps no comments on shared objects,
// so shobj_description (databases, roles) is always NULL.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	describe := func(ctx *Context, oid, sub int64) (any, error) {
		if ctx == nil || ctx.Catalog == nil {
			return nil, nil
		}
		if text, ok := ctx.Catalog.Description(oid, sub); ok {
			return text, nil
		}
		return nil, nil
	}
	Register(allStable(
		fn("obj_description", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), 0)
		}),
		fn("obj_description", targs(types.OidT, types.NameT), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), 0)
		}),
		fn("col_description", targs(types.OidT, tInt4), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), a[1].(int64))
		}),
		fn("shobj_description", targs(types.OidT, types.NameT), tText, func(*Context, []any) (any, error) { return nil, nil }),
	)...)
}
