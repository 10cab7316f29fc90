package functions

// pg_table_is_visible(oid), pg_type_is_visible(oid),
// pg_function_is_visible(oid) and pg_collation_is_visible(oid): whether an object would be found by its
// unqualified name on the search path, which psql's \d and drivers'
// metadata queries filter on. As in PostgreSQL, an OID naming no object
// gives NULL.
//
// Tables are asked of Context.Catalog (false without one). Types are the
// built-in ones, all in pg_catalog, which is always searched. A function
// is visible when it is in pg_catalog or in a schema of the search path
// (the built-in extensions' are in public); without a catalog every
// function OID is taken to be. The collations are pg_collation's three
// built-in ones (sql/syscat), all in pg_catalog. pg_tablespace_location
// is '' for the two built-in tablespaces, which live in the data
// directory.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types/tsearch"
	"slices"

	"github.com/cairn-db/cairn/sql/types"
)

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
		fn("pg_type_is_visible", oid, tBool, func(ctx *Context, a []any) (any, error) {
			if _, ok := types.ByOID(uint32(a[0].(int64))); ok {
				return true, nil
			}
			if ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			// A user type: visible when regtype prints it unqualified.
			name, ok := ctx.Catalog.Name(types.RegType, a[0].(int64))
			if !ok {
				return nil, nil
			}
			return !strings.Contains(strings.TrimSuffix(name, "[]"), "."), nil
		}),
		fn1("pg_collation_is_visible", types.OidT, tBool, func(a any) (any, error) {
			switch a.(int64) {
			case 100, 950, 951: // default, C, POSIX
				return true, nil
			}
			return nil, nil
		}),
		fn1("pg_tablespace_location", types.OidT, types.TextT, func(a any) (any, error) {
			switch a.(int64) {
			case 1663, 1664: // pg_default, pg_global: in the data directory
				return "", nil
			}
			return nil, nil
		}),
		fn("pg_function_is_visible", oid, tBool, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return true, nil
			}
			schema, _, _, _, ok := functionSignature(ctx, a[0].(int64))
			if !ok {
				return nil, nil
			}
			return schema == "pg_catalog" || ctx.Session == nil || slices.Contains(ctx.Session.SearchPath(), schema), nil
		}),
	)...)
	// The text search configurations are in pg_catalog, always visible.
	Register(stable(fn1("pg_ts_config_is_visible", types.OidT, tBool, func(a any) (any, error) {
		if _, ok := tsearch.ConfigByOID(a.(int64)); ok {
			return true, nil
		}
		return nil, nil
	})))
	// The catalogs of these objects are empty in cairn (sql/syscat), so
	// no OID names one: NULL, as PostgreSQL answers for such an OID. psql's
	// \do, \dc, \dF*, \dX and \dA* filter on them.
	for _, name := range []string{"pg_operator_is_visible", "pg_conversion_is_visible", "pg_opclass_is_visible",
		"pg_opfamily_is_visible", "pg_ts_dict_is_visible", "pg_ts_parser_is_visible",
		"pg_ts_template_is_visible", "pg_statistics_obj_is_visible"} {
		Register(allStable(fn1(name, types.OidT, tBool, func(any) (any, error) { return nil, nil }))...)
	}
}
