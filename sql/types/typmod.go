package types

import (
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// ApplyTypmod coerces datum v to t's modifier (t.Mod), as the length
// coercion PostgreSQL applies on assignment and casts:
//
//   - varchar(n): longer values are a 22001 "value too long for type
//     character varying(n)" error unless the excess is all spaces; an
//     explicit cast truncates instead.
//   - char(n): as varchar(n), and shorter values are blank-padded to n.
//   - numeric(p,s): rounded to s digits (half away from zero); too many
//     integer digits are a 22003 "numeric field overflow".
//   - vector(n): a different dimension is a 22000 error.
//   - timestamp(p), timestamptz(p), time(p) with Mod 0..6: fractional
//     seconds rounded to p digits.
//   - interval with fields or a precision (Mod packed as PostgreSQL's
//     INTERVAL_TYPMOD): the fields below the range dropped, seconds rounded.
//   - arrays: the element type's modifier applies to each element.
//
// NULL and types without a modifier pass through unchanged. Lengths count
// characters, not bytes.
func ApplyTypmod(v any, t T, explicit bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Family {
	case Varchar, Char:
		s, ok := v.(string)
		if !ok || t.Mod < 0 {
			if ok && t.Family == Char {
				return s, nil
			}
			return v, nil
		}
		n := int(t.Mod)
		count := utf8.RuneCountInString(s)
		if count > n {
			cut := byteOffsetOfRune(s, n)
			if !explicit {
				for i := cut; i < len(s); i++ {
					if s[i] != ' ' {
						return nil, pgerr.New(pgerrcode.StringDataRightTruncationDataException, "value too long for type %s", t.String())
					}
				}
			}
			s = s[:cut]
			count = n
		}
		if t.Family == Char && count < n {
			b := make([]byte, 0, len(s)+n-count)
			b = append(b, s...)
			for i := count; i < n; i++ {
				b = append(b, ' ')
			}
			s = string(b)
		}
		return s, nil
	case Numeric:
		if t.Mod < 0 {
			return v, nil
		}
		d, ok := toDecimal(v)
		if !ok {
			return v, nil
		}
		return applyNumericTypmod(d, t.Mod)
	case Vector:
		if t.Mod <= 0 {
			return v, nil
		}
		n := -1
		switch x := v.(type) {
		case *Array:
			n = len(x.Elems)
		case []float32:
			n = len(x)
		}
		if n >= 0 && n != int(t.Mod) {
			return nil, pgerr.New(pgerrcode.DataException, "expected %d dimensions, not %d", t.Mod, n)
		}
		return v, nil
	case TimestampFamily, TimestampTZ:
		if t.Mod < 0 || t.Mod > 6 {
			return v, nil
		}
		ts, ok := toTimestamp(v)
		if !ok || ts.IsInfinite() {
			return v, nil
		}
		return Timestamp(roundMicros(int64(ts), int(t.Mod))), nil
	case Time:
		if t.Mod < 0 || t.Mod > 6 {
			return v, nil
		}
		tod, ok := toTimeOfDay(v)
		if !ok {
			return v, nil
		}
		return TimeOfDay(roundMicros(int64(tod), int(t.Mod))), nil
	case Interval:
		iv, ok := toInterval(v)
		if !ok || t.Mod < 0 {
			return v, nil
		}
		return adjustInterval(iv, t.Mod), nil
	case ArrayFamily:
		a, ok := v.(*Array)
		if !ok || t.Elem == nil || !hasTypmod(*t.Elem) {
			return v, nil
		}
		out := &Array{Elem: a.Elem, Dims: a.Dims, Elems: make([]any, len(a.Elems))}
		for i, e := range a.Elems {
			r, err := ApplyTypmod(e, *t.Elem, explicit)
			if err != nil {
				return nil, err
			}
			out.Elems[i] = r
		}
		return out, nil
	}
	return v, nil
}

func hasTypmod(t T) bool {
	switch t.Family {
	case Varchar, Numeric, Vector, TimestampFamily, TimestampTZ, Time, Interval:
		return t.Mod >= 0
	case Char:
		return true
	}
	return false
}

func byteOffsetOfRune(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

var pow10Int = [7]int64{1000000, 100000, 10000, 1000, 100, 10, 1}

// roundMicros rounds a microsecond count to prec fractional digits, half
// away from zero (AdjustTimestampForTypmod).
func roundMicros(us int64, prec int) int64 {
	unit := pow10Int[prec]
	if unit == 1 {
		return us
	}
	if us >= 0 {
		return (us + unit/2) / unit * unit
	}
	return -((-us + unit/2) / unit * unit)
}
