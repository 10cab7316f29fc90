package functions

// replace(string, from, to): every occurrence of from replaced (an empty
// from leaves the string alone).

import "strings"

func init() {
	Register(fn("replace", targs(tText, tText, tText), tText, func(_ *Context, a []any) (any, error) {
		s, from := a[0].(string), a[1].(string)
		if from == "" {
			return s, nil
		}
		return strings.ReplaceAll(s, from, a[2].(string)), nil
	}))
}
