package functions

import (
	"crypto/md5"
	"encoding/hex"
	"testing"
)

func TestWidthBucket(t *testing.T) {
	runCases(t, []tc{
		{"width_bucket", []string{"5.35", "0.024", "10.06", "5"}, "3", "integer"},
		{"width_bucket", []string{"5.35::float8", "0.024", "10.06", "5"}, "3", "integer"},
		{"width_bucket", []string{"0.3::float8", "0", "0.9", "3"}, "2", "integer"},
		{"width_bucket", []string{"-1", "0", "10", "5"}, "0", "integer"},
		{"width_bucket", []string{"10", "0", "10", "5"}, "6", "integer"},
		{"width_bucket", []string{"10::float8", "0", "10", "5"}, "6", "integer"},
		{"width_bucket", []string{"0", "0", "10", "5"}, "1", "integer"},
		{"width_bucket", []string{"9.99999", "0", "10", "5"}, "5", "integer"},
		{"width_bucket", []string{"3", "10", "0", "5"}, "4", "integer"},
		{"width_bucket", []string{"3::float8", "10", "0", "5"}, "4", "integer"},
		{"width_bucket", []string{"0", "10", "0", "5"}, "6", "integer"},
		{"width_bucket", []string{"11::float8", "10", "0", "5"}, "0", "integer"},
		{"width_bucket", []string{"'infinity'::float8", "0", "10", "5"}, "6", "integer"},
		{"width_bucket", []string{"'-infinity'::numeric", "0", "10", "5"}, "0", "integer"},
		{"width_bucket", []string{"1e300::float8", "-1e308::float8", "1e308::float8", "10"}, "-2147483648", "integer"},
		{"width_bucket", []string{"9.999999999999999::float8", "0", "10", "5"}, "5", "integer"},
		{"width_bucket", []string{"5::float8", "0", "10", "2147483647"}, "1073741824", "integer"},
		{"width_bucket", []string{"5", "0", "10", "2147483647"}, "1073741824", "integer"},
		{"width_bucket", []string{"10", "0", "10", "2147483647"}, "ERROR 22003: integer out of range", ""},
		{"width_bucket", []string{"10::float8", "0", "10", "2147483647"}, "ERROR 22003: integer out of range", ""},
		{"width_bucket", []string{"5", "0", "10", "0"}, "ERROR 2201G: count must be greater than zero", ""},
		{"width_bucket", []string{"5::float8", "0", "10", "-1"}, "ERROR 2201G: count must be greater than zero", ""},
		{"width_bucket", []string{"5", "1", "1", "3"}, "ERROR 2201G: lower bound cannot equal upper bound", ""},
		{"width_bucket", []string{"5::float8", "1", "1", "3"}, "ERROR 2201G: lower bound cannot equal upper bound", ""},
		{"width_bucket", []string{"'NaN'::numeric", "1", "2", "3"}, "ERROR 2201G: operand, lower bound, and upper bound cannot be NaN", ""},
		{"width_bucket", []string{"'NaN'::float8", "1", "2", "3"}, "ERROR 2201G: operand, lower bound, and upper bound cannot be NaN", ""},
		{"width_bucket", []string{"5", "'infinity'::numeric", "2", "3"}, "ERROR 2201G: lower and upper bounds must be finite", ""},
		{"width_bucket", []string{"5::float8", "1", "'infinity'::float8", "3"}, "ERROR 2201G: lower and upper bounds must be finite", ""},
		{"width_bucket", []string{"NULL::numeric", "1", "2", "3"}, NULL, "integer"},
	})
}

