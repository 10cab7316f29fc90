package functions

// div(y, x) on numeric: the integer quotient of y / x, truncated toward
// zero (scale 0). NaN gives NaN, and so does infinity divided by
// infinity; infinity divided by a finite number is an infinity of the
// quotient's sign, a finite number divided by infinity is 0, and any
// division by zero is 22012.

import "github.com/cockroachdb/apd/v3"

func init() {
	Register(fn("div", targs(tNum, tNum), tNum, func(_ *Context, a []any) (any, error) {
		x, y := a[0].(*apd.Decimal), a[1].(*apd.Decimal)
		switch {
		case x.Form == apd.NaN || y.Form == apd.NaN, x.Form == apd.Infinite && y.Form == apd.Infinite:
			return &apd.Decimal{Form: apd.NaN}, nil
		case y.IsZero():
			return nil, errDivByZero()
		case x.Form == apd.Infinite:
			return &apd.Decimal{Form: apd.Infinite, Negative: x.Negative != y.Negative}, nil
		case y.Form == apd.Infinite:
			return newDec(0), nil
		}
		q, err := truncQuo(x, y)
		if err != nil {
			return nil, err
		}
		return normDec(q), nil
	}))
}
