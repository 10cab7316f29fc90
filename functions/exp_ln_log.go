package functions

// exp, ln, log (base 10, or log(base, x) for numeric) and log10, on
// double precision and numeric, with PostgreSQL's result scales for
// numeric.

import (
	"math"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

func errLogZero() error {
	return pgerr.New(pgerrcode.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
}

func errLogNeg() error {
	return pgerr.New(pgerrcode.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
}

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: the decimal
// weight of ln(x).
func estimateLnDweight(x *apd.Decimal) int {
	if x.Negative || x.Form != apd.Finite || x.IsZero() {
		return 0
	}
	f, _ := decToFloat(x)
	if f >= 0.9 && f <= 1.1 {
		var d apd.Decimal
		if _, err := exact.Sub(&d, x, newDec(1)); err != nil || d.IsZero() {
			return 0
		}
		return int(d.NumDigits()) - 1 + int(d.Exponent)
	}
	l := math.Log(f)
	if math.IsInf(f, 1) {
		// Beyond float range: ln(x) ~ digits * ln(10).
		l = float64(x.NumDigits()+int64(x.Exponent)) * math.Ln10
	}
	return int(math.Log10(math.Abs(l)))
}

// lnDec is ln(x) rounded to scale rscale.
func lnDec(x *apd.Decimal, rscale int32) (*apd.Decimal, error) {
	d := new(apd.Decimal)
	if _, err := decCtx(uint32(int64(rscale)+20)).Ln(d, x); err != nil {
		return nil, numericOverflow()
	}
	return d, nil
}

func checkLogArg(x *apd.Decimal) error {
	if x.Form == apd.Finite && x.IsZero() {
		return errLogZero()
	}
	if x.Negative {
		return errLogNeg()
	}
	return nil
}

func init() {
	flog := func(f func(float64) float64) func(a any) (any, error) {
		return func(a any) (any, error) {
			x := a.(float64)
			if x == 0 {
				return nil, errLogZero()
			}
			if x < 0 {
				return nil, errLogNeg()
			}
			return f(x), nil
		}
	}
	nln := func(a any) (any, error) {
		x := a.(*apd.Decimal)
		if x.Form == apd.NaN {
			return x, nil
		}
		if err := checkLogArg(x); err != nil {
			return nil, err
		}
		if x.Form == apd.Infinite {
			return x, nil
		}
		rscale := int32(numericMinSigDigits - estimateLnDweight(x))
		rscale = min(max(rscale, decScale(x), 0), numericMaxDisplayScale)
		d, err := lnDec(x, rscale)
		if err != nil {
			return nil, err
		}
		return roundDec(d, rscale), nil
	}
	nlog := func(base, x *apd.Decimal) (any, error) {
		if base.Form == apd.NaN || x.Form == apd.NaN {
			return &apd.Decimal{Form: apd.NaN}, nil
		}
		if err := checkLogArg(base); err != nil {
			return nil, err
		}
		if err := checkLogArg(x); err != nil {
			return nil, err
		}
		if base.Form != apd.Finite || x.Form != apd.Finite {
			return nil, pgerr.New(pgerrcode.InvalidArgumentForLogarithm, "cannot take logarithm of infinity")
		}
		rw := estimateLnDweight(x) - estimateLnDweight(base)
		rscale := int32(numericMinSigDigits - rw)
		rscale = min(max(rscale, decScale(base), decScale(x), 0), numericMaxDisplayScale)
		lb, err := lnDec(base, rscale+10)
		if err != nil {
			return nil, err
		}
		if lb.IsZero() {
			return nil, errDivByZero()
		}
		lx, err := lnDec(x, rscale+10)
		if err != nil {
			return nil, err
		}
		d := new(apd.Decimal)
		if _, err := decCtx(uint32(int64(rscale)+30)).Quo(d, lx, lb); err != nil {
			return nil, numericOverflow()
		}
		return roundDec(d, rscale), nil
	}
	nexp := func(a any) (any, error) {
		x := a.(*apd.Decimal)
		switch {
		case x.Form == apd.NaN:
			return x, nil
		case x.Form == apd.Infinite && x.Negative:
			return newDec(0), nil
		case x.Form == apd.Infinite:
			return x, nil
		}
		f, _ := decToFloat(x)
		val := f * 0.434294481903252
		val = max(min(val, numericMaxResultScale), -numericMaxResultScale)
		rscale := int32(numericMinSigDigits - int(val))
		rscale = min(max(rscale, decScale(x), 0), numericMaxDisplayScale)
		// PostgreSQL's exp_var: from |x| >= 6000 on, exp(x) overflows or
		// is zero at the result scale.
		if math.Abs(f) >= 3*numericMaxResultScale {
			if f > 0 {
				return nil, numericOverflow()
			}
			return zeroDec(rscale), nil
		}
		d := new(apd.Decimal)
		prec := int64(max(val, 0)) + int64(rscale) + 10
		if _, err := decCtx(uint32(prec)).Exp(d, x); err != nil {
			return nil, numericOverflow()
		}
		return roundDec(d, rscale), nil
	}
	fexp := func(a any) (any, error) {
		x := a.(float64)
		r := math.Exp(x)
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return nil, errFloatOverflow()
		}
		if r == 0 && !math.IsInf(x, 0) {
			return nil, errFloatUnderflow()
		}
		return r, nil
	}
	Register(
		fn1("exp", tF8, tF8, fexp), fn1("exp", tNum, tNum, nexp),
		fn1("ln", tF8, tF8, flog(math.Log)), fn1("ln", tNum, tNum, nln),
		fn1("log", tF8, tF8, flog(math.Log10)), fn1("log10", tF8, tF8, flog(math.Log10)),
		fn1("log", tNum, tNum, func(a any) (any, error) { return nlog(newDec(10), a.(*apd.Decimal)) }),
		fn1("log10", tNum, tNum, func(a any) (any, error) { return nlog(newDec(10), a.(*apd.Decimal)) }),
		fn("log", targs(tNum, tNum), tNum, func(_ *Context, a []any) (any, error) {
			return nlog(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
		}),
	)
}
