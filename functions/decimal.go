package functions

// Helpers for numeric (*apd.Decimal) datums shared by the arithmetic,
// cast, math and aggregate files. A numeric datum's exponent is minus its
// display scale (1.50 is 150e-2), as PostgreSQL's dscale.

import (
	"math"
	"math/big"
	"strconv"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// PostgreSQL's numeric limits (numeric.c).
const (
	numericMinSigDigits    = 16
	numericMaxDisplayScale = 1000
	numericMinDisplayScale = 0
	numericMaxResultScale  = 2000
	// numericMaxDScale is the most decimals a numeric stores
	// (NUMERIC_DSCALE_MAX); numericMaxIntDigits the most digits before
	// the decimal point ((NUMERIC_WEIGHT_MAX + 1) * DEC_DIGITS).
	numericMaxDScale    = 0x3FFF
	numericMaxIntDigits = 131072
)

// exact is an apd context that never rounds (add, sub, mul).
var exact = apd.BaseContext

// decCtx returns a context rounding half away from zero to p significant
// digits.
func decCtx(p uint32) *apd.Context {
	c := apd.BaseContext.WithPrecision(p)
	c.Rounding = apd.RoundHalfUp
	c.Traps = apd.InvalidOperation | apd.DivisionByZero | apd.SystemOverflow
	return c
}

// newDec returns a numeric holding the integer i.
func newDec(i int64) *apd.Decimal { return apd.New(i, 0) }

// decScale is the display scale of d.
func decScale(d *apd.Decimal) int32 {
	if d.Form != apd.Finite || d.Exponent >= 0 {
		return 0
	}
	return -d.Exponent
}

// normDec makes d a canonical numeric datum: no positive exponent, no
// negative zero, no signed NaN.
func normDec(d *apd.Decimal) *apd.Decimal {
	if d.Form == apd.NaN || d.Form == apd.NaNSignaling {
		d.Form = apd.NaN
		d.Negative = false
		return d
	}
	if d.Form != apd.Finite {
		return d
	}
	if d.Exponent > 0 {
		var m apd.BigInt
		m.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(d.Exponent)), nil)
		d.Coeff.Mul(&d.Coeff, &m)
		d.Exponent = 0
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return d
}

// roundDec rounds x half away from zero to scale s (s < 0 rounds to tens,
// hundreds...), keeping scale max(s, 0) as PostgreSQL's round does.
func roundDec(x *apd.Decimal, s int32) *apd.Decimal {
	d := new(apd.Decimal)
	if x.Form != apd.Finite {
		d.Set(x)
		return d
	}
	if belowHalfUnit(x, s) {
		return zeroDec(s)
	}
	prec := x.NumDigits() + int64(x.Exponent) + int64(s) + 2
	if prec < 1 {
		prec = 1
	}
	if _, err := decCtx(uint32(prec)).Quantize(d, x, -s); err != nil {
		d.Set(x)
	}
	if s < 0 {
		normDec(d)
		return d
	}
	return normDec(d)
}

// truncDec truncates x toward zero to scale s.
func truncDec(x *apd.Decimal, s int32) *apd.Decimal {
	d := new(apd.Decimal)
	if x.Form != apd.Finite {
		d.Set(x)
		return d
	}
	if belowHalfUnit(x, s) {
		return zeroDec(s)
	}
	prec := x.NumDigits() + int64(x.Exponent) + int64(s) + 2
	if prec < 1 {
		prec = 1
	}
	c := decCtx(uint32(prec))
	c.Rounding = apd.RoundDown
	if _, err := c.Quantize(d, x, -s); err != nil {
		d.Set(x)
	}
	return normDec(d)
}

// belowHalfUnit reports whether the finite x is less than half a unit of
// scale s (s < 0 only), so that rounding or truncating it to s gives zero.
// It lets round(x, -131073) answer without asking apd for an exponent
// beyond its range.
func belowHalfUnit(x *apd.Decimal, s int32) bool {
	return s < 0 && x.NumDigits()+int64(x.Exponent) < -int64(s)
}

// zeroDec is zero with display scale max(s, 0).
func zeroDec(s int32) *apd.Decimal {
	return apd.New(0, -max(s, 0))
}

