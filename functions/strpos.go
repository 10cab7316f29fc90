package functions

// strpos(string, substring) and position(substring IN string), which the
// parser turns into position(string, substring): the 1-based character
// position of the first occurrence, 0 when absent.

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	pos := func(_ *Context, a []any) (any, error) {
		s, sub := a[0].(string), a[1].(string)
		i := strings.Index(s, sub)
		if i < 0 {
			return int64(0), nil
		}
		return int64(utf8.RuneCountInString(s[:i]) + 1), nil
	}
	Register(
		fn("strpos", targs(tText, tText), tInt4, pos),
		fn("position", targs(tText, tText), tInt4, pos),
		fn("position", targs(types.ByteaT, types.ByteaT), tInt4, func(_ *Context, a []any) (any, error) {
			return int64(bytes.Index(a[0].([]byte), a[1].([]byte)) + 1), nil
		}),
	)
}
