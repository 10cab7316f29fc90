package functions

// replace(string, from, to): every occurrence of from replaced (an empty
// from leaves the string alone). A result over 1GB is 54000, found from
// the number of occurrences before the result is built.

import "strings"

func init() {
	Register(fn("replace", targs(tText, tText, tText), tText, func(_ *Context, a []any) (any, error) {
		s, from, to := a[0].(string), a[1].(string), a[2].(string)
		if from == "" {
			return s, nil
		}
		if len(to) > len(from) {
			n := int64(strings.Count(s, from))
			if int64(len(s))+n*int64(len(to)-len(from)) > int64(maxAlloc) {
				return nil, errTooLarge()
			}
		}
		return strings.ReplaceAll(s, from, to), nil
	}))
}
