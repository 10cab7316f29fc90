package functions

// replace(string, from, to): every occurrence of from replaced (an empty
// from leaves the string alone). A result over 1GB is 54000, found from
// the number of occurrences before the result is built, which a cancel
// stops (poller).

import "strings"

func init() {
	Register(fn("replace", targs(tText, tText, tText), tText, func(ctx *Context, a []any) (any, error) {
		s, from, to := a[0].(string), a[1].(string), a[2].(string)
		if from == "" {
			return s, nil
		}
		n := strings.Count(s, from)
		if n == 0 {
			return s, nil
		}
		size := int64(len(s)) + int64(n)*int64(len(to)-len(from))
		if size > int64(maxAlloc) {
			return nil, errTooLarge()
		}
		var b strings.Builder
		b.Grow(int(size))
		p := ctx.poller()
		for {
			i := strings.Index(s, from)
			if i < 0 {
				break
			}
			b.WriteString(s[:i])
			b.WriteString(to)
			s = s[i+len(from):]
			if err := p.add(i + len(from) + len(to)); err != nil {
				return nil, err
			}
		}
		b.WriteString(s)
		return b.String(), nil
	}))
}
