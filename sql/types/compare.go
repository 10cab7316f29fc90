package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
)

func cmpInt[N int | int32 | int64 | uint32 | uint64](a, b N) int {
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

// CompareFloat orders two floats as PostgreSQL's float8_cmp (and
// float4_cmp) does, for every float comparison, sort and min/max: NaN
// equals NaN and sorts above every other value, including +Infinity; -0
// equals 0. It returns -1, 0 or 1.
func CompareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// trimBlanks strips the trailing spaces bpchar comparison ignores.
func trimBlanks(s string) string {
	return strings.TrimRight(s, " ")
}

// intervalSpan is an interval as PostgreSQL compares it: one 128-bit
// microsecond count with a month as 30 days and a day as 24 hours.
func intervalSpan(iv IntervalValue) (hi int64, lo uint64) {
	days := int64(iv.Months)*30 + int64(iv.Days)
	// days * MicrosPerDay as a 128-bit product.
	neg := days < 0
	ud := uint64(days)
	if neg {
		ud = uint64(-days)
	}
	h, l := bits.Mul64(ud, uint64(MicrosPerDay))
	if neg {
		l = ^l + 1
		h = ^h
		if l == 0 {
			h++
		}
	}
	// Add the sign-extended micros.
	m := uint64(iv.Micros)
	mh := uint64(0)
	if iv.Micros < 0 {
		mh = math.MaxUint64
	}
	var carry uint64
	l, carry = bits.Add64(l, m, 0)
	h, _ = bits.Add64(h, mh, carry)
	return int64(h), l
}

func compareInterval(a, b IntervalValue) int {
	ah, al := intervalSpan(a)
	bh, bl := intervalSpan(b)
	if ah != bh {
		return cmpInt(ah, bh)
	}
	return cmpInt(al, bl)
}

// Compare orders two non-NULL datums of type t as PostgreSQL's btree
// comparison does: NaN sorts above all floats and numerics, text compares
// bytewise (C collation), char ignores trailing spaces, intervals compare
// as 30-day months, arrays element by element (NULL elements last, then
// by length and dimensions), jsonb by its own rules. Values of Go types
// other than t's compare by their Go type (see TypeOfValue). It returns
// -1, 0 or 1.
func Compare(a, b any, t T) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		}
		return -1
	}
	switch t.Family {
	case Bool:
		x, ok1 := a.(bool)
		y, ok2 := b.(bool)
		if ok1 && ok2 {
			return cmpBool(x, y)
		}
	case Int2, Int4, Int8, Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		x, ok1 := toInt64(a)
		y, ok2 := toInt64(b)
		if ok1 && ok2 {
			return cmpInt(x, y)
		}
	case Float4, Float8:
		x, ok1 := toFloat(a)
		y, ok2 := toFloat(b)
		if ok1 && ok2 {
			return CompareFloat(x, y)
		}
	case Numeric:
		x, ok1 := toDecimal(a)
		y, ok2 := toDecimal(b)
		if ok1 && ok2 {
			return CompareNumeric(x, y)
		}
	case Char:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if ok1 && ok2 {
			return strings.Compare(trimBlanks(x), trimBlanks(y))
		}
	case JSONB:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if ok1 && ok2 {
			return compareJSONB(x, y)
		}
	case Text, Varchar, Name, InternalChar, JSON, JSONPath, TSVector, TSQuery, Unknown:
		x, ok1 := a.(string)
		y, ok2 := b.(string)
		if ok1 && ok2 {
			if t.Enum != nil {
				return compareEnum(t.Enum, x, y)
			}
			return strings.Compare(x, y)
		}
	case Bytea:
		x, ok1 := a.([]byte)
		y, ok2 := b.([]byte)
		if ok1 && ok2 {
			return bytes.Compare(x, y)
		}
	case UUID:
		x, ok1 := toUUID(a)
		y, ok2 := toUUID(b)
		if ok1 && ok2 {
			return bytes.Compare(x[:], y[:])
		}
	case Inet, CIDR, MacAddr, MacAddr8:
		if c, ok := compareNet(a, b, t); ok {
			return c
		}
	case DateFamily:
		x, ok1 := toDate(a)
		y, ok2 := toDate(b)
		if ok1 && ok2 {
			return cmpInt(int32(x), int32(y))
		}
	case Time:
		x, ok1 := toTimeOfDay(a)
		y, ok2 := toTimeOfDay(b)
		if ok1 && ok2 {
			return cmpInt(int64(x), int64(y))
		}
	case TimestampFamily, TimestampTZ:
		x, ok1 := toTimestamp(a)
		y, ok2 := toTimestamp(b)
		if ok1 && ok2 {
			return cmpInt(int64(x), int64(y))
		}
	case Interval:
		x, ok1 := toInterval(a)
		y, ok2 := toInterval(b)
		if ok1 && ok2 {
			return compareInterval(x, y)
		}
	case ArrayFamily:
		x, ok1 := a.(*Array)
		y, ok2 := b.(*Array)
		if ok1 && ok2 {
			elem := x.Elem
			if elem.Family == Unknown && t.Elem != nil {
				elem = *t.Elem
			}
			return compareArrays(x, y, elem)
		}
	case Vector:
		xa, ok1 := vectorFloats(a)
		ya, ok2 := vectorFloats(b)
		if ok1 && ok2 {
			n := min(len(xa), len(ya))
			for i := 0; i < n; i++ {
				if xa[i] < ya[i] {
					return -1
				}
				if xa[i] > ya[i] {
					return 1
				}
			}
			return cmpInt(len(xa), len(ya))
		}
	case Record:
		x, ok1 := a.([]any)
		y, ok2 := b.([]any)
		if ok1 && ok2 {
			n := min(len(x), len(y))
			for i := 0; i < n; i++ {
				ft := TypeOfValue(x[i])
				if ft.Family == Unknown {
					ft = TypeOfValue(y[i])
				}
				if c := Compare(x[i], y[i], ft); c != 0 {
					return c
				}
			}
			return cmpInt(len(x), len(y))
		}
	}
	// Mismatched Go types: compare by what they are.
	ta, tb := TypeOfValue(a), TypeOfValue(b)
	if ta.Family == tb.Family && ta.Family != t.Family && ta.Family != Unknown {
		return Compare(a, b, ta)
	}
	if ta.IsNumeric() && tb.IsNumeric() {
		x, _ := toDecimal(a)
		y, _ := toDecimal(b)
		if x != nil && y != nil {
			return CompareNumeric(x, y)
		}
	}
	return strings.Compare(FormatText(a, ta), FormatText(b, tb))
}

