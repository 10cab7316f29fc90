package jsonpath

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// This file is the scanner of PostgreSQL 15's jsonpath_scan.l.

type tokKind uint8

const (
	tEOF   tokKind = iota
	tChar          // a special character: text holds it
	tOp            // && || ! ** < <= == <> != >= >
	tIdent         // an unquoted word, maybe a keyword
	tString
	tVariable
	tNumber
)

type token struct {
	kind tokKind
	// text is what PostgreSQL's scanner matched last (yytext), the token
	// named in a syntax error; "" reads as the end of the input.
	text  string
	str   string // the value of an identifier, string or variable
	num   string // a number's text
	isInt bool
}

// is reports whether t is the keyword kw (lower case): jsonpath's
// keywords match in any case, except null, true and false.
func (t token) is(kw string) bool {
	if t.kind != tIdent {
		return false
	}
	switch kw {
	case "null", "true", "false":
		return t.str == kw
	}
	return strings.EqualFold(t.str, kw)
}

func (t token) isChar(c byte) bool { return t.kind == tChar && t.text[0] == c }

func (t token) isOp(op string) bool { return t.kind == tOp && t.str == op }

type lexer struct {
	in  string
	pos int
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isSpecial(c byte) bool { return strings.IndexByte(`?%$.[]{}()|&!=<>@#,*:-+/`, c) >= 0 }

// isOther reports whether c may be part of an unquoted word.
func isOther(c byte) bool { return !isSpecial(c) && !isBlank(c) && c != '\\' && c != '"' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// syntaxError is a parse error in PostgreSQL's words: "syntax error at or
// near "x" of jsonpath input", or "at end of jsonpath input".
func syntaxError(msg, near string) error {
	if near == "" {
		return pgerr.New(pgerrcode.SyntaxError, "%s at end of jsonpath input", msg)
	}
	return pgerr.New(pgerrcode.SyntaxError, "%s at or near \"%s\" of jsonpath input", msg, near)
}

// numberLen is the length of the longest numeric literal at s[i:] (0 for
// none), whether it is an integer, and whether it is an incomplete
// exponent ("1e+").
func numberLen(s string, i int) (n int, isInt, fail bool) {
	p := i
	intDigits := 0
	for p < len(s) && isDigit(s[p]) {
		p++
		intDigits++
	}
	isInt = intDigits > 0
	// an integer is 0 or does not start with 0
	if intDigits > 1 && s[i] == '0' {
		return i + 1 - i, true, false
	}
	if p < len(s) && s[p] == '.' {
		q := p + 1
		frac := 0
		for q < len(s) && isDigit(s[q]) {
			q++
			frac++
		}
		if intDigits > 0 || frac > 0 {
			p, isInt = q, false
		}
	}
	if p == i {
		return 0, false, false
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		q := p + 1
		if q < len(s) && (s[q] == '+' || s[q] == '-') {
			q++
			if q >= len(s) || !isDigit(s[q]) {
				return q - i, false, true
			}
		}
		if q < len(s) && isDigit(s[q]) {
			for q < len(s) && isDigit(s[q]) {
				q++
			}
			return q - i, false, false
		}
	}
	return p - i, isInt, false
}

// next scans the next token.
func (l *lexer) next() (token, error) {
	s := l.in
	for {
		for l.pos < len(s) && isBlank(s[l.pos]) {
			l.pos++
		}
		if strings.HasPrefix(s[l.pos:], "/*") {
			end := strings.Index(s[l.pos+2:], "*/")
			if end < 0 {
				return token{}, syntaxError("unexpected end of comment", "")
			}
			l.pos += 2 + end + 2
			continue
		}
		break
	}
	if l.pos >= len(s) {
		return token{kind: tEOF}, nil
	}
	start := l.pos
	c := s[start]
	for _, op := range []string{"&&", "||", "**", "<=", "==", "<>", "!=", ">="} {
		if strings.HasPrefix(s[start:], op) {
			l.pos += 2
			if op == "<>" {
				op = "!="
			}
			return token{kind: tOp, text: s[start:l.pos], str: op}, nil
		}
	}
	if c == '<' || c == '>' || c == '!' {
		l.pos++
		return token{kind: tOp, text: s[start:l.pos], str: s[start:l.pos]}, nil
	}
	if c == '$' {
		if start+1 < len(s) && s[start+1] == '"' {
			l.pos += 2
			v, err := l.quoted()
			return token{kind: tVariable, text: `"`, str: v}, err
		}
		p := start + 1
		for p < len(s) && isOther(s[p]) {
			p++
		}
		if p > start+1 {
			l.pos = p
			return token{kind: tVariable, text: s[start:p], str: s[start+1 : p]}, nil
		}
	}
	if n, isInt, fail := numberLen(s, start); n > 0 {
		word := 0
		for start+word < len(s) && isOther(s[start+word]) {
			word++
		}
		switch {
		case fail:
			l.pos = start + n
			return token{}, syntaxError("invalid numeric literal", s[start:l.pos])
		case start+n < len(s) && isOther(s[start+n]) && word <= n+1:
			l.pos = start + n + 1
			return token{}, syntaxError("trailing junk after numeric literal", s[start:l.pos])
		case word <= n:
			l.pos = start + n
			return token{kind: tNumber, text: s[start:l.pos], num: s[start:l.pos], isInt: isInt}, nil
		}
		// a longer word starting with digits is an identifier
	}
	if isSpecial(c) {
		l.pos++
		return token{kind: tChar, text: s[start:l.pos]}, nil
	}
	if c == '"' {
		l.pos++
		v, err := l.quoted()
		return token{kind: tString, text: `"`, str: v}, err
	}
	// an unquoted word, with escapes
	var b strings.Builder
	for l.pos < len(s) {
		c := s[l.pos]
		if c == '\\' {
			if err := l.escape(&b); err != nil {
				return token{}, err
			}
			continue
		}
		if !isOther(c) {
			break
		}
		b.WriteByte(c)
		l.pos++
	}
	// PostgreSQL's scanner ends a word on the blanks after it (which are
	// then its yytext) or by pushing back the character that follows.
	p := l.pos
	for p < len(s) && isBlank(s[p]) {
		p++
	}
	return token{kind: tIdent, text: s[l.pos:p], str: b.String()}, nil
}

// quoted scans the rest of a double-quoted string after its opening quote.
func (l *lexer) quoted() (string, error) {
	s := l.in
	var b strings.Builder
	for {
		if l.pos >= len(s) {
			return "", syntaxError("unexpected end of quoted string", "")
		}
		c := s[l.pos]
		switch c {
		case '"':
			l.pos++
			return b.String(), nil
		case '\\':
			if err := l.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
}

// escape decodes the escape sequence at l.pos (a backslash).
func (l *lexer) escape(b *strings.Builder) error {
	s := l.in
	if l.pos+1 >= len(s) {
		return syntaxError("unexpected end after backslash", "")
	}
	c := s[l.pos+1]
	l.pos += 2
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case 'x':
		if l.pos+2 <= len(s) && isHex(s[l.pos]) && isHex(s[l.pos+1]) {
			v, _ := strconv.ParseUint(s[l.pos:l.pos+2], 16, 8)
			l.pos += 2
			if v == 0 {
				return pgerr.New(pgerrcode.UntranslatableCharacter, "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
			}
			b.WriteRune(rune(v))
			return nil
		}
		return syntaxError("invalid hex character sequence", "")
	case 'u':
		r, err := l.unicode()
		if err != nil {
			return err
		}
		if r >= 0xD800 && r <= 0xDBFF {
			if !strings.HasPrefix(s[l.pos:], `\u`) {
				return syntaxError("invalid unicode sequence", "")
			}
			l.pos += 2
			lo, err := l.unicode()
			if err != nil {
				return err
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				return syntaxError("invalid unicode sequence", "")
			}
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		} else if r >= 0xDC00 && r <= 0xDFFF {
			return syntaxError("invalid unicode sequence", "")
		}
		if r == 0 {
			return pgerr.New(pgerrcode.UntranslatableCharacter, "unsupported Unicode escape sequence").WithDetail("\\u0000 cannot be converted to text.")
		}
		b.WriteRune(r)
	default:
		// any other escaped character stands for itself
		_, size := utf8.DecodeRuneInString(s[l.pos-1:])
		b.WriteString(s[l.pos-1 : l.pos-1+size])
		l.pos += size - 1
	}
	return nil
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// unicode reads the hex digits of a \u escape (after "\u"): four, or one
// to six in braces.
func (l *lexer) unicode() (rune, error) {
	s := l.in
	if l.pos < len(s) && s[l.pos] == '{' {
		p := l.pos + 1
		for p < len(s) && p-l.pos <= 6 && isHex(s[p]) {
			p++
		}
		if p == l.pos+1 || p >= len(s) || s[p] != '}' {
			return 0, syntaxError("invalid unicode sequence", "")
		}
		v, _ := strconv.ParseUint(s[l.pos+1:p], 16, 32)
		l.pos = p + 1
		return rune(v), nil
	}
	if l.pos+4 > len(s) {
		return 0, syntaxError("invalid unicode sequence", "")
	}
	for i := 0; i < 4; i++ {
		if !isHex(s[l.pos+i]) {
			return 0, syntaxError("invalid unicode sequence", "")
		}
	}
	v, _ := strconv.ParseUint(s[l.pos:l.pos+4], 16, 32)
	l.pos += 4
	return rune(v), nil
}