func TestGcdLcm(t *testing.T) {
	runCases(t, []tc{
		{"gcd", []string{"12", "18"}, "6", "integer"},
		{"gcd", []string{"-12", "18"}, "6", "integer"},
		{"gcd", []string{"0", "0"}, "0", "integer"},
		{"gcd", []string{"0", "-7"}, "7", "integer"},
		{"gcd", []string{"-2147483648", "2"}, "2", "integer"},
		{"gcd", []string{"-2147483648", "-1"}, "1", "integer"},
		{"gcd", []string{"-2147483648", "0"}, "ERROR 22003: integer out of range", ""},
		{"gcd", []string{"-2147483648", "-2147483648"}, "ERROR 22003: integer out of range", ""},
		{"gcd", []string{"-9223372036854775808", "0::int8"}, "ERROR 22003: bigint out of range", ""},
		{"gcd", []string{"1071::int8", "462::int8"}, "21", "bigint"},
		{"gcd", []string{"1.5", "0.9"}, "0.3", "numeric"},
		{"gcd", []string{"12.00", "18"}, "6.00", "numeric"},
		{"gcd", []string{"0.00", "0"}, "0.00", "numeric"},
		{"gcd", []string{"'NaN'::numeric", "2"}, "NaN", "numeric"},
		{"gcd", []string{"'infinity'::numeric", "2"}, "NaN", "numeric"},
		{"gcd", []string{"NULL::int4", "2"}, NULL, "integer"},
		{"lcm", []string{"4", "6"}, "12", "integer"},
		{"lcm", []string{"-4", "6"}, "12", "integer"},
		{"lcm", []string{"0", "6"}, "0", "integer"},
		{"lcm", []string{"-2147483648", "0"}, "0", "integer"},
		{"lcm", []string{"-2147483648", "1"}, "ERROR 22003: integer out of range", ""},
		{"lcm", []string{"65536", "65537"}, "ERROR 22003: integer out of range", ""},
		{"lcm", []string{"65536::int8", "65537::int8"}, "4295032832", "bigint"},
		{"lcm", []string{"9223372036854775807", "2::int8"}, "ERROR 22003: bigint out of range", ""},
		{"lcm", []string{"1.5", "0.9"}, "4.5", "numeric"},
		{"lcm", []string{"-6.0", "4"}, "12.0", "numeric"},
		{"lcm", []string{"0.000", "4"}, "0.000", "numeric"},
		{"lcm", []string{"'-infinity'::numeric", "4"}, "NaN", "numeric"},
	})
}

func TestFactorialDiv(t *testing.T) {
	runCases(t, []tc{
		{"factorial", []string{"0"}, "1", "numeric"},
		{"factorial", []string{"1"}, "1", "numeric"},
		{"factorial", []string{"5"}, "120", "numeric"},
		{"factorial", []string{"25"}, "15511210043330985984000000", "numeric"},
		{"factorial", []string{"-1"}, "ERROR 22003: factorial of a negative number is undefined", ""},
		{"factorial", []string{"32178"}, "ERROR 22003: value overflows numeric format", ""},
		{"factorial", []string{"NULL::int8"}, NULL, "numeric"},
		{"div", []string{"9", "4"}, "2", "numeric"},
		{"div", []string{"-9", "4"}, "-2", "numeric"},
		{"div", []string{"9.9", "-4.5"}, "-2", "numeric"},
		{"div", []string{"1", "3"}, "0", "numeric"},
		{"div", []string{"-1", "3"}, "0", "numeric"},
		{"div", []string{"123456789012345678901234567890", "7"}, "17636684144620811271604938270", "numeric"},
		{"div", []string{"1", "0"}, "ERROR 22012: division by zero", ""},
		{"div", []string{"'NaN'::numeric", "0"}, "NaN", "numeric"},
		{"div", []string{"'infinity'::numeric", "-2"}, "-Infinity", "numeric"},
		{"div", []string{"'infinity'::numeric", "'infinity'::numeric"}, "NaN", "numeric"},
		{"div", []string{"'infinity'::numeric", "0"}, "ERROR 22012: division by zero", ""},
		{"div", []string{"5", "'-infinity'::numeric"}, "0", "numeric"},
		{"div", []string{"NULL", "2"}, NULL, "numeric"},
	})
}

// TestFactorialLarge checks 32177!, the largest factorial numeric holds,
// against PostgreSQL's digits.
func TestFactorialLarge(t *testing.T) {
	ctx := testCtx(nil)
	v, err := Overloads("factorial")[0].Eval(ctx, []any{int64(maxFactorial)})
	if err != nil {
		t.Fatal(err)
	}
	out := outputText(ctx, v, tNum)
	if sum := md5.Sum([]byte(out)); len(out) != 131068 || hex.EncodeToString(sum[:]) != "fbe79b4686595a726243cc471350f25d" {
		t.Errorf("factorial(%d) has %d digits, md5 %x", maxFactorial, len(out), sum)
	}
}
