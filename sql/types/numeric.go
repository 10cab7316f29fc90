package types

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// Limits of PostgreSQL's numeric storage format.
const (
	numericMaxIntDigits = 131072 // (NUMERIC_WEIGHT_MAX+1) * 4
	numericMaxDScale    = 0x3FFF
	numericMaxExponent  = 1<<30 - 1 // PG_INT32_MAX / 2
)

func errNumericOverflow() *pgerr.Error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "value overflows numeric format")
}

// parseNumeric is PostgreSQL's numeric_in (without a typmod).
func parseNumeric(s string) (*apd.Decimal, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	cp := s[i:]
	hasPrefix := func(p string) bool { return len(cp) >= len(p) && strings.EqualFold(cp[:len(p)], p) }
	var special *apd.Decimal
	n := 0
	switch {
	case hasPrefix("NaN"):
		special, n = &apd.Decimal{Form: apd.NaN}, 3
	case hasPrefix("Infinity"):
		special, n = &apd.Decimal{Form: apd.Infinite}, 8
	case hasPrefix("+Infinity"):
		special, n = &apd.Decimal{Form: apd.Infinite}, 9
	case hasPrefix("-Infinity"):
		special, n = &apd.Decimal{Form: apd.Infinite, Negative: true}, 9
	case hasPrefix("inf"):
		special, n = &apd.Decimal{Form: apd.Infinite}, 3
	case hasPrefix("+inf"):
		special, n = &apd.Decimal{Form: apd.Infinite}, 4
	case hasPrefix("-inf"):
		special, n = &apd.Decimal{Form: apd.Infinite, Negative: true}, 4
	}
	if special != nil {
		for _, c := range []byte(cp[n:]) {
			if !isSpace(c) {
				return nil, errSyntax(NumericT, s)
			}
		}
		return special, nil
	}
	j := 0
	neg := false
	if j < len(cp) && (cp[j] == '+' || cp[j] == '-') {
		neg = cp[j] == '-'
		j++
	}
	haveDP := false
	if j < len(cp) && cp[j] == '.' {
		haveDP = true
		j++
	}
	if j >= len(cp) || !isDigit(cp[j]) {
		return nil, errSyntax(NumericT, s)
	}
	var digits []byte
	frac := 0
	for j < len(cp) {
		c := cp[j]
		if isDigit(c) {
			if len(digits) > 0 || c != '0' {
				digits = append(digits, c)
			}
			if haveDP {
				frac++
			}
			j++
		} else if c == '.' {
			if haveDP {
				return nil, errSyntax(NumericT, s)
			}
			haveDP = true
			j++
		} else {
			break
		}
	}
	exp := 0
	if j < len(cp) && (cp[j] == 'e' || cp[j] == 'E') {
		j++
		// strtol: optional white space and sign, then digits.
		k := j
		for k < len(cp) && isSpace(cp[k]) {
			k++
		}
		eneg := false
		if k < len(cp) && (cp[k] == '+' || cp[k] == '-') {
			eneg = cp[k] == '-'
			k++
		}
		if k >= len(cp) || !isDigit(cp[k]) {
			return nil, errSyntax(NumericT, s)
		}
		big := false
		for k < len(cp) && isDigit(cp[k]) {
			if exp > numericMaxExponent {
				big = true
			} else {
				exp = exp*10 + int(cp[k]-'0')
			}
			k++
		}
		if big || exp > numericMaxExponent {
			return nil, errNumericOverflow()
		}
		if eneg {
			exp = -exp
		}
		j = k
	}
	for ; j < len(cp); j++ {
		if !isSpace(cp[j]) {
			return nil, errSyntax(NumericT, s)
		}
	}
	dscale := frac - exp
	if dscale < 0 {
		dscale = 0
	}
	// value = digits * 10^(exp-frac); as coefficient * 10^-dscale.
	shift := exp - frac + dscale
	if len(digits) == 0 {
		digits = append(digits, '0')
		shift = 0
	}
	intDigits := len(digits) - frac + exp
	if digits[0] != '0' && intDigits > numericMaxIntDigits || dscale > numericMaxDScale {
		return nil, errNumericOverflow()
	}
	d := new(apd.Decimal)
	str := string(digits) + strings.Repeat("0", shift)
	if _, ok := d.Coeff.SetString(str, 10); !ok {
		return nil, errSyntax(NumericT, s)
	}
	d.Exponent = int32(-dscale)
	d.Negative = neg && d.Coeff.Sign() != 0
	return d, nil
}

var bigTen = apd.NewBigInt(10)

func pow10(n int) *apd.BigInt {
	return new(apd.BigInt).Exp(bigTen, apd.NewBigInt(int64(n)), nil)
}

