package functions

// PostgreSQL's regular expression search loop (setup_regexp_matches) for
// the functions that start at a character position: regexp_count,
// regexp_instr and regexp_substr. Go's regexp cannot start a search at an
// offset of a string and still see the text before it (^, \b, \m), and
// its FindAll drops an empty match right after a non-empty one, which
// PostgreSQL counts; regexSearch does neither.

import (
	"regexp"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// regexFromCache maps a compiled regex's source to its "from" form (see
// regexFrom).
var regexFromCache patternCache[*regexp.Regexp]

// regexFrom returns the submatch indexes of the first match of re in s
// that starts at byte offset pos or later, or nil. For pos > 0 it runs a
// form of re anchored one character before pos that consumes that
// character and then as few more as it can before re's match, so the
// match is the leftmost one from pos on and assertions see the character
// before it.
func regexFrom(re *regexp.Regexp, s string, pos int) ([]int, error) {
	if pos == 0 {
		return re.FindStringSubmatchIndex(s), nil
	}
	src := re.String()
	from, err := regexFromCache.get(src, func() (*regexp.Regexp, error) {
		from, err := regexp.Compile(`\A(?s:.)(?s:.*?)(` + src + `)`)
		if err != nil {
			return nil, pgerr.New(pgerrcode.InvalidRegularExpression, "invalid regular expression: %s", regexErrorText(err))
		}
		return from, nil
	})
	if err != nil {
		return nil, err
	}
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	m := from.FindStringSubmatchIndex(s[pos-w:])
	if m == nil {
		return nil, nil
	}
	m = m[2:] // group 1 is re's whole match
	for i := range m {
		if m[i] >= 0 {
			m[i] += pos - w
		}
	}
	return m, nil
}

// matchWork is what one search counts in the poller of a loop over
// matches (regexSearch, regexReplace) beyond the bytes it passed: a
// search of a few bytes takes as long as copying a kilobyte.
const matchWork = 1 << 10

// regexSearch returns up to limit successive matches of re in s from
// byte offset pos on, as PostgreSQL finds them: each search starts where
// the previous match ended, or one character later after an empty match.
// A cancel stops it (poller, counting the bytes searched and the
// searches).
func regexSearch(ctx *Context, re *regexp.Regexp, s string, pos, limit int) ([][]int, error) {
	var out [][]int
	p, polled := ctx.poller(), pos
	for len(out) < limit {
		if err := p.add(pos - polled + matchWork); err != nil {
			return nil, err
		}
		polled = pos
		m, err := regexFrom(re, s, pos)
		if err != nil || m == nil {
			return out, err
		}
		out = append(out, m)
		var done bool
		if pos, done = afterMatch(s, m); done {
			break
		}
	}
	return out, nil
}

// afterMatch is where the search for the next match of a global search
// starts after match m of s: its end, one character further after an
// empty match (which would match there again); done when an empty match
// is at the end of s.
func afterMatch(s string, m []int) (pos int, done bool) {
	pos = m[1]
	if m[0] != m[1] {
		return pos, false
	}
	if pos == len(s) {
		return pos, true
	}
	_, w := utf8.DecodeRuneInString(s[pos:])
	return pos + w, false
}

// regexpMatchesFrom compiles pattern with flags for function fn (which, like
// regexp_count, refuses the g flag but searches globally) and returns up
// to limit matches in s from character start (1-based) on.
func regexpMatchesFrom(ctx *Context, fn, s, pattern, flags string, start int64, limit int) (*regexp.Regexp, [][]int, error) {
	_, global, _, err := regexFlags(flags)
	if err != nil {
		return nil, nil, err
	}
	if global {
		return nil, nil, errGlobalOption(fn)
	}
	re, err := compileRegex(pattern, flags)
	if err != nil {
		return nil, nil, err
	}
	pos, ok := runeOffset(s, start-1)
	if !ok {
		return re, nil, nil
	}
	ms, err := regexSearch(ctx, re, s, pos, limit)
	return re, ms, err
}

func errGlobalOption(fn string) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "%s() does not support the \"global\" option", fn)
}

// errRegexpParam is the error for an out-of-range start, n, endoption or
// subexpr argument.
func errRegexpParam(name string, v int64) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": %d", name, v)
}

// runeOffset is the byte offset of the n-th character (0-based) of s, or
// len(s) for n equal to the number of characters; ok is false beyond it.
func runeOffset(s string, n int64) (int, bool) {
	for i := range s {
		if n == 0 {
			return i, true
		}
		n--
	}
	return len(s), n == 0
}
