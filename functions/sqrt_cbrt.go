package functions

// sqrt (and prefix |/) of double precision and numeric, cbrt (and ||/) of
// double precision.

import (
	"math"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

func errSqrtNeg() error {
	return pgerr.New(pgerrcode.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
}

func init() {
	fsqrt := func(a any) (any, error) {
		x := a.(float64)
		if x < 0 {
			return nil, errSqrtNeg()
		}
		return math.Sqrt(x), nil
	}
	nsqrt := func(a any) (any, error) {
		x := a.(*apd.Decimal)
		switch {
		case x.Form == apd.NaN:
			return x, nil
		case x.Negative && !x.IsZero():
			return nil, errSqrtNeg()
		case x.Form == apd.Infinite:
			return x, nil
		}
		w, _ := decWeight(x)
		sweight := (w+1)*4/2 - 1
		rscale := int32(numericMinSigDigits - sweight)
		rscale = min(max(rscale, decScale(x), 0), numericMaxDisplayScale)
		prec := int64(max(sweight+1, 1)) + int64(rscale) + 10
		// sqrt(m * 10^2k) = sqrt(m) * 10^k with m near 1, m rounded to
		// more digits than the root needs: apd's Sqrt fails on exponents
		// far from zero (1e99999) that numeric holds.
		k := (x.NumDigits() + int64(x.Exponent)) / 2
		m := new(apd.Decimal)
		if _, err := decCtx(uint32(prec+10)).Round(m, x); err != nil {
			return nil, numericOverflow()
		}
		m.Exponent -= int32(2 * k)
		d := new(apd.Decimal)
		if _, err := decCtx(uint32(prec)).Sqrt(d, m); err != nil {
			return nil, numericOverflow()
		}
		d.Exponent += int32(k)
		return roundDec(d, rscale), nil
	}
	fcbrt := func(a any) (any, error) { return math.Cbrt(a.(float64)), nil }
	Register(fn1("sqrt", tF8, tF8, fsqrt), fn1("|/", tF8, tF8, fsqrt), fn1("sqrt", tNum, tNum, nsqrt),
		fn1("cbrt", tF8, tF8, fcbrt), fn1("||/", tF8, tF8, fcbrt))
}
