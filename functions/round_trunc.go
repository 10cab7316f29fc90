package functions

// round and trunc: round(double precision) rounds half to even (rint),
// round(numeric [, scale]) half away from zero; trunc truncates toward
// zero. A negative scale rounds to tens, hundreds...

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

func init() {
	// clampScale limits the scale argument as PostgreSQL 15 does: to the
	// most decimals a numeric stores, and to one digit more than its
	// integer digits (a scale below that rounds every numeric to zero).
	clampScale := func(s int64) int32 {
		return int32(max(min(s, numericMaxDScale), -numericMaxIntDigits-1))
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
