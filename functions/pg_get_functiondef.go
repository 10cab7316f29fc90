package functions

// pg_get_functiondef(func_oid): the CREATE OR REPLACE FUNCTION statement
// of a function, which GUI clients (DBeaver, pgAdmin, DataGrip) show as
// its source and psql's \sf and \ef print. It is asked of
// Context.Catalog when it knows functions (FunctionCatalog); an OID
// naming no function it can write gives NULL, as PostgreSQL gives for an
// OID naming no function.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(allStable(
		fn("pg_get_functiondef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			if fc, ok := ctx.Catalog.(FunctionCatalog); ok {
				if def, ok := fc.FunctionDef(a[0].(int64)); ok {
					return def, nil
				}
			}
			return nil, nil
		}),
	)...)
}
