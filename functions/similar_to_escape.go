package functions

// similar_to_escape(pattern [, escape]): the POSIX regular expression a SQL
// SIMILAR TO pattern means, which `x SIMILAR TO p` matches with ~ (the
// parser writes it so). % becomes .*, _ becomes ., the escape character
// (\ unless given; '' for none) makes the next character literal, bracket
// expressions pass through, ( opens a non-capturing group, and the whole
// pattern must match.

import (
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

func init() {
	Register(
		fn("similar_to_escape", targs(tText), tText, func(_ *Context, a []any) (any, error) {
			return similarToRegex(a[0].(string), `\`)
		}),
		fn("similar_to_escape", targs(tText, tText), tText, func(_ *Context, a []any) (any, error) {
			return similarToRegex(a[0].(string), a[1].(string))
		}),
	)
}

// similarToRegex translates a SIMILAR TO pattern with escape character esc
// ("" for none) into a regular expression anchored at both ends, as
// PostgreSQL's similar_to_escape writes it. Up to two escape-double-quote
// separators (#" with escape #) split it into a leading part matched as
// little as possible ("{1,1}?"), the part substring(... SIMILAR ...)
// returns (group 1), and a trailing part.
func similarToRegex(pat, esc string) (string, error) {
	return similarRegex(pat, esc, false)
}

// similarSubstringRegex is similarToRegex for substring(... SIMILAR ...),
// for Go's regexp. PostgreSQL's regex engine makes the whole leading part
// non-greedy from its "{1,1}?", the quantifiers within it included; Go's
// applies that to the group alone, whose % and * would still take all
// they can (substring('aaabbb' similar '%#"a*b#"%' escape '#') would be
// 'b', not PostgreSQL's 'aaab'). So every quantifier of the leading part
// is written lazy.
func similarSubstringRegex(pat, esc string) (string, error) {
	return similarRegex(pat, esc, true)
}

// similarRegex is similarToRegex, with the quantifiers of the leading part
// lazy when lazyHead is set.
func similarRegex(pat, esc string, lazyHead bool) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", pgerr.New(pgerrcode.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	escape, _ := utf8.DecodeRuneInString(esc)
	var b strings.Builder
	b.WriteString("^(?:")
	escaped, inBracket, inBraces := false, false, false
	separators := 0
	// lazy writes the ? that makes the quantifier just written lazy.
	lazy := func() {
		if lazyHead && separators == 0 {
			b.WriteByte('?')
		}
	}
	for _, c := range pat {
		switch {
		case escaped && c == '"':
			separators++
			switch separators {
			case 1:
				b.WriteString("){1,1}?(")
			case 2:
				b.WriteString("){1,1}(?:")
			default:
				return "", pgerr.New(pgerrcode.InvalidUseOfEscapeCharacter, "SQL regular expression may not contain more than two escape-double-quote separators")
			}
			escaped = false
		case escaped:
			b.WriteByte('\\')
			b.WriteRune(c)
			escaped = false
		case esc != "" && c == escape:
			escaped = true
		case inBracket:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			inBracket = c != ']'
		case c == '[':
			b.WriteRune(c)
			inBracket = true
		case c == '%':
			b.WriteString(".*")
			lazy()
		case c == '*' || c == '+' || c == '?':
			b.WriteRune(c)
			lazy()
		case c == '{':
			b.WriteRune(c)
			inBraces = true
		case c == '}' && inBraces:
			b.WriteRune(c)
			inBraces = false
			lazy()
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(")$") // a trailing escape character escapes nothing
	return b.String(), nil
}
