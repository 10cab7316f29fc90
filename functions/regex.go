package functions

// POSIX regular expression match operators ~ (match), ~* (match, case
// insensitive), !~ and !~* (their negations) on text. PostgreSQL's
// Advanced Regular Expressions are run by Go's RE2 after a light
// translation (word-boundary escapes, . matching newline); back-references
// and look-around are not supported (2201B).

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	for _, spec := range []struct {
		name      string
		fold, neg bool
	}{{"~", false, false}, {"!~", false, true}, {"~*", true, false}, {"!~*", true, true}} {
		spec := spec
		flags := ""
		if spec.fold {
			flags = "i"
		}
		ov := &Overload{Name: spec.name, Args: []types.T{types.TextT, types.TextT}, Result: types.BoolT}
		ov.Eval = func(_ *Context, args []any) (any, error) {
			re, err := compileRegex(args[1].(string), flags)
			if err != nil {
				return nil, err
			}
			return re.MatchString(args[0].(string)) != spec.neg, nil
		}
		ov.Kernel = wrapKernel(ov, types.BoolT, patternKernel[regexMatcher]{
			compile: func(pat string) (regexMatcher, error) {
				re, err := compileRegex(pat, flags)
				return regexMatcher{re}, err
			},
			neg: spec.neg,
		}.run)
		Register(ov)
	}
}

// regexMatcher is a compiled regular expression as patternKernel's
// matcher.
type regexMatcher struct{ re *regexp.Regexp }

func (r regexMatcher) match(s string) (bool, error) { return r.re.MatchString(s), nil }

// regexCache holds compiled regular expressions, keyed by option letters
// + "\x00" + pattern.
var regexCache patternCache[*regexp.Regexp]

// regexFlags are the option letters regexp_replace and friends accept;
// it reports global ('g') separately.
func regexFlags(flags string) (goFlags string, global bool, literal bool, err error) {
	goFlags, global, literal, _, err = regexOptions(flags)
	return goFlags, global, literal, err
}

