package functions

// mod(x, y): the remainder of integer or numeric division (as %).

import (
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

func init() {
	for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T} {
		f := t.Family
		Register(fn("mod", targs(t, t), t, func(_ *Context, a []any) (any, error) {
			return intArithEval(opMod, a[0].(int64), a[1].(int64), f)
		}))
	}
	Register(fn("mod", targs(tNum, tNum), tNum, func(_ *Context, a []any) (any, error) {
		return numericOp(opMod, a[0].(*apd.Decimal), a[1].(*apd.Decimal))
	}))
}
