package functions

// lpad and rpad(string, length [, fill]): pad with fill (default space)
// to length characters, or truncate to it.

import (
	"strings"
	"unicode/utf8"
)

func init() {
	pad := func(left bool) func(_ *Context, a []any) (any, error) {
		return func(_ *Context, a []any) (any, error) {
			s, n := a[0].(string), a[1].(int64)
			fill := " "
			if len(a) > 2 {
				fill = a[2].(string)
			}
			if n <= 0 {
				return "", nil
			}
			if n*4 > int64(maxAlloc) {
				return nil, errTooLarge()
			}
			l := int64(utf8.RuneCountInString(s))
			if l >= n || fill == "" {
				return runePrefix(s, int(min(l, n))), nil
			}
			need := int(n - l)
			fr := []rune(fill)
			var b strings.Builder
			if !left {
				b.WriteString(s)
			}
			for i := 0; i < need; i++ {
				b.WriteRune(fr[i%len(fr)])
			}
			if left {
				b.WriteString(s)
			}
			return b.String(), nil
		}
	}
	Register(
		fn("lpad", targs(tText, tInt4), tText, pad(true)),
		fn("lpad", targs(tText, tInt4, tText), tText, pad(true)),
		fn("rpad", targs(tText, tInt4), tText, pad(false)),
		fn("rpad", targs(tText, tInt4, tText), tText, pad(false)),
	)
}
