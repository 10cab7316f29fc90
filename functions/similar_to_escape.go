package functions

// similar_to_escape(pattern [, escape]): the parser turns
// `x SIMILAR TO p [ESCAPE e]` into x ~ similar_to_escape(p [, e]), which
// rewrites SQL's regular expression syntax as a POSIX one.

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

func init() {
	one := func(_ *Context, a []any) (any, error) { return similarEscape(a[0].(string), `\`, true) }
	two := func(_ *Context, a []any) (any, error) { return similarEscape(a[0].(string), a[1].(string), true) }
	Register(
		fn("similar_to_escape", targs(tText), tText, one),
		fn("similar_to_escape", targs(tText, tText), tText, two),
		fn("similar_escape", targs(tText, tText), tText, two),
	)
}

// similarEscape is PostgreSQL's similar_escape_internal.
func similarEscape(pat, esc string, hasEsc bool) (string, error) {
	var e rune = -1
	if hasEsc && esc != "" {
		if utf8.RuneCountInString(esc) > 1 {
			return "", pgerr.New(pgerrcode.InvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
		e, _ = utf8.DecodeRuneInString(esc)
	}
	var b strings.Builder
	b.WriteString("^(?:")
	afterEsc, inClass := false, false
	nquotes := 0
	for _, c := range pat {
		switch {
		case afterEsc:
			if c == '"' && !inClass {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerr.New(pgerrcode.InvalidUseOfEscapeCharacter,
						"SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
			} else {
				b.WriteByte('\\')
				b.WriteRune(c)
			}
			afterEsc = false
		case c == e:
			afterEsc = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			b.WriteRune(c)
			inClass = true
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
	b.WriteString(")$")
	return b.String(), nil
}
