package types

// IsNormalJSONB reports whether s is exactly the text jsonb's output
// function prints for the document s denotes, so that NormalizeJSONB(s)
// is s itself: a bulk load of jsonb that some system already printed
// (PostgreSQL's COPY TO, cairn's own output, most JSON encoders' compact
// output with ": " and ", ") is checked in one pass, without building a
// tree and printing it again. It is conservative: false sends s through
// the general parse (which reports any error), and it is false for
// whatever that parse would change or reject:
//   - whitespace other than one space after each ':' and ',';
//   - object keys not strictly ascending by length, then bytes (jsonb's
//     order; a duplicate is not ascending), or a key with an escape
//     (its order is that of the unescaped key);
//   - string escapes other than those escape_json prints: \" \\ \b \f
//     \n \r \t, and \u00xx (lower-case hex) for the other bytes below 0x20;
//   - numbers with an exponent, negative zero, or beyond numeric's range
//     (numeric prints the others as written);
//   - nesting deeper than the parser allows.
func IsNormalJSONB[S string | []byte](s S) bool {
	sc := jsonbScan[S]{s: s}
	return sc.value() && sc.p == len(s)
}

// jsonbScan is IsNormalJSONB's scanner: p is the next byte to read.
type jsonbScan[S string | []byte] struct {
	s     S
	p     int
	depth int
}

// value scans one value.
func (sc *jsonbScan[S]) value() bool {
	if sc.p >= len(sc.s) {
		return false
	}
	switch c := sc.s[sc.p]; {
	case c == '"':
		_, ok := sc.str()
		return ok
	case c == '{':
		return sc.object()
	case c == '[':
		return sc.array()
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	case c == '-' || isDigit(c):
		return sc.number()
	}
	return false
}

// literal scans the word w (what follows it is checked by the caller).
func (sc *jsonbScan[S]) literal(w string) bool {
	if len(sc.s)-sc.p < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if sc.s[sc.p+i] != w[i] {
			return false
		}
	}
	sc.p += len(w)
	return true
}

// str scans a string literal as escape_json prints it; escaped reports
// whether it holds an escape.
func (sc *jsonbScan[S]) str() (escaped, ok bool) {
	s := sc.s
	for p := sc.p + 1; p < len(s); p++ {
		switch c := s[p]; {
		case c == '"':
			sc.p = p + 1
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

// number scans a number that numeric prints back as written: no
// exponent, not negative zero, within numeric's digits.
func (sc *jsonbScan[S]) number() bool {
	s, p := sc.s, sc.p
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
	sc.p = p
	return true
}

// sep scans the two bytes c and ' ' (", " or ": ").
func (sc *jsonbScan[S]) sep(c byte) bool {
	if sc.p+1 < len(sc.s) && sc.s[sc.p] == c && sc.s[sc.p+1] == ' ' {
		sc.p += 2
		return true
	}
	return false
}

// enter counts a nesting level; false past the parser's limit.
func (sc *jsonbScan[S]) enter() bool {
	sc.depth++
	return sc.depth <= jsonMaxDepth
}

// object scans an object whose keys ascend in jsonb's order.
func (sc *jsonbScan[S]) object() bool {
	if !sc.enter() {
		return false
	}
	sc.p++
	if sc.p < len(sc.s) && sc.s[sc.p] == '}' {
		sc.p++
		sc.depth--
		return true
	}
	prevStart, prevEnd := -1, -1
	for {
		if sc.p >= len(sc.s) || sc.s[sc.p] != '"' {
			return false
		}
		start := sc.p + 1
		if escaped, ok := sc.str(); !ok || escaped {
			return false
		}
		end := sc.p - 1
		if prevStart >= 0 && !sc.keyLess(prevStart, prevEnd, start, end) {
			return false
		}
		prevStart, prevEnd = start, end
		if !sc.sep(':') || !sc.value() {
			return false
		}
		if sc.sep(',') {
			continue
		}
		if sc.p < len(sc.s) && sc.s[sc.p] == '}' {
			sc.p++
			sc.depth--
			return true
		}
		return false
	}
}

// keyLess reports whether the key s[a:b] sorts before s[c:d] (by length,
// then bytes).
func (sc *jsonbScan[S]) keyLess(a, b, c, d int) bool {
	if b-a != d-c {
		return b-a < d-c
	}
	for ; a < b; a, c = a+1, c+1 {
		if x, y := sc.s[a], sc.s[c]; x != y {
			return x < y
		}
	}
	return false
}

// array scans an array.
func (sc *jsonbScan[S]) array() bool {
	if !sc.enter() {
		return false
	}
	sc.p++
	if sc.p < len(sc.s) && sc.s[sc.p] == ']' {
		sc.p++
		sc.depth--
		return true
	}
	for {
		if !sc.value() {
			return false
		}
		if sc.sep(',') {
			continue
		}
		if sc.p < len(sc.s) && sc.s[sc.p] == ']' {
			sc.p++
			sc.depth--
			return true
		}
		return false
	}
}
