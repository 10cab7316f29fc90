package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

func isXDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func toLowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// trimSpace trims C-locale white space from both ends.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// parseInt is PostgreSQL 15's pg_strtoint16/32/64: optional white space,
// sign and at least one decimal digit, optional trailing white space.
func parseInt(s string, t T) (int64, error) {
	var lo, hi int64
	switch t.Family {
	case Int2:
		lo, hi = math.MinInt16, math.MaxInt16
	case Int4:
		lo, hi = math.MinInt32, math.MaxInt32
	default:
		lo, hi = math.MinInt64, math.MaxInt64
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, errSyntax(t, s)
	}
	// Accumulate negatively so that the minimum value fits.
	var v int64
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := int64(s[i] - '0')
		if v < (lo+d)/10 || v*10 < lo+d {
			return 0, errRange(t, s)
		}
		v = v*10 - d
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, errSyntax(t, s)
	}
	if !neg {
		if v < -hi {
			return 0, errRange(t, s)
		}
		v = -v
	}
	return v, nil
}

// parseOid is PostgreSQL's oidin: strtoul semantics, a leading minus sign
// wraps around.
func parseOid(s string) (int64, error) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, errSyntax(OidT, s)
	}
	var v uint64
	overflow := false
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		}
		v = v*10 + d
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return 0, errSyntax(OidT, s)
	}
	if overflow {
		return 0, errRange(OidT, s)
	}
	if neg {
		v = -v
	}
	r := uint32(v)
	if v != uint64(r) && v != uint64(int64(int32(r))) {
		return 0, errRange(OidT, s)
	}
	return int64(r), nil
}

// parseBool is PostgreSQL's boolin.
func parseBool(s string) (bool, error) {
	v := trimSpace(s)
	prefixOf := func(word string, min int) bool {
		return len(v) >= min && len(v) <= len(word) && strings.EqualFold(v, word[:len(v)])
	}
	if len(v) > 0 {
		switch toLowerASCII(v[0]) {
		case 't':
			if prefixOf("true", 1) {
				return true, nil
			}
		case 'f':
			if prefixOf("false", 1) {
				return false, nil
			}
		case 'y':
			if prefixOf("yes", 1) {
				return true, nil
			}
		case 'n':
			if prefixOf("no", 1) {
				return false, nil
			}
		case 'o':
			if prefixOf("on", 2) {
				return true, nil
			}
			if prefixOf("off", 2) {
				return false, nil
			}
		case '1':
			if len(v) == 1 {
				return true, nil
			}
		case '0':
			if len(v) == 1 {
				return false, nil
			}
		}
	}
	return false, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type boolean: \"%s\"", s)
}

// strtodPrefix parses the longest prefix of s that C's strtod accepts
// (decimal, hexadecimal, inf, infinity, nan). n is 0 if there is none.
// nonzero reports whether a finite number had a nonzero digit, to tell an
// underflow from a zero.
func strtodPrefix(s string, bitSize int) (v float64, n int, nonzero bool, err error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	rest := s[i:]
	lower := func(w string) bool { return len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) }
	switch {
	case lower("infinity"):
		v = math.Inf(1)
		n = i + 8
	case lower("inf"):
		v = math.Inf(1)
		n = i + 3
	case lower("nan"):
		v = math.NaN()
		n = i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
	}
	if n > 0 {
		if s[0] == '-' {
			v = -v
		}
		return v, n, false, nil
	}
	if len(rest) >= 3 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') && (isXDigit(rest[2]) || (rest[2] == '.' && len(rest) > 3 && isXDigit(rest[3]))) {
		j := i + 2
		digits := 0
		for j < len(s) && isXDigit(s[j]) {
			if s[j] != '0' {
				nonzero = true
			}
			j++
			digits++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isXDigit(s[j]) {
				if s[j] != '0' {
					nonzero = true
				}
				j++
				digits++
			}
		}
		if digits == 0 {
			return 0, 0, false, nil
		}
		end := j
		if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				end = k
			}
		}
		lit := s[:end]
		if end == j {
			lit += "p0"
		}
		v, err = strconv.ParseFloat(lit, bitSize)
		return v, end, nonzero, err
	}
	j := i
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		if s[j] != '0' {
			nonzero = true
		}
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			if s[j] != '0' {
				nonzero = true
			}
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false, nil
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	lit := s[:j]
	v, err = strconv.ParseFloat(lit, bitSize)
	return v, j, nonzero, err
}

