package types

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types/jsonstr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// This file is a port of PostgreSQL 15's JSON parser (common/jsonapi.c)
// with its error details, plus jsonb's normal form and ordering.

type jsonTok int

const (
	jtInvalid jsonTok = iota
	jtString
	jtNumber
	jtObjectStart
	jtObjectEnd
	jtArrayStart
	jtArrayEnd
	jtComma
	jtColon
	jtTrue
	jtFalse
	jtNull
	jtEnd
)

// jsonKind is a parsed JSON value's kind, ordered as jsonb's jbvType for
// comparisons: null < string < numeric < bool < array < object.
type jsonKind uint8

const (
	jkNull jsonKind = iota
	jkString
	jkNumber
	jkBool
	jkArray
	jkObject
)

// jsonValue is a parsed JSON value.
type jsonValue struct {
	kind jsonKind
	b    bool
	str  string       // string value (de-escaped) or number token
	num  *apd.Decimal // number (jsonb only)
	elts []*jsonValue // array elements or object values
	keys []string     // object keys
	raw  bool         // a top-level scalar
}

type jsonLexer struct {
	in          string
	pos         int // start of the next token
	tokStart    int
	tokEnd      int
	tok         jsonTok
	needEscapes bool
	strval      []byte
	err         *pgerr.Error
}

func jsonErr(detail string, args ...any) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail(detail, args...)
}

func jsonAlnum(c byte) bool {
	return isAlnum(c) || c == '_' || c >= 0x80
}

func (l *jsonLexer) token() string { return l.in[l.tokStart:l.tokEnd] }

func (l *jsonLexer) invalidToken() *pgerr.Error {
	return jsonErr("Token \"%s\" is invalid.", l.token())
}

// lex reads the next token into l.tok; it returns false (with l.err set) on
// a lexical error.
func (l *jsonLexer) lex() bool {
	s := l.in
	p := l.pos
	for p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r') {
		p++
	}
	l.tokStart = p
	if p >= len(s) {
		l.tok = jtEnd
		l.tokEnd = p
		l.pos = p
		return true
	}
	switch c := s[p]; c {
	case '{':
		l.tok, l.tokEnd = jtObjectStart, p+1
	case '}':
		l.tok, l.tokEnd = jtObjectEnd, p+1
	case '[':
		l.tok, l.tokEnd = jtArrayStart, p+1
	case ']':
		l.tok, l.tokEnd = jtArrayEnd, p+1
	case ',':
		l.tok, l.tokEnd = jtComma, p+1
	case ':':
		l.tok, l.tokEnd = jtColon, p+1
	case '"':
		if !l.lexString(p) {
			return false
		}
		l.tok = jtString
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		start := p
		if c == '-' {
			p++
		}
		bad := false
		if p < len(s) && s[p] == '0' {
			p++
		} else if p < len(s) && s[p] >= '1' && s[p] <= '9' {
			for p < len(s) && isDigit(s[p]) {
				p++
			}
		} else {
			bad = true
		}
		if p < len(s) && s[p] == '.' {
			p++
			if p >= len(s) || !isDigit(s[p]) {
				bad = true
			} else {
				for p < len(s) && isDigit(s[p]) {
					p++
				}
			}
		}
		if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
			p++
			if p < len(s) && (s[p] == '+' || s[p] == '-') {
				p++
			}
			if p >= len(s) || !isDigit(s[p]) {
				bad = true
			} else {
				for p < len(s) && isDigit(s[p]) {
					p++
				}
			}
		}
		for p < len(s) && jsonAlnum(s[p]) {
			p++
			bad = true
		}
		l.tokStart, l.tokEnd = start, p
		if bad {
			l.err = l.invalidToken()
			return false
		}
		l.tok = jtNumber
	default:
		q := p
		for q < len(s) && jsonAlnum(s[q]) {
			q++
		}
		if q == p {
			l.tokEnd = p + 1
			l.err = l.invalidToken()
			return false
		}
		l.tokEnd = q
		switch s[p:q] {
		case "true":
			l.tok = jtTrue
		case "false":
			l.tok = jtFalse
		case "null":
			l.tok = jtNull
		default:
			l.err = l.invalidToken()
			return false
		}
	}
	l.pos = l.tokEnd
	return true
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// mbLen is pg_encoding_mblen_bounded for UTF-8.
func mbLen(s string, p int) int {
	if p >= len(s) {
		return 0
	}
	c := s[p]
	n := 1
	switch {
	case c&0xe0 == 0xc0:
		n = 2
	case c&0xf0 == 0xe0:
		n = 3
	case c&0xf8 == 0xf0:
		n = 4
	}
	if p+n > len(s) {
		n = len(s) - p
	}
	return n
}

