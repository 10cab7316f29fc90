package functions

// pg_get_constraintdef(constraint_oid [, pretty]): a table's or domain's
// constraint definition as CREATE TABLE would write it ("PRIMARY KEY
// (id)", "FOREIGN KEY (a) REFERENCES t(id)", "CHECK ((a > 0))"), from
// Context.Catalog. NULL for an OID naming no constraint, or without a
// catalog. pretty prints a CHECK's expression with only the parentheses
// precedence needs ("CHECK (a > 0)"), as psql's \d shows it.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	def := func(ctx *Context, oid int64, pretty bool) any {
		if ctx == nil || ctx.Catalog == nil {
			return nil
		}
		if s, ok := ctx.Catalog.ConstraintDef(oid, pretty); ok {
			return s
		}
		return nil
	}
	Register(allStable(
		fn("pg_get_constraintdef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), false), nil
		}),
		fn("pg_get_constraintdef", targs(types.OidT, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), a[1].(bool)), nil
		}),
	)...)
}
