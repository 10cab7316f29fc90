package types

import (
	"math"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// MaxArrayDims is MAXDIM, the most dimensions an array may have.
const MaxArrayDims = 6

func errArrayLiteral(s, detail string, args ...any) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "malformed array literal: \"%s\"", s).WithDetail(detail, args...)
}

// Array parse states (ArrayParseState).
const (
	apNoLevel = iota
	apLevelStarted
	apElemStarted
	apElemCompleted
	apQuotedElemStarted
	apQuotedElemCompleted
	apElemDelimited
	apLevelCompleted
	apLevelDelimited
)

type arrayItem struct {
	text string
	null bool
}

// scanArray is array_in's ArrayCount and ReadArrayStr in one pass: it
// checks the brace structure and returns the dimensions and the de-quoted
// element strings (not yet converted).
func scanArray(orig, s string) (dims []int, items []arrayItem, err error) {
	state := apNoLevel
	nest := 0
	ndim := 0
	inQuotes := false
	nelems := [MaxArrayDims + 1]int{}
	nelemsLast := [MaxArrayDims + 1]int{}
	for i := range nelems {
		nelems[i] = 1
	}
	var cur []byte
	curEnd := 0 // length of cur without trailing unquoted white space
	leading := true
	hasQuoting := false
	elemDepth := -1
	inElem := false
	finish := func() error {
		if !inElem {
			return nil
		}
		if elemDepth == -1 {
			elemDepth = nest
		} else if elemDepth != nest {
			return errArrayLiteral(orig, "Multidimensional arrays must have sub-arrays with matching dimensions.")
		}
		text := string(cur[:curEnd])
		items = append(items, arrayItem{text: text, null: !hasQuoting && strings.EqualFold(text, "NULL")})
		cur = cur[:0]
		curEnd = 0
		leading = true
		hasQuoting = false
		inElem = false
		return nil
	}
	p := 0
	for {
		if p >= len(s) {
			return nil, nil, errArrayLiteral(orig, "Unexpected end of input.")
		}
		c := s[p]
		switch {
		case c == '\\':
			if state != apLevelStarted && state != apElemStarted && state != apQuotedElemStarted && state != apElemDelimited {
				return nil, nil, errArrayLiteral(orig, "Unexpected \"%c\" character.", '\\')
			}
			if state != apQuotedElemStarted {
				state = apElemStarted
			}
			if p+1 >= len(s) {
				return nil, nil, errArrayLiteral(orig, "Unexpected end of input.")
			}
			p++
			inElem = true
			cur = append(cur, s[p])
			leading = false
			curEnd = len(cur)
			hasQuoting = true
		case c == '"':
			if state != apLevelStarted && state != apQuotedElemStarted && state != apElemDelimited {
				return nil, nil, errArrayLiteral(orig, "Unexpected array element.")
			}
			inQuotes = !inQuotes
			if inQuotes {
				state = apQuotedElemStarted
				leading = false
			} else {
				state = apQuotedElemCompleted
				curEnd = len(cur)
			}
			inElem = true
			hasQuoting = true
		case inQuotes:
			cur = append(cur, c)
		case c == '{':
			if state != apNoLevel && state != apLevelStarted && state != apLevelDelimited {
				return nil, nil, errArrayLiteral(orig, "Unexpected \"%c\" character.", '{')
			}
			state = apLevelStarted
			if nest >= MaxArrayDims {
				return nil, nil, pgerr.New(pgerrcode.ProgramLimitExceeded,
					"number of array dimensions (%d) exceeds the maximum allowed (%d)", nest+1, MaxArrayDims)
			}
			nest++
			if ndim < nest {
				ndim = nest
			}
		case c == '}':
			if state != apElemStarted && state != apElemCompleted && state != apQuotedElemCompleted &&
				state != apLevelCompleted && !(nest == 1 && state == apLevelStarted) {
				return nil, nil, errArrayLiteral(orig, "Unexpected \"%c\" character.", '}')
			}
			emptyLevel := state == apLevelStarted
			state = apLevelCompleted
			if nest == 0 {
				return nil, nil, errArrayLiteral(orig, "Unmatched \"%c\" character.", '}')
			}
			if err := finish(); err != nil {
				return nil, nil, err
			}
			nest--
			if !emptyLevel {
				if nelemsLast[nest] != 0 && nelems[nest] != nelemsLast[nest] {
					return nil, nil, errArrayLiteral(orig, "Multidimensional arrays must have sub-arrays with matching dimensions.")
				}
				nelemsLast[nest] = nelems[nest]
			}
			nelems[nest] = 1
			if nest == 0 {
				p++
				for ; p < len(s); p++ {
					if !isSpace(s[p]) {
						return nil, nil, errArrayLiteral(orig, "Junk after closing right brace.")
					}
				}
				if len(items) == 0 {
					return nil, nil, nil
				}
				dims = make([]int, ndim)
				for k := 0; k < ndim; k++ {
					dims[k] = nelemsLast[k]
				}
				n := 1
				for _, d := range dims {
					n *= d
				}
				if n != len(items) || elemDepth != ndim {
					return nil, nil, errArrayLiteral(orig, "Multidimensional arrays must have sub-arrays with matching dimensions.")
				}
				return dims, items, nil
			}
		case c == ',':
			if state != apElemStarted && state != apElemCompleted && state != apQuotedElemCompleted && state != apLevelCompleted {
				return nil, nil, errArrayLiteral(orig, "Unexpected \"%c\" character.", ',')
			}
			if state == apLevelCompleted {
				state = apLevelDelimited
			} else {
				state = apElemDelimited
			}
			if err := finish(); err != nil {
				return nil, nil, err
			}
			nelems[nest-1]++
		case isSpace(c):
			if !leading {
				cur = append(cur, c)
			}
		default:
			if state != apLevelStarted && state != apElemStarted && state != apElemDelimited {
				return nil, nil, errArrayLiteral(orig, "Unexpected array element.")
			}
			state = apElemStarted
			inElem = true
			cur = append(cur, c)
			leading = false
			curEnd = len(cur)
		}
		p++
	}
}