func (l *jsonLexer) lexString(start int) bool {
	s := l.in
	p := start
	hi := -1
	l.strval = l.strval[:0]
	for {
		p++
		if p >= len(s) {
			l.tokEnd = p
			l.err = l.invalidToken()
			return false
		}
		c := s[p]
		switch {
		case c == '"':
			if hi != -1 {
				l.tokEnd = p
				l.err = jsonErr("Unicode low surrogate must follow a high surrogate.")
				return false
			}
			l.tokEnd = p + 1
			return true
		case c < 32:
			l.tokEnd = p
			l.err = jsonErr("Character with value 0x%02x must be escaped.", c)
			return false
		case c == '\\':
			p++
			if p >= len(s) {
				l.tokEnd = p
				l.err = l.invalidToken()
				return false
			}
			if s[p] == 'u' {
				ch := 0
				for i := 1; i <= 4; i++ {
					p++
					if p >= len(s) {
						l.tokEnd = p
						l.err = l.invalidToken()
						return false
					}
					h := hexVal(s[p])
					if h < 0 {
						l.tokEnd = p + mbLen(s, p)
						l.err = jsonErr("\"\\u\" must be followed by four hexadecimal digits.")
						return false
					}
					ch = ch*16 + h
				}
				if !l.needEscapes {
					continue
				}
				if ch >= 0xD800 && ch <= 0xDBFF {
					if hi != -1 {
						l.err = jsonErr("Unicode high surrogate must not follow a high surrogate.")
						return false
					}
					hi = ch
					continue
				} else if ch >= 0xDC00 && ch <= 0xDFFF {
					if hi == -1 {
						l.err = jsonErr("Unicode low surrogate must follow a high surrogate.")
						return false
					}
					ch = 0x10000 + ((hi & 0x3FF) << 10) + (ch & 0x3FF)
					hi = -1
				}
				if hi != -1 {
					l.err = jsonErr("Unicode low surrogate must follow a high surrogate.")
					return false
				}
				if ch == 0 {
					l.err = pgerr.New(pgerrcode.UntranslatableCharacter, "unsupported Unicode escape sequence").
						WithDetail("\\u0000 cannot be converted to text.")
					return false
				}
				l.strval = utf8.AppendRune(l.strval, rune(ch))
				continue
			}
			if l.needEscapes && hi != -1 {
				l.err = jsonErr("Unicode low surrogate must follow a high surrogate.")
				return false
			}
			var r byte
			switch s[p] {
			case '"', '\\', '/':
				r = s[p]
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				l.tokStart = p
				l.tokEnd = p + mbLen(s, p)
				l.err = jsonErr("Escape sequence \"\\%s\" is invalid.", l.token())
				return false
			}
			if l.needEscapes {
				l.strval = append(l.strval, r)
			}
		default:
			if l.needEscapes {
				if hi != -1 {
					l.err = jsonErr("Unicode low surrogate must follow a high surrogate.")
					return false
				}
				l.strval = append(l.strval, c)
			}
		}
	}
}

type jsonParser struct {
	l     jsonLexer
	build bool
	depth int
}

const jsonMaxDepth = 10000

// expected reports a parse error in the given context (report_parse_error).
func (p *jsonParser) expected(what string) *pgerr.Error {
	if p.l.tok == jtEnd {
		return jsonErr("The input string ended unexpectedly.")
	}
	return jsonErr("Expected %s, but found \"%s\".", what, p.l.token())
}

func (p *jsonParser) next() *pgerr.Error {
	if !p.l.lex() {
		return p.l.err
	}
	return nil
}

func (p *jsonParser) value(ctx string) (*jsonValue, *pgerr.Error) {
	switch p.l.tok {
	case jtObjectStart:
		return p.object()
	case jtArrayStart:
		return p.array()
	}
	var v *jsonValue
	if p.build {
		v = &jsonValue{}
	}
	switch p.l.tok {
	case jtString:
		if p.build {
			v.kind = jkString
			v.str = string(p.l.strval)
		}
	case jtNumber:
		if p.build {
			v.kind = jkNumber
			v.str = p.l.token()
			n, err := parseNumeric(v.str)
			if err != nil {
				return nil, pgerr.From(err)
			}
			v.num = n
		}
	case jtTrue, jtFalse:
		if p.build {
			v.kind = jkBool
			v.b = p.l.tok == jtTrue
		}
	case jtNull:
		if p.build {
			v.kind = jkNull
		}
	default:
		return nil, p.expected(ctx)
	}
	return v, p.next()
}

func (p *jsonParser) enter() *pgerr.Error {
	p.depth++
	if p.depth > jsonMaxDepth {
		return pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
	}
	return nil
}