// normalizeNumeric returns d with a non-positive exponent (the exponent is
// minus PostgreSQL's display scale) and no negative zero. d itself is not
// changed.
func normalizeNumeric(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite {
		if d.Form == apd.NaNSignaling {
			return &apd.Decimal{Form: apd.NaN}
		}
		if d.Form == apd.NaN && d.Negative {
			return &apd.Decimal{Form: apd.NaN}
		}
		return d
	}
	if d.Exponent <= 0 && !(d.Negative && d.Coeff.Sign() == 0) && d.Coeff.Sign() >= 0 {
		return d
	}
	r := new(apd.Decimal)
	r.Coeff.Abs(&d.Coeff)
	r.Negative = d.Negative != (d.Coeff.Sign() < 0)
	r.Exponent = d.Exponent
	if r.Exponent > 0 {
		r.Coeff.Mul(&r.Coeff, pow10(int(r.Exponent)))
		r.Exponent = 0
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r
}

// appendNumeric appends PostgreSQL's numeric_out text for d.
func appendNumeric(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			return append(dst, "-Infinity"...)
		}
		return append(dst, "Infinity"...)
	}
	d = normalizeNumeric(d)
	var scratch [32]byte
	digits := d.Coeff.Append(scratch[:0], 10)
	if d.Negative {
		dst = append(dst, '-')
	}
	scale := int(-d.Exponent)
	if scale == 0 {
		return append(dst, digits...)
	}
	if len(digits) <= scale {
		dst = append(dst, '0', '.')
		for i := len(digits); i < scale; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}

// NumericTypmod returns the typmod (T.Mod) of numeric(precision, scale).
func NumericTypmod(precision, scale int) int32 {
	return int32(precision<<16 | (scale & 0xffff))
}

// numericTypmodParts splits a numeric T.Mod.
func numericTypmodParts(mod int32) (precision, scale int) {
	return int(mod>>16) & 0xffff, int(int16(uint16(mod)))
}

// roundNumeric rounds a finite d to scale digits after the decimal point
// (half away from zero), as PostgreSQL's round_var; a negative scale rounds
// to tens, hundreds, .... The result's exponent is -max(scale, 0).
func roundNumeric(d *apd.Decimal, scale int) *apd.Decimal {
	d = normalizeNumeric(d)
	if d.Form != apd.Finite {
		return d
	}
	r := new(apd.Decimal)
	r.Negative = d.Negative
	cur := int(-d.Exponent)
	switch {
	case cur > scale:
		drop := cur - scale
		div := pow10(drop)
		q, m := new(apd.BigInt), new(apd.BigInt)
		q.QuoRem(&d.Coeff, div, m)
		m.Mul(m, apd.NewBigInt(2))
		if m.Cmp(div) >= 0 {
			q.Add(q, apd.NewBigInt(1))
		}
		if scale < 0 {
			q.Mul(q, pow10(-scale))
			scale = 0
		}
		r.Coeff.Set(q)
	case cur < scale:
		r.Coeff.Mul(&d.Coeff, pow10(scale-cur))
	default:
		r.Coeff.Set(&d.Coeff)
	}
	if scale < 0 {
		scale = 0
	}
	r.Exponent = int32(-scale)
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r
}

// applyNumericTypmod is PostgreSQL's apply_typmod for numeric(p,s).
func applyNumericTypmod(d *apd.Decimal, mod int32) (*apd.Decimal, error) {
	if mod < 0 {
		return d, nil
	}
	p, s := numericTypmodParts(mod)
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return d, nil
	case apd.Infinite:
		return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	r := roundNumeric(d, s)
	// The digits r has before the point, negative for the zeros after it
	// (0.000123 has -3): with a scale above the precision, numeric(3,6)
	// holds only |x| < 10^-3. Zero always fits.
	maxdigits := p - s
	if r.Coeff.Sign() != 0 && len(r.Coeff.String())+int(r.Exponent) > maxdigits {
		e := pgerr.New(pgerrcode.NumericValueOutOfRange, "numeric field overflow")
		if maxdigits != 0 {
			return nil, e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", p, s, maxdigits)
		}
		return nil, e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", p, s)
	}
	return r, nil
}

// Numeric binary sign words.
const (
	numericPos  = 0x0000
	numericNeg  = 0x4000
	numericNaN  = 0xC000
	numericPInf = 0xD000
	numericNInf = 0xF000
)

