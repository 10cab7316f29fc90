package functions

// scale(numeric): the digits after its decimal point as it is shown;
// min_scale(numeric): the fewest that show it exactly; trim_scale(numeric):
// the value shown with that many (trailing zeros dropped). NaN and the
// infinities have no scale (NULL) and trim to themselves.

import (
	"github.com/cockroachdb/apd/v3"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	N := types.NumericT
	Register(
		fn1("scale", N, tInt4, func(a any) (any, error) {
			d := a.(*apd.Decimal)
			if d.Form != apd.Finite {
				return nil, nil
			}
			return int64(decScale(d)), nil
		}),
		fn1("min_scale", N, tInt4, func(a any) (any, error) {
			d := a.(*apd.Decimal)
			if d.Form != apd.Finite {
				return nil, nil
			}
			return int64(decScale(trimDec(d))), nil
		}),
		fn1("trim_scale", N, N, func(a any) (any, error) {
			return trimDec(a.(*apd.Decimal)), nil
		}),
	)
}

// trimDec is d without the trailing zeros of its fraction: apd's Reduce
// drops them (and those of the integer part, which normDec puts back).
func trimDec(d *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if d.Form != apd.Finite {
		return out.Set(d)
	}
	out.Reduce(d)
	return normDec(out)
}
