package functions

// A small JSON model shared by the json/jsonb operators, functions and
// aggregates. json keeps its text as written (a value's raw span is what
// json operators return); jsonb is printed canonically as PostgreSQL does:
// object keys unique (last wins) and sorted by length then bytes,
// ", " and ": " separators, numbers in numeric's text form.

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/jsonstr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jnode is one parsed JSON value.
type jnode struct {
	kind jsonKind
	raw  string // the value's text as written (json)
	str  string // string value, or number text
	b    bool
	keys []string // object keys in order written
	vals []*jnode // array elements or object values
}

// get returns an object's value for key (the last one written, as jsonb
// keeps it), or nil.
func (j *jnode) get(key string) *jnode {
	var v *jnode
	for i, k := range j.keys {
		if k == key {
			v = j.vals[i]
		}
	}
	return v
}

type jsonParser struct {
	s   string
	pos int
}

// parseJSON parses JSON text; invalid input is 22P02 as PostgreSQL words it
// (without the token detail).
func parseJSON(s string) (*jnode, error) {
	p := &jsonParser{s: s}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos != len(p.s) {
		return nil, p.err()
	}
	return v, nil
}

func (p *jsonParser) err() error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type json")
}

func (p *jsonParser) skipWS() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*jnode, error) {
	if depth > 6400 {
		return nil, pgerr.New(pgerrcode.StatementTooComplex, "stack depth limit exceeded")
	}
	if p.pos >= len(p.s) {
		return nil, p.err()
	}
	start := p.pos
	switch c := p.s[p.pos]; {
	case c == '{':
		p.pos++
		n := &jnode{kind: jsonObject}
		p.skipWS()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			n.raw = p.s[start:p.pos]
			return n, nil
		}
		for {
			p.skipWS()
			if p.pos >= len(p.s) || p.s[p.pos] != '"' {
				return nil, p.err()
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skipWS()
			if p.pos >= len(p.s) || p.s[p.pos] != ':' {
				return nil, p.err()
			}
			p.pos++
			p.skipWS()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, v)
			p.skipWS()
			if p.pos >= len(p.s) {
				return nil, p.err()
			}
			if p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.s[p.pos] == '}' {
				p.pos++
				n.raw = p.s[start:p.pos]
				return n, nil
			}
			return nil, p.err()
		}
	case c == '[':
		p.pos++
		n := &jnode{kind: jsonArray}
		p.skipWS()
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			n.raw = p.s[start:p.pos]
			return n, nil
		}
		for {
			p.skipWS()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			p.skipWS()
			if p.pos >= len(p.s) {
				return nil, p.err()
			}
			if p.s[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.s[p.pos] == ']' {
				p.pos++
				n.raw = p.s[start:p.pos]
				return n, nil
			}
			return nil, p.err()
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jsonString, str: s, raw: p.s[start:p.pos]}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.pos:], "true"):
		p.pos += 4
		return &jnode{kind: jsonBool, b: true, raw: "true"}, p.wordEnd()
	case strings.HasPrefix(p.s[p.pos:], "false"):
		p.pos += 5
		return &jnode{kind: jsonBool, raw: "false"}, p.wordEnd()
	case strings.HasPrefix(p.s[p.pos:], "null"):
		p.pos += 4
		return &jnode{kind: jsonNull, raw: "null"}, p.wordEnd()
	}
	return nil, p.err()
}

func (p *jsonParser) wordEnd() error {
	if p.pos < len(p.s) {
		c := p.s[p.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			return p.err()
		}
	}
	return nil
}

