package functions

// to_char of numbers through a numeric template, as PostgreSQL's
// formatting.c does it (NUMDesc_prepare, NUM_processor and
// NUM_numpart_to_char, here written afresh): the template is read into
// patterns and literal text ("quoted" strings, \" for a quote, any other
// character as itself), the patterns are summed up (digits before and
// after the point, where zero-filling starts, the sign's place), and the
// value's digits, rounded to the template's decimals, are laid out
// pattern by pattern, the sign (or PR's brackets) next to the first digit
// written and after the last one. The C locale's signs, point, group
// separator and currency symbol are used.

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// tcKey is a numeric template pattern.
type tcKey uint8

const (
	nkNone tcKey = iota // literal text
	nkComma
	nkDec
	nk0
	nk9
	nkB
	nkC
	nkD
	nkEEEE
	nkFM
	nkG
	nkL
	nkMI
	nkPL
	nkPR
	nkRN
	nkRNLower
	nkSG
	nkSP
	nkS
	nkTH
	nkTHLower
	nkV
)

// tcKeywords are the template patterns, as PostgreSQL spells them (case
// matters: upper or lower case, not mixed), longer ones first where one
// is the start of another.
var tcKeywords = []struct {
	text string
	key  tcKey
}{
	{",", nkComma}, {".", nkDec}, {"0", nk0}, {"9", nk9},
	{"B", nkB}, {"C", nkC}, {"D", nkD}, {"EEEE", nkEEEE}, {"FM", nkFM}, {"G", nkG}, {"L", nkL},
	{"MI", nkMI}, {"PL", nkPL}, {"PR", nkPR}, {"RN", nkRN}, {"SG", nkSG}, {"SP", nkSP}, {"S", nkS},
	{"TH", nkTH}, {"V", nkV},
	{"b", nkB}, {"c", nkC}, {"d", nkD}, {"eeee", nkEEEE}, {"fm", nkFM}, {"g", nkG}, {"l", nkL},
	{"mi", nkMI}, {"pl", nkPL}, {"pr", nkPR}, {"rn", nkRNLower}, {"sg", nkSG}, {"sp", nkSP}, {"s", nkS},
	{"th", nkTHLower}, {"v", nkV},
}

// tcNode is a pattern of a template, or (key nkNone) a character of its
// literal text.
type tcNode struct {
	key tcKey
	lit string
}

// numDesc sums up a template's patterns (PostgreSQL's NUMDesc).
type numDesc struct {
	pre, post   int // digit positions before and after the point
	multi       int // digit positions after V
	zeroStart   int // the position (from 1) of the first 0 before the point, 0 if none
	zeroEnd     int
	lsign       int // where S puts the sign: lsignPre, lsignPost, or 0
	preLsignNum int // pre when S came

	zero, blank, fillMode, decimal, bracket, minus, plus, lsignSet, roman, multiply, eeee bool
}

const (
	lsignPre  = 1
	lsignPost = 2
)

// numTemplate is a parsed numeric template.
type numTemplate struct {
	nodes []tcNode
	desc  numDesc
}

// parseNumTemplate reads a numeric template, refusing the combinations
// PostgreSQL refuses (42601).
func parseNumTemplate(f string) (*numTemplate, error) {
	t := &numTemplate{}
	for len(f) > 0 {
		if k, n := matchTcKeyword(f); n > 0 {
			if err := t.desc.add(k); err != nil {
				return nil, err
			}
			t.nodes = append(t.nodes, tcNode{key: k})
			f = f[n:]
			continue
		}
		if f[0] == '"' {
			f = f[1:]
			for len(f) > 0 {
				if f[0] == '"' {
					f = f[1:]
					break
				}
				if f[0] == '\\' && len(f) > 1 {
					f = f[1:]
				}
				_, size := utf8.DecodeRuneInString(f)
				t.nodes = append(t.nodes, tcNode{lit: f[:size]})
				f = f[size:]
			}
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			f = f[1:]
		}
		_, size := utf8.DecodeRuneInString(f)
		t.nodes = append(t.nodes, tcNode{lit: f[:size]})
		f = f[size:]
	}
	return t, nil
}

func matchTcKeyword(f string) (tcKey, int) {
	for _, kw := range tcKeywords {
		if strings.HasPrefix(f, kw.text) {
			return kw.key, len(kw.text)
		}
	}
	return nkNone, 0
}

func errNumTemplate(format string, args ...any) error {
	return pgerr.New(pgerrcode.SyntaxError, format, args...)
}

