package functions

// btrim, ltrim, rtrim (and trim, which the parser writes as one of them):
// remove the longest run of the given characters (default space) from
// both ends, the start or the end.

import "strings"

func init() {
	mk := func(name string, f func(s, cut string) string) {
		Register(
			fn(name, targs(tText), tText, func(_ *Context, a []any) (any, error) { return f(a[0].(string), " "), nil }),
			fn(name, targs(tText, tText), tText, func(_ *Context, a []any) (any, error) {
				return f(a[0].(string), a[1].(string)), nil
			}),
		)
	}
	mk("btrim", strings.Trim)
	mk("trim", strings.Trim)
	mk("ltrim", strings.TrimLeft)
	mk("rtrim", strings.TrimRight)
}
