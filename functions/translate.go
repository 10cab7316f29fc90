package functions

// translate(string, from, to): every character of string found in from is
// replaced by the character at the same position in to, or removed when to
// is shorter; the first occurrence in from decides. Characters, not bytes,
// are compared. A result over 1GB (a character replaced by a longer one)
// is 54000 when it gets there, and a cancel stops a long one (poller).

import (
	"slices"
	"strings"
	"unicode/utf8"
)

func init() {
	Register(fn("translate", targs(tText, tText, tText), tText, func(ctx *Context, a []any) (any, error) {
		s, from, to := a[0].(string), []rune(a[1].(string)), []rune(a[2].(string))
		var b strings.Builder
		b.Grow(len(s))
		p := ctx.poller()
		for _, r := range s {
			if err := p.add(len(from) + 1); err != nil {
				return nil, err
			}
			i := slices.Index(from, r)
			switch {
			case i < 0:
			case i < len(to):
				r = to[i]
			default:
				continue
			}
			if err := checkGrow(b.Len(), utf8.RuneLen(r)); err != nil {
				return nil, err
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	}))
}
