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
// ("" for none) into a regular expression anchored at both ends. Up to two
// escape-double-quote separators (#" with escape #) split it, as in
// PostgreSQL, into a leading part matched as little as possible, the
// part substring(... SIMILAR ...) returns (group 1), and a trailing part.
func similarToRegex(pat, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", pgerr.New(pgerrcode.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	escape, _ := utf8.DecodeRuneInString(esc)
	var b strings.Builder
	b.WriteString("^(?:")
	escaped, inBracket := false, false
	separators := 0
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
