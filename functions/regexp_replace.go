package functions

// regexp_replace(source, pattern, replacement [, flags]): replace the
// first match (every match with flag g); \1..\9 in the replacement insert
// groups, \& the whole match, \\ a backslash.

import (
	"regexp"
	"strings"
)

func init() {
	f := func(_ *Context, a []any) (any, error) {
		flags := ""
		if len(a) > 3 {
			flags = a[3].(string)
		}
		_, global, _, err := regexFlags(flags)
		if err != nil {
			return nil, err
		}
		re, err := compileRegex(a[1].(string), strings.ReplaceAll(flags, "g", ""))
		if err != nil {
			return nil, err
		}
		return regexReplace(re, a[0].(string), a[2].(string), global), nil
	}
	Register(
		fn("regexp_replace", targs(tText, tText, tText), tText, f),
		fn("regexp_replace", targs(tText, tText, tText, tText), tText, f),
	)
}

func regexReplace(re *regexp.Regexp, s, repl string, global bool) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		expandReplacement(&b, s, repl, m)
		last = m[1]
		if !global {
			break
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// expandReplacement writes repl with PostgreSQL's back-references.
func expandReplacement(b *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		n := repl[i+1]
		switch {
		case n >= '1' && n <= '9':
			g := int(n - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(s[m[2*g]:m[2*g+1]])
			}
			i++
		case n == '&':
			b.WriteString(s[m[0]:m[1]])
			i++
		case n == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
}
