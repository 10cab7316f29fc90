package types

import (
	"bytes"
	"math"
	"testing"
)

// Orders PostgreSQL 15 gives (ORDER BY v, ties broken by v::text) for
// lists of literals; adjacent entries marked equal compare equal.
var pgOrders = []struct {
	t      T
	sorted []string
	equal  map[int]bool // index i equals index i-1
}{
	{Float8T, []string{"-Infinity", "-2", "0", "-0", "1.5", "1e+300", "Infinity", "NaN"}, map[int]bool{3: true}},
	{NumericT, []string{"-Infinity", "-2", "0", "0.001", "1.50", "1.5", "1000000000000000000000000000000", "Infinity", "NaN"}, map[int]bool{5: true}},
	{IntervalT, []string{"-1 days", "00:00:00", "00:00:00.000001", "1 day", "24:00:00", "1 mon", "29 days 24:00:00", "30 days", "1 year", "360 days"},
		map[int]bool{4: true, 6: true, 7: true, 9: true}},
	{JSONBT, []string{`[]`, `null`, `""`, `"a"`, `"b"`, `-1`, `1`, `1.0`, `2`, `false`, `true`, `[null]`, `["a"]`, `[1]`, `[2]`,
		`[true]`, `[[]]`, `[[1]]`, `[{}]`, `[1, "a"]`, `[1, 2]`, `{}`, `{"a": null}`, `{"a": 1}`, `{"a": 2}`, `{"a": []}`,
		`{"a": {}}`, `{"aa": 1}`, `{"b": 1}`, `{"a": 1, "b": 2}`}, map[int]bool{7: true}},
	{ArrayOf(Int4T, 1), []string{"{}", "{0,5}", "{1}", "{1,2}", "{{1,2}}", "{{1},{2}}", "{1,2,3}", "{1,NULL}", "{2}", "{NULL}"}, nil},
	{TextT, []string{"", "A", "B", "a", "a ", "ab", "é"}, nil},
	{CharT, []string{"a", "a  ", "ab"}, map[int]bool{1: true}},
	{BoolT, []string{"f", "t"}, nil},
	{DateT, []string{"-infinity", "4714-11-24 BC", "0001-12-31 BC", "0001-01-01", "2024-01-02", "infinity"}, nil},
	{TimestampTZT, []string{"-infinity", "2024-01-02 03:04:05+05", "2024-01-02 00:00:00+00", "infinity"}, nil},
	{UUIDT, []string{"00000000-0000-0000-0000-000000000000", "0000000f-0000-0000-0000-000000000000", "ff000000-0000-0000-0000-000000000000"}, nil},
	{ByteaT, []string{`\x`, `\x00`, `\x0001`, `\x01`}, nil},
	{VectorOf(0), []string{"[-1]", "[1]", "[1,2]", "[1,3]", "[2]"}, nil},
}

func TestCompareOrders(t *testing.T) {
	for _, o := range pgOrders {
		vals := make([]any, len(o.sorted))
		for i, s := range o.sorted {
			v, err := ParseText(s, o.t)
			if err != nil {
				t.Fatalf("%s %q: %v", o.t, s, err)
			}
			vals[i] = v
		}
		for i := range vals {
			for j := range vals {
				want := 0
				switch {
				case i < j:
					want = -1
				case i > j:
					want = 1
				}
				lo, hi := min(i, j), max(i, j)
				allEqual := lo != hi
				for k := lo + 1; k <= hi; k++ {
					if !o.equal[k] {
						allEqual = false
					}
				}
				if allEqual {
					want = 0
				}
				if got := Compare(vals[i], vals[j], o.t); got != want {
					t.Errorf("%s: Compare(%s, %s) = %d, want %d", o.t, o.sorted[i], o.sorted[j], got, want)
				}
				ki, kj := KeyBytes(nil, vals[i], o.t), KeyBytes(nil, vals[j], o.t)
				if (want == 0) != bytes.Equal(ki, kj) {
					t.Errorf("%s: KeyBytes(%s) vs KeyBytes(%s) equal=%v, want %v", o.t, o.sorted[i], o.sorted[j], bytes.Equal(ki, kj), want == 0)
				}
			}
		}
	}
}

