package types

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
)

func TestDecodeBinaryErrors(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	int4Arr := ArrayOf(Int4T, 1)
	for _, c := range []struct {
		t    T
		in   []byte
		code string
		msg  string
	}{
		{Int4T, h("000001"), "08P01", "insufficient data left in message"},
		{Int4T, h("0000000100"), "22P03", "incorrect binary data format"},
		{Int8T, nil, "08P01", "insufficient data left in message"},
		{BoolT, h("0101"), "22P03", "incorrect binary data format"},
		{InternalCharT, h("61ff"), "22P03", "incorrect binary data format"},
		{InternalCharT, nil, "08P01", "insufficient data left in message"},
		{UUIDT, h("00"), "08P01", "insufficient data left in message"},
		{Float8T, h("3ff0"), "08P01", "insufficient data left in message"},
		{IntervalT, h("00"), "08P01", "insufficient data left in message"},
		{NumericT, h("00010000000000"), "08P01", "insufficient data left in message"},
		{NumericT, h("0001 0000 1234 0000 0001"), "22P03", `invalid sign in external "numeric" value`},
		{NumericT, h("0001 0000 0000 0000 2710"), "22P03", `invalid digit in external "numeric" value`},
		{NumericT, h("0000 0000 0000 4000"), "22P03", `invalid scale in external "numeric" value`},
		{NumericT, h("0002 0000 0000 0000 0001"), "08P01", "insufficient data left in message"},
		{NumericT, h("0001 0000 0000 0000 0001 00"), "22P03", "incorrect binary data format"},
		{JSONBT, h("02 7b7d"), "22P03", "unsupported jsonb version number 2"},
		{JSONBT, nil, "08P01", "insufficient data left in message"},
		{JSONBT, h("01 7b"), "22P02", "invalid input syntax for type json"},
		{JSONT, h("5b"), "22P02", "invalid input syntax for type json"},
		{TextT, h("61ff62"), "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{TextT, h("6100"), "22021", `invalid byte sequence for encoding "UTF8": 0x00`},
		{TextT, h("61e282"), "22021", `invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
		{TimeT, h("0000001421c0e7ff"), "22008", "time out of range"},
		{TimeT, h("ffffffffffffffff"), "22008", "time out of range"},
		{DateT, h("7ffffff0"), "22008", "date out of range"},
		{TimestampT, h("7ffffffffffffff0"), "22008", "timestamp out of range"},
		{int4Arr, h("ffffffff 00000000 00000017"), "22P03", "invalid number of dimensions: -1"},
		{int4Arr, h("00000007 00000000 00000017"), "54000", "number of array dimensions (7) exceeds the maximum allowed (6)"},
		{int4Arr, h("00000001 00000002 00000017"), "22P03", "invalid array flags"},
		{int4Arr, h("00000001 00000000 00000019 00000001 00000001 00000004 00000001"), "42804", "binary data has array element type 25 (text) instead of expected 23 (integer)"},
		{int4Arr, h("00000001 00000000 0001869f 00000001 00000001 00000004 00000001"), "42804", "binary data has array element type 99999 (???) instead of expected 23 (integer)"},
		{int4Arr, h("00000001 00000000 00000017"), "08P01", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000002 00000001 00000004 00000001"), "08P01", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000002 00000001 00000004 00000001 0000"), "08P01", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000001 00000001 00000008 00000001"), "22P03", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000001 00000001 00000005 0000000100"), "22P03", "improper binary format in array element 1"},
		{int4Arr, h("00000001 00000000 00000017 00000001 00000001 00000003 000001"), "08P01", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000001 00000001 fffffffe"), "22P03", "insufficient data left in message"},
		{int4Arr, h("00000001 00000000 00000017 00000001 00000001 00000004 00000001 ff"), "22P03", "incorrect binary data format"},
		{int4Arr, h("00000002 00000000 00000017 7fffffff 00000001 7fffffff 00000001"), "54000", "array size exceeds the maximum allowed (134217727)"},
		{int4Arr, h("00000001 00000000 00000017 ffffffff 00000001"), "54000", "array size exceeds the maximum allowed (134217727)"},
		{int4Arr, h("00000001 00000000 00000017 00000001 7fffffff 00000004 00000001"), "54000", "array lower bound is too large: 2147483647"},
		// A lexeme is text: invalid UTF-8 is 22021, as in PostgreSQL's
		// tsvectorrecv and tsqueryrecv (it was stored and sent back as is).
		{TSVectorT, h("00000001 ff00 0000"), "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{TSQueryT, h("00000001 01 00 00 ff00"), "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{ArrayOf(NumericT, 1), h("00000001 00000000 000006a4 00000001 00000001 00000009 0000 0000 0000 0000 00"), "22P03", "improper binary format in array element 1"},
		{RecordT, h("00000001 00000017 00000004 00000001 00"), "22P03", "incorrect binary data format"},
		{RecordT, h("00000002 00000017"), "08P01", "insufficient data left in message"},
		{VectorOf(0), h("0002 0000 3f800000"), "08P01", "insufficient data left in message"},
	} {
		_, err := DecodeBinary(c.in, c.t)
		if err == nil {
			t.Errorf("DecodeBinary(%x, %s) succeeded, want %s %s", c.in, c.t, c.code, c.msg)
			continue
		}
		pe := pgerr.From(err)
		if pe.Code != c.code || pe.Message != c.msg {
			t.Errorf("DecodeBinary(%x, %s) = %s %q, want %s %q", c.in, c.t, pe.Code, pe.Message, c.code, c.msg)
		}
	}
}

func TestEncodeBinaryErrors(t *testing.T) {
	if _, err := EncodeBinary(nil, nil, Int4T); err == nil {
		t.Error("NULL encoded")
	}
	if _, err := EncodeBinary(nil, "x", Int4T); err == nil {
		t.Error("string encoded as integer")
	}
	if _, err := EncodeBinary(nil, int64(1<<40), Int4T); pgerr.Code(err) != "22003" {
		t.Errorf("int4 overflow: %v", err)
	}
	if _, err := EncodeBinary(nil, &Array{Elem: Int4T, Dims: []int{3}, Elems: []any{int64(1)}}, ArrayOf(Int4T, 1)); err == nil {
		t.Error("inconsistent array encoded")
	}
}

func TestBinaryArrayOfUnknownElem(t *testing.T) {
	b, err := EncodeBinary(nil, NewArray(Int8T, int64(1), int64(2)), ArrayOf(Int8T, 1))
	if err != nil {
		t.Fatal(err)
	}
	// An array parameter whose element type is not known yet takes it
	// from the data.
	v, err := DecodeBinary(b, ArrayOf(UnknownT, 1))
	if err != nil {
		t.Fatal(err)
	}
	if a := v.(*Array); !a.Elem.Equal(Int8T) || FormatText(a, ArrayOf(Int8T, 1)) != "{1,2}" {
		t.Errorf("decoded %v", a)
	}
}

// TestInternalCharBinary checks "char" in the binary format: one byte
// each way, the NUL byte for the "" datum (empty text input), and a byte
// with the high bit set, which prints as its octal escape in text.
func TestInternalCharBinary(t *testing.T) {
	for _, c := range []struct {
		in   byte
		text string
	}{{'a', "a"}, {0, ""}, {0xc3, `\303`}} {
		v, err := DecodeBinary([]byte{c.in}, InternalCharT)
		if err != nil {
			t.Fatalf("%#x: %v", c.in, err)
		}
		if got := string(AppendText(nil, v, InternalCharT, nil)); got != c.text {
			t.Errorf("%#x prints as %q, want %q", c.in, got, c.text)
		}
		out, err := EncodeBinary(nil, v, InternalCharT)
		if err != nil || len(out) != 1 || out[0] != c.in {
			t.Errorf("%#x sent as %x, %v", c.in, out, err)
		}
		back, err := ParseText(c.text, InternalCharT)
		if err != nil || back != v {
			t.Errorf("%q reads back as %q, %v; want %q", c.text, back, err, v)
		}
	}
}