// add takes a pattern into the summary (PostgreSQL's NUMDesc_prepare).
func (d *numDesc) add(k tcKey) error {
	if d.eeee && k != nkEEEE {
		return errNumTemplate("\"EEEE\" must be the last pattern used")
	}
	switch k {
	case nk9:
		if d.bracket {
			return errNumTemplate("\"9\" must be ahead of \"PR\"")
		}
		if d.multiply {
			d.multi++
			break
		}
		if d.decimal {
			d.post++
		} else {
			d.pre++
		}
	case nk0:
		if d.bracket {
			return errNumTemplate("\"0\" must be ahead of \"PR\"")
		}
		if !d.zero && !d.decimal {
			d.zero = true
			d.zeroStart = d.pre + 1
		}
		if d.decimal {
			d.post++
		} else {
			d.pre++
		}
		d.zeroEnd = d.pre + d.post
	case nkB:
		if d.pre == 0 && d.post == 0 && !d.zero {
			d.blank = true
		}
	case nkD, nkDec:
		if d.decimal {
			return errNumTemplate("multiple decimal points")
		}
		if d.multiply {
			return errNumTemplate("cannot use \"V\" and decimal point together")
		}
		d.decimal = true
	case nkFM:
		d.fillMode = true
	case nkS:
		if d.lsignSet {
			return errNumTemplate("cannot use \"S\" twice")
		}
		if d.plus || d.minus || d.bracket {
			return errNumTemplate("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together")
		}
		if !d.decimal {
			d.lsign = lsignPre
			d.preLsignNum = d.pre
			d.lsignSet = true
		} else if d.lsign == 0 {
			d.lsign = lsignPost
			d.lsignSet = true
		}
	case nkMI:
		if d.lsignSet {
			return errNumTemplate("cannot use \"S\" and \"MI\" together")
		}
		d.minus = true
	case nkPL:
		if d.lsignSet {
			return errNumTemplate("cannot use \"S\" and \"PL\" together")
		}
		d.plus = true
	case nkSG:
		if d.lsignSet {
			return errNumTemplate("cannot use \"S\" and \"SG\" together")
		}
		d.minus, d.plus = true, true
	case nkPR:
		if d.lsignSet || d.plus || d.minus {
			return errNumTemplate("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together")
		}
		d.bracket = true
	case nkRN, nkRNLower:
		d.roman = true
	case nkV:
		if d.decimal {
			return errNumTemplate("cannot use \"V\" and decimal point together")
		}
		d.multiply = true
	case nkEEEE:
		if d.eeee {
			return errNumTemplate("cannot use \"EEEE\" twice")
		}
		if d.blank || d.fillMode || d.lsignSet || d.bracket || d.minus || d.plus || d.roman || d.multiply {
			return pgerr.New(pgerrcode.SyntaxError, "\"EEEE\" is incompatible with other formats").
				WithDetail("\"EEEE\" may only be used together with digit and decimal point patterns.")
		}
		d.eeee = true
	}
	return nil
}

// numDigits is what a value gives the layout: its digits (no sign,
// rounded to the template's decimals, '#'s when they do not fit before
// the point), the template positions left blank before them, and its
// sign ('+' or '-').
type numDigits struct {
	number       string
	outPreSpaces int
	sign         byte
}

// fit makes numDigits of text, a value written without exponent (a
// leading - for a negative one), for a template whose pre digits come
// before the point.
func fitDigits(text string, pre, post int) numDigits {
	nd := numDigits{number: text, sign: '+'}
	if strings.HasPrefix(text, "-") {
		nd.sign, nd.number = '-', text[1:]
	}
	preLen := len(nd.number)
	if i := strings.IndexByte(nd.number, '.'); i >= 0 {
		preLen = i
	}
	switch {
	case preLen < pre:
		nd.outPreSpaces = pre - preLen
	case preLen > pre:
		nd.number = strings.Repeat("#", pre) + "." + strings.Repeat("#", post)
	}
	return nd
}

