package tsearch

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TokenType is a token kind of PostgreSQL's default parser; the values
// are its token ids (ts_token_type('default')).
type TokenType int

// The default parser's token types that cairn's parser emits. Blank,
// tag, protocol and entity tokens are no configuration's: Parse drops
// them, and only a headline (which prints the whole text) sees them.
const (
	TokASCIIWord      TokenType = 1
	TokWord           TokenType = 2
	TokNumWord        TokenType = 3
	TokEmail          TokenType = 4
	TokURL            TokenType = 5
	TokHost           TokenType = 6
	TokSFloat         TokenType = 7
	TokVersion        TokenType = 8
	TokHWordNumPart   TokenType = 9
	TokHWordPart      TokenType = 10
	TokHWordASCIIPart TokenType = 11
	TokBlank          TokenType = 12
	TokTag            TokenType = 13
	TokProtocol       TokenType = 14
	TokNumHWord       TokenType = 15
	TokASCIIHWord     TokenType = 16
	TokHWord          TokenType = 17
	TokURLPath        TokenType = 18
	TokFile           TokenType = 19
	TokFloat          TokenType = 20
	TokInt            TokenType = 21
	TokUInt           TokenType = 22
	TokEntity         TokenType = 23
)

// Token is one token of text.
type Token struct {
	Type TokenType
	Text string
	// At is the byte offset of Text in the parsed text.
	At int
}

// tok is the token of type typ at s[from:to].
func tok(typ TokenType, s string, from, to int) Token {
	return Token{Type: typ, Text: s[from:to], At: from}
}

// indexed reports whether a configuration maps the token type to a
// dictionary (both of cairn's map every type but these).
func (t TokenType) indexed() bool {
	return t != TokBlank && t != TokTag && t != TokProtocol && t != TokEntity
}

// isLetterAt reports whether s[i:] starts with a letter; n is its length.
func runeAt(s string, i int) (rune, int) {
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnumAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := runeAt(s, i)
	return isDigit(s[i]) || unicode.IsLetter(r)
}

// isASCIIAlnumAt reports whether s[i] is an ASCII letter or digit:
// hosts, e-mail addresses and file paths are made of these only.
func isASCIIAlnumAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// wordPart scans a run of letters and digits at s[i:]; it returns its
// end and whether it holds letters, digits and non-ASCII letters.
func wordPart(s string, i int) (end int, letters, digits, nonASCII bool) {
	for i < len(s) {
		r, n := runeAt(s, i)
		switch {
		case isDigit(s[i]):
			digits = true
		case unicode.IsLetter(r):
			letters = true
			if r >= utf8.RuneSelf {
				nonASCII = true
			}
		default:
			return i, letters, digits, nonASCII
		}
		i += n
	}
	return i, letters, digits, nonASCII
}

// Parse splits text into the tokens of PostgreSQL's default parser that
// a configuration can index, in order: words, numbers, hyphenated words
// with their parts, e-mail addresses, URLs with their host and path,
// hosts, file paths and version numbers. Spaces, punctuation, XML tags
// and entities, and URL protocols are dropped, as no configuration maps
// them to a dictionary.
//
// Parse looks at ctx every parsePoll bytes of text and returns its error
// once it is done (a cancel of to_tsvector over a long text).
func Parse(ctx context.Context, text string, emit func(Token)) error {
	return scan(ctx, text, func(t Token) {
		if t.Type.indexed() {
			emit(t)
		}
	})
}

// scan is Parse that also emits the tag, entity and protocol tokens; the
// text between two tokens it emits is blank (spaces and punctuation).
// Hyphenated words and URLs are emitted whole and then as their parts,
// as the default parser does.
func scan(ctx context.Context, text string, emit func(Token)) error {
	s := text
	i, poll := 0, parsePoll
	for i < len(s) {
		if i >= poll {
			if err := ctx.Err(); err != nil {
				return err
			}
			poll = i + parsePoll
		}
		c := s[i]
		switch {
		case c == '<':
			if end := tagEnd(s, i); end > 0 {
				emit(tok(TokTag, s, i, end))
				i = end
				continue
			}
		case c == '&':
			if end := entityEnd(s, i); end > 0 {
				emit(tok(TokEntity, s, i, end))
				i = end
				continue
			}
		case c == '/':
			if isASCIIAlnumAt(s, i+1) {
				end := pathEnd(s, i)
				emit(tok(TokFile, s, i, end))
				i = end
				continue
			}
		case c == '-' || c == '+':
			if i+1 < len(s) && isDigit(s[i+1]) {
				typ, end := number(s, i+1)
				if typ == TokUInt {
					typ = TokInt
				}
				emit(tok(typ, s, i, end))
				i = end
				continue
			}
		default:
			if isAlnumAt(s, i) {
				i = word(s, i, emit)
				continue
			}
		}
		_, n := runeAt(s, i)
		i += n
	}
	return nil
}

