package types

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestBinaryAgainstPgtype cross-checks EncodeBinary and DecodeBinary with
// pgx's pgtype, an independent implementation of the wire formats: pgtype
// must encode each Go value to the same bytes as we encode the datum, and
// must read our bytes back as the same Go value.
func TestBinaryAgainstPgtype(t *testing.T) {
	m := pgtype.NewMap()
	num := func(s string) pgtype.Numeric {
		var n pgtype.Numeric
		if err := n.Scan(s); err != nil {
			t.Fatalf("pgtype.Numeric %q: %v", s, err)
		}
		return n
	}
	f32 := func(f float32) *float32 { return &f }
	wall := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	bc := time.Date(-43, 3, 15, 10, 0, 0, 0, time.UTC) // 0044-03-15 BC
	for _, c := range []struct {
		name  string
		t     T
		datum any
		pg    any // what pgtype encodes
		// pgtype's bytes differ from PostgreSQL's (which ours match, see
		// oracle_cases_test.go) but read back as the same value.
		pgtypeDiffers bool
	}{
		{"numeric", NumericT, NewNumeric("12345678901234567890.123456789"), num("12345678901234567890.123456789"), false},
		{"numeric small", NumericT, NewNumeric("0.000123"), num("0.000123"), false},
		{"numeric neg", NumericT, NewNumeric("-1234.5678"), num("-1234.5678"), false},
		{"numeric int", NumericT, NewNumeric("10000"), num("10000"), false},
		{"numeric big", NumericT, NewNumeric("100000000000000000000"), num("100000000000000000000"), false},
		{"numeric zero", NumericT, NewNumeric("0"), num("0"), true}, // pgtype: weight -1
		{"numeric NaN", NumericT, NewNumeric("NaN"), pgtype.Numeric{NaN: true, Valid: true}, false},
		{"int8", Int8T, int64(-5), int64(-5), false},
		{"int2", Int2T, int64(7), int16(7), false},
		{"float4", Float4T, float64(float32(1.25)), float32(1.25), false},
		{"float8", Float8T, 0.1, 0.1, false},
		{"bool", BoolT, true, true, false},
		{"text", TextT, "héllo", "héllo", false},
		{"bytea", ByteaT, []byte{1, 2, 3}, []byte{1, 2, 3}, false},
		{"uuid", UUIDT, [16]byte{1, 2, 3, 15: 9}, [16]byte{1, 2, 3, 15: 9}, false},
		{"date", DateT, DateFromYMD(2024, 2, 29), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), false},
		{"date BC", DateT, DateFromYMD(-43, 3, 15), pgtype.Date{Time: bc.Truncate(24 * time.Hour), Valid: true}, false},
		{"date infinity", DateT, DateInfinity, pgtype.Date{InfinityModifier: pgtype.Infinity, Valid: true}, false},
		{"timestamp", TimestampT, TimestampFromTime(wall), pgtype.Timestamp{Time: wall, Valid: true}, false},
		{"timestamp BC", TimestampT, TimestampFromTime(bc), pgtype.Timestamp{Time: bc, Valid: true}, false},
		{"timestamp -infinity", TimestampT, TimestampNegInfinity, pgtype.Timestamp{InfinityModifier: pgtype.NegativeInfinity, Valid: true}, false},
		{"timestamptz", TimestampTZT, TimestampFromTime(wall), wall.In(time.FixedZone("", 3600)), false},
		{"timestamptz infinity", TimestampTZT, TimestampInfinity, pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}, false},
		{"time", TimeT, MakeTimeOfDay(4, 5, 6, 7), pgtype.Time{Microseconds: 4*3600e6 + 5*60e6 + 6e6 + 7, Valid: true}, false},
		{"interval", IntervalT, IntervalValue{Months: 14, Days: -3, Micros: 123456789}, pgtype.Interval{Months: 14, Days: -3, Microseconds: 123456789, Valid: true}, false},
		{"jsonb", JSONBT, `{"a": [1, 2]}`, pgtype.JSONCodec{}, false},
		{"int4[]", ArrayOf(Int4T, 1), NewArray(Int4T, int64(1), nil, int64(3)), []*int32{ptr(int32(1)), nil, ptr(int32(3))}, false},
		{"int4[] 2-D", ArrayOf(Int4T, 2), &Array{Elem: Int4T, Dims: []int{2, 3}, Elems: []any{int64(1), int64(2), int64(3), int64(4), int64(5), int64(6)}}, pgtype.Array[int32]{
			Elements: []int32{1, 2, 3, 4, 5, 6}, Dims: []pgtype.ArrayDimension{{Length: 2, LowerBound: 1}, {Length: 3, LowerBound: 1}}, Valid: true}, false},
		{"int4[] empty", ArrayOf(Int4T, 1), NewArray(Int4T), []int32{}, true}, // pgtype: one dimension of length 0
		{"float4[]", Float4ArrayT, NewArray(Float4T, 1.5, -2.0, math.Inf(1)), []float32{1.5, -2, float32(math.Inf(1))}, false},
		{"float4[] null", Float4ArrayT, NewArray(Float4T, 1.5, nil), []*float32{f32(1.5), nil}, false},
		{"text[]", ArrayOf(TextT, 1), NewArray(TextT, "a", "", "b c"), []string{"a", "", "b c"}, false},
		{"numeric[]", ArrayOf(NumericT, 1), NewArray(NumericT, NewNumeric("1.50"), NewNumeric("-2")), []pgtype.Numeric{num("1.50"), num("-2")}, false},
		{"timestamptz[]", ArrayOf(TimestampTZT, 1), NewArray(TimestampTZT, TimestampFromTime(wall)), []time.Time{wall}, false},
		{"interval[]", ArrayOf(IntervalT, 1), NewArray(IntervalT, IntervalValue{Days: 1}), []pgtype.Interval{{Days: 1, Valid: true}}, false},
		{"uuid[]", ArrayOf(UUIDT, 1), NewArray(UUIDT, [16]byte{1}), [][16]byte{{1}}, false},
	} {
		ours, err := EncodeBinary(nil, c.datum, c.t)
		if err != nil {
			t.Errorf("%s: EncodeBinary: %v", c.name, err)
			continue
		}
		pg := c.pg
		if _, ok := pg.(pgtype.JSONCodec); ok {
			pg = []byte(c.datum.(string))
		}
		theirs, err := m.Encode(c.t.OID(), pgtype.BinaryFormatCode, pg, nil)
		if err != nil {
			t.Errorf("%s: pgtype Encode: %v", c.name, err)
			continue
		}
		if !bytes.Equal(ours, theirs) && !c.pgtypeDiffers {
			t.Errorf("%s: we encode %s, pgtype %s", c.name, hex.EncodeToString(ours), hex.EncodeToString(theirs))
		}
		back, err := DecodeBinary(theirs, c.t)
		if err != nil {
			t.Errorf("%s: DecodeBinary(pgtype's bytes): %v", c.name, err)
			continue
		}
		if Compare(back, c.datum, c.t) != 0 || FormatText(back, c.t) != FormatText(c.datum, c.t) {
			t.Errorf("%s: pgtype's bytes read as %q, want %q", c.name, FormatText(back, c.t), FormatText(c.datum, c.t))
		}
		// pgtype reads our bytes: compare through its text encoding.
		var scanned any
		if err := m.Scan(c.t.OID(), pgtype.BinaryFormatCode, ours, &scanned); err != nil {
			t.Errorf("%s: pgtype Scan of our bytes: %v", c.name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestPgtypeReadsNumeric checks pgtype's reading of our numeric bytes
// value by value (scale included).
func TestPgtypeReadsNumeric(t *testing.T) {
	m := pgtype.NewMap()
	for _, s := range []string{"0", "0.00", "1.50", "-0.000123", "123456789.987654321", "10000", "1e-20", "99999999", "NaN", "Infinity", "-Infinity"} {
		b, err := EncodeBinary(nil, NewNumeric(s), NumericT)
		if err != nil {
			t.Fatal(err)
		}
		var n pgtype.Numeric
		if err := m.Scan(NumericT.OID(), pgtype.BinaryFormatCode, b, &n); err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		txt, err := m.Encode(NumericT.OID(), pgtype.TextFormatCode, n, nil)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		v, err := ParseText(string(txt), NumericT)
		if err != nil || Compare(v, NewNumeric(s), NumericT) != 0 {
			t.Errorf("%s: pgtype read our bytes as %s", s, txt)
		}
	}
}
