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
	fold, newline := false, false
	for _, c := range flags {
		switch c {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c':
			fold = false
		case 'n', 'm':
			newline = true
		case 'p', 'w':
			newline = true
		case 's':
			newline = false
		case 'q':
			literal = true
		case 'x', 't', 'b', 'e':
		default:
			return "", false, false, pgerr.New(pgerrcode.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	if fold {
		goFlags += "i"
	}
	if newline {
		goFlags += "m"
	} else {
		goFlags += "s"
	}
	return goFlags, global, literal, nil
}

// compileRegex compiles a PostgreSQL regular expression with option
// letters (see regexFlags); the 'g' letter is ignored here.
func compileRegex(pat, flags string) (*regexp.Regexp, error) {
	return regexCache.get(flags+"\x00"+pat, func() (*regexp.Regexp, error) {
		goFlags, _, literal, err := regexFlags(flags)
		if err != nil {
			return nil, err
		}
		src := translateRegex(pat)
		if literal {
			src = regexp.QuoteMeta(pat)
		}
		re, err := regexp.Compile("(?" + goFlags + ")" + src)
		if err != nil {
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
