package functions

// pg_get_ruledef(rule_oid [, pretty]): the CREATE RULE of a rule in
// pg_rewrite, which pg_dump and psql read; in cairn the only rules are
// views' ON SELECT rules. NULL for an OID naming no rule (or without a
// catalog that knows rules).

import "github.com/cairn-db/cairn/sql/types"

// RuleCatalog is the optional part of a Context.Catalog that
// pg_get_ruledef reads (sql/syscat's View).
type RuleCatalog interface {
	// RuleDef is the CREATE RULE of the rule with OID oid; ok is false
	// when there is none.
	RuleDef(oid int64, pretty bool) (string, bool)
}

func init() {
	def := func(ctx *Context, oid int64, pretty bool) any {
		if ctx == nil || ctx.Catalog == nil {
			return nil
		}
		if rc, ok := ctx.Catalog.(RuleCatalog); ok {
			if s, ok := rc.RuleDef(oid, pretty); ok {
				return s
			}
		}
		return nil
	}
	Register(allStable(
		fn("pg_get_ruledef", targs(types.OidT), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), false), nil
		}),
		fn("pg_get_ruledef", targs(types.OidT, tBool), tText, func(ctx *Context, a []any) (any, error) {
			return def(ctx, a[0].(int64), a[1].(bool)), nil
		}),
	)...)
}
