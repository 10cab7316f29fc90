package types

import (
	"bytes"
	"math"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
)

// slowFloat is the obvious two-pass form of AppendFloat, to check the fast
// one against.
func slowFloat(f float64, bitSize int) string {
	if bitSize == 32 {
		f = float64(float32(f))
	}
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if bitSize == 32 {
		f = float64(float32(f))
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
	exp, _ := strconv.Atoi(e[bytes.IndexByte([]byte(e), 'e')+1:])
	upper := 15
	if bitSize == 32 {
		upper = 6
	}
	if exp < -4 || exp >= upper {
		return e
	}
	return strconv.FormatFloat(f, 'f', -1, bitSize)
}

func TestAppendFloatPostgres(t *testing.T) {
	for _, c := range floatCases {
		f := math.Float64frombits(c.ieee)
		if c.bits == 32 {
			f = float64(math.Float32frombits(uint32(c.ieee)))
		}
		if got := string(AppendFloat(nil, f, c.bits)); got != c.pg {
			t.Errorf("float%d %v (%#x): %q, PostgreSQL %q", c.bits/8, f, c.ieee, got, c.pg)
		}
		typ := Float8T
		if c.bits == 32 {
			typ = Float4T
		}
		if v, err := ParseText(c.pg, typ); err != nil || math.Float64bits(v.(float64)) != math.Float64bits(f) {
			t.Errorf("float%d %q reads back as %v, %v", c.bits/8, c.pg, v, err)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1e15, 64, "1e+15"}, {1e14, 64, "100000000000000"}, {123456789012345.6, 64, "123456789012345.6"},
		{0.0001, 64, "0.0001"}, {0.00001, 64, "1e-05"}, {1e6, 32, "1e+06"}, {999999, 32, "999999"},
		{1.5e-5, 32, "1.5e-05"}, {math.Copysign(0, -1), 64, "-0"}, {math.Inf(1), 64, "Infinity"},
		{math.NaN(), 32, "NaN"}, {1e100, 64, "1e+100"}, {1.23e-100, 64, "1.23e-100"}, {0.1, 32, "0.1"},
		{0.1, 64, "0.1"}, {float64(float32(0.1)), 64, "0.10000000149011612"}, {-2.5, 64, "-2.5"},
		{123456.7, 32, "123456.7"}, {1234567, 32, "1.234567e+06"}, {5e-324, 64, "5e-324"}, {-0.00012, 64, "-0.00012"},
	} {
		if got := string(AppendFloat(nil, c.f, c.bits)); got != c.want {
			t.Errorf("AppendFloat(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		var f float64
		switch i % 4 {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = float64(math.Float32frombits(rng.Uint32()))
		case 2:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20))
		default:
			f = float64(rng.Intn(2000000)-1000000) / math.Pow(10, float64(rng.Intn(8)))
		}
		for _, bits := range []int{32, 64} {
			got, plain := string(AppendFloat(nil, f, bits)), slowFloat(f, bits)
			// PostgreSQL's Ryu differs from a plain shortest formatting
			// only for ties and integers at or above 2^53 (2^24), where
			// it may need more digits (see floatCases).
			if limit := map[int]float64{32: 1 << 24, 64: 1 << 53}[bits]; got != plain && len(got) < len(plain) ||
				got != plain && math.Abs(f) < limit && len(got) != len(plain) {
				t.Fatalf("AppendFloat(%v, %d) = %q, plain %q", f, bits, got, plain)
			}
			if !math.IsNaN(f) {
				back, err := ParseText(got, map[int]T{32: Float4T, 64: Float8T}[bits])
				if err != nil {
					t.Fatalf("ParseText(%q): %v", got, err)
				}
				want := f
				if bits == 32 {
					want = float64(float32(f))
				}
				if back.(float64) != want && !(math.IsInf(want, 0) && math.IsInf(back.(float64), 0)) {
					t.Fatalf("%q read back as %v, want %v", got, back, want)
				}
			}
		}
	}
}

// roundTripValues are datums of every family with their PostgreSQL text.
var roundTripValues = []struct {
	t    T
	v    any
	text string
}{
	{BoolT, true, "t"},
	{BoolT, false, "f"},
	{Int2T, int64(-32768), "-32768"},
	{Int4T, int64(2147483647), "2147483647"},
	{Int8T, int64(math.MinInt64), "-9223372036854775808"},
	{OidT, int64(4294967295), "4294967295"},
	{Float4T, float64(float32(3.25)), "3.25"},
	{Float4T, math.Inf(-1), "-Infinity"},
	{Float8T, 0.1, "0.1"},
	{Float8T, math.Copysign(0, -1), "-0"},
	{Float8T, 1e300, "1e+300"},
	{NumericT, NewNumeric("12345678901234567890.123456789"), "12345678901234567890.123456789"},
	{NumericT, NewNumeric("-0.000100"), "-0.000100"},
	{NumericT, NewNumeric("0.00"), "0.00"},
	{NumericT, NewNumeric("NaN"), "NaN"},
	{NumericT, NewNumeric("-Infinity"), "-Infinity"},
	{NumericT, NewNumeric("10000"), "10000"},
	{NumericT, NewNumeric("9999.0001"), "9999.0001"},
	{NumericT, NewNumeric("0.1"), "0.1"},
	{NumericT, NewNumeric("1e-20"), "0.00000000000000000001"},
	{TextT, "héllo, \"world\"", "héllo, \"world\""},
	{VarcharT, "", ""},
	{CharT, "ab ", "ab "},
	{NameT, "pg_class", "pg_class"},
	{ByteaT, []byte{0, 1, 0xfe, 0xff}, `\x0001feff`},
	{ByteaT, []byte{}, `\x`},
	{UUIDT, [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{JSONT, `{"b": 1,  "a":[1, 2.50]}`, `{"b": 1,  "a":[1, 2.50]}`},
	{JSONBT, `{"a": [1, 2.50], "b": 1}`, `{"a": [1, 2.50], "b": 1}`},
	{JSONBT, `"x\ny"`, `"x\ny"`},
	{DateT, DateFromYMD(2024, 2, 29), "2024-02-29"},
	{DateT, DateFromYMD(-43, 3, 15), "0044-03-15 BC"},
	{DateT, DateInfinity, "infinity"},
	{DateT, DateNegInfinity, "-infinity"},
	{DateT, DateFromYMD(1970, 1, 1), "1970-01-01"},
	{TimeT, MakeTimeOfDay(4, 5, 6, 789000), "04:05:06.789"},
	{TimeT, TimeOfDay(MicrosPerDay), "24:00:00"},
	{TimestampT, MakeTimestamp(2024, 1, 2, 3, 4, 5, 123456), "2024-01-02 03:04:05.123456"},
	{TimestampT, MakeTimestamp(-43, 3, 15, 10, 0, 0, 0), "0044-03-15 10:00:00 BC"},
	{TimestampT, TimestampInfinity, "infinity"},
	{TimestampT, Timestamp(-1), "1969-12-31 23:59:59.999999"},
	{TimestampTZT, MakeTimestamp(2024, 1, 2, 3, 4, 5, 0), "2024-01-02 03:04:05+00"},
	{TimestampTZT, TimestampNegInfinity, "-infinity"},
	{IntervalT, IntervalValue{Months: 14, Days: 3, Micros: 4*MicrosPerHour + 5*MicrosPerMinute + 6500000}, "1 year 2 mons 3 days 04:05:06.5"},
	{IntervalT, IntervalValue{Micros: -MicrosPerSecond}, "-00:00:01"},
	{IntervalT, IntervalValue{Days: -1, Micros: 2 * MicrosPerHour}, "-1 days +02:00:00"},
	{IntervalT, IntervalValue{}, "00:00:00"},
	{IntervalT, IntervalValue{Months: -1, Days: 1}, "-1 mons +1 day"},
	{ArrayOf(Int4T, 1), NewArray(Int4T, int64(1), int64(2), nil), "{1,2,NULL}"},
	{ArrayOf(Int4T, 1), NewArray(Int4T), "{}"},
	{ArrayOf(Int4T, 2), &Array{Elem: Int4T, Dims: []int{2, 2}, Elems: []any{int64(1), int64(2), int64(3), int64(4)}}, "{{1,2},{3,4}}"},
	{ArrayOf(TextT, 1), NewArray(TextT, "a b", "", "NULL", `x"y`, `a\b`, "{", "  ", "é"), `{"a b","","NULL","x\"y","a\\b","{","  ",é}`},
	{ArrayOf(Float4T, 1), NewArray(Float4T, 1.5, -2.0, 3.25, math.NaN()), "{1.5,-2,3.25,NaN}"},
	{ArrayOf(NumericT, 1), NewArray(NumericT, NewNumeric("1.50"), nil), "{1.50,NULL}"},
	{ArrayOf(DateT, 1), NewArray(DateT, DateFromYMD(-43, 3, 15)), `{"0044-03-15 BC"}`},
	{ArrayOf(TimestampTZT, 1), NewArray(TimestampTZT, MakeTimestamp(2024, 1, 2, 3, 4, 5, 0)), `{"2024-01-02 03:04:05+00"}`},
	{ArrayOf(IntervalT, 1), NewArray(IntervalT, IntervalValue{Days: 1}), `{"1 day"}`},
	{ArrayOf(JSONBT, 1), NewArray(JSONBT, `{"a": 1}`), `{"{\"a\": 1}"}`},
	{ArrayOf(ByteaT, 1), NewArray(ByteaT, []byte{1, 2}), `{"\\x0102"}`},
	{ArrayOf(UUIDT, 1), NewArray(UUIDT, [16]byte{15: 1}), `{00000000-0000-0000-0000-000000000001}`},
	{ArrayOf(BoolT, 1), NewArray(BoolT, true, false), `{t,f}`},
	{VectorOf(3), NewVector([]float32{1, 2.5, -3}), "[1,2.5,-3]"},
	{VectorOf(0), NewVector([]float32{1e-7, 1e6}), "[1e-07,1e+06]"},
}

func TestRoundTrip(t *testing.T) {
	for _, c := range roundTripValues {
		got := FormatText(c.v, c.t)
		if got != c.text {
			t.Errorf("FormatText(%v, %s) = %q, want %q", c.v, c.t, got, c.text)
		}
		v, err := ParseText(c.text, c.t)
		if err != nil {
			t.Errorf("ParseText(%q, %s): %v", c.text, c.t, err)
			continue
		}
		if cmp := Compare(v, c.v, c.t); cmp != 0 {
			t.Errorf("ParseText(%q, %s) = %v, compares %d to %v", c.text, c.t, v, cmp, c.v)
		}
		if !bytes.Equal(KeyBytes(nil, v, c.t), KeyBytes(nil, c.v, c.t)) {
			t.Errorf("%s %q: KeyBytes differ after text round trip", c.t, c.text)
		}
		if got := FormatText(v, c.t); got != c.text {
			t.Errorf("text round trip of %q (%s) gives %q", c.text, c.t, got)
		}
		bin, err := EncodeBinary(nil, c.v, c.t)
		if err != nil {
			t.Errorf("EncodeBinary(%v, %s): %v", c.v, c.t, err)
			continue
		}
		v2, err := DecodeBinary(bin, c.t)
		if err != nil {
			t.Errorf("DecodeBinary(%x, %s): %v", bin, c.t, err)
			continue
		}
		if got := FormatText(v2, c.t); got != c.text {
			t.Errorf("binary round trip of %q (%s) gives %q", c.text, c.t, got)
		}
		if cmp := Compare(v2, c.v, c.t); cmp != 0 {
			t.Errorf("binary round trip of %q (%s) compares %d", c.text, c.t, cmp)
		}
	}
}

func TestFormatTextTZ(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata")
	}
	ts := MakeTimestamp(2024, 7, 1, 12, 0, 0, 0)
	if got := FormatTextTZ(ts, TimestampTZT, ny); got != "2024-07-01 08:00:00-04" {
		t.Errorf("got %q", got)
	}
	if got := FormatTextTZ(ts, TimestampT, ny); got != "2024-07-01 12:00:00" {
		t.Errorf("timestamp without time zone is not shifted: %q", got)
	}
	if got := FormatTextTZ(ts, TimestampTZT, time.FixedZone("", 5*3600+30*60)); got != "2024-07-01 17:30:00+05:30" {
		t.Errorf("got %q", got)
	}
	v, err := ParseTextTZ("2024-07-01 08:00", TimestampTZT, ny)
	if err != nil || v.(Timestamp) != ts {
		t.Errorf("ParseTextTZ = %v, %v", v, err)
	}
}

func TestSpecialTimeWords(t *testing.T) {
	for _, ty := range []T{DateT, TimeT, TimestampT, TimestampTZT} {
		if _, err := ParseText("now", ty); pgerr.Code(err) != "0A000" {
			t.Errorf("%s 'now' without a clock: %v", ty, err)
		}
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata")
	}
	now := time.Date(2024, 3, 1, 2, 30, 0, 0, time.UTC) // 2024-02-29 21:30 in New York
	opts := &TextOptions{Location: ny, Now: now}
	for _, c := range []struct {
		typ  T
		in   string
		want string
	}{
		{DateT, "today", "2024-02-29"},
		{DateT, "tomorrow", "2024-03-01"},
		{DateT, "yesterday", "2024-02-28"},
		{DateT, "now", "2024-02-29"},
		{TimestampT, "now", "2024-02-29 21:30:00"},
		{TimestampTZT, "now", "2024-02-29 21:30:00-05"},
		{TimestampTZT, "today", "2024-02-29 00:00:00-05"},
		{TimestampTZT, "tomorrow 12:00", "2024-03-01 12:00:00-05"},
		{TimeT, "now", "21:30:00"},
	} {
		v, err := ParseTextOpts(c.in, c.typ, opts)
		if err != nil {
			t.Errorf("%s %q: %v", c.typ, c.in, err)
			continue
		}
		if got := string(AppendText(nil, v, c.typ, opts)); got != c.want {
			t.Errorf("%s %q = %q, want %q", c.typ, c.in, got, c.want)
		}
	}
}

func TestRecordText(t *testing.T) {
	// PostgreSQL: SELECT row(1, 'abc', NULL, '', 'a b', 'x"y', 'a\b', 1.5::float8, array[1,2]);
	rec := []any{int64(1), "abc", nil, "", "a b", `x"y`, `a\b`, 1.5, NewArray(Int4T, int64(1), int64(2))}
	want := `(1,abc,,"","a b","x""y","a\\b",1.5,"{1,2}")`
	if got := FormatText(rec, RecordT); got != want {
		t.Errorf("record text %q, want %q", got, want)
	}
	v, err := ParseText(want, RecordT)
	if err != nil {
		t.Fatal(err)
	}
	fields := v.([]any)
	wantFields := []any{"1", "abc", nil, "", "a b", `x"y`, `a\b`, "1.5", "{1,2}"}
	if len(fields) != len(wantFields) {
		t.Fatalf("fields %q", fields)
	}
	for i := range fields {
		if fields[i] != wantFields[i] {
			t.Errorf("field %d = %#v, want %#v", i, fields[i], wantFields[i])
		}
	}
	ts := MakeTimestamp(2024, 1, 2, 3, 4, 5, 0)
	if got := string(AppendRecordText(nil, []any{ts, ts}, []T{TimestampT, TimestampTZT}, nil)); got != `("2024-01-02 03:04:05","2024-01-02 03:04:05+00")` {
		t.Errorf("typed record text %q", got)
	}
	for _, bad := range []string{"1,2)", "(1,2", `(1,"2)`, "(1,2) x", `(1,2\`} {
		if _, err := ParseText(bad, RecordT); pgerr.Code(err) != "22P02" {
			t.Errorf("ParseText(%q, record): %v", bad, err)
		}
	}
	bin, err := EncodeBinary(nil, rec, RecordT)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBinary(bin, RecordT)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatText(back, RecordT); got != want {
		t.Errorf("record binary round trip %q", got)
	}
}

func TestVector(t *testing.T) {
	v, err := ParseText(" [1, 2.5 ,-3e-1] ", VectorOf(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatText(v, VectorOf(3)); got != "[1,2.5,-0.3]" {
		t.Errorf("vector text %q", got)
	}
	bin, _ := EncodeBinary(nil, v, VectorOf(3))
	want := []byte{0, 3, 0, 0, 0x3f, 0x80, 0, 0, 0x40, 0x20, 0, 0, 0xbe, 0x99, 0x99, 0x9a}
	if !bytes.Equal(bin, want) {
		t.Errorf("vector binary %x, want %x", bin, want)
	}
	back, err := DecodeBinary(bin, VectorOf(3))
	if err != nil || Compare(back, v, VectorOf(3)) != 0 {
		t.Errorf("vector binary round trip: %v %v", back, err)
	}
	if _, err := ApplyTypmod(v, VectorOf(4), false); err == nil || err.Error() != "expected 4 dimensions, not 3" {
		t.Errorf("vector(4) typmod: %v", err)
	}
	if _, err := ApplyTypmod(v, VectorOf(3), false); err != nil {
		t.Errorf("vector(3) typmod: %v", err)
	}
	for in, want := range map[string]string{
		"1,2":     `22P02 invalid input syntax for type vector: "1,2" (Vector contents must start with "[".)`,
		"[]":      "22000 vector must have at least 1 dimension ()",
		"[1,2":    `22P02 invalid input syntax for type vector: "[1,2" ()`,
		"[1,,2]":  `22P02 invalid input syntax for type vector: "[1,,2]" ()`,
		"[1] x":   `22P02 invalid input syntax for type vector: "[1] x" (Junk after closing right brace.)`,
		"[NaN]":   "22000 NaN not allowed in vector ()",
		"[inf]":   "22000 infinite value not allowed in vector ()",
		"[1e39]":  `22003 "1e39" is out of range for type vector ()`,
		"[1 2]":   `22P02 invalid input syntax for type vector: "[1 2]" ()`,
		"[a]":     `22P02 invalid input syntax for type vector: "[a]" ()`,
		"  [1]x ": `22P02 invalid input syntax for type vector: "  [1]x " (Junk after closing right brace.)`,
	} {
		_, err := ParseText(in, VectorOf(0))
		pe := pgerr.From(err)
		if got := pe.Code + " " + pe.Message + " (" + pe.Detail + ")"; got != want {
			t.Errorf("vector %q: %s, want %s", in, got, want)
		}
	}
	for _, bad := range [][]byte{{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 1, 0, 0, 0, 0}, {0, 1, 0, 0, 0x7f, 0xc0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0, 0}} {
		if _, err := DecodeBinary(bad, VectorOf(0)); err == nil {
			t.Errorf("DecodeBinary(%x, vector) succeeded", bad)
		}
	}
}

func TestApplyTypmod(t *testing.T) {
	varchar3 := T{Family: Varchar, Mod: 3}
	char3 := T{Family: Char, Mod: 3}
	num := func(p, s int) T { return T{Family: Numeric, Mod: NumericTypmod(p, s)} }
	for _, c := range []struct {
		t        T
		in       any
		explicit bool
		want     string
		err      string
	}{
		{varchar3, "abcd", true, "abc", ""},
		{varchar3, "abcd", false, "", "22001 value too long for type character varying(3)"},
		{varchar3, "abc   ", false, "abc", ""},
		{varchar3, "ab", false, "ab", ""},
		{T{Family: Varchar, Mod: 2}, "éèêë", true, "éè", ""},
		{T{Family: Varchar, Mod: 4}, "éèêë", false, "éèêë", ""},
		{char3, "ab", false, "ab ", ""},
		{char3, "abcd", false, "", "22001 value too long for type character(3)"},
		{char3, "abcd", true, "abc", ""},
		{char3, "abc ", false, "abc", ""},
		{T{Family: Char, Mod: 2}, "é", false, "é ", ""},
		{num(5, 2), NewNumeric("123.456"), false, "123.46", ""},
		{num(5, 2), NewNumeric("999.995"), false, "", "22003 numeric field overflow (A field with precision 5, scale 2 must round to an absolute value less than 10^3.)"},
		{num(5, 2), NewNumeric("-999.994"), false, "-999.99", ""},
		{num(3, 0), NewNumeric("999.5"), false, "", "22003 numeric field overflow (A field with precision 3, scale 0 must round to an absolute value less than 10^3.)"},
		{num(2, 2), NewNumeric("0.995"), false, "", "22003 numeric field overflow (A field with precision 2, scale 2 must round to an absolute value less than 1.)"},
		{num(2, 2), NewNumeric("0.994"), false, "0.99", ""},
		{num(5, 2), NewNumeric("Infinity"), false, "", "22003 numeric field overflow (A field with precision 5, scale 2 cannot hold an infinite value.)"},
		{num(5, 2), NewNumeric("NaN"), false, "NaN", ""},
		{num(5, 2), NewNumeric("1"), false, "1.00", ""},
		{num(5, 2), NewNumeric("-0.001"), false, "0.00", ""},
		{num(3, -1), NewNumeric("1234"), false, "1230", ""},
		{num(3, -1), NewNumeric("99999"), false, "", "22003 numeric field overflow (A field with precision 3, scale -1 must round to an absolute value less than 10^4.)"},
		{num(10, 0), int64(42), false, "42", ""},
		{T{Family: TimestampFamily, Mod: 2}, MakeTimestamp(2024, 1, 2, 3, 4, 5, 125000), false, "2024-01-02 03:04:05.13", ""},
		{T{Family: TimestampFamily, Mod: 2}, MakeTimestamp(2024, 1, 2, 3, 4, 5, 135000), false, "2024-01-02 03:04:05.14", ""},
		{T{Family: Interval, Mod: 1}, IntervalValue{Micros: -1250000}, false, "-00:00:01.3", ""},
		{T{Family: Interval, Mod: 1}, IntervalValue{Micros: 1250000}, false, "00:00:01.3", ""},
		{T{Family: Time, Mod: 0}, MakeTimeOfDay(23, 59, 59, 500000), false, "24:00:00", ""},
		{T{Family: Time, Mod: 0}, MakeTimeOfDay(4, 5, 6, 500000), false, "04:05:07", ""},
		{ArrayOf(varchar3, 1), NewArray(varchar3, "abcd", "x"), true, "{abc,x}", ""},
		{ArrayOf(varchar3, 1), NewArray(varchar3, "abcd", "x"), false, "", "22001 value too long for type character varying(3)"},
		{TextT, "anything", false, "anything", ""},
	} {
		got, err := ApplyTypmod(c.in, c.t, c.explicit)
		if c.err != "" {
			pe := pgerr.From(err)
			msg := pe.Code + " " + pe.Message
			if pe.Detail != "" {
				msg += " (" + pe.Detail + ")"
			}
			if err == nil || msg != c.err {
				t.Errorf("ApplyTypmod(%v, %s) error %q, want %q", c.in, c.t, msg, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ApplyTypmod(%v, %s): %v", c.in, c.t, err)
			continue
		}
		if s := FormatText(got, c.t); s != c.want {
			t.Errorf("ApplyTypmod(%v, %s) = %q, want %q", c.in, c.t, s, c.want)
		}
	}
	if v, _ := ApplyTypmod(nil, varchar3, false); v != nil {
		t.Error("NULL must pass through")
	}
}

func TestNumericNormalization(t *testing.T) {
	// Values from arithmetic may have positive exponents or negative zero.
	d := apd.New(15, 2)
	if got := FormatText(d, NumericT); got != "1500" {
		t.Errorf("1.5E+3 formats as %q", got)
	}
	z := &apd.Decimal{Negative: true, Exponent: -2}
	if got := FormatText(z, NumericT); got != "0.00" {
		t.Errorf("-0.00 formats as %q", got)
	}
	if got := FormatText(*apd.New(-7, -1), NumericT); got != "-0.7" {
		t.Errorf("apd.Decimal value formats as %q", got)
	}
	if got := FormatText(int64(12), NumericT); got != "12" {
		t.Errorf("int64 as numeric formats as %q", got)
	}
}

func TestParseTextErrors(t *testing.T) {
	for _, c := range []struct {
		t    T
		in   string
		code string
		msg  string
	}{
		{Int4T, "x", "22P02", `invalid input syntax for type integer: "x"`},
		{Int4T, "2147483648", "22003", `value "2147483648" is out of range for type integer`},
		{Int2T, "40000", "22003", `value "40000" is out of range for type smallint`},
		{Int8T, "1.0", "22P02", `invalid input syntax for type bigint: "1.0"`},
		{Float8T, "1e400", "22003", `"1e400" is out of range for type double precision`},
		{Float4T, "x", "22P02", `invalid input syntax for type real: "x"`},
		{NumericT, "1.2.3", "22P02", `invalid input syntax for type numeric: "1.2.3"`},
		{BoolT, "maybe", "22P02", `invalid input syntax for type boolean: "maybe"`},
		{UUIDT, "x", "22P02", `invalid input syntax for type uuid: "x"`},
		{JSONT, "{", "22P02", "invalid input syntax for type json"},
		{JSONBT, "[1,]", "22P02", "invalid input syntax for type json"},
		{DateT, "2024-13-45", "22008", `date/time field value out of range: "2024-13-45"`},
		{TimestampTZT, "yesterdayish", "22007", `invalid input syntax for type timestamp with time zone: "yesterdayish"`},
		{IntervalT, "1 fortnight", "22007", `invalid input syntax for type interval: "1 fortnight"`},
		{ArrayOf(Int4T, 1), "{1,a}", "22P02", `invalid input syntax for type integer: "a"`},
		{ArrayOf(Int4T, 1), "{1", "22P02", `malformed array literal: "{1"`},
		{ByteaT, `\x1`, "22023", "invalid hexadecimal data: odd number of digits"},
	} {
		_, err := ParseText(c.in, c.t)
		pe := pgerr.From(err)
		if err == nil || pe.Code != c.code || pe.Message != c.msg {
			t.Errorf("ParseText(%q, %s) = %v, want %s %s", c.in, c.t, err, c.code, c.msg)
		}
	}
}

func TestNormalizeJSONB(t *testing.T) {
	got, err := NormalizeJSONB(`{"b":1, "a": [1,2,{"x":1.50e1}], "aa":"x\u00e9\"", "a":2, "n": -0, "e":1E-2}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a": 2, "b": 1, "e": 0.01, "n": 0, "aa": "xé\""}`; got != want {
		t.Errorf("NormalizeJSONB = %s, want %s", got, want)
	}
	if _, err := NormalizeJSONB(`{"a":`); pgerr.Code(err) != "22P02" || err.Error() != "invalid input syntax for type json" {
		t.Errorf("bad jsonb: %v", err)
	}
	// Deep nesting is an error, not a stack overflow.
	deep := bytes.Repeat([]byte("["), 20000)
	if _, err := NormalizeJSONB(string(deep)); err == nil {
		t.Error("deep nesting accepted")
	}
}
