package functions

// sign(x): -1, 0 or 1, for double precision and numeric.

import "github.com/cockroachdb/apd/v3"

func init() {
	Register(
		fn1("sign", tF8, tF8, func(a any) (any, error) {
			x := a.(float64)
			switch {
			case x > 0:
				return 1.0, nil
			case x < 0:
				return -1.0, nil
			}
			return x * 0, nil
		}),
		fn1("sign", tNum, tNum, func(a any) (any, error) {
			x := a.(*apd.Decimal)
			if x.Form == apd.NaN {
				return x, nil
			}
			switch {
			case x.IsZero():
				return newDec(0), nil
			case x.Negative:
				return newDec(-1), nil
			}
			return newDec(1), nil
		}),
	)
}
