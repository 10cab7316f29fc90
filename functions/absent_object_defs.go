package functions

// pg_get_triggerdef(trigger_oid [, pretty]), and the definitions of
// objects cairn does not have: pg_get_statisticsobjdef_columns(statistics_oid) and
// pg_get_function_sqlbody(func_oid). cairn has no extended
// statistics and no SQL-bodied functions, so they return NULL, as
// PostgreSQL does for an OID naming no such object. psql's \d and drivers'
// metadata queries still call them, so they must resolve.

import "github.com/cairn-db/cairn/sql/types"

// TriggerCatalog is a Catalog that also knows the triggers (sql/syscat's
// View): pg_get_triggerdef prints their CREATE TRIGGER.
type TriggerCatalog interface {
	TriggerDef(oid int64, pretty bool) (string, bool)
}

// triggerDef is pg_get_triggerdef: NULL for an OID naming no trigger.
func triggerDef(ctx *Context, a []any) (any, error) {
	if ctx == nil || ctx.Catalog == nil {
		return nil, nil
	}
	if tc, ok := ctx.Catalog.(TriggerCatalog); ok {
		pretty := len(a) > 1 && a[1] == true
		if def, ok := tc.TriggerDef(a[0].(int64), pretty); ok {
			return def, nil
		}
	}
	return nil, nil
}

func init() {
	oid := types.OidT
	none := func(*Context, []any) (any, error) { return nil, nil }
	Register(allStable(
		fn("pg_get_triggerdef", targs(oid), tText, triggerDef),
		fn("pg_get_triggerdef", targs(oid, tBool), tText, triggerDef),
		fn("pg_get_statisticsobjdef_columns", targs(oid), tText, none),
		fn("pg_get_function_sqlbody", targs(oid), tText, none),
	)...)
}