// parseFloat is PostgreSQL's float4in/float8in.
func parseFloat(s string, t T) (float64, error) {
	bitSize := 64
	if t.Family == Float4 {
		bitSize = 32
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	num := s[i:]
	if num == "" {
		return 0, errSyntax(t, s)
	}
	v, n, nonzero, err := strtodPrefix(num, bitSize)
	if n == 0 {
		return 0, errSyntax(t, s)
	}
	if err != nil || (v == 0 && nonzero) {
		if err != nil && !math.IsInf(v, 0) && v != 0 {
			return 0, errSyntax(t, s)
		}
		return 0, pgerr.New(pgerrcode.NumericValueOutOfRange, "\"%s\" is out of range for type %s", num[:n], typeName(t))
	}
	j := n
	for j < len(num) && isSpace(num[j]) {
		j++
	}
	if j != len(num) {
		return 0, errSyntax(t, s)
	}
	return v, nil
}

// FloatStyle is how float4 and float8 values are printed, as the
// extra_float_digits setting decides. The zero value is PostgreSQL's
// default (extra_float_digits 1, or any value above 0): the shortest text
// that reads back as the same value (AppendFloat).
type FloatStyle struct {
	// Rounded is extra_float_digits 0 or below: values are printed as C's
	// %g with Digits significant digits.
	Rounded bool
	// Digits is extra_float_digits when Rounded; float8 values get
	// DBL_DIG (15) plus Digits significant digits, float4 FLT_DIG (6)
	// plus Digits, and at least one.
	Digits int
}

// FloatStyleFor is the FloatStyle of an extra_float_digits setting.
func FloatStyleFor(extraFloatDigits int) FloatStyle {
	if extraFloatDigits > 0 {
		return FloatStyle{}
	}
	return FloatStyle{Rounded: true, Digits: extraFloatDigits}
}

// AppendFloatStyle appends f's float8 (bitSize 64) or float4 (bitSize 32)
// text output in style fs: float8out and float4out.
func AppendFloatStyle(dst []byte, f float64, bitSize int, fs FloatStyle) []byte {
	if !fs.Rounded {
		return AppendFloat(dst, f, bitSize)
	}
	digits := 15 + fs.Digits
	if bitSize == 32 {
		f = float64(float32(f))
		digits = 6 + fs.Digits
	}
	if special, ok := appendNonFinite(dst, f); ok {
		return special
	}
	// pg_strfromd clamps the precision to 1..32; strconv's 'g' with a
	// precision is C's %g: exponent form for an exponent below -4 or not
	// below the precision, at least two exponent digits, no trailing
	// zeros.
	return strconv.AppendFloat(dst, f, 'g', min(max(digits, 1), 32), 64)
}

// appendNonFinite appends PostgreSQL's spelling of a NaN or an infinity;
// ok is false, and dst unchanged, for a finite f.
func appendNonFinite(dst []byte, f float64) (out []byte, ok bool) {
	switch {
	case f != f:
		return append(dst, "NaN"...), true
	case f > math.MaxFloat64:
		return append(dst, "Infinity"...), true
	case f < -math.MaxFloat64:
		return append(dst, "-Infinity"...), true
	}
	return dst, false
}

// AppendFloat appends PostgreSQL's text form of a float8 (bitSize 64) or
// float4 (bitSize 32) with extra_float_digits 1: the shortest text that
// reads back to the same value, in exponent form outside 1e-4 <= |x| < 1e15
// (1e6 for float4), "NaN", "Infinity", "-Infinity" and "-0".
func AppendFloat(dst []byte, f float64, bitSize int) []byte {
	if bitSize == 32 {
		f = float64(float32(f))
	}
	if special, ok := appendNonFinite(dst, f); ok {
		return special
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	// Shortest digits in exponent form: [-]d[.ddd]e±XX.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bitSize)
	if big := math.Abs(f); (bitSize == 64 && big >= 1<<53) || (bitSize == 32 && big >= 1<<24) {
		e = ryuLargeShortest(buf[:0], f, bitSize, e)
	} else {
		e = ryuTieEven(e, f, bitSize)
	}
	k := len(e) - 1
	for e[k] != 'e' {
		k--
	}
	exp := 0
	for _, c := range e[k+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[k+1] == '-' {
		exp = -exp
	}
	upper := 15
	if bitSize == 32 {
		upper = 6
	}
	if exp < -4 || exp >= upper {
		return append(dst, e...)
	}
	mant := e[:k]
	if mant[0] == '-' {
		dst = append(dst, '-')
		mant = mant[1:]
	}
	// Digits without the point.
	var digits [24]byte
	nd := 0
	for _, c := range mant {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digits[:nd]...)
	}
	if nd <= exp+1 {
		dst = append(dst, digits[:nd]...)
		for i := nd; i <= exp; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, digits[:exp+1]...)
	dst = append(dst, '.')
	return append(dst, digits[exp+1:nd]...)
}

// ryuLargeShortest corrects Go's shortest digits (e, in 'e' format) for
// integers at and above 2^53 (2^24 for float4), where PostgreSQL's Ryu
// excludes both ends of the rounding interval while Go includes them for
// even mantissas: if Go's digits lie on a bound, the shortest digits
// strictly inside the interval are returned instead.
func ryuLargeShortest(dst []byte, f float64, bitSize int, e []byte) []byte {
	var m2 uint64
	var e2 int
	var mantZero, minExp bool
	if bitSize == 32 {
		b := math.Float32bits(float32(f))
		mant, exp := uint64(b&(1<<23-1)), int(b>>23&0xff)
		m2, e2, mantZero, minExp = mant|1<<23, exp-150, mant == 0, exp <= 1
	} else {
		b := math.Float64bits(f)
		mant, exp := b&(1<<52-1), int(b>>52&0x7ff)
		m2, e2, mantZero, minExp = mant|1<<52, exp-1075, mant == 0, exp <= 1
	}
	if e2 < 1 {
		return e
	}
	// Everything is scaled by 4 so that the half gaps are integers.
	x := new(big.Int).Lsh(new(big.Int).SetUint64(m2), uint(e2+2))
	hi := new(big.Int).Lsh(big.NewInt(1), uint(e2+1))
	lo := hi
	if mantZero && !minExp {
		lo = new(big.Int).Lsh(big.NewInt(1), uint(e2))
	}
	inside := func(cand []byte) bool {
		// cand is [-]d[.ddd]e±XX: digits times 10^(XX - fraction digits).
		k := len(cand) - 1
		for cand[k] != 'e' {
			k--
		}
		exp, _ := strconv.Atoi(string(cand[k+1:]))
		var digits []byte
		frac := -1
		for _, c := range cand[:k] {
			switch {
			case c == '.':
				frac = 0
			case c >= '0' && c <= '9':
				digits = append(digits, c)
				if frac >= 0 {
					frac++
				}
			}
		}
		if frac < 0 {
			frac = 0
		}
		c, _ := new(big.Int).SetString(string(digits), 10)
		c.Lsh(c, 2)
		p := exp - frac
		xs, los, his := x, lo, hi
		if p >= 0 {
			c.Mul(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil))
		} else {
			m := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-p)), nil)
			xs, los, his = new(big.Int).Mul(x, m), new(big.Int).Mul(lo, m), new(big.Int).Mul(hi, m)
		}
		d := new(big.Int).Sub(c, xs)
		if d.Sign() >= 0 {
			return d.Cmp(his) < 0
		}
		return d.Neg(d).Cmp(los) < 0
	}
	if inside(e) {
		return e
	}
	maxDigits := 17
	if bitSize == 32 {
		maxDigits = 9
	}
	for n := 1; n <= maxDigits; n++ {
		cand := strconv.AppendFloat(dst[:0], f, 'e', n-1, bitSize)
		if inside(cand) {
			// Drop trailing zeros of the mantissa, as Ryu's digits have none.
			k := len(cand) - 1
			for cand[k] != 'e' {
				k--
			}
			j := k
			for cand[j-1] == '0' {
				j--
			}
			if cand[j-1] == '.' {
				j--
			}
			return append(cand[:j:j], cand[k:]...)
		}
	}
	return e
}

