package tsearch

import (
	"unicode"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// valueParser reads the words of tsvector text, and the operands of
// tsquery text (query set), the way PostgreSQL's gettoken_tsvector does.
type valueParser struct {
	s     string
	i     int
	query bool // reading tsquery operands: ! & | ( ) end a word, no positions
}

func (p *valueParser) syntaxError() error {
	kind := "tsvector"
	if p.query {
		kind = "tsquery"
	}
	return pgerr.New(pgerrcode.SyntaxError, "syntax error in %s: \"%s\"", kind, p.s)
}

// isOperator reports whether c ends a bare tsquery operand.
func isOperator(c byte) bool {
	return c == '!' || c == '&' || c == '|' || c == '(' || c == ')'
}

// isSpace is PostgreSQL's t_isspace for the character at s[i].
func isSpaceAt(s string, i int) bool {
	if s[i] < utf8.RuneSelf {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

func (p *valueParser) charLen() int {
	if p.s[p.i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(p.s[p.i:])
	return n
}

// next reads one word and, for a tsvector, its positions. ok is false at
// the end of the text.
func (p *valueParser) next() (word string, pos []Pos, ok bool, err error) {
	const (
		waitWord = iota
		waitEndWord
		waitNextChar
		waitEndCmplx
		waitCharCmplx
		waitPosInfo
		inPosInfo
		waitPosDelim
	)
	var buf []byte
	state, old := waitWord, 0
	for {
		atEnd := p.i >= len(p.s)
		var c byte
		if !atEnd {
			c = p.s[p.i]
		}
		switch state {
		case waitWord:
			switch {
			case atEnd:
				return "", nil, false, nil
			case c == '\'':
				state = waitEndCmplx
			case c == '\\':
				state, old = waitNextChar, waitEndWord
			case p.query && isOperator(c):
				return "", nil, false, p.syntaxError()
			case !isSpaceAt(p.s, p.i):
				buf = append(buf, p.s[p.i:p.i+p.charLen()]...)
				state = waitEndWord
			}
		case waitNextChar:
			if atEnd {
				return "", nil, false, pgerr.New(pgerrcode.SyntaxError, "there is no escaped character: \"%s\"", p.s)
			}
			buf = append(buf, p.s[p.i:p.i+p.charLen()]...)
			state = old
		case waitEndWord:
			switch {
			case atEnd || isSpaceAt(p.s, p.i) || p.query && isOperator(c):
				if len(buf) == 0 {
					return "", nil, false, p.syntaxError()
				}
				return string(buf), pos, true, nil
			case c == '\\':
				state, old = waitNextChar, waitEndWord
			case c == ':':
				if len(buf) == 0 {
					return "", nil, false, p.syntaxError()
				}
				if p.query {
					return string(buf), nil, true, nil
				}
				state = inPosInfo
			default:
				buf = append(buf, p.s[p.i:p.i+p.charLen()]...)
			}
		case waitEndCmplx:
			switch {
			case atEnd:
				return "", nil, false, p.syntaxError()
			case c == '\'':
				state = waitCharCmplx
			case c == '\\':
				state, old = waitNextChar, waitEndCmplx
			default:
				buf = append(buf, p.s[p.i:p.i+p.charLen()]...)
			}
		case waitCharCmplx:
			if !atEnd && c == '\'' {
				buf = append(buf, '\'')
				state = waitEndCmplx
				break
			}
			if len(buf) == 0 {
				return "", nil, false, p.syntaxError()
			}
			if p.query {
				return string(buf), nil, true, nil
			}
			state = waitPosInfo
			continue // look at this character again
		case waitPosInfo:
			if !atEnd && c == ':' {
				state = inPosInfo
			} else {
				return string(buf), pos, true, nil
			}
		case inPosInfo:
			if atEnd || c < '0' || c > '9' {
				return "", nil, false, p.syntaxError()
			}
			n := atoi(p.s[p.i:])
			if n == 0 {
				return "", nil, false, pgerr.New(pgerrcode.SyntaxError, "wrong position info in tsvector: \"%s\"", p.s)
			}
			pos = append(pos, MakePos(n, 0))
			state = waitPosDelim
		case waitPosDelim:
			last := &pos[len(pos)-1]
			switch {
			case atEnd || isSpaceAt(p.s, p.i):
				return string(buf), pos, true, nil
			case c == ',':
				state = inPosInfo
			case c == 'a' || c == 'A' || c == '*' || c == 'b' || c == 'B' || c == 'c' || c == 'C' || c == 'd' || c == 'D':
				if last.Weight() != 0 {
					return "", nil, false, p.syntaxError()
				}
				var w uint8
				switch c {
				case 'a', 'A', '*':
					w = 3
				case 'b', 'B':
					w = 2
				case 'c', 'C':
					w = 1
				}
				*last = MakePos(last.Pos(), w)
			case c < '0' || c > '9':
				return "", nil, false, p.syntaxError()
			}
		}
		if atEnd {
			return "", nil, false, p.syntaxError()
		}
		p.i += p.charLen()
	}
}

// atoi reads the leading digits of s as C's atoi does, saturating
// instead of overflowing (the value is clamped to MaxPos anyway).
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > 1<<30 {
			n = 1 << 30
		}
	}
	return n
}

// charLenAt is the byte length of the character at s[i].
func (p *valueParser) charLenAt(i int) int {
	if p.s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(p.s[i:])
	return n
}