// formatNumTemplate lays out nd in the template (PostgreSQL's
// NUM_processor for to_char, neither EEEE nor RN). A digit position past
// the value's digits writes what C would, a NUL, which ends the text.
func (t *numTemplate) formatNumTemplate(nd numDigits) string {
	d := t.desc // the layout adjusts its copy
	p := &numLayout{d: &d, number: nd.number, sign: nd.sign, outPreSpaces: nd.outPreSpaces, lastRelevant: -1}
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.plus || d.minus {
		// MI, PL and SG write the sign themselves; PL alone leaves the
		// digits' sign in place too.
		p.signWrote = !(d.plus && !d.minus)
	} else {
		if p.sign != '-' && d.bracket && d.fillMode {
			d.bracket = false
		}
		p.signWrote = p.sign == '+' && d.fillMode && !d.lsignSet
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	p.numCount = d.post + d.pre - 1
	if d.fillMode && d.decimal {
		p.lastRelevant = lastRelevantDecimal(p.number)
		if p.lastRelevant >= 0 && d.zeroEnd > p.outPreSpaces {
			if lastZero := d.zeroEnd - p.outPreSpaces; p.lastRelevant < lastZero {
				p.lastRelevant = lastZero
			}
		}
	}
	if !p.signWrote && p.outPreSpaces == 0 {
		p.numCount++
	}
	for _, n := range t.nodes {
		switch n.key {
		case nkNone:
			p.out = append(p.out, n.lit...)
		case nk9, nk0, nkDec, nkD:
			p.digit(n.key)
		case nkComma, nkG:
			if p.numIn {
				p.out = append(p.out, ',')
			} else if !d.fillMode {
				p.out = append(p.out, ' ')
			}
		case nkL:
			p.out = append(p.out, ' ') // the C locale has no currency symbol
		case nkTH, nkTHLower:
			if d.roman || strings.HasPrefix(p.number, "#") || p.sign == '-' || d.decimal {
				continue
			}
			suffix := ordinalOfDigits(p.number)
			if n.key == nkTH {
				suffix = strings.ToUpper(suffix)
			}
			p.out = append(p.out, suffix...)
		case nkMI:
			switch {
			case p.sign == '-':
				p.out = append(p.out, '-')
			case !d.fillMode:
				p.out = append(p.out, ' ')
			}
		case nkPL:
			switch {
			case p.sign == '+':
				p.out = append(p.out, '+')
			case !d.fillMode:
				p.out = append(p.out, ' ')
			}
		case nkSG:
			p.out = append(p.out, p.sign)
		}
	}
	out := string(p.out)
	if i := strings.IndexByte(out, 0); i >= 0 {
		out = out[:i]
	}
	return out
}

// numLayout is the state of one formatNumTemplate (PostgreSQL's NUMProc).
type numLayout struct {
	d            *numDesc
	number       string
	np           int // the next digit of number to write
	lastRelevant int // FM with a point: the last digit worth writing (-1: all)
	sign         byte
	signWrote    bool
	numIn        bool // a digit was written by the last position
	numCount     int
	numCurr      int // the digit position being written
	outPreSpaces int
	out          []byte
}

// at is number's character i, NUL past its end.
func (p *numLayout) at(i int) byte {
	if i < 0 || i >= len(p.number) {
		return 0
	}
	return p.number[i]
}

// predecSpace reports a value below 1 at its first digit, whose 0 before
// the point a 9 writes as a blank ('0.1' in 9.9 is '  .1').
func (p *numLayout) predecSpace() bool {
	return !p.d.zero && p.np == 0 && p.at(0) == '0' && p.d.post != 0
}

// digit writes the digit position of pattern k (9, 0, or the point),
// with the sign before the value's first digit and PR's closing bracket
// or S's trailing sign after its last.
func (p *numLayout) digit(k tcKey) {
	d := p.d
	p.numIn = false
	pointRelevant := p.lastRelevant >= 0 && p.at(p.lastRelevant) == '.'
	if !p.signWrote && (p.numCurr >= p.outPreSpaces || d.zero && d.zeroStart == p.numCurr) &&
		(!p.predecSpace() || pointRelevant) {
		switch {
		case d.lsignSet:
			if d.lsign == lsignPre {
				p.out = append(p.out, p.sign)
				p.signWrote = true
			}
		case d.bracket:
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '<')
			}
			p.signWrote = true
		case p.sign == '+':
			if !d.fillMode {
				p.out = append(p.out, ' ')
			}
			p.signWrote = true
		case p.sign == '-':
			p.out = append(p.out, '-')
			p.signWrote = true
		}
	}
	switch {
	case p.numCurr < p.outPreSpaces && (d.zeroStart > p.numCurr || !d.zero):
		if !d.fillMode {
			p.out = append(p.out, ' ')
		}
	case d.zero && p.numCurr < p.outPreSpaces && d.zeroStart <= p.numCurr:
		p.out = append(p.out, '0')
		p.numIn = true
	default:
		c := p.at(p.np)
		switch {
		case c == '.':
			if !pointRelevant || d.fillMode {
				p.out = append(p.out, '.')
			}
		case p.lastRelevant >= 0 && p.np > p.lastRelevant && k != nk0:
		case p.predecSpace():
			if !d.fillMode {
				p.out = append(p.out, ' ')
			} else if pointRelevant {
				p.out = append(p.out, '0')
			}
		default:
			p.out = append(p.out, c)
			p.numIn = true
		}
		if p.np < len(p.number) {
			p.np++
		}
	}
	end := p.numCount
	if p.outPreSpaces > 0 {
		end++
	}
	if d.decimal {
		end++
	}
	if p.lastRelevant >= 0 && p.lastRelevant == p.np {
		end = p.numCurr
	}
	if p.numCurr+1 == end {
		switch {
		case p.signWrote && d.bracket:
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '>')
			}
		case d.lsignSet && d.lsign == lsignPost:
			p.out = append(p.out, p.sign)
		}
	}
	p.numCurr++
}

