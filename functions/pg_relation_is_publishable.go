package functions

// pg_relation_is_publishable(regclass): whether a relation can be added to
// a logical replication publication, which psql's \d reads. cairn has no
// logical replication, so no relation is (NULL for an OID that
// Context.Catalog knows no relation by, as in PostgreSQL).

func init() {
	Register(allStable(fn("pg_relation_is_publishable", targs(regclassT), tBool, func(ctx *Context, a []any) (any, error) {
		if !relationExists(ctx, a[0].(int64)) {
			return nil, nil
		}
		return false, nil
	}))...)
}
