package functions

// The definitions of objects cairn does not have:
// pg_get_triggerdef(trigger_oid [, pretty]),
// pg_get_statisticsobjdef_columns(statistics_oid) and
// pg_get_function_sqlbody(func_oid). cairn has no triggers, no extended
// statistics and no SQL-bodied functions, so they return NULL, as
// PostgreSQL does for an OID naming no such object. psql's \d and drivers'
// metadata queries still call them, so they must resolve.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	oid := types.OidT
	none := func(*Context, []any) (any, error) { return nil, nil }
	Register(allStable(
		fn("pg_get_triggerdef", targs(oid), tText, none),
		fn("pg_get_triggerdef", targs(oid, tBool), tText, none),
		fn("pg_get_statisticsobjdef_columns", targs(oid), tText, none),
		fn("pg_get_function_sqlbody", targs(oid), tText, none),
	)...)
}
