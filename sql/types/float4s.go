package types

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// ParseFloat4s appends the elements of f, a one-dimensional real[] in
// text form, to dst when f is the plain form: braces around numbers (no
// NULLs, quotes or special values) separated by commas, white space
// around them allowed, each nonzero and in range, the shape of an
// embedding, parsed without an intermediate string per element. Anything
// else (ok false) is left to the input function, which gives the error or
// the general *Array.
func ParseFloat4s(dst []float32, f []byte) (_ []float32, ok bool) {
	return parseFloat4List(dst, f, '{', '}')
}

// parseFloat4Array is array_in for a real[] literal in ParseFloat4s'
// plain form (an embedding written into a query): one pass over the
// numbers, without the general parser's per-element strings. ok is
// false for anything else, which parseArray reads.
func parseFloat4Array(s string, elem T) (*Array, bool) {
	xs, ok := ParseFloat4s(nil, unsafe.Slice(unsafe.StringData(s), len(s)))
	if !ok {
		return nil, false
	}
	elems := make([]any, len(xs))
	for i, x := range xs {
		elems[i] = float64(x)
	}
	return &Array{Elem: elem, Dims: []int{len(xs)}, Elems: elems}, true
}

// ParseJSONFloat4s is ParseFloat4s for a JSON array of numbers, [1.5, 2]:
// an embedding in a JSON body read as a real[].
func ParseJSONFloat4s(dst []float32, f []byte) (_ []float32, ok bool) {
	return parseFloat4List(dst, f, '[', ']')
}

// parseFloat4List is ParseFloat4s with the given brackets. It reads each
// element where it stands, in one pass (scanFloat4), and cuts out the
// element's token to hand it to parseFloat4 only when that pass does not
// take it.
func parseFloat4List(dst []float32, f []byte, open, close byte) ([]float32, bool) {
	if len(f) < 3 || f[0] != open || f[len(f)-1] != close {
		return dst, false
	}
	body := f[1 : len(f)-1]
	for {
		j := 0
		for j < len(body) && isArraySpace(body[j]) {
			j++
		}
		if x, n, ok, _ := scanFloat4(body[j:]); ok {
			k := j + n
			for k < len(body) && isArraySpace(body[k]) {
				k++
			}
			if k == len(body) {
				return append(dst, x), true
			}
			if body[k] == ',' {
				dst, body = append(dst, x), body[k+1:]
				continue
			}
		}
		tok := body
		k := bytes.IndexByte(body, ',')
		if k >= 0 {
			tok, body = body[:k], body[k+1:]
		}
		x, ok := parseFloat4(trimArraySpace(tok))
		if !ok {
			return dst, false
		}
		dst = append(dst, x)
		if k < 0 {
			return dst, true
		}
	}
}

// isArraySpace reports whether c is white space array input skips around
// an unquoted element (array_isspace).
func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// trimArraySpace drops the white space array input skips around an
// unquoted element.
func trimArraySpace(b []byte) []byte {
	for len(b) > 0 && isArraySpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isArraySpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseFloat4 parses tok when it is a plain nonzero decimal number within
// real's normal range, correctly rounded as float4in would. Numbers of at
// most 15 significant digits and 10^±22 are computed exactly in float64 and
// rounded once to float64 and once to float32; that second rounding is
// the correct one unless the float64 lies next to a point halfway between
// two float32s, which (like anything else unusual) goes to strconv.
func parseFloat4(tok []byte) (float32, bool) {
	x, n, ok, fail := scanFloat4(tok)
	switch {
	case fail:
		return 0, false
	case ok && n == len(tok):
		return x, true
	}
	return parseFloat4Slow(tok)
}

// scanFloat4 reads the number at the start of tok for parseFloat4: n is
// where it stopped, ok reports that tok[:n] is a number parseFloat4
// computes itself (x), fail that tok is no number (an exponent without
// digits).
func scanFloat4(tok []byte) (x float32, n int, ok, fail bool) {
	i, neg := 0, false
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		neg, i = tok[0] == '-', 1
	}
	var m uint64
	digits, exp, seen := 0, 0, false
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		seen = true
		if m == 0 && tok[i] == '0' {
			continue
		}
		m, digits = m*10+uint64(tok[i]-'0'), digits+1
	}
	if i < len(tok) && tok[i] == '.' {
		for i++; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
			seen = true
			exp--
			if m == 0 && tok[i] == '0' {
				continue
			}
			m, digits = m*10+uint64(tok[i]-'0'), digits+1
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') && seen {
		i++
		eneg := i < len(tok) && tok[i] == '-'
		if i < len(tok) && (tok[i] == '-' || tok[i] == '+') {
			i++
		}
		e, start := 0, i
		for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9' && e < 1000; i++ {
			e = e*10 + int(tok[i]-'0')
		}
		if i == start {
			return 0, i, false, true
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if !seen || m == 0 || digits > 15 {
		return 0, i, false, false
	}
	var f float64
	switch {
	case exp == 0:
		f = float64(m)
	case exp > 0 && exp <= 22:
		f = float64(m) * float64pow10[exp]
	case exp < 0 && exp >= -22:
		f = float64(m) / float64pow10[-exp]
	default:
		return 0, i, false, false
	}
	const halfway = 1 << 28 // below a float32's last bit in a float64's mantissa
	if low := math.Float64bits(f) & (1<<29 - 1); low >= halfway-1 && low <= halfway+1 ||
		f < math.SmallestNonzeroFloat32*(1<<23) || f > math.MaxFloat32 {
		return 0, i, false, false
	}
	if neg {
		f = -f
	}
	return float32(f), i, true, false
}

var float64pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat4Slow is parseFloat4 through strconv, for the numbers
// parseFloat4 does not compute itself.
func parseFloat4Slow(tok []byte) (float32, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	for _, c := range tok {
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 32)
	if err != nil || x == 0 || math.IsInf(x, 0) {
		return 0, false
	}
	return float32(x), true
}
