package functions

import (
	"encoding/binary"
	"strings"
	"unsafe"
)

// ILIKE lowercases every subject it matches. strings.ToLower copies a
// string that holds an upper-case letter byte by byte into a new
// allocation (about 2 ns a byte: most of an ILIKE scan's time), so ASCII
// subjects are folded eight bytes at a time into a buffer the caller
// keeps instead; others fold as before.

// foldBufSize is the longest subject folded into a caller's stack buffer;
// longer ones are folded into a new one.
const foldBufSize = 512

// foldLower returns s lowercased as strings.ToLower does, using buf when
// s is ASCII and fits it; the result may alias buf, so it is valid while
// buf is.
func foldLower(buf []byte, s string) string {
	if len(s) > len(buf) {
		buf = make([]byte, len(s))
	}
	if out, ok := lowerASCII(buf[:len(s)], s); ok {
		return unsafe.String(unsafe.SliceData(out), len(out))
	}
	return strings.ToLower(s)
}

// lowerASCII writes s with A-Z lowercased into dst (len(s) bytes) and
// reports whether s was all ASCII (dst is then complete).
func lowerASCII(dst []byte, s string) ([]byte, bool) {
	const hi = 0x8080808080808080
	const ones = 0x0101010101010101
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		if x&hi != 0 {
			return nil, false
		}
		// Per byte (all below 0x80, so no carries): the high bit of
		// x+(0x80-'A') is set from 'A' up, that of x+(0x80-'Z'-1)
		// above 'Z'; their difference marks A-Z, and its bit shifted to
		// 0x20 lowercases them.
		upper := (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & hi
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst, true
}
