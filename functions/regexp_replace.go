package functions

// regexp_replace(source, pattern, replacement [, flags]): replace the
// first match (every match with flag g); \1..\9 in the replacement insert
// groups, \& the whole match, \\ a backslash. PostgreSQL 15's
// regexp_replace(source, pattern, replacement, start [, n [, flags]])
// searches from character start on and replaces the n-th match there, or
// every one for n 0; without n, the first (every one with flag g).

import (
	"regexp"
	"strings"
)

func init() {
	f := func(ctx *Context, a []any) (any, error) {
		flags := ""
		if len(a) > 3 {
			flags = a[3].(string)
		}
		return regexpReplaceCall(ctx, a, 1, -1, flags)
	}
	// extended is the form with start (and n, flags).
	extended := func(ctx *Context, a []any) (any, error) {
		start, n, flags := a[3].(int64), int64(-1), ""
		if start <= 0 {
			return nil, errRegexpParam("start", start)
		}
		if len(a) > 4 {
			if n = a[4].(int64); n < 0 {
				return nil, errRegexpParam("n", n)
			}
		}
		if len(a) > 5 {
			flags = a[5].(string)
		}
		return regexpReplaceCall(ctx, a, start, n, flags)
	}
	Register(
		fn("regexp_replace", targs(tText, tText, tText), tText, f),
		fn("regexp_replace", targs(tText, tText, tText, tText), tText, f),
		fn("regexp_replace", targs(tText, tText, tText, tInt4), tText, extended),
		fn("regexp_replace", targs(tText, tText, tText, tInt4, tInt4), tText, extended),
		fn("regexp_replace", targs(tText, tText, tText, tInt4, tInt4, tText), tText, extended),
	)
}

// regexpReplaceCall runs regexp_replace on a[0:3] from character start
// (1-based) replacing match n (0: all; -1: not given, so the g flag
// decides).
func regexpReplaceCall(ctx *Context, a []any, start, n int64, flags string) (any, error) {
	_, global, _, err := regexFlags(flags)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		n = 1
		if global {
			n = 0
		}
	}
	re, err := compileRegex(a[1].(string), strings.ReplaceAll(flags, "g", ""))
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	pos, ok := runeOffset(s, start-1)
	if !ok {
		return s, nil // start past the end: nothing to replace
	}
	return regexReplace(ctx, re, s, a[2].(string), pos, n)
}

// regexReplace replaces the n-th match of re in s from byte offset pos on
// (every match for n 0) as PostgreSQL's replace_text_regexp does: each
// search starts where the previous match ended, or one character later
// after an empty one, so an empty match right after a non-empty one is
// replaced too. The matches are found one at a time, a result over 1GB
// is 54000 as soon as it gets there, and a cancel stops the search
// (poller, counting the bytes searched and the searches).
func regexReplace(ctx *Context, re *regexp.Regexp, s, repl string, pos int, n int64) (string, error) {
	var b strings.Builder
	last := 0
	p, polled := ctx.poller(), pos
	for seen := int64(0); pos <= len(s); {
		if err := p.add(pos - polled + matchWork); err != nil {
			return "", err
		}
		polled = pos
		m, err := regexFrom(re, s, pos)
		if err != nil {
			return "", err
		}
		if m == nil {
			break
		}
		if seen++; n > 0 && seen < n {
			var done bool
			if pos, done = afterMatch(s, m); done {
				break
			}
			continue
		}
		if err := checkGrow(b.Len(), m[0]-last); err != nil {
			return "", err
		}
		b.WriteString(s[last:m[0]])
		if err := expandReplacement(&b, s, repl, m); err != nil {
			return "", err
		}
		last = m[1]
		if n > 0 {
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
