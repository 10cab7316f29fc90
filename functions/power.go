package functions

// power / pow and the operator ^ on double precision and numeric.

import (
	"math"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

func errZeroNegPower() error {
	return pgerr.New(pgerrcode.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
}

func errComplexPower() error {
	return pgerr.New(pgerrcode.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
}

// powFloat is PostgreSQL's dpow.
func powFloat(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, errZeroNegPower()
	}
	if x < 0 && y != math.Trunc(y) && !math.IsInf(y, 0) {
		return 0, errComplexPower()
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && x != 0 && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// powDec is PostgreSQL's numeric power with its result scales: 16
// significant digits, at least the inputs' scales.
func powDec(x, y *apd.Decimal) (*apd.Decimal, error) {
	if x.Form == apd.NaN || y.Form == apd.NaN {
		if (x.Form == apd.Finite && x.Cmp(newDec(1)) == 0) || (y.Form == apd.Finite && y.IsZero()) {
			return newDec(1), nil
		}
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	if x.Form == apd.Finite && x.IsZero() && y.Negative {
		return nil, errZeroNegPower()
	}
	isInt := y.Form == apd.Finite && (y.Exponent >= 0 || truncDec(y, 0).Cmp(y) == 0)
	if x.Negative && !x.IsZero() && !isInt {
		return nil, errComplexPower()
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		fx, _ := decToFloat(x)
		fy, _ := decToFloat(y)
		r, err := powFloat(fx, fy)
		if err != nil {
			return nil, err
		}
		return decFromFloat(r, false), nil
	}
	var rscale int32
	if isInt {
		rscale = min(max(numericMinSigDigits, decScale(x), 0), numericMaxDisplayScale)
	} else {
		fx, _ := decToFloat(x)
		fy, _ := decToFloat(y)
		val := fy * math.Log(math.Abs(fx)) * 0.434294481903252
		if val > 131072 {
			return nil, numericOverflow()
		}
		val = max(min(val, numericMaxResultScale), -numericMaxResultScale)
		rscale = int32(numericMinSigDigits - int(val))
		rscale = min(max(rscale, decScale(x), decScale(y), 0), numericMaxDisplayScale)
	}
	fx, _ := decToFloat(x)
	fy, _ := decToFloat(y)
	mag := fy * math.Log10(math.Abs(fx))
	if math.IsNaN(mag) || math.IsInf(mag, 0) {
		mag = 0
	}
	if mag > numericMaxIntDigits {
		return nil, numericOverflow()
	}
	// As PostgreSQL's power_var_int and exp_var: a result certainly below
	// a unit of the result scale is zero at that scale.
	if mag+1 < -float64(rscale) || mag+1 < -numericMaxDisplayScale {
		return zeroDec(rscale), nil
	}
	prec := int64(max(mag, 0)) + int64(rscale) + 10
	d := new(apd.Decimal)
	if _, err := decCtx(uint32(prec)).Pow(d, x, y); err != nil {
		return nil, numericOverflow()
	}
	return roundDec(d, rscale), nil
}

func init() {
	f := func(_ *Context, a []any) (any, error) { return powFloat(a[0].(float64), a[1].(float64)) }
	n := func(_ *Context, a []any) (any, error) { return powDec(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) }
	for _, name := range []string{"power", "pow", "^"} {
		Register(fn(name, targs(tF8, tF8), tF8, f), fn(name, targs(tNum, tNum), tNum, n))
	}
}