// appendNumericBinary appends numeric_send's format of d.
func appendNumericBinary(dst []byte, d *apd.Decimal) []byte {
	var sign uint16
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		sign = numericNaN
	case apd.Infinite:
		sign = numericPInf
		if d.Negative {
			sign = numericNInf
		}
	}
	if sign != 0 {
		// numeric_send reads the display scale of a special value out of
		// its short header: 0 for NaN, 32 for the infinities.
		dscale := byte(sign & 0x1F80 >> 7)
		return append(dst, 0, 0, 0, 0, byte(sign>>8), byte(sign), 0, dscale)
	}
	d = normalizeNumeric(d)
	dscale := int(-d.Exponent)
	digits := d.Coeff.String()
	var intPart, fracPart string
	if len(digits) > dscale {
		intPart, fracPart = digits[:len(digits)-dscale], digits[len(digits)-dscale:]
	} else {
		fracPart = strings.Repeat("0", dscale-len(digits)) + digits
	}
	intPart = strings.TrimLeft(intPart, "0")
	if pad := (4 - len(intPart)%4) % 4; pad > 0 {
		intPart = strings.Repeat("0", pad) + intPart
	}
	if pad := (4 - len(fracPart)%4) % 4; pad > 0 {
		fracPart += strings.Repeat("0", pad)
	}
	all := intPart + fracPart
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		g, _ := strconv.Atoi(all[i : i+4])
		groups = append(groups, uint16(g))
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	if len(groups) == 0 {
		weight = 0
	}
	sign = numericPos
	if d.Negative {
		sign = numericNeg
	}
	dst = append(dst, byte(len(groups)>>8), byte(len(groups)), byte(uint16(weight)>>8), byte(uint16(weight)),
		byte(sign>>8), byte(sign), byte(dscale>>8), byte(dscale))
	for _, g := range groups {
		dst = append(dst, byte(g>>8), byte(g))
	}
	return dst
}

// decodeNumericBinary is numeric_recv.
func decodeNumericBinary(src []byte) (*apd.Decimal, error) {
	if len(src) < 8 {
		return nil, errInsufficient()
	}
	ndigits := int(uint16(src[0])<<8 | uint16(src[1]))
	weight := int(int16(uint16(src[2])<<8 | uint16(src[3])))
	sign := uint16(src[4])<<8 | uint16(src[5])
	dscale := int(uint16(src[6])<<8 | uint16(src[7]))
	switch sign {
	case numericPos, numericNeg, numericNaN, numericPInf, numericNInf:
	default:
		return nil, errBinaryMsg("invalid sign in external \"numeric\" value")
	}
	if dscale&numericMaxDScale != dscale {
		return nil, errBinaryMsg("invalid scale in external \"numeric\" value")
	}
	body := src[8:]
	if len(body) < 2*ndigits {
		return nil, errInsufficient()
	}
	var sb strings.Builder
	sb.Grow(4*ndigits + 1)
	for i := 0; i < ndigits; i++ {
		g := int(uint16(body[2*i])<<8 | uint16(body[2*i+1]))
		if g >= 10000 {
			return nil, errBinaryMsg("invalid digit in external \"numeric\" value")
		}
		s := strconv.Itoa(g)
		sb.WriteString("0000"[len(s):])
		sb.WriteString(s)
	}
	if len(body) != 2*ndigits {
		return nil, errBinaryFormat()
	}
	switch sign {
	case numericNaN:
		return &apd.Decimal{Form: apd.NaN}, nil
	case numericPInf:
		return &apd.Decimal{Form: apd.Infinite}, nil
	case numericNInf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	}
	d := new(apd.Decimal)
	if ndigits == 0 {
		d.Exponent = int32(-dscale)
		return d, nil
	}
	var coeff big.Int
	coeff.SetString(sb.String(), 10)
	exp10 := 4 * (weight - ndigits + 1)
	switch {
	case exp10 > -dscale:
		coeff.Mul(&coeff, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp10+dscale)), nil))
	case exp10 < -dscale:
		coeff.Quo(&coeff, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-dscale-exp10)), nil))
	}
	d.Coeff.SetMathBigInt(&coeff)
	d.Exponent = int32(-dscale)
	d.Negative = sign == numericNeg && coeff.Sign() != 0
	return d, nil
}

// CompareNumeric orders numerics as PostgreSQL's cmp_numerics does, for
// every numeric comparison and sort: -Infinity < finite < Infinity < NaN,
// NaN equal to NaN. It returns -1, 0 or 1.
func CompareNumeric(a, b *apd.Decimal) int {
	ra, rb := numericRank(a), numericRank(b)
	if ra != rb {
		if ra < rb {
			return -1
		}
		return 1
	}
	if ra != 1 {
		return 0
	}
	return a.Cmp(b)
}

func numericRank(d *apd.Decimal) int {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return 3
	case apd.Infinite:
		if d.Negative {
			return 0
		}
		return 2
	}
	return 1
}

// appendNumericKey appends a canonical encoding of d: equal numerics
// (1.0 and 1.00) give equal bytes.
func appendNumericKey(dst []byte, d *apd.Decimal) []byte {
	switch numericRank(d) {
	case 0:
		return append(dst, 0)
	case 2:
		return append(dst, 4)
	case 3:
		return append(dst, 5)
	}
	d = normalizeNumeric(d)
	if d.Coeff.Sign() == 0 {
		return append(dst, 2)
	}
	digits := strings.TrimRight(d.Coeff.String(), "0")
	// Position of the decimal point relative to the first digit.
	point := len(d.Coeff.String()) + int(d.Exponent)
	if d.Negative {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 3)
	}
	dst = appendUvarint(dst, uint64(int64(point)))
	dst = appendUvarint(dst, uint64(len(digits)))
	return append(dst, digits...)
}
