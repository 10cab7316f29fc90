package functions

// ceil / ceiling and floor of double precision and numeric.

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

func init() {
	// dec rounds a numeric to an integer with op (apd's Ceil or Floor).
	// Quantize to exponent 0 is not used: when every digit is a fraction
	// digit (0.005) it drops them all before rounding, giving 0 for
	// ceil(0.005) and floor(-0.005).
	dec := func(op func(c *apd.Context, d, x *apd.Decimal) (apd.Condition, error)) func(a any) (any, error) {
		return func(a any) (any, error) {
			x := a.(*apd.Decimal)
			if x.Form != apd.Finite {
				return x, nil
			}
			d := new(apd.Decimal)
			c := decCtx(uint32(max(x.NumDigits()+int64(x.Exponent), 1) + 1))
			if _, err := op(c, d, x); err != nil {
				return nil, numericOverflow()
			}
			return normDec(d), nil
		}
	}
	for _, name := range []string{"ceil", "ceiling"} {
		Register(fn1(name, tF8, tF8, func(a any) (any, error) { return math.Ceil(a.(float64)), nil }),
			fn1(name, tNum, tNum, dec((*apd.Context).Ceil)))
	}
	Register(fn1("floor", tF8, tF8, func(a any) (any, error) { return math.Floor(a.(float64)), nil }),
		fn1("floor", tNum, tNum, dec((*apd.Context).Floor)))
}
