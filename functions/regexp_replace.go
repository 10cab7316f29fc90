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
		return regexReplace(re, a[0].(string), a[2].(string), global)
	}
	Register(
		fn("regexp_replace", targs(tText, tText, tText), tText, f),
		fn("regexp_replace", targs(tText, tText, tText, tText), tText, f),
	)
}

// regexReplace replaces the first match of re in s (every match when
// global) as PostgreSQL's replace_text_regexp does: each search starts
// where the previous match ended, or one character later after an empty
// one, so an empty match right after a non-empty one is replaced too. The
// matches are found one at a time, and a result over 1GB is 54000 as soon
// as it gets there.
func regexReplace(re *regexp.Regexp, s, repl string, global bool) (string, error) {
	var b strings.Builder
	last, pos := 0, 0
	for pos <= len(s) {
		m, err := regexFrom(re, s, pos)
		if err != nil {
			return "", err
		}
		if m == nil {
			break
		}
		if err := checkGrow(b.Len(), m[0]-last); err != nil {
			return "", err
		}
		b.WriteString(s[last:m[0]])
		if err := expandReplacement(&b, s, repl, m); err != nil {
			return "", err
		}
		last = m[1]
		if !global {
			break
		}
		var done bool
		if pos, done = afterMatch(s, m); done {
			break
		}
	}
	if err := checkGrow(b.Len(), len(s)-last); err != nil {
		return "", err
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// expandReplacement writes repl with PostgreSQL's back-references for
// match m of s, within maxAlloc.
func expandReplacement(b *strings.Builder, s, repl string, m []int) error {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		piece := repl[i : i+1]
		if c == '\\' && i+1 < len(repl) {
			switch n := repl[i+1]; {
			case n >= '1' && n <= '9':
				piece = ""
				if g := int(n - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
					piece = s[m[2*g]:m[2*g+1]]
				}
				i++
			case n == '&':
				piece = s[m[0]:m[1]]
				i++
			case n == '\\':
				i++
			}
		}
		if err := checkGrow(b.Len(), len(piece)); err != nil {
			return err
		}
		b.WriteString(piece)
	}
	return nil
}