// pow5 are the powers of 5 that fit in a uint64.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return
}()

// ryuTieEven corrects Go's shortest digits e when f's exact decimal value
// lies exactly halfway between two shortest candidates: Go rounds the
// tie up, PostgreSQL's Ryu to the even digit.
func ryuTieEven(e []byte, f float64, bitSize int) []byte {
	var m uint64
	var exp int
	if bitSize == 32 {
		b := math.Float32bits(float32(f))
		mant, be := uint64(b&(1<<23-1)), int(b>>23&0xff)
		if be == 0 {
			m, exp = mant, -149
		} else {
			m, exp = mant|1<<23, be-150
		}
	} else {
		b := math.Float64bits(f)
		mant, be := b&(1<<52-1), int(b>>52&0x7ff)
		if be == 0 {
			m, exp = mant, -1074
		} else {
			m, exp = mant|1<<52, be-1075
		}
	}
	if m == 0 || exp >= 0 {
		return e
	}
	for m&1 == 0 && exp < 0 {
		m >>= 1
		exp++
	}
	if exp >= 0 {
		return e
	}
	// Exact value: m * 5^-exp / 10^-exp; short enough to be a tie?
	k := -exp
	if k >= len(pow5) || m > math.MaxUint64/pow5[k] {
		return e
	}
	sig := m * pow5[k]
	var dbuf [24]byte
	digits := strconv.AppendUint(dbuf[:0], sig, 10)
	// Go's digits.
	j := len(e) - 1
	for e[j] != 'e' {
		j--
	}
	n := 0
	for _, c := range e[:j] {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	if len(digits) != n+1 || digits[n] != '5' {
		return e
	}
	// Candidates: the exact digits truncated, or that plus one; Ryu
	// keeps the even one.
	trunc := sig / 10
	if trunc%2 != 0 {
		return e // Go's rounded-up digits are the even ones
	}
	// Decimal exponent of the first digit: sig * 10^-k.
	exp10 := len(digits) - 1 - k
	td := strconv.AppendUint(nil, trunc, 10)
	if len(td) != n {
		return e
	}
	var out []byte
	if f < 0 {
		out = append(out, '-')
	}
	out = append(out, td[0])
	rest := td[1:]
	for len(rest) > 0 && rest[len(rest)-1] == '0' {
		rest = rest[:len(rest)-1]
	}
	if len(rest) > 0 {
		out = append(out, '.')
		out = append(out, rest...)
	}
	out = append(out, 'e')
	if exp10 < 0 {
		out = append(out, '-')
		exp10 = -exp10
	} else {
		out = append(out, '+')
	}
	if exp10 < 10 {
		out = append(out, '0')
	}
	out = strconv.AppendInt(out, int64(exp10), 10)
	if back, err := strconv.ParseFloat(string(out), bitSize); err != nil || back != f {
		return e
	}
	return out
}
