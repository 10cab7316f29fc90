package types

import (
	"math"
	"testing"
	"time"
)

// TestAppendFloatStyleMatchesPostgreSQL checks float8out and float4out
// under extra_float_digits 0 and below against PostgreSQL 15's answers.
func TestAppendFloatStyleMatchesPostgreSQL(t *testing.T) {
	for _, c := range roundedFloatCases {
		f := math.Float64frombits(c.ieee)
		if c.bits == 32 {
			f = float64(math.Float32frombits(uint32(c.ieee)))
		}
		if got := string(AppendFloatStyle(nil, f, c.bits, FloatStyleFor(c.extra))); got != c.pg {
			t.Errorf("float%d %v, extra_float_digits %d: got %s, PostgreSQL prints %s", c.bits/8, f, c.extra, got, c.pg)
		}
	}
}

// TestFloatStyleForPositive checks that any extra_float_digits above 0 is
// the shortest exact text, the zero FloatStyle.
func TestFloatStyleForPositive(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		if fs := FloatStyleFor(n); fs != (FloatStyle{}) {
			t.Errorf("FloatStyleFor(%d) = %+v, want the zero FloatStyle", n, fs)
		}
	}
	if got := string(AppendFloatStyle(nil, 0.1, 64, FloatStyleFor(0))); got != "0.1" {
		t.Errorf("0.1 at extra_float_digits 0: %s", got)
	}
}

// TestParseDateStyle checks check_datestyle's reading of a value against
// the current setting (the answers are PostgreSQL 15's SHOW DateStyle).
func TestParseDateStyle(t *testing.T) {
	sqlDMY := DateStyle{Output: DateOutputSQL, Order: DateOrderDMY}
	cases := []struct {
		cur  DateStyle
		v    string
		want string // "" for an error
	}{
		{DateStyle{}, "SQL", "SQL, MDY"},
		{sqlDMY, "ISO", "ISO, DMY"},
		{sqlDMY, "ymd", "SQL, YMD"},
		{DateStyle{}, "German", "German, DMY"},
		{DateStyle{}, "German, MDY", "German, MDY"},
		{DateStyle{}, "MDY, German", "German, MDY"},
		{DateStyle{}, "postgresql, european", "Postgres, DMY"},
		{sqlDMY, "NonEuropean", "SQL, MDY"},
		{sqlDMY, "us", "SQL, MDY"},
		{sqlDMY, "default", "ISO, MDY"},
		{sqlDMY, "default, sql", "SQL, MDY"},
		{sqlDMY, `"Postgres" , "MDY"`, "Postgres, MDY"},
		{sqlDMY, "", "SQL, DMY"},
		{sqlDMY, "  ", "SQL, DMY"},
		{DateStyle{}, "iso, sql", ""},
		{DateStyle{}, "dmy, mdy", ""},
		{DateStyle{}, "iso, iso", "ISO, MDY"},
		{DateStyle{}, "foo", ""},
		{DateStyle{}, "sql dmy", ""},
		{DateStyle{}, "sql,", ""},
		{DateStyle{}, ",sql", ""},
		{DateStyle{}, `"sql`, ""},
	}
	for _, c := range cases {
		got, err := ParseDateStyle(c.v, c.cur)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%q from %s: got %s, want an error", c.v, c.cur, got)
		case c.want != "" && err != nil:
			t.Errorf("%q from %s: %v", c.v, c.cur, err)
		case c.want != "" && got.String() != c.want:
			t.Errorf("%q from %s: got %s, want %s", c.v, c.cur, got, c.want)
		}
	}
}

// TestDateStyleOutput checks the four output styles and three orders for
// the three date and time types whose output DateStyle governs, against
// PostgreSQL 15's answers (TimeZone Asia/Tokyo).
func TestDateStyleOutput(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zoneinfo: ", err)
	}
	d, _ := ParseText("2024-01-02", DateT)
	ts, _ := ParseText("2024-01-02 03:04:05.25", TimestampT)
	tz, _ := ParseText("2024-01-02 03:04:05.25+00", TimestampTZT)
	bc, _ := ParseText("0044-03-15 BC", DateT)
	cases := []struct {
		style            string
		d, ts, tz, bcOut string
	}{
		{"ISO, MDY", "2024-01-02", "2024-01-02 03:04:05.25", "2024-01-02 12:04:05.25+09", "0044-03-15 BC"},
		{"SQL, MDY", "01/02/2024", "01/02/2024 03:04:05.25", "01/02/2024 12:04:05.25 JST", "03/15/0044 BC"},
		{"SQL, DMY", "02/01/2024", "02/01/2024 03:04:05.25", "02/01/2024 12:04:05.25 JST", "15/03/0044 BC"},
		{"Postgres, MDY", "01-02-2024", "Tue Jan 02 03:04:05.25 2024", "Tue Jan 02 12:04:05.25 2024 JST", "03-15-0044 BC"},
		{"Postgres, DMY", "02-01-2024", "Tue 02 Jan 03:04:05.25 2024", "Tue 02 Jan 12:04:05.25 2024 JST", "15-03-0044 BC"},
		{"German, DMY", "02.01.2024", "02.01.2024 03:04:05.25", "02.01.2024 12:04:05.25 JST", "15.03.0044 BC"},
	}
	for _, c := range cases {
		ds, err := ParseDateStyle(c.style, DateStyle{})
		if err != nil {
			t.Fatal(err)
		}
		opts := &TextOptions{Location: tokyo, DateStyle: ds}
		for _, x := range []struct {
			v    any
			t    T
			want string
		}{{d, DateT, c.d}, {ts, TimestampT, c.ts}, {tz, TimestampTZT, c.tz}, {bc, DateT, c.bcOut}} {
			if got := string(AppendText(nil, x.v, x.t, opts)); got != x.want {
				t.Errorf("%s %s: got %s, want %s", c.style, x.t, got, x.want)
			}
		}
	}
}

// TestDateOrderInput checks that an ambiguous date is read in the
// DateStyle's field order, and an unambiguous one in any.
func TestDateOrderInput(t *testing.T) {
	cases := []struct {
		in            string
		mdy, dmy, ymd string // "" for an error
	}{
		{"01/02/2024", "2024-01-02", "2024-02-01", ""},
		{"1/2/24", "2024-01-02", "2024-02-01", "2001-02-24"},
		{"01/02/03", "2003-01-02", "2003-02-01", "2001-02-03"},
		{"13/01/2024", "", "2024-01-13", ""},
		{"Jan 02 2024", "2024-01-02", "2024-01-02", "2024-01-02"},
		{"02-Jan-24", "2024-01-02", "2024-01-02", "2002-01-24"},
		{"2024-01-02", "2024-01-02", "2024-01-02", "2024-01-02"},
		{"240102", "2024-01-02", "2024-01-02", "2024-01-02"},
	}
	for _, c := range cases {
		for _, o := range []struct {
			order DateOrder
			want  string
		}{{DateOrderMDY, c.mdy}, {DateOrderDMY, c.dmy}, {DateOrderYMD, c.ymd}} {
			v, err := ParseTextOpts(c.in, DateT, &TextOptions{DateStyle: DateStyle{Order: o.order}})
			got := ""
			if err == nil {
				got = FormatText(v, DateT)
			}
			if got != o.want {
				t.Errorf("%q in order %d: got %q (%v), want %q", c.in, o.order, got, err, o.want)
			}
		}
	}
}
