package functions

// round and trunc: round(double precision) rounds half to even (rint),
// round(numeric [, scale]) half away from zero; trunc truncates toward
// zero. A negative scale rounds to tens, hundreds...

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

func init() {
	clampScale := func(s int64) int32 {
		return int32(max(min(s, 2000), -2000))
	}
	Register(
		fn1("round", tF8, tF8, func(a any) (any, error) { return math.RoundToEven(a.(float64)), nil }),
		fn1("round", tNum, tNum, func(a any) (any, error) { return roundDec(a.(*apd.Decimal), 0), nil }),
		fn("round", targs(tNum, tInt4), tNum, func(_ *Context, a []any) (any, error) {
			return roundDec(a[0].(*apd.Decimal), clampScale(a[1].(int64))), nil
		}),
		fn1("trunc", tF8, tF8, func(a any) (any, error) { return math.Trunc(a.(float64)), nil }),
		fn1("trunc", tNum, tNum, func(a any) (any, error) { return truncDec(a.(*apd.Decimal), 0), nil }),
		fn("trunc", targs(tNum, tInt4), tNum, func(_ *Context, a []any) (any, error) {
			return truncDec(a[0].(*apd.Decimal), clampScale(a[1].(int64))), nil
		}),
	)
}
