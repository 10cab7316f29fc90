package functions

// chr(code) and ascii(text): code point to character and back.

import (
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(
		fn1("chr", tInt4, tText, func(a any) (any, error) {
			c := a.(int64)
			switch {
			case c < 0:
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "character number must be positive")
			case c == 0:
				return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "null character not permitted")
			case c > utf8.MaxRune:
				return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "requested character too large for encoding: %d", c)
			case c >= 0xD800 && c <= 0xDFFF:
				return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "requested character not valid for encoding: %d", c)
			}
			return string(rune(c)), nil
		}),
		fn1("ascii", tText, tInt4, func(a any) (any, error) {
			s := a.(string)
			if s == "" {
				return int64(0), nil
			}
			r, _ := utf8.DecodeRuneInString(s)
			return int64(r), nil
		}),
	)
}