func (p *jsonParser) number() (*jnode, error) {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.s) && p.s[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.err()
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.err()
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.err()
		}
	}
	if err := p.wordEnd(); err != nil {
		return nil, err
	}
	t := p.s[start:p.pos]
	return &jnode{kind: jsonNumber, str: t, raw: t}, nil
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	start := p.pos
	for {
		if p.pos >= len(p.s) {
			return "", p.err()
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			b.WriteString(p.s[start:p.pos])
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.err()
		case c == '\\':
			b.WriteString(p.s[start:p.pos])
			p.pos++
			if p.pos >= len(p.s) {
				return "", p.err()
			}
			e := p.s[p.pos]
			p.pos++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
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
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.err()
				}
				if utf16.IsSurrogate(r) {
					if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
						p.pos += 2
						r2, ok := p.hex4()
						if !ok {
							return "", p.err()
						}
						r = utf16.DecodeRune(r, r2)
					}
					if r == utf8.RuneError {
						return "", pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type json").
							WithDetail("Unicode low surrogate must follow a high surrogate.")
					}
				}
				if r == 0 {
					return "", pgerr.New(pgerrcode.UntranslatableCharacter, "unsupported Unicode escape sequence").
						WithDetail("\\u0000 cannot be converted to text.")
				}
				b.WriteRune(r)
			default:
				return "", p.err()
			}
			start = p.pos
		default:
			p.pos++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

// jsonbKindName is the jsonb type name PostgreSQL's messages use.
func jsonbKindName(j *jnode) string {
	switch j.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean"
	case jsonNumber:
		return "numeric"
	case jsonString:
		return "string"
	case jsonArray:
		return "array"
	}
	return "object"
}

// jsonTypeof is json(b)_typeof's answer.
func jsonTypeof(j *jnode) string {
	switch j.kind {
	case jsonNull:
		return "null"
	case jsonBool:
		return "boolean"
	case jsonNumber:
		return "number"
	case jsonString:
		return "string"
	case jsonArray:
		return "array"
	}
	return "object"
}

// quoteJSON writes s as a JSON string literal as PostgreSQL's
// escape_json does.
func quoteJSON(b *strings.Builder, s string) {
	b.Write(jsonstr.Append(nil, s))
}

func jsonQuote(s string) string {
	var b strings.Builder
	quoteJSON(&b, s)
	return b.String()
}

// canonNumber is a JSON number as jsonb prints it (numeric's output).
func canonNumber(s string) string {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return s
	}
	return types.FormatText(normDec(d), types.NumericT)
}

// jsonbKeyLess orders jsonb object keys: shorter first, then bytewise.
func jsonbKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// canonObject returns an object's keys and values deduplicated (last
// wins) and sorted as jsonb stores them.
func canonObject(j *jnode) ([]string, []*jnode) {
	idx := make(map[string]int, len(j.keys))
	var keys []string
	var vals []*jnode
	for i, k := range j.keys {
		if at, ok := idx[k]; ok {
			vals[at] = j.vals[i]
			continue
		}
		idx[k] = len(keys)
		keys = append(keys, k)
		vals = append(vals, j.vals[i])
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jsonbKeyLess(keys[order[a]], keys[order[b]]) })
	sk := make([]string, len(keys))
	sv := make([]*jnode, len(keys))
	for i, o := range order {
		sk[i], sv[i] = keys[o], vals[o]
	}
	return sk, sv
}

// jsonbText prints a value as jsonb's output function does.
func jsonbText(j *jnode) string {
	var b strings.Builder
	writeJSONB(&b, j)
	return b.String()
}

func writeJSONB(b *strings.Builder, j *jnode) {
	switch j.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool:
		if j.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case jsonNumber:
		b.WriteString(canonNumber(j.str))
	case jsonString:
		quoteJSON(b, j.str)
	case jsonArray:
		b.WriteByte('[')
		for i, v := range j.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONB(b, v)
		}
		b.WriteByte(']')
	case jsonObject:
		keys, vals := canonObject(j)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			quoteJSON(b, k)
			b.WriteString(": ")
			writeJSONB(b, vals[i])
		}
		b.WriteByte('}')
	}
}

// jsonRaw is a value's text for json output: as written when parsed,
// otherwise built.
func jsonRaw(j *jnode) string {
	if j.raw != "" {
		return j.raw
	}
	return jsonbText(j)
}

// parseJSONB parses a jsonb datum (already canonical text); a parse error
// here means a datum of another type was passed.
func parseJSONB(s string) (*jnode, error) { return parseJSON(s) }