// parsePoll is how many bytes of text Parse reads between two looks at
// its context: the dictionaries take microseconds a word, so a few
// milliseconds' worth.
const parsePoll = 1 << 12

// word scans the token that starts with the letter or digit at s[i] and
// returns where it ends.
func word(s string, i int, emit func(Token)) int {
	if end := protocolEnd(s, i); end > 0 {
		emit(tok(TokProtocol, s, i, end))
		if hend, ok := hostEnd(s, end); ok {
			return urlOrHost(s, end, hend, emit)
		}
		return end
	}
	if end, ok := emailEnd(s, i); ok {
		emit(tok(TokEmail, s, i, end))
		return end
	}
	if hend, ok := hostEnd(s, i); ok {
		return urlOrHost(s, i, hend, emit)
	}
	end, letters, digits, nonASCII := wordPart(s, i)
	if isDigit(s[i]) {
		// A number ends where it ends, except that letters after an
		// integer make a numword ("12abc"; but "2e5x" is 2e5 and x).
		if typ, nend := number(s, i); nend >= end || typ == TokSFloat {
			emit(tok(typ, s, i, nend))
			return nend
		}
	}
	if fend := pathEnd(s, i); fend > end {
		emit(tok(TokFile, s, i, fend))
		return fend
	}
	if letters && end < len(s) && s[end] == '-' {
		if hend := hyphenated(s, i, end, emit); hend > 0 {
			return hend
		}
	}
	typ := TokASCIIWord
	switch {
	case digits && !letters:
		typ = TokUInt
	case digits:
		typ = TokNumWord
	case nonASCII:
		typ = TokWord
	}
	emit(tok(typ, s, i, end))
	return end
}

// hyphenated scans a word of parts joined by single hyphens, each part
// holding a letter, whose first part ends at first; it emits the whole
// word and then its parts and returns its end, or 0 when there is no
// second part.
func hyphenated(s string, start, first int, emit func(Token)) int {
	type part struct {
		from, to         int
		digits, nonASCII bool
	}
	_, _, d0, n0 := wordPart(s, start)
	parts := []part{{start, first, d0, n0}}
	end := first
	for end < len(s) && s[end] == '-' {
		pend, letters, digits, nonASCII := wordPart(s, end+1)
		if pend == end+1 || !letters {
			break
		}
		parts = append(parts, part{end + 1, pend, digits, nonASCII})
		end = pend
	}
	if len(parts) < 2 {
		return 0
	}
	whole := TokASCIIHWord
	for _, p := range parts {
		switch {
		case p.digits:
			whole = TokNumHWord
		case p.nonASCII && whole == TokASCIIHWord:
			whole = TokHWord
		}
	}
	emit(tok(whole, s, start, end))
	for _, p := range parts {
		typ := TokHWordASCIIPart
		switch {
		case p.digits:
			typ = TokHWordNumPart
		case p.nonASCII:
			typ = TokHWordPart
		}
		emit(tok(typ, s, p.from, p.to))
	}
	if end+1 < len(s) && s[end] == '-' && isDigit(s[end+1]) {
		return end + 1 // "a-b-7": the hyphen is a blank, 7 unsigned
	}
	return end
}

// number scans an unsigned number at s[i] (a digit): an integer, a
// decimal (1.5), scientific notation (1e10, 1.5e-3) or a version number
// of three or more parts (1.2.3).
func number(s string, i int) (TokenType, int) {
	end := digitsEnd(s, i)
	typ := TokUInt
	if end+1 < len(s) && s[end] == '.' && isDigit(s[end+1]) {
		end = digitsEnd(s, end+1)
		typ = TokFloat
		if end+1 < len(s) && s[end] == '.' && isDigit(s[end+1]) {
			for end+1 < len(s) && s[end] == '.' && isDigit(s[end+1]) {
				end = digitsEnd(s, end+1)
			}
			return TokVersion, end
		}
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		j := end + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			return TokSFloat, digitsEnd(s, j)
		}
	}
	return typ, end
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// protocolEnd is the end of a URL protocol ("http://") at s[i], or 0.
func protocolEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		j++
	}
	if j > i && len(s)-j >= 3 && s[j:j+3] == "://" {
		return j + 3
	}
	return 0
}

