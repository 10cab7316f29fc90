package functions

// to_number(text, format) -> numeric: reads a number through a numeric
// template as PostgreSQL's formatting.c does (NUM_processor in input
// mode), with the C locale's symbols ('.' decimal point, ',' group
// separator, '-' and '+' signs, a blank currency symbol). Patterns: 9 and
// 0 (a digit), . and D (decimal point), , and G (group separator, skipped
// when present), S (sign anchored to the number), MI PL SG (sign), PR
// (angle brackets for negative), L (currency symbol), TH (ordinal
// suffix), FM, B, C, SP (no effect on input) and "quoted" text; any other
// template character skips one input character. The result has as many
// decimals as were read. RN, V and EEEE are not supported (0A000).

import (
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(allStable(fn("to_number", targs(tText, tText), tNum, func(_ *Context, a []any) (any, error) {
		if a[1].(string) == "" {
			return nil, nil
		}
		f, err := parseNumFormat(a[1].(string))
		if err != nil {
			return nil, err
		}
		return f.read(a[0].(string))
	}))...)
}

// numKey is a numeric template pattern; numLiteral is any other template
// character.
type numKey uint8

const (
	numLiteral numKey = iota
	numComma
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numSG
	numSP
	numS
	numTH
	numV
)

// numKeywords are the patterns in PostgreSQL's NUM_keywords order: the
// first that the template continues with is taken (so "SG" before "S").
var numKeywords = []struct {
	name string
	key  numKey
}{
	{",", numComma}, {".", numDec}, {"0", num0}, {"9", num9}, {"B", numB}, {"C", numC},
	{"D", numD}, {"EEEE", numE}, {"FM", numFM}, {"G", numG}, {"L", numL}, {"MI", numMI},
	{"PL", numPL}, {"PR", numPR}, {"RN", numRN}, {"SG", numSG}, {"SP", numSP}, {"S", numS},
	{"TH", numTH}, {"V", numV},
	{"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numE}, {"fm", numFM}, {"g", numG},
	{"l", numL}, {"mi", numMI}, {"pl", numPL}, {"pr", numPR}, {"rn", numRN}, {"sg", numSG},
	{"sp", numSP}, {"s", numS}, {"th", numTH}, {"v", numV},
}

// numFormat is a parsed numeric template (PostgreSQL's NUMDesc and its
// format nodes).
type numFormat struct {
	nodes      []numKey
	pre, post  int  // digit positions before and after the decimal point
	decimal    bool // has . or D
	fillMode   bool // FM
	bracket    bool // PR
	minus      bool // MI or SG
	plus       bool // PL or SG
	lsign      bool // S
	lsignFirst bool // S before the digits (else after the decimal point)
}

func errNumFormat(format string, args ...any) error {
	return pgerr.New(pgerrcode.SyntaxError, format, args...)
}

// parseNumFormat splits a template into patterns and checks them as
// PostgreSQL's NUMDesc_prepare does.
func parseNumFormat(s string) (*numFormat, error) {
	f := &numFormat{}
	for len(s) > 0 {
		k := numLiteral
		for _, kw := range numKeywords {
			if strings.HasPrefix(s, kw.name) {
				k = kw.key
				s = s[len(kw.name):]
				break
			}
		}
		if k != numLiteral {
			if err := f.add(k); err != nil {
				return nil, err
			}
			f.nodes = append(f.nodes, k)
			continue
		}
		if s[0] == '"' {
			// A quoted string: each character is literal, a backslash
			// quotes the next one.
			s = s[1:]
			for len(s) > 0 {
				if s[0] == '"' {
					s = s[1:]
					break
				}
				if s[0] == '\\' && len(s) > 1 {
					s = s[1:]
				}
				_, n := utf8.DecodeRuneInString(s)
				f.nodes = append(f.nodes, numLiteral)
				s = s[n:]
			}
			continue
		}
		if s[0] == '\\' && len(s) > 1 && s[1] == '"' {
			s = s[1:]
		}
		_, n := utf8.DecodeRuneInString(s)
		f.nodes = append(f.nodes, numLiteral)
		s = s[n:]
	}
	return f, nil
}

// add records pattern k, refusing the combinations PostgreSQL refuses and
// the patterns cairn does not read.
func (f *numFormat) add(k numKey) error {
	switch k {
	case num9, num0:
		if f.bracket {
			d := '9'
			if k == num0 {
				d = '0'
			}
			return errNumFormat("\"%c\" must be ahead of \"PR\"", d)
		}
		if f.decimal {
			f.post++
		} else {
			f.pre++
		}
	case numD, numDec:
		if f.decimal {
			return errNumFormat("multiple decimal points")
		}
		f.decimal = true
	case numFM:
		f.fillMode = true
	case numS:
		if f.lsign {
			return errNumFormat("cannot use \"S\" twice")
		}
		if f.plus || f.minus || f.bracket {
			return errNumFormat("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together")
		}
		f.lsign, f.lsignFirst = true, !f.decimal
	case numMI:
		if f.lsign {
			return errNumFormat("cannot use \"S\" and \"MI\" together")
		}
		f.minus = true
	case numPL:
		if f.lsign {
			return errNumFormat("cannot use \"S\" and \"PL\" together")
		}
		f.plus = true
	case numSG:
		if f.lsign {
			return errNumFormat("cannot use \"S\" and \"SG\" together")
		}
		f.minus, f.plus = true, true
	case numPR:
		if f.lsign || f.plus || f.minus {
			return errNumFormat("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together")
		}
		f.bracket = true
	case numE:
		return pgerr.New(pgerrcode.FeatureNotSupported, "\"EEEE\" not supported for input")
	case numRN:
		return pgerr.New(pgerrcode.FeatureNotSupported, "\"RN\" not supported for input")
	case numV:
		return pgerr.NotSupported("the \"V\" pattern of to_number")
	}
	return nil
}

// numReader is the state of reading one input (PostgreSQL's NUMProc).
type numReader struct {
	f                 *numFormat
	in                string
	p                 int    // read position in in
	sign              byte   // ' ', '-' or '+'
	digits            []byte // digits and decimal point read
	readPre, readPost int
	readDec           bool
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// read runs the template over s and converts what it collected.
func (f *numFormat) read(s string) (any, error) {
	r := &numReader{f: f, in: s, sign: ' '}
	for _, k := range f.nodes {
		if r.p >= len(s) {
			break
		}
		switch k {
		case num9, num0, numDec, numD:
			r.numPart(k)
		case numComma, numG:
			// The group separator is consumed when it is there (never
			// in fill mode, where it takes no input position).
			if f.fillMode || r.in[r.p] != ',' {
				continue
			}
		case numL:
			r.skipNonData(1) // the C locale's currency symbol is " "
			continue
		case numTH:
			if !f.decimal {
				r.skipNonData(2)
			}
			continue
		case numMI, numPL, numSG:
			// MI reads a minus, PL a plus, SG either; anything else
			// is skipped unless it is part of the number.
			c := r.in[r.p]
			if (c == '-' && k != numPL) || (c == '+' && k != numMI) {
				r.sign = c
			} else {
				r.skipNonData(1)
				continue
			}
		case numLiteral:
			_, n := utf8.DecodeRuneInString(s[r.p:])
			r.p += n
			continue
		default:
			continue
		}
		r.p++
	}
	if n := len(r.digits); n > 0 && r.digits[n-1] == '.' {
		r.digits = r.digits[:n-1]
	}
	v, err := types.ParseText(string(r.sign)+string(r.digits), types.NumericT)
	if err != nil {
		return nil, err
	}
	t := types.NumericT
	t.Mod = types.NumericTypmod(f.pre+r.readPost, r.readPost)
	return types.ApplyTypmod(v, t, false)
}

// numPart reads at a digit or decimal point pattern: a sign before the
// first digit, a digit or the decimal point, and a sign after the number
// (PostgreSQL's NUM_numpart_from_char).
func (r *numReader) numPart(k numKey) {
	f := r.f
	if r.p >= len(r.in) {
		return
	}
	if r.in[r.p] == ' ' {
		r.p++
	}
	if r.p >= len(r.in) {
		return
	}
	if r.sign == ' ' && (k == num0 || k == num9) && r.readPre+r.readPost == 0 {
		switch c := r.in[r.p]; {
		case f.lsign && f.lsignFirst:
			if c == '-' || c == '+' {
				r.sign = c
				r.p++
			}
		case c == '-' || (f.bracket && c == '<'):
			r.sign = '-'
			r.p++
		case c == '+':
			r.sign = '+'
			r.p++
		}
	}
	if r.p >= len(r.in) {
		return
	}
	read := false
	if c := r.in[r.p]; isDigit(c) {
		if r.readDec && r.readPost == f.post {
			return
		}
		r.digits = append(r.digits, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		read = true
	} else if f.decimal && !r.readDec && c == '.' {
		r.digits = append(r.digits, '.')
		r.readDec, read = true, true
	}
	if r.p >= len(r.in) || r.sign != ' ' || r.readPre+r.readPost == 0 {
		return
	}
	// A sign right after the number.
	switch {
	case f.lsign && read && r.p+1 < len(r.in) && !isDigit(r.in[r.p+1]):
		if c := r.in[r.p+1]; c == '-' || c == '+' {
			r.sign = c
			r.p++
		}
	case !read && !f.lsign && (f.plus || f.minus):
		if c := r.in[r.p]; c == '-' || c == '+' {
			r.sign = c
		}
	}
}

// skipNonData skips up to n input characters that cannot be part of a
// number (PostgreSQL's NUM_eat_non_data_chars).
func (r *numReader) skipNonData(n int) {
	for ; n > 0 && r.p < len(r.in); n-- {
		if strings.IndexByte("0123456789.,+-", r.in[r.p]) >= 0 {
			return
		}
		_, w := utf8.DecodeRuneInString(r.in[r.p:])
		r.p += w
	}
}