func (p *jsonParser) object() (*jsonValue, *pgerr.Error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	var v *jsonValue
	if p.build {
		v = &jsonValue{kind: jkObject}
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	switch p.l.tok {
	case jtString:
		for {
			if p.l.tok != jtString {
				return nil, p.expected("string")
			}
			key := ""
			if p.build {
				key = string(p.l.strval)
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			if p.l.tok != jtColon {
				return nil, p.expected("\":\"")
			}
			if err := p.next(); err != nil {
				return nil, err
			}
			e, err := p.value("JSON value")
			if err != nil {
				return nil, err
			}
			if p.build {
				v.keys = append(v.keys, key)
				v.elts = append(v.elts, e)
			}
			if p.l.tok != jtComma {
				break
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
	case jtObjectEnd:
	default:
		return nil, p.expected("string or \"}\"")
	}
	if p.l.tok != jtObjectEnd {
		return nil, p.expected("\",\" or \"}\"")
	}
	return v, p.next()
}

func (p *jsonParser) array() (*jsonValue, *pgerr.Error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	var v *jsonValue
	if p.build {
		v = &jsonValue{kind: jkArray}
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.l.tok != jtArrayEnd {
		for {
			e, err := p.value("JSON value")
			if err != nil {
				return nil, err
			}
			if p.build {
				v.elts = append(v.elts, e)
			}
			if p.l.tok != jtComma {
				break
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
	}
	if p.l.tok != jtArrayEnd {
		return nil, p.expected("\",\" or \"]\"")
	}
	return v, p.next()
}

// parseJSON parses s; with build it returns the tree (and checks what
// jsonb checks: surrogates, \u0000, numeric range).
func parseJSON(s string, build bool) (*jsonValue, error) {
	p := &jsonParser{l: jsonLexer{in: s, needEscapes: build}, build: build}
	if err := p.next(); err != nil {
		return nil, err
	}
	v, err := p.value("JSON value")
	if err != nil {
		return nil, err
	}
	if p.l.tok != jtEnd {
		return nil, p.expected("end of input")
	}
	if build && v.kind != jkArray && v.kind != jkObject {
		v.raw = true
	}
	return v, nil
}

// ValidateJSON checks that s is valid input for type json and returns
// PostgreSQL's 22P02 error (with its detail) if it is not.
func ValidateJSON(s string) error {
	_, err := parseJSON(s, false)
	return err
}

// NormalizeJSONB returns jsonb's text form of the JSON document s: object
// keys sorted by length then bytes with the last of duplicate keys kept,
// ": " and ", " separators, numbers in numeric's form. Invalid input gives
// PostgreSQL's 22P02 "invalid input syntax for type json" error.
func NormalizeJSONB(s string) (string, error) {
	z := jsonbNormalizers.Get().(*JSONBNormalizer)
	defer jsonbNormalizers.Put(z)
	out, ok := appendNormalJSONB(z, z.buf[:0], s)
	if cap(out) <= jsonbScratchMax {
		z.buf = out
	}
	switch {
	case !ok:
		return reformatJSONB(s)
	case string(out) == s:
		return s, nil
	}
	return string(out), nil
}

// reformatJSONB is NormalizeJSONB's general path: parse s into a tree,
// sort and deduplicate its keys, print it.
func reformatJSONB(s string) (string, error) {
	v, err := parseJSON(s, true)
	if err != nil {
		return "", err
	}
	uniqueify(v)
	return string(appendJSONB(make([]byte, 0, len(s)+8), v)), nil
}

// uniqueify sorts object keys as jsonb stores them and drops duplicates
// (the last one wins), recursively.
func uniqueify(v *jsonValue) {
	switch v.kind {
	case jkArray:
		for _, e := range v.elts {
			uniqueify(e)
		}
	case jkObject:
		idx := make([]int, len(v.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ka, kb := v.keys[idx[a]], v.keys[idx[b]]
			if len(ka) != len(kb) {
				return len(ka) < len(kb)
			}
			return ka < kb
		})
		keys := make([]string, 0, len(idx))
		elts := make([]*jsonValue, 0, len(idx))
		for n, i := range idx {
			if n+1 < len(idx) && v.keys[idx[n+1]] == v.keys[i] {
				continue // a later duplicate wins
			}
			keys = append(keys, v.keys[i])
			uniqueify(v.elts[i])
			elts = append(elts, v.elts[i])
		}
		v.keys, v.elts = keys, elts
	}
}

func appendJSONB(dst []byte, v *jsonValue) []byte {
	switch v.kind {
	case jkNull:
		return append(dst, "null"...)
	case jkBool:
		if v.b {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case jkString:
		return jsonstr.Append(dst, v.str)
	case jkNumber:
		return appendNumeric(dst, v.num)
	case jkArray:
		dst = append(dst, '[')
		for i, e := range v.elts {
			if i > 0 {
				dst = append(dst, ',', ' ')
			}
			dst = appendJSONB(dst, e)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		for i, e := range v.elts {
			if i > 0 {
				dst = append(dst, ',', ' ')
			}
			dst = jsonstr.Append(dst, v.keys[i])
			dst = append(dst, ':', ' ')
			dst = appendJSONB(dst, e)
		}
		return append(dst, '}')
	}
}

// parseJSONBTree parses a (normally already normalized) jsonb text into a
// tree with sorted unique keys.
func parseJSONBTree(s string) (*jsonValue, error) {
	v, err := parseJSON(s, true)
	if err != nil {
		return nil, err
	}
	uniqueify(v)
	return v, nil
}

// compareJSONB orders jsonb values as PostgreSQL's compareJsonbContainers.
func compareJSONB(a, b string) int {
	if a == b {
		return 0
	}
	va, ea := parseJSONBTree(a)
	vb, eb := parseJSONBTree(b)
	if ea != nil || eb != nil {
		return strings.Compare(a, b)
	}
	return compareJSONValue(va, vb)
}

// containerShape is how a value starts in jsonb's iteration: a raw scalar
// is a one-element pseudo array.
func compareJSONValue(a, b *jsonValue) int {
	aCont := a.kind == jkArray || a.kind == jkObject || a.raw
	bCont := b.kind == jkArray || b.kind == jkObject || b.raw
	if aCont && bCont {
		ka, kb := containerKind(a), containerKind(b)
		if ka != kb {
			return cmpInt(int(ka), int(kb))
		}
		if ka == jkArray {
			na, nb := containerLen(a), containerLen(b)
			res := 0
			if a.raw != b.raw {
				if a.raw {
					res = -1
				} else {
					res = 1
				}
			}
			if na != nb {
				res = cmpInt(na, nb)
			}
			if res != 0 {
				return res
			}
			if a.raw && b.raw {
				return compareJSONScalar(a, b)
			}
			for i := range a.elts {
				ea, eb := elemOf(a, i), elemOf(b, i)
				if c := compareJSONElem(ea, eb); c != 0 {
					return c
				}
			}
			return 0
		}
		if len(a.keys) != len(b.keys) {
			return cmpInt(len(a.keys), len(b.keys))
		}
		for i := range a.keys {
			if c := strings.Compare(a.keys[i], b.keys[i]); c != 0 {
				return c
			}
			if c := compareJSONElem(a.elts[i], b.elts[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	return compareJSONElem(a, b)
}

func containerKind(v *jsonValue) jsonKind {
	if v.raw {
		return jkArray
	}
	return v.kind
}

func containerLen(v *jsonValue) int {
	if v.raw {
		return 1
	}
	return len(v.elts)
}

func elemOf(v *jsonValue, i int) *jsonValue {
	if v.raw {
		return &jsonValue{kind: v.kind, b: v.b, str: v.str, num: v.num}
	}
	return v.elts[i]
}

// compareJSONElem compares two array elements or object values.
func compareJSONElem(a, b *jsonValue) int {
	if a.kind != b.kind {
		return cmpInt(int(a.kind), int(b.kind))
	}
	if a.kind == jkArray || a.kind == jkObject {
		return compareJSONValue(a, b)
	}
	return compareJSONScalar(a, b)
}

func compareJSONScalar(a, b *jsonValue) int {
	if a.kind != b.kind {
		return cmpInt(int(a.kind), int(b.kind))
	}
	switch a.kind {
	case jkString:
		return strings.Compare(a.str, b.str)
	case jkNumber:
		return CompareNumeric(a.num, b.num)
	case jkBool:
		return cmpBool(a.b, b.b)
	}
	return 0
}

// appendJSONBKey appends a canonical encoding of a jsonb value: equal
// values (numbers compared numerically) give equal bytes.
func appendJSONBKey(dst []byte, s string) []byte {
	v, err := parseJSONBTree(s)
	if err != nil {
		dst = append(dst, 0xff)
		dst = appendUvarint(dst, uint64(len(s)))
		return append(dst, s...)
	}
	return appendJSONValueKey(dst, v)
}

func appendJSONValueKey(dst []byte, v *jsonValue) []byte {
	dst = append(dst, byte(v.kind))
	switch v.kind {
	case jkBool:
		if v.b {
			return append(dst, 1)
		}
		return append(dst, 0)
	case jkString:
		dst = appendUvarint(dst, uint64(len(v.str)))
		return append(dst, v.str...)
	case jkNumber:
		return appendNumericKey(dst, v.num)
	case jkArray:
		dst = appendUvarint(dst, uint64(len(v.elts)))
		for _, e := range v.elts {
			dst = appendJSONValueKey(dst, e)
		}
	case jkObject:
		dst = appendUvarint(dst, uint64(len(v.elts)))
		for i, e := range v.elts {
			dst = appendUvarint(dst, uint64(len(v.keys[i])))
			dst = append(dst, v.keys[i]...)
			dst = appendJSONValueKey(dst, e)
		}
	}
	return dst
}
