package functions

// starts_with(string, prefix) and its operator ^@.

import "strings"

func init() {
	f := func(_ *Context, a []any) (any, error) { return strings.HasPrefix(a[0].(string), a[1].(string)), nil }
	Register(fn("starts_with", targs(tText, tText), tBool, f), fn("^@", targs(tText, tText), tBool, f))
}
