package functions

// length, char_length / character_length, octet_length and bit_length of
// text, char(n) (trailing blanks do not count for length) and bytea.

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	chars := func(a any) (any, error) { return int64(utf8.RuneCountInString(a.(string))), nil }
	bpchars := func(a any) (any, error) {
		return int64(utf8.RuneCountInString(strings.TrimRight(a.(string), " "))), nil
	}
	bytesLen := func(a any) (any, error) { return int64(len(a.([]byte))), nil }
	octets := func(a any) (any, error) { return int64(len(a.(string))), nil }
	for _, name := range []string{"length", "char_length", "character_length"} {
		Register(fn1(name, tText, tInt4, chars), fn1(name, types.CharT, tInt4, bpchars))
	}
	Register(
		fn1("length", types.ByteaT, tInt4, bytesLen),
		fn1("octet_length", tText, tInt4, octets),
		fn1("octet_length", types.CharT, tInt4, octets),
		fn1("octet_length", types.ByteaT, tInt4, bytesLen),
		fn1("bit_length", tText, tInt4, func(a any) (any, error) { return int64(len(a.(string)) * 8), nil }),
		fn1("bit_length", types.ByteaT, tInt4, func(a any) (any, error) { return int64(len(a.([]byte)) * 8), nil }),
	)
}