// hostEnd scans a host name at s[i]: labels of ASCII letters and
// digits, with inner hyphens and underscores, joined by dots, ending
// with two or more letters after a dot: a whole last label of letters,
// or the letters a last label starts with before a hyphen or an
// underscore ("foo.ba-r" is the host foo.ba). It takes the longest
// such run; ok is false when there is none.
func hostEnd(s string, i int) (int, bool) {
	end, best := i, 0
	labels := 0
	for {
		start := end
		j := end
		alpha, lead, n := true, 0, 0
	label:
		for j < len(s) {
			c := s[j]
			switch {
			case isDigit(c):
				if alpha {
					lead = 0 // a digit first: no run of letters leads
				}
				alpha = false
			case isASCIIAlnumAt(s, j):
			case (c == '-' || c == '_') && n > 0 && isASCIIAlnumAt(s, j+1):
				if alpha {
					lead = n
				}
				alpha = false
			default:
				break label
			}
			j++
			n++
		}
		if n == 0 {
			break
		}
		labels++
		end = j
		if labels >= 2 {
			if alpha && n >= 2 {
				best = end
			} else if lead >= 2 {
				best = start + lead
			}
		}
		if end+1 < len(s) && s[end] == '.' && isASCIIAlnumAt(s, end+1) {
			end++
			continue
		}
		break
	}
	return best, best > 0
}

// urlOrHost emits the host at s[i:hend], or, when a port or a path
// follows it, the URL, then the host and the path; it returns the end.
func urlOrHost(s string, i, hend int, emit func(Token)) int {
	host := hend
	if host+1 < len(s) && s[host] == ':' && isDigit(s[host+1]) {
		host = digitsEnd(s, host+1)
	}
	if host+1 < len(s) && s[host] == '/' && isURLChar(s[host+1]) {
		end := host + 1
		for end < len(s) && isURLChar(s[end]) {
			end++
		}
		emit(tok(TokURL, s, i, end))
		emit(tok(TokHost, s, i, host))
		emit(tok(TokURLPath, s, host, end))
		return end
	}
	emit(tok(TokHost, s, i, hend))
	return hend
}

// isURLChar reports whether c may be in a URL path: printable ASCII but
// the characters RFC 3986 disallows (PostgreSQL's p_isurlchar).
func isURLChar(c byte) bool {
	if c <= 0x20 || c >= 0x7f {
		return false
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return false
	}
	return true
}

// emailEnd scans an e-mail address at s[i]: a local part of ASCII letters,
// digits, dots, hyphens and underscores, '@' and a host.
func emailEnd(s string, i int) (int, bool) {
	j := i
	for j < len(s) && (isASCIIAlnumAt(s, j) || s[j] == '.' || s[j] == '-' || s[j] == '_') {
		j++
	}
	if j < len(s) && s[j] == '@' && isASCIIAlnumAt(s, j+1) {
		if end, ok := hostEnd(s, j+1); ok {
			return end, true
		}
	}
	return 0, false
}

// pathEnd scans a file path at s[i]: ASCII letters and digits joined by
// slashes and dots, with '_' allowed anywhere but after the last dot and
// '-' only after a slash; a final dot or slash is not part of it. It
// returns i when there is no '/' or '.' in it.
func pathEnd(s string, i int) int {
	end, sep, afterDot := i, false, false
	j := i
	for j < len(s) {
		c := s[j]
		switch {
		case c == '/' || c == '.':
			if !isASCIIAlnumAt(s, j+1) {
				return end
			}
			sep, afterDot = true, c == '.'
			j++
		case c == '_' && !afterDot, c == '-' && sep && !afterDot:
			j++
		case isASCIIAlnumAt(s, j):
			j++
			if sep || s[i] == '/' {
				end = j
			}
		default:
			return end
		}
	}
	return end
}

// tagEnd is the end of an XML tag at s[i] ('<'), or 0. A comment
// (<!-- ... -->) is a tag too.
func tagEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], "<!--") {
		if k := strings.Index(s[i+4:], "-->"); k >= 0 {
			return i + 4 + k + 3
		}
		return 0
	}
	j := i + 1
	if j < len(s) && (s[j] == '/' || s[j] == '!' || s[j] == '?') {
		j++
	}
	if j >= len(s) || !(s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
		return 0
	}
	for ; j < len(s); j++ {
		switch s[j] {
		case '>':
			return j + 1
		case '<':
			return 0
		}
	}
	return 0
}

// entityEnd is the end of an XML entity at s[i] ('&': &amp; &#38;), or 0.
func entityEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
	}
	k := j
	for k < len(s) && (isDigit(s[k]) || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
		k++
	}
	if k > j && k < len(s) && s[k] == ';' {
		return k + 1
	}
	return 0
}