// parseArray is array_in for an array of elem (any number of dimensions).
// Explicit dimensions ("[1:2]={1,2}") are checked against the contents;
// cairn's arrays always start at 1, so a lower bound other than 1 is
// 0A000 rather than an array silently renumbered from 1.
func parseArray(s string, elem T, opts *TextOptions) (*Array, error) {
	p := 0
	var dims []int
	for {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p >= len(s) || s[p] != '[' {
			break
		}
		p++
		if len(dims) >= MaxArrayDims {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded,
				"number of array dimensions (%d) exceeds the maximum allowed (%d)", len(dims)+1, MaxArrayDims)
		}
		q := p
		for q < len(s) && (isDigit(s[q]) || s[q] == '-' || s[q] == '+') {
			q++
		}
		if q == p {
			return nil, errArrayLiteral(s, "\"[\" must introduce explicitly-specified array dimensions.")
		}
		lb := 1
		if q < len(s) && s[q] == ':' {
			lb = atoi(s[p:q])
			p = q + 1
			for q = p; q < len(s) && (isDigit(s[q]) || s[q] == '-' || s[q] == '+'); q++ {
			}
			if q == p {
				return nil, errArrayLiteral(s, "Missing array dimension value.")
			}
		}
		if q >= len(s) || s[q] != ']' {
			return nil, errArrayLiteral(s, "Missing \"%s\" after array dimensions.", "]")
		}
		ub := atoi(s[p:q])
		p = q + 1
		if ub < lb {
			return nil, pgerr.New(pgerrcode.ArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		if lb != 1 {
			return nil, pgerr.NotSupported("an array lower bound other than 1").WithDetail("The array literal \"%s\" starts at %d.", s, lb)
		}
		dims = append(dims, ub-lb+1)
	}
	var gotDims []int
	var items []arrayItem
	var err error
	if len(dims) == 0 {
		if p >= len(s) || s[p] != '{' {
			return nil, errArrayLiteral(s, "Array value must start with \"{\" or dimension information.")
		}
		gotDims, items, err = scanArray(s, s[p:])
		if err != nil {
			return nil, err
		}
	} else {
		if !strings.HasPrefix(s[p:], "=") {
			return nil, errArrayLiteral(s, "Missing \"%s\" after array dimensions.", "=")
		}
		p++
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p >= len(s) || s[p] != '{' {
			return nil, errArrayLiteral(s, "Array contents must start with \"{\".")
		}
		gotDims, items, err = scanArray(s, s[p:])
		if err != nil {
			return nil, err
		}
		if len(gotDims) != len(dims) {
			return nil, errArrayLiteral(s, "Specified array dimensions do not match array contents.")
		}
		for i := range dims {
			if dims[i] != gotDims[i] {
				return nil, errArrayLiteral(s, "Specified array dimensions do not match array contents.")
			}
		}
	}
	a := &Array{Elem: elem, Dims: gotDims}
	if len(items) > 0 {
		a.Elems = make([]any, len(items))
	}
	for i, it := range items {
		if it.null {
			continue
		}
		v, err := parseTextOpts(it.text, elem, opts)
		if err != nil {
			return nil, err
		}
		a.Elems[i] = v
	}
	return a, nil
}

// arrayNeedsQuote reports whether array_out quotes an element's text.
func arrayNeedsQuote(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '{', '}', ',':
			return true
		default:
			if isSpace(c) {
				return true
			}
		}
	}
	return false
}

// AppendQuotedElement appends s as a double-quoted array element (for
// building array literals): quotes and backslashes escaped.
func AppendQuotedElement(dst []byte, s string) []byte { return appendQuoted(dst, s, true) }