func vectorFloats(v any) ([]float32, bool) {
	switch x := v.(type) {
	case []float32:
		return x, true
	case *Array:
		return x.Float32s()
	}
	return nil, false
}

// compareArrays is array_cmp.
func compareArrays(a, b *Array, elem T) int {
	n := min(len(a.Elems), len(b.Elems))
	for i := 0; i < n; i++ {
		x, y := a.Elems[i], b.Elems[i]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := Compare(x, y, elem); c != 0 {
			return c
		}
	}
	if len(a.Elems) != len(b.Elems) {
		return cmpInt(len(a.Elems), len(b.Elems))
	}
	ad, bd := len(a.Dims), len(b.Dims)
	if len(a.Elems) == 0 {
		ad, bd = 0, 0
	}
	if ad != bd {
		return cmpInt(ad, bd)
	}
	for i := 0; i < ad; i++ {
		if a.Dims[i] != b.Dims[i] {
			return cmpInt(a.Dims[i], b.Dims[i])
		}
	}
	return 0
}

func appendUvarint(dst []byte, v uint64) []byte {
	return binary.AppendUvarint(dst, v)
}

// KeyBytes appends a byte encoding of datum v of type t for grouping and
// hashing: values that Compare equal give equal bytes (numeric 1.0 and
// 1.00, float -0 and 0, all NaNs, char with and without trailing spaces,
// interval 1 mon and 30 days, jsonb numbers by value) and unequal values
// give different bytes. Encodings are self-delimiting, so the keys of
// several columns can be concatenated. NULL (nil), at the top or inside an
// array or record, is the single byte 0; every other value starts with 1.
func KeyBytes(dst []byte, v any, t T) []byte {
	if v == nil {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	switch t.Family {
	case Bool:
		if x, ok := v.(bool); ok {
			if x {
				return append(dst, 1)
			}
			return append(dst, 0)
		}
	case Int2, Int4, Int8, Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		if x, ok := toInt64(v); ok {
			return binary.BigEndian.AppendUint64(dst, uint64(x))
		}
	case Float4, Float8:
		if x, ok := toFloat(v); ok {
			return binary.BigEndian.AppendUint64(dst, FloatKeyBits(x))
		}
	case Numeric:
		if d, ok := toDecimal(v); ok {
			return appendNumericKey(dst, d)
		}
	case Char:
		if s, ok := v.(string); ok {
			s = trimBlanks(s)
			dst = appendUvarint(dst, uint64(len(s)))
			return append(dst, s...)
		}
	case JSONB:
		if s, ok := v.(string); ok {
			return appendJSONBKey(dst, s)
		}
	case Text, Varchar, Name, InternalChar, JSON, JSONPath, TSVector, TSQuery, Unknown, Bytea:
		switch x := v.(type) {
		case string:
			dst = appendUvarint(dst, uint64(len(x)))
			return append(dst, x...)
		case []byte:
			dst = appendUvarint(dst, uint64(len(x)))
			return append(dst, x...)
		}
	case UUID:
		if u, ok := toUUID(v); ok {
			return append(dst, u[:]...)
		}
	case Inet, CIDR, MacAddr, MacAddr8:
		if out, ok := appendNetKey(dst, v, t); ok {
			return out
		}
	case DateFamily:
		if d, ok := toDate(v); ok {
			return binary.BigEndian.AppendUint32(dst, uint32(d))
		}
	case Time:
		if x, ok := toTimeOfDay(v); ok {
			return binary.BigEndian.AppendUint64(dst, uint64(x))
		}
	case TimestampFamily, TimestampTZ:
		if x, ok := toTimestamp(v); ok {
			return binary.BigEndian.AppendUint64(dst, uint64(x))
		}
	case Interval:
		if x, ok := toInterval(v); ok {
			hi, lo := intervalSpan(x)
			dst = binary.BigEndian.AppendUint64(dst, uint64(hi))
			return binary.BigEndian.AppendUint64(dst, lo)
		}
	case ArrayFamily:
		if a, ok := v.(*Array); ok {
			elem := a.Elem
			if elem.Family == Unknown && t.Elem != nil {
				elem = *t.Elem
			}
			if len(a.Elems) == 0 {
				return append(dst, 0)
			}
			dst = appendUvarint(dst, uint64(len(a.Dims)))
			for _, d := range a.Dims {
				dst = appendUvarint(dst, uint64(d))
			}
			for _, e := range a.Elems {
				dst = KeyBytes(dst, e, elem)
			}
			return dst
		}
	case Vector:
		if xs, ok := vectorFloats(v); ok {
			dst = appendUvarint(dst, uint64(len(xs)))
			for _, x := range xs {
				dst = binary.BigEndian.AppendUint64(dst, FloatKeyBits(float64(x)))
			}
			return dst
		}
	case Record:
		if r, ok := v.([]any); ok {
			dst = appendUvarint(dst, uint64(len(r)))
			for _, f := range r {
				dst = KeyBytes(dst, f, TypeOfValue(f))
			}
			return dst
		}
	}
	// A Go value of another type than t's: key it as what it is, marked
	// so that it cannot collide with a value of t.
	vt := TypeOfValue(v)
	if vt.Family != Unknown && vt.Family != t.Family {
		dst = append(dst, 0xfe, byte(vt.Family))
		return KeyBytes(dst, v, vt)
	}
	s := FormatText(v, t)
	dst = append(dst, 0xff)
	dst = appendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// FloatKeyBits are the bits of f with PostgreSQL's float equality applied:
// -0 is 0 and every NaN is one NaN, which sorts above +Infinity when the
// bits are read as an ordered key (see CompareFloat). Hash and sort keys
// of floats are built from them.
func FloatKeyBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if math.IsNaN(f) {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}
