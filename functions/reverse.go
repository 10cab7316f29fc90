package functions

// reverse(text): the characters in reverse order.

import "unicode/utf8"

func init() {
	Register(fn1("reverse", tText, tText, func(a any) (any, error) {
		s := a.(string)
		out := make([]byte, len(s))
		i := len(out)
		for _, r := range s {
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 1
			}
			i -= n
			utf8.EncodeRune(out[i:], r)
		}
		return string(out), nil
	}))
}
