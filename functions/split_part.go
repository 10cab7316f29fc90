package functions

// split_part(string, delimiter, n): the n-th field (negative n counts
// from the end), '' when there is none; n = 0 is an error.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(fn("split_part", targs(tText, tText, tInt4), tText, func(_ *Context, a []any) (any, error) {
		s, d, n := a[0].(string), a[1].(string), a[2].(int64)
		if n == 0 {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "field position must not be zero")
		}
		var parts []string
		if d == "" {
			parts = []string{s}
		} else {
			parts = strings.Split(s, d)
		}
		if s == "" {
			return "", nil
		}
		if n < 0 {
			n += int64(len(parts)) + 1
		}
		if n < 1 || n > int64(len(parts)) {
			return "", nil
		}
		return parts[n-1], nil
	}))
}
