package functions

import (
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

func TestMathFunctions(t *testing.T) {
	runCases(t, []tc{
		{"abs", []string{"-5::int8"}, "5", "bigint"},
		{"abs", []string{"'-9223372036854775808'::int8"}, "ERROR 22003: bigint out of range", ""},
		{"abs", []string{"-1.5::float4"}, "1.5", "real"},
		{"@", []string{"-3"}, "3", "integer"},
		{"ceil", []string{"1.2"}, "2", "numeric"},
		{"ceil", []string{"-1.2"}, "-1", "numeric"},
		{"ceiling", []string{"1.2::float8"}, "2", "double precision"},
		{"ceil", []string{"-0.5::float8"}, "-0", "double precision"},
		{"floor", []string{"-0.5"}, "-1", "numeric"},
		{"floor", []string{"2.7::float8"}, "2", "double precision"},
		{"round", []string{"-2.5"}, "-3", "numeric"},
		{"round", []string{"1.2345", "2"}, "1.23", "numeric"},
		{"round", []string{"1234.5", "-2"}, "1200", "numeric"},
		{"round", []string{"1.5", "3"}, "1.500", "numeric"},
		{"round", []string{"3.5::float8"}, "4", "double precision"},
		{"trunc", []string{"1.999", "2"}, "1.99", "numeric"},
		{"trunc", []string{"-1.5"}, "-1", "numeric"},
		{"trunc", []string{"-1.5::float8"}, "-1", "double precision"},
		{"trunc", []string{"1299", "-2"}, "1200", "numeric"},
		{"sqrt", []string{"2::numeric"}, "1.414213562373095", "numeric"},
		{"sqrt", []string{"1e-10"}, "0.000010000000000000000", "numeric"},
		{"sqrt", []string{"123456789.123"}, "11111.11106609056", "numeric"},
		{"sqrt", []string{"-1::float8"}, "ERROR 2201F: cannot take square root of a negative number", ""},
		{"sqrt", []string{"-1::numeric"}, "ERROR 2201F: cannot take square root of a negative number", ""},
		{"|/", []string{"16::float8"}, "4", "double precision"},
		{"cbrt", []string{"64::float8"}, "4", "double precision"}, // glibc rounds some others differently
		{"||/", []string{"-8::float8"}, "-2", "double precision"},
		{"exp", []string{"1::numeric"}, "2.7182818284590452", "numeric"},
		{"exp", []string{"10::numeric"}, "22026.465794806717", "numeric"},
		{"exp", []string{"1::float8"}, "2.718281828459045", "double precision"},
		{"exp", []string{"1000::float8"}, "ERROR 22003: value out of range: overflow", ""},
		{"ln", []string{"2::numeric"}, "0.6931471805599453", "numeric"},
		{"ln", []string{"1.05"}, "0.048790164169432003", "numeric"},
		{"ln", []string{"100::numeric"}, "4.6051701859880914", "numeric"},
		{"ln", []string{"0::float8"}, "ERROR 2201E: cannot take logarithm of zero", ""},
		{"ln", []string{"-1::numeric"}, "ERROR 2201E: cannot take logarithm of a negative number", ""},
		{"log", []string{"2::numeric"}, "0.3010299956639812", "numeric"},
		{"log", []string{"2", "8"}, "3.0000000000000000", "numeric"},
		{"log", []string{"100::float8"}, "2", "double precision"},
		{"log10", []string{"1000::float8"}, "3", "double precision"},
		{"log10", []string{"2::numeric"}, "0.3010299956639812", "numeric"},
		{"power", []string{"2::numeric", "0.5"}, "1.4142135623730950", "numeric"},
		{"power", []string{"2::numeric", "10"}, "1024.0000000000000000", "numeric"},
		{"power", []string{"1.5", "2"}, "2.2500000000000000", "numeric"},
		{"power", []string{"10::numeric", "-2"}, "0.0100000000000000", "numeric"},
		{"power", []string{"2.5", "2.5"}, "9.8821176880261854", "numeric"},
		{"^", []string{"2::numeric", "3"}, "8.0000000000000000", "numeric"},
		{"pow", []string{"2::float8", "0.5"}, "1.4142135623730951", "double precision"},
		{"power", []string{"0::float8", "-1"}, "ERROR 2201F: zero raised to a negative power is undefined", ""},
		{"power", []string{"-1::float8", "0.5"}, "ERROR 2201F: a negative number raised to a non-integer power yields a complex result", ""},
		{"power", []string{"0::numeric", "-1"}, "ERROR 2201F: zero raised to a negative power is undefined", ""},
		{"power", []string{"-8::numeric", "0.5"}, "ERROR 2201F: a negative number raised to a non-integer power yields a complex result", ""},
		{"mod", []string{"-7", "3"}, "-1", "integer"},
		{"mod", []string{"10.5", "3"}, "1.5", "numeric"},
		{"mod", []string{"1", "0"}, "ERROR 22012: division by zero", ""},
		{"sign", []string{"-3.2"}, "-1", "numeric"},
		{"sign", []string{"0::float8"}, "0", "double precision"},
		{"sign", []string{"2::float8"}, "1", "double precision"},
		{"pi", nil, "3.141592653589793", "double precision"},
		{"degrees", []string{"3.141592653589793::float8"}, "180", "double precision"},
		{"greatest", []string{"'2024-01-01'::date", "'2023-01-01'::date"}, "2024-01-01", "date"},
		{"least", []string{"1.5::float8", "'NaN'::float8"}, "1.5", "double precision"},
		{"greatest", []string{"NULL::int4", "NULL::int4"}, NULL, "integer"},
	})
}

func TestRandom(t *testing.T) {
	ov, _, err := Resolve("random", nil)
	if err != nil || ov.Volatility != Volatile {
		t.Fatalf("random: %v", err)
	}
	seen := map[float64]bool{}
	for i := 0; i < 100; i++ {
		v, _ := ov.Eval(nil, nil)
		f := v.(float64)
		if f < 0 || f >= 1 {
			t.Fatalf("random() = %v", f)
		}
		seen[f] = true
	}
	if len(seen) < 90 {
		t.Errorf("random() repeats: %d distinct of 100", len(seen))
	}
	if !ResultType(ov, nil).Equal(types.Float8T) {
		t.Errorf("random() type %s", ResultType(ov, nil))
	}
}

// Bitwise operators, from PostgreSQL 15.
func TestBitwise(t *testing.T) {
	runCases(t, []tc{
		{"&", []string{"12::int2", "10::int2"}, "8", "smallint"},
		{"|", []string{"12", "3"}, "15", "integer"},
		{"#", []string{"12::int8", "10::int8"}, "6", "bigint"},
		{"~", []string{"5"}, "-6", "integer"},
		{"<<", []string{"1", "4"}, "16", "integer"},
		{">>", []string{"-16::int8", "2"}, "-4", "bigint"},
		{"<<", []string{"16384::int2", "1"}, "-32768", "smallint"},
		{"<<", []string{"1", "33"}, "2", "integer"},
		{"&", []string{"NULL::int4", "1"}, NULL, "integer"},
	})
}
