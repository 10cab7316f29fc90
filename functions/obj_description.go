package functions

// obj_description(oid [, catalog_name]), col_description(table_oid,
// column_number) and shobj_description(oid, catalog_name): the comment on
// an object (COMMENT ON), which psql's \d+, \dt+, \di+, \ds+, \dT+, \dn+,
// \df+, \dd and \l+ / \du+ and drivers' REMARKS columns show; NULL when
// it has none. With a catalog name, only a comment in that system
// catalog (pg_class, pg_type, ...) answers, as in PostgreSQL.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	describe := func(ctx *Context, oid int64, class string, sub int64) (any, error) {
		if ctx == nil || ctx.Catalog == nil {
			return nil, nil
		}
		if text, ok := ctx.Catalog.Description(oid, class, sub); ok {
			return text, nil
		}
		return nil, nil
	}
	Register(allStable(
		fn("obj_description", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), "", 0)
		}),
		fn("obj_description", targs(types.OidT, types.NameT), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), a[1].(string), 0)
		}),
		fn("col_description", targs(types.OidT, tInt4), tText, func(ctx *Context, a []any) (any, error) {
			return describe(ctx, a[0].(int64), "pg_class", a[1].(int64))
		}),
		fn("shobj_description", targs(types.OidT, types.NameT), tText, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			if text, ok := ctx.Catalog.SharedDescription(a[0].(int64), a[1].(string)); ok {
				return text, nil
			}
			return nil, nil
		}),
	)...)
}
