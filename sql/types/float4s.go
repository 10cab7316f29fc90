package types

import (
	"bytes"
	"encoding/binary"
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
	return parseFloat4List(dst, f, '{', '}', false)
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
// an embedding in a JSON body read as a real[]. It takes RFC 8259's
// grammar only (JSON's white space; no '+', leading zero, ".5" or "5."),
// so ok also says that f is valid JSON: an HTTP body's embeddings are
// checked and parsed in one pass.
func ParseJSONFloat4s(dst []float32, f []byte) (_ []float32, ok bool) {
	return parseFloat4List(dst, f, '[', ']', true)
}

// parseFloat4List is ParseFloat4s with the given brackets, or with json
// ParseJSONFloat4s. It reads each element where it stands, in one pass,
// with the number's parse written into the loop (a call per element
// doubled the cost of a 384-d list); an element that pass does not take
// is cut out and given to strconv (parseFloat4).
func parseFloat4List(dst []float32, f []byte, open, close byte, json bool) ([]float32, bool) {
	if len(f) < 3 || f[0] != open || f[len(f)-1] != close {
		return dst, false
	}
	body := f[1 : len(f)-1]
	// JSON's white space is array input's but for \v and \f.
	if json && (bytes.IndexByte(body, '\v') >= 0 || bytes.IndexByte(body, '\f') >= 0) {
		return dst, false
	}
	for i := 0; ; {
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		// The plain form, JSON's number: -?(0|[1-9][0-9]*)(.[0-9]+)?
		// ([eE][-+]?[0-9]+)?, at most 19 digits (m cannot overflow),
		// read into m * 10^exp; anything else ('+', ".5", "5.", "007")
		// is cut out and left to strconv below. The sign is read without
		// a branch: half an embedding's numbers are negative, in no order
		// a branch predictor learns.
		at := i
		var neg int
		if i < len(body) {
			neg = b2i(body[i] == '-')
		}
		i += neg
		var m uint64
		from := i
		i, m = readDigits(body, i, m)
		digits, exp := i-from, 0
		// notPlain makes digits negative for good: what follows cannot
		// bring it back above zero.
		const notPlain = -1 << 40
		if digits != 1 && (digits == 0 || body[from] == '0') {
			digits = notPlain // ".5", "007"
		}
		if i < len(body) && body[i] == '.' {
			i++
			from = i
			// An embedding's fraction has 7 to 9 digits: eight of them
			// are read at once while at most 19 digits are in m.
			if digits <= 11 && len(body)-i >= 8 {
				if v := binary.LittleEndian.Uint64(body[i:]); eightDigits(v) {
					m, i = m*1e8+eightDigitsValue(v), i+8
				}
			}
			i, m = readDigits(body, i, m)
			if i == from {
				digits = notPlain // "5."
			}
			digits, exp = digits+i-from, from-i
		}
		if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
			i++
			eneg := i < len(body) && body[i] == '-'
			if eneg || i < len(body) && body[i] == '+' {
				i++
			}
			e, start := 0, i
			for ; i < len(body) && body[i]-'0' < 10 && e < 1000; i++ {
				e = e*10 + int(body[i]-'0')
			}
			if i == start {
				digits = 0 // no exponent digits: strconv has the error
			}
			if eneg {
				e = -e
			}
			exp += e
		}
		// m * 10^exp correctly rounded to a float32, as float4in would,
		// when m is nonzero and the result within real's normal range:
		// with m <= 2^53 and |exp| <= 22 the operands are exact float64s
		// and the product or quotient is rounded once (Clinger's fast
		// path); its rounding to float32 is then the correct one unless
		// it lies next to a point halfway between two float32s. Those and
		// anything else unusual (zero too) go to strconv.
		ok := digits > 0 && digits <= 19 && m != 0 && m <= 1<<53 && exp >= -22 && exp <= 22
		var x float32
		if ok {
			f := float64(m)
			if exp < 0 {
				f /= float64pow10[-exp]
			} else {
				f *= float64pow10[exp]
			}
			const halfway = 1 << 28 // below a float32's last bit in a float64's mantissa
			low := math.Float64bits(f) & (1<<29 - 1)
			ok = (low < halfway-1 || low > halfway+1) && f >= math.SmallestNonzeroFloat32*(1<<23) && f <= math.MaxFloat32
			x = float32(f)
		}
		j := i
		for j < len(body) && isArraySpace(body[j]) {
			j++
		}
		if ok && (j == len(body) || body[j] == ',') {
			dst = append(dst, math.Float32frombits(math.Float32bits(x)|uint32(neg)<<31))
		} else {
			tok := body[at:]
			if k := bytes.IndexByte(tok, ','); k >= 0 {
				tok = tok[:k]
			}
			num := trimArraySpace(tok)
			if json && !jsonNumber(num) {
				return dst, false
			}
			if x, ok = parseFloat4(num); !ok {
				return dst, false
			}
			dst, j = append(dst, x), at+len(tok)
		}
		if j == len(body) {
			return dst, true
		}
		i = j + 1
	}
}

// b2i is 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readDigits reads the decimal digits of b from i on into m (m*10 + d
// each) and returns where they end.
func readDigits(b []byte, i int, m uint64) (int, uint64) {
	for ; i < len(b) && b[i]-'0' < 10; i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	return i, m
}

// eightDigits reports whether the eight bytes of v (little-endian) are all
// ASCII digits: each byte's high nibble is 3, and adding 6 keeps it so.
func eightDigits(v uint64) bool {
	return v&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030 &&
		(v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030
}

// eightDigitsValue is the number eight ASCII digits (little-endian in v,
// the first digit in the lowest byte) spell, in three multiplications:
// pairs of digits, then pairs of pairs, then the two halves.
func eightDigitsValue(v uint64) uint64 {
	v -= 0x3030303030303030
	v = v*10 + v>>8
	return ((v&0x000000FF000000FF)*(100+1000000<<32) + (v>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
}

// isArraySpace reports whether c is white space array input skips around
// an unquoted element (array_isspace).
func isArraySpace(c byte) bool {
	return c == ' ' || c-'\t' <= '\r'-'\t' // \t \n \v \f \r
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

// jsonNumber reports whether b is a number in RFC 8259's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i]-'1' < 9:
		i, _ = readDigits(b, i, 0)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		from := i + 1
		if i, _ = readDigits(b, from, 0); i == from {
			return false
		}
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		from := i
		if i, _ = readDigits(b, from, 0); i == from {
			return false
		}
	}
	return i == len(b)
}

var float64pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat4 parses tok, one element of a list in ParseFloat4s' plain
// form that parseFloat4List's own pass does not take, through strconv:
// ok is false unless it is a decimal number within real's range (a
// number that rounds to zero but is not, 1e-50, is float4in's error).
func parseFloat4(tok []byte) (float32, bool) {
	if len(tok) == 0 {
		return 0, false
	}
	for _, c := range tok {
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 32)
	mantissa := tok
	if k := bytes.IndexAny(tok, "eE"); k >= 0 {
		mantissa = tok[:k]
	}
	if err != nil || math.IsInf(x, 0) || x == 0 && bytes.ContainsAny(mantissa, "123456789") {
		return 0, false
	}
	return float32(x), true
}
