package types

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzTypes are the types the fuzz targets pick from.
var fuzzTypes = []T{
	BoolT, Int2T, Int4T, Int8T, OidT, Float4T, Float8T, NumericT, TextT, NameT, ByteaT, UUIDT, JSONT, JSONBT,
	DateT, TimeT, TimestampT, TimestampTZT, IntervalT, ArrayOf(Int4T, 1), ArrayOf(TextT, 1), ArrayOf(NumericT, 2),
	Float4ArrayT, VectorOf(0), RecordT, ArrayOf(TimestampTZT, 1), ArrayOf(JSONBT, 1), ArrayOf(IntervalT, 1),
	InetT, CIDRT, MacAddrT, MacAddr8T, ArrayOf(InetT, 1),
}

// FuzzParseText checks that text input never panics and that whatever it
// accepts prints as text that reads back to the same value.
func FuzzParseText(f *testing.F) {
	for _, c := range oracleCases {
		for i, t := range fuzzTypes {
			if t.String() == oracleTypeName(c.typ) {
				f.Add(c.in, uint8(i))
			}
		}
	}
	for i := range fuzzTypes {
		f.Add("{1,2}", uint8(i))
	}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return // no client can send such text
		}
		typ := fuzzTypes[int(which)%len(fuzzTypes)]
		v, err := ParseText(s, typ)
		if err != nil {
			return
		}
		out := FormatText(v, typ)
		v2, err := ParseText(out, typ)
		if err != nil {
			if typ.Family == Interval || typ.Family == ArrayFamily && typ.Elem.Family == Interval {
				return // PostgreSQL cannot read every interval it prints either
			}
			t.Fatalf("%s %q printed as %q which does not read back: %v", typ, s, out, err)
		}
		if out2 := FormatText(v2, typ); out2 != out {
			t.Fatalf("%s %q: %q then %q", typ, s, out, out2)
		}
		if typ.Family != Record && Compare(v, v2, typ) != 0 {
			t.Fatalf("%s %q: value changed through its text %q", typ, s, out)
		}
		bin, err := EncodeBinary(nil, v, typ)
		if err != nil {
			t.Fatalf("%s %q: EncodeBinary: %v", typ, s, err)
		}
		v3, err := DecodeBinary(bin, typ)
		if err != nil {
			t.Fatalf("%s %q: DecodeBinary of our own bytes: %v", typ, s, err)
		}
		if out3 := FormatText(v3, typ); out3 != out {
			t.Fatalf("%s %q: binary round trip %q, want %q", typ, s, out3, out)
		}
		_ = KeyBytes(nil, v, typ)
	})
}

// oracleTypeName is the format_type name of an oracle case's type.
func oracleTypeName(name string) string {
	base, arr := name, ""
	for len(base) > 2 && base[len(base)-2:] == "[]" {
		base, arr = base[:len(base)-2], arr+"[]"
	}
	t, ok := Named(base)
	if !ok {
		return ""
	}
	return t.String() + arr
}

// FuzzDecodeBinary checks that binary input never panics and that what it
// accepts encodes back to bytes that decode to the same value.
func FuzzDecodeBinary(f *testing.F) {
	for i, t := range fuzzTypes {
		for _, c := range roundTripValues {
			if c.t.Equal(t) {
				if b, err := EncodeBinary(nil, c.v, t); err == nil {
					f.Add(b, uint8(i))
				}
			}
		}
		f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 7}, uint8(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		typ := fuzzTypes[int(which)%len(fuzzTypes)]
		v, err := DecodeBinary(b, typ)
		if err != nil {
			return
		}
		out := FormatText(v, typ)
		bin, err := EncodeBinary(nil, v, typ)
		if err != nil {
			t.Fatalf("%s %x: EncodeBinary: %v", typ, b, err)
		}
		v2, err := DecodeBinary(bin, typ)
		if err != nil {
			t.Fatalf("%s %x: re-decoding %x: %v", typ, b, bin, err)
		}
		if out2 := FormatText(v2, typ); out2 != out {
			t.Fatalf("%s %x: %q then %q", typ, b, out, out2)
		}
		_ = KeyBytes(nil, v, typ)
		_ = Compare(v, v2, typ)
	})
}