// lastRelevantDecimal is the index of the last nonzero digit after the
// point of number, or of the point when there is none; -1 without a
// point.
func lastRelevantDecimal(number string) int {
	i := strings.IndexByte(number, '.')
	if i < 0 {
		return -1
	}
	last := i
	for j := i + 1; j < len(number); j++ {
		if number[j] != '0' {
			last = j
		}
	}
	return last
}

// ordinalOfDigits is the English ordinal suffix of the integer written
// in digits (its last two decide).
func ordinalOfDigits(digits string) string {
	n := len(digits)
	if n == 0 {
		return "th"
	}
	if n > 1 && digits[n-2] == '1' {
		return "th"
	}
	switch digits[n-1] {
	case '1':
		return "st"
	case '2':
		return "nd"
	case '3':
		return "rd"
	}
	return "th"
}

// toCharDecimal is to_char of a numeric (or integer) value through a
// template without EEEE or RN: the value times 10^multi for V, rounded to
// the template's decimals.
func (t *numTemplate) toCharDecimal(v *apd.Decimal) string {
	desc := t.desc
	if desc.multi > 0 && v.Form == apd.Finite {
		var s apd.Decimal
		s.Set(v)
		s.Exponent += int32(desc.multi)
		v = &s
		desc.pre += desc.multi
	}
	var text string
	switch {
	case v.Form == apd.NaN || v.Form == apd.NaNSignaling:
		text = "NaN"
	case v.Form == apd.Infinite && v.Negative:
		text = "-Infinity"
	case v.Form == apd.Infinite:
		text = "Infinity"
	default:
		r := roundDec(v, int32(desc.post))
		if r.IsZero() {
			r.Negative = false
		}
		text = r.Text('f')
	}
	tt := *t
	tt.desc = desc
	return tt.formatNumTemplate(fitDigits(text, desc.pre, desc.post))
}

// toCharFloat is to_char of a float8 (digits 15) or float4 (digits 6)
// value through a template without EEEE or RN: as PostgreSQL, V
// multiplies in the value's own precision, the decimals are cut so that
// the value has at most digits significant digits, and the value is
// written as C's printf("%.*f") writes it.
func (t *numTemplate) toCharFloat(v float64, digits int) string {
	desc := t.desc
	if desc.multi > 0 {
		if digits == 6 {
			v = float64(float32(v) * float32(math.Pow(10, float64(desc.multi))))
		} else {
			v *= math.Pow(10, float64(desc.multi))
		}
		desc.pre += desc.multi
	}
	whole := len(cFixed(math.Abs(v), 0))
	switch {
	case whole >= digits:
		desc.post = 0
	case whole+desc.post > digits:
		desc.post = digits - whole
	}
	tt := *t
	tt.desc = desc
	return tt.formatNumTemplate(fitDigits(cFixed(v, desc.post), desc.pre, desc.post))
}

// cFixed writes v with prec decimals as PostgreSQL's printf("%.*f")
// does: NaN, Infinity and -Infinity for the special values.
func cFixed(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// toCharInt is to_char of an int4 (bits 32) or int8 value through a
// template without EEEE or RN. V multiplies as PostgreSQL does: an int8
// out of range is 22003, an int4 wraps around as its C multiplication
// does (2147483647 in 99V99 is -100).
func (t *numTemplate) toCharInt(v int64, bits int) (string, error) {
	desc := t.desc
	if desc.multi > 0 {
		m := int64(math.Pow(10, float64(desc.multi)))
		if bits == 32 {
			v = int64(int32(v) * int32(m))
		} else {
			p := v * m
			if m != 0 && (p/m != v || v == math.MinInt64 && m == -1) {
				return "", pgerr.New(pgerrcode.NumericValueOutOfRange, "bigint out of range")
			}
			v = p
		}
		desc.pre += desc.multi
	}
	text := strconv.FormatInt(v, 10)
	if desc.post > 0 {
		text += "." + strings.Repeat("0", desc.post)
	}
	tt := *t
	tt.desc = desc
	return tt.formatNumTemplate(fitDigits(text, desc.pre, desc.post)), nil
}