func TestKeyBytes(t *testing.T) {
	same := []struct {
		t    T
		a, b any
	}{
		{NumericT, NewNumeric("1.0"), NewNumeric("1.00")},
		{NumericT, NewNumeric("100"), NewNumeric("1e2")},
		{NumericT, NewNumeric("-0.0"), NewNumeric("0")},
		{Float8T, 0.0, -0.0},
		{Float8T, nanBits(1), nanBits(2)},
		{CharT, "ab", "ab   "},
		{IntervalT, IntervalValue{Months: 1}, IntervalValue{Days: 30}},
		{IntervalT, IntervalValue{Days: 1}, IntervalValue{Micros: MicrosPerDay}},
		{IntervalT, IntervalValue{Months: -1, Days: 30}, IntervalValue{}},
		{JSONBT, `{"a": 1.0}`, `{"a": 1}`},
		{ArrayOf(NumericT, 1), NewArray(NumericT, NewNumeric("1.0")), NewArray(NumericT, NewNumeric("1"))},
		{Int4T, int64(5), int32(5)},
	}
	for _, c := range same {
		if !bytes.Equal(KeyBytes(nil, c.a, c.t), KeyBytes(nil, c.b, c.t)) {
			t.Errorf("%s: KeyBytes(%v) != KeyBytes(%v)", c.t, c.a, c.b)
		}
		if Compare(c.a, c.b, c.t) != 0 {
			t.Errorf("%s: Compare(%v, %v) != 0", c.t, c.a, c.b)
		}
	}
	differ := []struct {
		t    T
		a, b any
	}{
		{NumericT, NewNumeric("1.01"), NewNumeric("1.1")},
		{NumericT, NewNumeric("10"), NewNumeric("1")},
		{NumericT, NewNumeric("0.1"), NewNumeric("1")},
		{NumericT, NewNumeric("-1"), NewNumeric("1")},
		{NumericT, NewNumeric("NaN"), NewNumeric("Infinity")},
		{TextT, "a", "a "},
		{ArrayOf(TextT, 1), NewArray(TextT, "a", "b"), NewArray(TextT, "ab")},
		{ArrayOf(TextT, 1), NewArray(TextT, "a", nil), NewArray(TextT, "a")},
		{ArrayOf(Int4T, 1), &Array{Elem: Int4T, Dims: []int{2}, Elems: []any{int64(1), int64(2)}}, &Array{Elem: Int4T, Dims: []int{1, 2}, Elems: []any{int64(1), int64(2)}}},
		{RecordT, []any{"a", "b"}, []any{"ab", ""}},
		{RecordT, []any{int64(1), nil}, []any{int64(1)}},
		{JSONBT, `[1, 2]`, `[[1, 2]]`},
		{JSONBT, `"1"`, `1`},
		{IntervalT, IntervalValue{Days: 1}, IntervalValue{Micros: MicrosPerDay + 1}},
	}
	for _, c := range differ {
		if bytes.Equal(KeyBytes(nil, c.a, c.t), KeyBytes(nil, c.b, c.t)) {
			t.Errorf("%s: KeyBytes(%v) == KeyBytes(%v)", c.t, c.a, c.b)
		}
		if Compare(c.a, c.b, c.t) == 0 {
			t.Errorf("%s: Compare(%v, %v) == 0", c.t, c.a, c.b)
		}
	}
	// Concatenated keys stay distinct: ("a","bc") vs ("ab","c").
	k1 := KeyBytes(KeyBytes(nil, "a", TextT), "bc", TextT)
	k2 := KeyBytes(KeyBytes(nil, "ab", TextT), "c", TextT)
	if bytes.Equal(k1, k2) {
		t.Error("text keys are not self-delimiting")
	}
	if bytes.Equal(KeyBytes(nil, nil, TextT), KeyBytes(nil, "", TextT)) {
		t.Error("NULL and '' share a key")
	}
}

func nanBits(payload uint64) float64 {
	return float64frombits(0x7ff8000000000000 | payload)
}

func TestCompareNulls(t *testing.T) {
	if Compare(nil, int64(1), Int4T) != 1 || Compare(int64(1), nil, Int4T) != -1 || Compare(nil, nil, Int4T) != 0 {
		t.Error("NULLs must sort last")
	}
}

func float64frombits(b uint64) float64 { return math.Float64frombits(b) }

// TestCompareFloat checks float8_cmp's rules that IEEE comparison breaks:
// NaN (any payload, either sign) equals NaN and is above +Infinity, and
// -0 equals 0.
func TestCompareFloat(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		a, b float64
		want int
	}{
		{1, 2, -1},
		{2, 1, 1},
		{-inf, inf, -1},
		{math.Copysign(0, -1), 0, 0},
		{nan, nan, 0},
		{nan, nanBits(1), 0},
		{math.Copysign(nan, -1), nan, 0},
		{nan, inf, 1},
		{inf, nan, -1},
		{-inf, nan, -1},
		{nan, -inf, 1},
	} {
		if got := CompareFloat(c.a, c.b); got != c.want {
			t.Errorf("CompareFloat(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
