package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
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
// real's normal range, correctly rounded as float4in would. Numbers whose
// digits make an integer m <= 2^53, times 10^±22 at most, are computed from
// exact float64 operands (Clinger's fast path), rounded once to float64
// and once to float32; that second rounding is
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
// digits). It reads digits eight at a time where eight bytes remain
// (digitRun): an embedding's elements are mostly runs of 7 to 9 digits.
func scanFloat4(tok []byte) (x float32, n int, ok, fail bool) {
	i, neg := 0, false
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		neg, i = tok[0] == '-', 1
	}
	m, nd, i, big := digitRun(tok, i, 0)
	exp := 0
	if i < len(tok) && tok[i] == '.' {
		var nf int
		m, nf, i, big = digitRun(tok, i+1, m)
		exp, nd = -nf, nd+nf
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') && nd > 0 {
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
	if nd == 0 || big || m == 0 || m > 1<<53 {
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

// digitRun reads the decimal digits of tok from i on into m (m*10^k plus
// their value, for k digits): nd is how many there were, end where they
// stopped, big that m could have overflowed (the number then goes to
// strconv). Where eight bytes remain it takes them in one load: the bytes
// that are digits are found and converted together (SWAR, as in
// Lemire's fast_float).
func digitRun(tok []byte, i int, m uint64) (_ uint64, nd, end int, big bool) {
	for len(tok)-i >= 8 {
		x := binary.LittleEndian.Uint64(tok[i:]) ^ 0x3030303030303030 // digits become 0..9
		// A byte's high bit is set when it is no digit (x >= 10); a carry
		// out of such a byte only reaches later bytes.
		stop := (x | (x + 0x7676767676767676)) & 0x8080808080808080
		k := bits.TrailingZeros64(stop) / 8 // digits before the first non-digit (8 when none)
		if k == 0 {
			return m, nd, i, big
		}
		if m > 1e11 {
			big = true // m*10^8 could overflow; strconv reads it
		}
		v := x << (64 - 8*k) // the k digits in the high bytes, leading zeros below
		v = v*10 + v>>8
		v = ((v&0x000000FF000000FF)*(100+1000000<<32) + (v>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
		m = m*uint64pow10[k] + v
		nd, i = nd+k, i+k
		if k < 8 {
			return m, nd, i, big
		}
	}
	for ; i < len(tok) && tok[i] >= '0' && tok[i] <= '9'; i++ {
		if m > 1e18 {
			big = true
		}
		m, nd = m*10+uint64(tok[i]-'0'), nd+1
	}
	return m, nd, i, big
}

var uint64pow10 = [...]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

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