// canonJSONB makes a value canonical (sorted, deduplicated objects,
// normalised numbers), so that structural comparisons see jsonb's view.
func canonJSONB(j *jnode) *jnode {
	switch j.kind {
	case jsonObject:
		keys, vals := canonObject(j)
		out := &jnode{kind: jsonObject, keys: keys, vals: make([]*jnode, len(vals))}
		for i, v := range vals {
			out.vals[i] = canonJSONB(v)
		}
		return out
	case jsonArray:
		out := &jnode{kind: jsonArray, vals: make([]*jnode, len(j.vals))}
		for i, v := range j.vals {
			out.vals[i] = canonJSONB(v)
		}
		return out
	case jsonNumber:
		return &jnode{kind: jsonNumber, str: canonNumber(j.str)}
	}
	return &jnode{kind: j.kind, str: j.str, b: j.b}
}

// jsonbCompare orders jsonb values as PostgreSQL's jsonb btree opclass:
// by type (null < string < number < boolean < array < object, except that
// an empty top-level array sorts first), arrays element-wise after length,
// objects by pair count then keys and values.
func jsonbCompare(a, b *jnode) int {
	rank := func(j *jnode) int {
		switch j.kind {
		case jsonNull:
			return 1
		case jsonString:
			return 2
		case jsonNumber:
			return 3
		case jsonBool:
			return 4
		case jsonArray:
			return 5
		}
		return 6
	}
	if a.kind != b.kind {
		if a.kind == jsonArray && len(a.vals) == 0 {
			return -1
		}
		if b.kind == jsonArray && len(b.vals) == 0 {
			return 1
		}
		return cmpInt(rank(a), rank(b))
	}
	switch a.kind {
	case jsonNull:
		return 0
	case jsonString:
		return strings.Compare(a.str, b.str)
	case jsonNumber:
		x, _, _ := apd.NewFromString(a.str)
		y, _, _ := apd.NewFromString(b.str)
		if x == nil || y == nil {
			return strings.Compare(a.str, b.str)
		}
		return types.CompareNumeric(x, y)
	case jsonBool:
		return cmpBool(a.b, b.b)
	case jsonArray:
		if len(a.vals) != len(b.vals) {
			return cmpInt(len(a.vals), len(b.vals))
		}
		for i := range a.vals {
			if c := jsonbCompare(a.vals[i], b.vals[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	ak, av := canonObject(a)
	bk, bv := canonObject(b)
	if len(ak) != len(bk) {
		return cmpInt(len(ak), len(bk))
	}
	for i := range ak {
		if ak[i] != bk[i] {
			if jsonbKeyLess(ak[i], bk[i]) {
				return -1
			}
			return 1
		}
		if c := jsonbCompare(av[i], bv[i]); c != 0 {
			return c
		}
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// jsonbContains is jsonb's @>: does a contain b (PostgreSQL's
// JsonbDeepContains semantics: objects by key subset, arrays by element
// subset in any order, a top-level array contains a scalar it holds).
func jsonbContains(a, b *jnode, top bool) bool {
	if a.kind != b.kind {
		if top && a.kind == jsonArray && b.kind != jsonObject && b.kind != jsonArray {
			for _, e := range a.vals {
				if jsonbContains(e, b, false) {
					return true
				}
			}
		}
		return false
	}
	switch a.kind {
	case jsonObject:
		for i, k := range b.keys {
			v := a.get(k)
			if v == nil {
				return false
			}
			bv := b.get(k)
			if bv != b.vals[i] {
				continue // a later duplicate decides
			}
			if v.kind == jsonObject || v.kind == jsonArray {
				if !jsonbContains(v, bv, false) {
					return false
				}
			} else if bv.kind == jsonObject || bv.kind == jsonArray || jsonbCompare(v, bv) != 0 {
				return false
			}
		}
		return true
	case jsonArray:
		for _, be := range b.vals {
			found := false
			for _, ae := range a.vals {
				if be.kind == jsonObject || be.kind == jsonArray {
					if ae.kind == be.kind && jsonbContains(ae, be, false) {
						found = true
						break
					}
				} else if ae.kind == be.kind && jsonbCompare(ae, be) == 0 {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return jsonbCompare(a, b) == 0
}
