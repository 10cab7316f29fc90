package functions

// initcap(text): the first letter of each word upper case, the rest lower
// case; words are runs of letters and digits. Over 1GB is 54000, as for
// upper.

import (
	"strings"
	"unicode"
)

func init() {
	Register(fn1("initcap", tText, tText, func(a any) (any, error) {
		var b strings.Builder
		inWord := false
		for _, r := range a.(string) {
			if inWord {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToUpper(r))
			}
			inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		return checkLen(b.String())
	}))
}
