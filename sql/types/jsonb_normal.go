package types

import (
	"slices"
	"sync"
)

// JSONBNormalizer prints JSON documents as jsonb does, in one pass
// (Append), keeping its scratch space from one document to the next. It
// is not safe for concurrent use.
type JSONBNormalizer struct {
	members []jsonbMember
	tmp     []byte
	buf     []byte // NormalizeJSONB's output
}

// Append appends to dst jsonb's printed form of the JSON
// document doc (what NormalizeJSONB returns) in one pass, without building
// a tree: a bulk load's jsonb, whether some system printed it already
// (PostgreSQL's COPY TO: then it is copied as it is) or an encoder wrote
// it with other spacing and keys in its own order, takes this path. It
// drops whitespace, prints ": " and ", ", and orders each object's keys
// as jsonb does (by length, then bytes; the last of duplicates wins).
// It is conservative: ok is false, and dst's appended bytes meaningless,
// for every document it leaves to the general parse (which reports any
// error): invalid JSON; a string with an escape escape_json would print
// otherwise (\/, \uXXXX for anything but a byte below 0x20 without a
// short escape, or in upper case); a key with any escape (its order is
// that of the unescaped key); a number with an exponent, negative zero,
// or beyond numeric's range (numeric prints the others as written);
// nesting deeper than the parser allows.
func (z *JSONBNormalizer) Append(dst, doc []byte) (out []byte, ok bool) {
	return appendNormalJSONB(z, dst, doc)
}

// jsonbScratchMax is the most scratch space a JSONBNormalizer keeps
// for the next document (one huge document does not pin its size).
const jsonbScratchMax = 64 << 10

// jsonbNormalizers are NormalizeJSONB's normalizers.
var jsonbNormalizers = sync.Pool{New: func() any { return new(JSONBNormalizer) }}

// appendNormalJSONB is Append for a document held in a string or bytes.
func appendNormalJSONB[S string | []byte](z *JSONBNormalizer, dst []byte, s S) (out []byte, ok bool) {
	n := jsonbNorm[S]{s: s, out: dst, members: z.members[:0], tmp: z.tmp}
	n.space()
	ok = n.value()
	n.space()
	z.members, z.tmp = n.members[:0], n.tmp[:0]
	if cap(z.tmp) > jsonbScratchMax {
		z.members, z.tmp = nil, nil // not kept for the next document
	}
	return n.out, ok && n.p == len(s)
}

// jsonbNorm is Append's state: p is the next byte of s to
// read; members holds the members of the objects being read, innermost
// last; tmp is scratch space for reordering an object's members.
type jsonbNorm[S string | []byte] struct {
	s       S
	p       int
	depth   int
	out     []byte
	members []jsonbMember
	tmp     []byte
}

// jsonbMember is an object member read: its key at s[key:keyEnd] and its
// printed form (key, ": ", value) at out[start:end].
type jsonbMember struct {
	key, keyEnd, start, end int
}

// space skips JSON whitespace.
func (n *jsonbNorm[S]) space() {
	for n.p < len(n.s) {
		switch n.s[n.p] {
		case ' ', '\t', '\n', '\r':
			n.p++
		default:
			return
		}
	}
}

// value reads one value and prints it.
func (n *jsonbNorm[S]) value() bool {
	if n.p >= len(n.s) {
		return false
	}
	switch c := n.s[n.p]; {
	case c == '"':
		start := n.p
		if _, ok := n.str(); !ok {
			return false
		}
		n.out = append(n.out, n.s[start:n.p]...)
		return true
	case c == '{':
		return n.object()
	case c == '[':
		return n.array()
	case c == 't':
		return n.literal("true")
	case c == 'f':
		return n.literal("false")
	case c == 'n':
		return n.literal("null")
	case c == '-' || isDigit(c):
		return n.number()
	}
	return false
}

// literal reads and prints the word w (what follows it is checked by
// the caller, as after every value).
func (n *jsonbNorm[S]) literal(w string) bool {
	s, p := n.s, n.p
	if len(s)-p < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if s[p+i] != w[i] {
			return false
		}
	}
	n.p = p + len(w)
	n.out = append(n.out, w...)
	return true
}

// str reads a string literal that escape_json prints as it is; escaped
// reports whether it holds an escape.
func (n *jsonbNorm[S]) str() (escaped, ok bool) {
	s := n.s
	for p := n.p + 1; p < len(s); p++ {
		switch c := s[p]; {
		case c == '"':
			n.p = p + 1
			return escaped, true
		case c < ' ':
			return false, false
		case c == '\\':
			escaped = true
			if p+1 >= len(s) {
				return false, false
			}
			p++
			switch s[p] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
			case 'u':
				// Only a byte below 0x20 that has no short escape.
				if p+4 >= len(s) || s[p+1] != '0' || s[p+2] != '0' || (s[p+3] != '0' && s[p+3] != '1') {
					return false, false
				}
				lo := s[p+4]
				var v byte
				switch {
				case isDigit(lo):
					v = lo - '0'
				case lo >= 'a' && lo <= 'f':
					v = lo - 'a' + 10
				default:
					return false, false
				}
				v += (s[p+3] - '0') << 4
				if v == 0 || v == '\b' || v == '\f' || v == '\n' || v == '\r' || v == '\t' {
					return false, false
				}
				p += 4
			default:
				return false, false
			}
		}
	}
	return false, false
}