// regexOptions is regexFlags with expanded, the x option (white space
// and # comments in the pattern are not part of it). Newline-sensitive
// matching is two of Go's flags: n (or m) sets both, p only the one that
// keeps . and [^...] off newlines, w only the one that lets ^ and $ match
// at them.
func regexOptions(flags string) (goFlags string, global, literal, expanded bool, err error) {
	fold, dotNL, multiline := false, true, false
	for _, c := range flags {
		switch c {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c':
			fold = false
		case 'n', 'm':
			dotNL, multiline = false, true
		case 'p':
			dotNL, multiline = false, false
		case 'w':
			dotNL, multiline = true, true
		case 's':
			dotNL, multiline = true, false
		case 'q':
			literal = true
		case 'x':
			expanded = true
		case 't':
			expanded = false
		case 'b', 'e':
		default:
			return "", false, false, false, pgerr.New(pgerrcode.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	if fold {
		goFlags += "i"
	}
	if multiline {
		goFlags += "m"
	}
	if dotNL {
		goFlags += "s"
	}
	return goFlags, global, literal, expanded, nil
}

// stripExpanded removes what the x option makes no part of a pattern:
// white space and # comments up to the end of their line, outside
// bracket expressions; an escaped blank or # stands for itself.
func stripExpanded(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if n := p[i+1]; n == '#' || strings.IndexByte(" \t\n\r\f\v", n) >= 0 {
				b.WriteByte(n)
			} else {
				b.WriteString(p[i : i+2])
			}
			i++
		case strings.IndexByte(" \t\n\r\f\v", c) >= 0:
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		case c == '[':
			j := bracketEnd(p, i)
			b.WriteString(p[i:j])
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// bracketEnd is the index just past the bracket expression that opens at
// p[i] ('['), or len(p) when it is not closed.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++ // a leading ] is a member
	}
	for j < len(p) {
		switch {
		case p[j] == '[' && j+1 < len(p) && strings.IndexByte(":.=", p[j+1]) >= 0:
			// [:class:], [.coll.], [=equiv=]
			if k := strings.Index(p[j+2:], string(p[j+1])+"]"); k >= 0 {
				j += 2 + k + 2
				continue
			}
			j++
		case p[j] == ']':
			return j + 1
		case p[j] == '\\':
			j += 2
		default:
			j++
		}
	}
	return len(p)
}

// newlineSensitive makes the negated bracket expressions of a Go pattern
// leave newlines alone, as PostgreSQL's n and p options do for them as
// for . (Go's s flag governs only .).
func newlineSensitive(p string) string {
	if !strings.Contains(p, "[^") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
		case c == '[':
			j := bracketEnd(p, i)
			if j <= len(p) && p[j-1] == ']' && i+1 < len(p) && p[i+1] == '^' {
				b.WriteString(p[i : j-1])
				b.WriteString(`\n]`)
			} else {
				b.WriteString(p[i:j])
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// compileRegex compiles a PostgreSQL regular expression with option
// letters (see regexFlags); the 'g' letter is ignored here.
func compileRegex(pat, flags string) (*regexp.Regexp, error) {
	return regexCache.get(flags+"\x00"+pat, func() (*regexp.Regexp, error) {
		goFlags, _, literal, expanded, err := regexOptions(flags)
		if err != nil {
			return nil, err
		}
		if expanded && !literal {
			pat = stripExpanded(pat)
		}
		src := translateRegex(pat)
		if literal {
			src = regexp.QuoteMeta(pat)
		} else if !strings.Contains(goFlags, "s") {
			src = newlineSensitive(src)
		}
		re, err := regexp.Compile("(?" + goFlags + ")" + src)
		if err != nil {
			if feature := unsupportedRegex(err); feature != "" {
				return nil, pgerr.NotSupported("%s in regular expressions", feature)
			}
			return nil, pgerr.New(pgerrcode.InvalidRegularExpression, "invalid regular expression: %s", regexErrorText(err))
		}
		return re, nil
	})
}

// translateRegex rewrites ARE-only syntax into RE2's.
func translateRegex(p string) string {
	if !strings.ContainsAny(p, `\[`) {
		return p
	}
	r := strings.NewReplacer(`[[:<:]]`, `\b`, `[[:>:]]`, `\b`)
	p = r.Replace(p)
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' || i+1 >= len(p) {
			b.WriteByte(c)
			continue
		}
		i++
		switch p[i] {
		case 'm', 'M', 'y':
			b.WriteString(`\b`)
		case 'Y':
			b.WriteString(`\B`)
		case 'Z':
			b.WriteString(`\z`)
		default:
			b.WriteByte('\\')
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// unsupportedRegex names the construct of PostgreSQL's regular
// expressions that RE2, which runs them here, lacks and err is about:
// back-references and lookahead or lookbehind constraints. "" if none.
func unsupportedRegex(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch {
	case se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && se.Expr[1] >= '1' && se.Expr[1] <= '9':
		return "back-references (" + se.Expr + ")"
	case strings.HasPrefix(se.Expr, "(?=") || strings.HasPrefix(se.Expr, "(?!"):
		return "lookahead constraints"
	case strings.HasPrefix(se.Expr, "(?<=") || strings.HasPrefix(se.Expr, "(?<!"):
		return "lookbehind constraints"
	}
	return ""
}

// regexErrorText words an RE2 parse error as PostgreSQL's regex library
// does where there is a counterpart.
func regexErrorText(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	switch se.Code {
	case syntax.ErrMissingParen, syntax.ErrUnexpectedParen:
		return "parentheses () not balanced"
	case syntax.ErrMissingBracket:
		return "brackets [] not balanced"
	case syntax.ErrMissingRepeatArgument:
		return "quantifier operand invalid"
	case syntax.ErrInvalidRepeatOp, syntax.ErrInvalidRepeatSize:
		return "invalid repetition count(s)"
	case syntax.ErrInvalidEscape, syntax.ErrTrailingBackslash:
		return "invalid escape \\ sequence"
	case syntax.ErrInvalidCharRange:
		return "invalid character range"
	case syntax.ErrInvalidCharClass:
		return "invalid character class"
	case syntax.ErrInvalidPerlOp:
		return "unsupported construct " + se.Expr
	}
	return string(se.Code)
}
