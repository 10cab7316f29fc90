package functions

// pg_table_is_visible(oid), pg_type_is_visible(oid) and
// pg_function_is_visible(oid): whether an object would be found by its
// unqualified name on the search path, which psql's \d and drivers'
// metadata queries filter on. As in PostgreSQL, an OID naming no object
// gives NULL.
//
// Tables are asked of Context.Catalog (false without one). Types are the
// built-in ones, all in pg_catalog, which is always searched. cairn's
// functions are all built-in too, in pg_catalog, so every function OID is
// visible.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	oid := targs(types.OidT)
	Register(allStable(
		fn("pg_table_is_visible", oid, tBool, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return false, nil
			}
			id := a[0].(int64)
			if _, ok := ctx.Catalog.Name(types.RegClass, id); !ok {
				return nil, nil
			}
			return ctx.Catalog.TableVisible(id), nil
		}),
		fn1("pg_type_is_visible", types.OidT, tBool, func(a any) (any, error) {
			if _, ok := types.ByOID(uint32(a.(int64))); !ok {
				return nil, nil
			}
			return true, nil
		}),
		fn1("pg_function_is_visible", types.OidT, tBool, func(any) (any, error) { return true, nil }),
	)...)
}
