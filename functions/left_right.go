package functions

// left(string, n) and right(string, n): the first or last n characters;
// a negative n means all but the last or first |n|.

import "unicode/utf8"

func init() {
	Register(
		fn("left", targs(tText, tInt4), tText, func(_ *Context, a []any) (any, error) {
			s, n := a[0].(string), a[1].(int64)
			l := int64(utf8.RuneCountInString(s))
			if n < 0 {
				n = max(l+n, 0)
			}
			return runePrefix(s, int(min(n, l))), nil
		}),
		fn("right", targs(tText, tInt4), tText, func(_ *Context, a []any) (any, error) {
			s, n := a[0].(string), a[1].(int64)
			l := int64(utf8.RuneCountInString(s))
			if n < 0 {
				n = max(l+n, 0)
			}
			skip := l - min(n, l)
			return s[len(runePrefix(s, int(skip))):], nil
		}),
	)
}