// decWeight returns PostgreSQL's base-10000 weight of the first non-zero
// digit group of x and that group's value (both 0 for zero).
func decWeight(x *apd.Decimal) (weight int, first int) {
	if x.Form != apd.Finite || x.Coeff.Sign() == 0 {
		return 0, 0
	}
	// p: decimal exponent of the most significant digit.
	p := int(x.NumDigits()) - 1 + int(x.Exponent)
	weight = p / 4
	if p < 0 && p%4 != 0 {
		weight--
	}
	digits := x.Coeff.String()
	// The first group holds the digits at decimal positions p down to
	// 4*weight.
	n := p - 4*weight + 1
	if n > len(digits) {
		g, _ := strconv.Atoi(digits)
		for i := len(digits); i < n; i++ {
			g *= 10
		}
		return weight, g
	}
	g, _ := strconv.Atoi(digits[:n])
	return weight, g
}

// divScale is PostgreSQL's select_div_scale: the display scale of x / y.
func divScale(x, y *apd.Decimal) int32 {
	w1, f1 := decWeight(x)
	w2, f2 := decWeight(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := int32(numericMinSigDigits - qweight*4)
	rscale = max(rscale, decScale(x), decScale(y), numericMinDisplayScale)
	return min(rscale, numericMaxDisplayScale)
}

// quoDec divides x by y to scale s, rounding half away from zero.
func quoDec(x, y *apd.Decimal, s int32) (*apd.Decimal, error) {
	if y.Form == apd.Finite && y.IsZero() {
		return nil, errDivByZero()
	}
	d := new(apd.Decimal)
	if x.Form != apd.Finite || y.Form != apd.Finite {
		switch {
		case x.Form == apd.NaN || y.Form == apd.NaN:
			d.Form = apd.NaN
		case x.Form == apd.Infinite && y.Form == apd.Infinite:
			d.Form = apd.NaN
		case x.Form == apd.Infinite:
			d.Set(x)
			d.Negative = x.Negative != y.Negative
		default: // finite / infinite
			return newDec(0), nil
		}
		return d, nil
	}
	// Digits of the quotient's integer part (an over-estimate), plus s
	// decimals and guard digits. Truncating to more digits than wanted
	// and then rounding half away from zero is exact: truncation keeps
	// the deciding digit.
	intDigits := x.NumDigits() + int64(x.Exponent) - (y.NumDigits() + int64(y.Exponent)) + 2
	prec := intDigits + int64(s) + 4
	if prec < 4 {
		prec = 4
	}
	c := decCtx(uint32(prec))
	c.Rounding = apd.RoundDown
	if _, err := c.Quo(d, x, y); err != nil {
		return nil, numericOverflow()
	}
	return roundDec(d, s), nil
}

func numericOverflow() error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "value overflows numeric format")
}

func errDivByZero() error {
	return pgerr.New(pgerrcode.DivisionByZero, "division by zero")
}

// decFromFloat converts a float to numeric as PostgreSQL does: through
// its %.15g (float8) or %.6g (float4) text.
func decFromFloat(f float64, float4 bool) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 1):
		return &apd.Decimal{Form: apd.Infinite}
	case math.IsInf(f, -1):
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	digits := 15
	if float4 {
		digits = 6
	}
	s := strconv.FormatFloat(f, 'e', digits-1, 64)
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return newDec(0)
	}
	// %g drops trailing zeros.
	var r apd.Decimal
	r.Reduce(d)
	return normDec(&r)
}

// decToFloat converts a numeric to float8; ok is false when it does not fit.
func decToFloat(d *apd.Decimal) (float64, bool) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return math.NaN(), true
	case apd.Infinite:
		if d.Negative {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	f, err := strconv.ParseFloat(d.Text('E'), 64)
	if err != nil || math.IsInf(f, 0) {
		return f, false
	}
	return f, true
}

// decToInt rounds a numeric half away from zero to an int64; ok is false
// when it does not fit. NaN and infinity are errors of their own.
func decToInt(d *apd.Decimal, typ string) (int64, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return 0, pgerr.New(pgerrcode.FeatureNotSupported, "cannot convert NaN to %s", typ)
	case apd.Infinite:
		return 0, pgerr.New(pgerrcode.FeatureNotSupported, "cannot convert infinity to %s", typ)
	}
	r := roundDec(d, 0)
	if r.NumDigits() > 19 {
		return 0, errIntRange(typ)
	}
	i, err := r.Int64()
	if err != nil {
		return 0, errIntRange(typ)
	}
	return i, nil
}

// decBig returns the integer value of an integral numeric.
func decBig(d *apd.Decimal) *big.Int {
	r := roundDec(d, 0)
	b := r.Coeff.MathBigInt()
	if r.Negative {
		b.Neg(b)
	}
	return b
}
