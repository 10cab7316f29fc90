package functions

// pg_get_constraintdef(constraint_oid [, pretty]): a table constraint's
// definition as CREATE TABLE would write it ("PRIMARY KEY (id)",
// "FOREIGN KEY (a) REFERENCES t(id)"), from Context.Catalog. NULL for an
// OID naming no constraint, or without a catalog. cairn prints one form,
// so pretty changes nothing.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	def := func(ctx *Context, a []any) (any, error) {
		if ctx == nil || ctx.Catalog == nil {
			return nil, nil
		}
		if s, ok := ctx.Catalog.ConstraintDef(a[0].(int64)); ok {
			return s, nil
		}
		return nil, nil
	}
	Register(allStable(
		fn("pg_get_constraintdef", targs(types.OidT), tText, def),
		fn("pg_get_constraintdef", targs(types.OidT, tBool), tText, def),
	)...)
}
