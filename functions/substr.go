package functions

// substr and substring: by character position and length (SQL's
// semantics for start < 1), on text and bytea; substring(text, pattern)
// returns the first regular-expression match (or its first group), and
// substring(text, pattern, escape), which substring(x SIMILAR p ESCAPE e)
// is, the part of a SIMILAR TO match between the escape-double-quote
// separators (the whole match without them), NULL for no match.

import (
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	for _, name := range []string{"substr", "substring"} {
		Register(
			fn(name, targs(tText, tInt4), tText, func(_ *Context, a []any) (any, error) {
				return substrText(a[0].(string), a[1].(int64), -1, false)
			}),
			fn(name, targs(tText, tInt4, tInt4), tText, func(_ *Context, a []any) (any, error) {
				return substrText(a[0].(string), a[1].(int64), a[2].(int64), true)
			}),
			fn(name, targs(types.ByteaT, tInt4), types.ByteaT, func(_ *Context, a []any) (any, error) {
				return substrBytes(a[0].([]byte), a[1].(int64), -1, false)
			}),
			fn(name, targs(types.ByteaT, tInt4, tInt4), types.ByteaT, func(_ *Context, a []any) (any, error) {
				return substrBytes(a[0].([]byte), a[1].(int64), a[2].(int64), true)
			}),
		)
	}
	Register(fn("substring", targs(tText, tText), tText, func(_ *Context, a []any) (any, error) {
		re, err := compileRegex(a[1].(string), "")
		if err != nil {
			return nil, err
		}
		m := re.FindStringSubmatchIndex(a[0].(string))
		if m == nil {
			return nil, nil
		}
		if len(m) > 2 {
			if m[2] < 0 {
				return nil, nil
			}
			return a[0].(string)[m[2]:m[3]], nil
		}
		return a[0].(string)[m[0]:m[1]], nil
	}), fn("substring", targs(tText, tText, tText), tText, func(_ *Context, a []any) (any, error) {
		src, err := similarSubstringRegex(a[1].(string), a[2].(string))
		if err != nil {
			return nil, err
		}
		re, err := compileRegex(src, "")
		if err != nil {
			return nil, err
		}
		m := re.FindStringSubmatchIndex(a[0].(string))
		switch {
		case m == nil || len(m) > 2 && m[2] < 0:
			return nil, nil
		case len(m) > 2:
			return a[0].(string)[m[2]:m[3]], nil
		}
		return a[0].(string)[m[0]:m[1]], nil
	}))
}

// substrRange turns SQL's 1-based start and length into a half-open
// range [from, to) of positions 0..n, clamped.
func substrRange(start, length int64, hasLen bool, n int) (int, int, error) {
	if hasLen && length < 0 {
		return 0, 0, pgerr.New(pgerrcode.SubstringError, "negative substring length not allowed")
	}
	from := start - 1
	to := int64(n)
	if hasLen {
		to = from + length
		if length > 0 && to < from { // overflow
			to = int64(n)
		}
	}
	if from < 0 {
		from = 0
	}
	if to > int64(n) {
		to = int64(n)
	}
	if from >= to {
		return 0, 0, nil
	}
	return int(from), int(to), nil
}

func substrText(s string, start, length int64, hasLen bool) (any, error) {
	n := utf8.RuneCountInString(s)
	from, to, err := substrRange(start, length, hasLen, n)
	if err != nil {
		return nil, err
	}
	if from == to {
		return "", nil
	}
	if n == len(s) {
		return s[from:to], nil
	}
	i, bfrom := 0, -1
	for pos := range s {
		if i == from {
			bfrom = pos
		}
		if i == to {
			return s[bfrom:pos], nil
		}
		i++
	}
	return s[bfrom:], nil
}

func substrBytes(b []byte, start, length int64, hasLen bool) (any, error) {
	from, to, err := substrRange(start, length, hasLen, len(b))
	if err != nil {
		return nil, err
	}
	return append([]byte{}, b[from:to]...), nil
}