// number reads and prints a number that numeric prints back as written:
// no exponent, not negative zero, within numeric's digits.
func (n *jsonbNorm[S]) number() bool {
	s, p := n.s, n.p
	neg := s[p] == '-'
	if neg {
		p++
	}
	start := p
	zero := true
	if p < len(s) && s[p] == '0' {
		p++
	} else {
		for p < len(s) && isDigit(s[p]) {
			zero = zero && s[p] == '0'
			p++
		}
	}
	intDigits := p - start
	if intDigits == 0 {
		return false
	}
	frac := 0
	if p < len(s) && s[p] == '.' {
		p++
		for p < len(s) && isDigit(s[p]) {
			zero = zero && s[p] == '0'
			p++
			frac++
		}
		if frac == 0 {
			return false
		}
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') || neg && zero ||
		intDigits > numericMaxIntDigits || frac > numericMaxDScale {
		return false
	}
	n.out = append(n.out, s[n.p:p]...)
	n.p = p
	return true
}

// enter counts a nesting level; false past the parser's limit.
func (n *jsonbNorm[S]) enter() bool {
	n.depth++
	return n.depth <= jsonMaxDepth
}

// object reads an object and prints it with its keys in jsonb's order.
func (n *jsonbNorm[S]) object() bool {
	if !n.enter() {
		return false
	}
	n.p++
	open := len(n.out)
	n.out = append(n.out, '{')
	n.space()
	if n.p < len(n.s) && n.s[n.p] == '}' {
		n.p++
		n.depth--
		n.out = append(n.out, '}')
		return true
	}
	base := len(n.members)
	sorted := true
	for {
		if n.p >= len(n.s) || n.s[n.p] != '"' {
			return false
		}
		key := n.p
		if escaped, ok := n.str(); !ok || escaped {
			return false
		}
		m := jsonbMember{key: key + 1, keyEnd: n.p - 1}
		if len(n.members) > base {
			prev := n.members[len(n.members)-1]
			sorted = sorted && n.keyCmp(prev, m) < 0
			n.out = append(n.out, ',', ' ')
		}
		m.start = len(n.out)
		n.out = append(n.out, n.s[key:n.p]...)
		n.space()
		if n.p >= len(n.s) || n.s[n.p] != ':' {
			return false
		}
		n.p++
		n.space()
		n.out = append(n.out, ':', ' ')
		if !n.value() {
			return false
		}
		m.end = len(n.out)
		n.members = append(n.members, m)
		n.space()
		if n.p < len(n.s) && n.s[n.p] == ',' {
			n.p++
			n.space()
			continue
		}
		if n.p < len(n.s) && n.s[n.p] == '}' {
			n.p++
			break
		}
		return false
	}
	if !sorted {
		n.reorder(open, n.members[base:])
	}
	n.members = n.members[:base]
	n.depth--
	n.out = append(n.out, '}')
	return true
}

// keyCmp orders the keys of members a and b as jsonb does: by length,
// then bytes.
func (n *jsonbNorm[S]) keyCmp(a, b jsonbMember) int {
	if la, lb := a.keyEnd-a.key, b.keyEnd-b.key; la != lb {
		return la - lb
	}
	for i, j := a.key, b.key; i < a.keyEnd; i, j = i+1, j+1 {
		if x, y := n.s[i], n.s[j]; x != y {
			return int(x) - int(y)
		}
	}
	return 0
}

// reorder prints again the members ms of the object opened at out[open]:
// sorted by key, the last of each duplicate kept.
func (n *jsonbNorm[S]) reorder(open int, ms []jsonbMember) {
	slices.SortStableFunc(ms, n.keyCmp)
	n.tmp = append(n.tmp[:0], n.out[open+1:]...)
	n.out = n.out[:open+1]
	first := true
	for i, m := range ms {
		if i+1 < len(ms) && n.keyCmp(m, ms[i+1]) == 0 {
			continue // a later duplicate wins
		}
		if !first {
			n.out = append(n.out, ',', ' ')
		}
		first = false
		n.out = append(n.out, n.tmp[m.start-open-1:m.end-open-1]...)
	}
}

// array reads and prints an array.
func (n *jsonbNorm[S]) array() bool {
	if !n.enter() {
		return false
	}
	n.p++
	n.out = append(n.out, '[')
	n.space()
	if n.p < len(n.s) && n.s[n.p] == ']' {
		n.p++
		n.depth--
		n.out = append(n.out, ']')
		return true
	}
	for {
		if !n.value() {
			return false
		}
		n.space()
		if n.p < len(n.s) && n.s[n.p] == ',' {
			n.p++
			n.space()
			n.out = append(n.out, ',', ' ')
			continue
		}
		if n.p < len(n.s) && n.s[n.p] == ']' {
			n.p++
			n.depth--
			n.out = append(n.out, ']')
			return true
		}
		return false
	}
}
