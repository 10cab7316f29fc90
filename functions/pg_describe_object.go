package functions

// pg_describe_object(classid, objid, objsubid): the words PostgreSQL uses
// for a catalog object ("table public.t", "function f(integer)", "column
// c of table t"), which psql's \dx+ lists an extension's members by. It
// is asked of Context.Catalog when it describes objects
// (ObjectDescriber); an object it does not know gives NULL.

import "github.com/cairn-db/cairn/sql/types"

// ObjectDescriber is a Catalog that also describes its objects (sql/syscat's
// View).
type ObjectDescriber interface {
	DescribeObject(classid, objid, objsubid int64) (string, bool)
}

func init() {
	Register(allStable(
		fn("pg_describe_object", targs(types.OidT, types.OidT, tInt4), tText, func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Catalog == nil {
				return nil, nil
			}
			if d, ok := ctx.Catalog.(ObjectDescriber); ok {
				if s, ok := d.DescribeObject(a[0].(int64), a[1].(int64), a[2].(int64)); ok {
					return s, nil
				}
			}
			return nil, nil
		}),
	)...)
}
