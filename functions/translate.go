package functions

// translate(string, from, to): every character of string found in from is
// replaced by the character at the same position in to, or removed when to
// is shorter; the first occurrence in from decides. Characters, not bytes,
// are compared.

import (
	"slices"
	"strings"
)

func init() {
	Register(fn("translate", targs(tText, tText, tText), tText, func(_ *Context, a []any) (any, error) {
		s, from, to := a[0].(string), []rune(a[1].(string)), []rune(a[2].(string))
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			i := slices.Index(from, r)
			switch {
			case i < 0:
				b.WriteRune(r)
			case i < len(to):
				b.WriteRune(to[i])
			}
		}
		return b.String(), nil
	}))
}