func appendQuoted(dst []byte, s string, quote bool) []byte {
	if !quote {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// appendArrayText appends array_out's form of a.
func appendArrayText(dst []byte, a *Array, opts *TextOptions) []byte {
	if len(a.Dims) == 0 || len(a.Elems) == 0 {
		return append(dst, "{}"...)
	}
	idx := 0
	var scratch []byte
	var rec func(level int)
	rec = func(level int) {
		dst = append(dst, '{')
		for i := 0; i < a.Dims[level]; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			if level+1 < len(a.Dims) {
				rec(level + 1)
				continue
			}
			if idx >= len(a.Elems) {
				dst = append(dst, "NULL"...)
				continue
			}
			e := a.Elems[idx]
			idx++
			if e == nil {
				dst = append(dst, "NULL"...)
				continue
			}
			scratch = appendText(scratch[:0], e, a.Elem, opts)
			dst = appendQuoted(dst, string(scratch), arrayNeedsQuote(string(scratch)))
		}
		dst = append(dst, '}')
	}
	rec(0)
	return dst
}

// appendRecordText appends record_out's form of a row whose field types
// are taken from the Go types of its values.
func appendRecordText(dst []byte, rec []any, opts *TextOptions) []byte {
	return AppendRecordText(dst, rec, nil, opts)
}

func errRecordLiteral(s, detail string) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "malformed record literal: \"%s\"", s).WithDetail("%s", detail)
}

// parseRecord reads a record literal "(a,b,...)" into its fields' de-quoted
// text (nil for an empty, NULL field), as record_in does before it calls
// the columns' input functions. Field types are not known for an anonymous
// record, so the fields stay strings.
func parseRecord(s string) ([]any, error) {
	p := 0
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '(' {
		return nil, errRecordLiteral(s, "Missing left parenthesis.")
	}
	p++
	var fields []any
	if p < len(s) && s[p] == ')' {
		// "()" is a record with one NULL column for PostgreSQL; with no
		// column list we read it as no columns.
		p++
	} else {
		for {
			if p < len(s) && (s[p] == ',' || s[p] == ')') {
				fields = append(fields, nil)
			} else {
				var buf []byte
				inQuote := false
				for {
					if p >= len(s) {
						return nil, errRecordLiteral(s, "Unexpected end of input.")
					}
					if !inQuote && (s[p] == ',' || s[p] == ')') {
						break
					}
					c := s[p]
					p++
					switch {
					case c == '\\':
						if p >= len(s) {
							return nil, errRecordLiteral(s, "Unexpected end of input.")
						}
						buf = append(buf, s[p])
						p++
					case c == '"':
						if !inQuote {
							inQuote = true
						} else if p < len(s) && s[p] == '"' {
							buf = append(buf, '"')
							p++
						} else {
							inQuote = false
						}
					default:
						buf = append(buf, c)
					}
				}
				fields = append(fields, string(buf))
			}
			if p >= len(s) {
				return nil, errRecordLiteral(s, "Unexpected end of input.")
			}
			if s[p] == ')' {
				p++
				break
			}
			p++ // ','
		}
	}
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return nil, errRecordLiteral(s, "Junk after right parenthesis.")
	}
	if fields == nil {
		fields = []any{}
	}
	return fields, nil
}

// VectorMaxDim is the most dimensions a vector value or a vector(n) type
// may have: pgvector's VECTOR_MAX_DIM.
const VectorMaxDim = 16000

func errVectorSyntax(s string) *pgerr.Error {
	return pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type vector: \"%s\"", s)
}

// parseVector is pgvector's vector_in.
func parseVector(s string) (*Array, error) {
	p := 0
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '[' {
		return nil, errVectorSyntax(s).WithDetail("Vector contents must start with \"[\".")
	}
	p++
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p < len(s) && s[p] == ']' {
		return nil, pgerr.New(pgerrcode.DataException, "vector must have at least 1 dimension")
	}
	var elems []any
	for {
		if len(elems) == VectorMaxDim {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "vector cannot have more than %d dimensions", VectorMaxDim)
		}
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p >= len(s) {
			return nil, errVectorSyntax(s)
		}
		v, n, _, err := strtodPrefix(s[p:], 32)
		if n == 0 {
			return nil, errVectorSyntax(s)
		}
		if err != nil && math.IsInf(v, 0) {
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "\"%s\" is out of range for type vector", s[p:p+n])
		}
		if math.IsNaN(v) {
			return nil, pgerr.New(pgerrcode.DataException, "NaN not allowed in vector")
		}
		if math.IsInf(v, 0) {
			return nil, pgerr.New(pgerrcode.DataException, "infinite value not allowed in vector")
		}
		elems = append(elems, float64(float32(v)))
		p += n
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p < len(s) && s[p] == ',' {
			p++
		} else if p < len(s) && s[p] == ']' {
			p++
			break
		} else {
			return nil, errVectorSyntax(s)
		}
	}
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return nil, errVectorSyntax(s).WithDetail("Junk after closing right brace.")
	}
	return &Array{Elem: Float4T, Dims: []int{len(elems)}, Elems: elems}, nil
}

// appendVectorText appends pgvector's vector_out form: [1,2.5,3].
func appendVectorText(dst []byte, a *Array) []byte {
	dst = append(dst, '[')
	for i, e := range a.Elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		f, _ := toFloat(e)
		dst = AppendFloat(dst, f, 32)
	}
	return append(dst, ']')
}
