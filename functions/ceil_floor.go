package functions

// ceil / ceiling and floor of double precision and numeric.

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

func init() {
	dec := func(round apd.Rounder) func(a any) (any, error) {
		return func(a any) (any, error) {
			x := a.(*apd.Decimal)
			if x.Form != apd.Finite {
				return x, nil
			}
			d := new(apd.Decimal)
			c := decCtx(uint32(max(x.NumDigits()+int64(x.Exponent), 1) + 1))
			c.Rounding = round
			if _, err := c.Quantize(d, x, 0); err != nil {
				return nil, numericOverflow()
			}
			return normDec(d), nil
		}
	}
	for _, name := range []string{"ceil", "ceiling"} {
		Register(fn1(name, tF8, tF8, func(a any) (any, error) { return math.Ceil(a.(float64)), nil }),
			fn1(name, tNum, tNum, dec(apd.RoundCeiling)))
	}
	Register(fn1("floor", tF8, tF8, func(a any) (any, error) { return math.Floor(a.(float64)), nil }),
		fn1("floor", tNum, tNum, dec(apd.RoundFloor)))
}
