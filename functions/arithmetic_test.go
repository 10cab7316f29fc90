package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

func TestArithmetic(t *testing.T) {
	runCases(t, []tc{
		{"+", []string{"1", "2"}, "3", "integer"},
		{"-", []string{"1", "2"}, "-1", "integer"},
		{"*", []string{"6", "7"}, "42", "integer"},
		{"/", []string{"7", "2"}, "3", "integer"},
		{"/", []string{"-7", "2"}, "-3", "integer"},
		{"%", []string{"-7", "2"}, "-1", "integer"},
		{"%", []string{"7", "-1"}, "0", "integer"},
		{"+", []string{"1::int2", "1::int2"}, "2", "smallint"},
		{"+", []string{"1::int2", "1"}, "2", "integer"},
		{"+", []string{"1", "1::int8"}, "2", "bigint"},
		{"+", []string{"2147483647", "1"}, "ERROR 22003: integer out of range", ""},
		{"-", []string{"-2147483647", "2"}, "ERROR 22003: integer out of range", ""},
		{"*", []string{"65536", "65536"}, "ERROR 22003: integer out of range", ""},
		{"*", []string{"32767::int2", "2::int2"}, "ERROR 22003: smallint out of range", ""},
		{"*", []string{"9223372036854775807", "2"}, "ERROR 22003: bigint out of range", ""},
		{"*", []string{"4611686018427387904", "-2"}, "-9223372036854775808", "bigint"},
		{"/", []string{"-2147483647", "-1"}, "2147483647", "integer"},
		{"/", []string{"-9223372036854775808", "-1"}, "ERROR 22003: bigint out of range", ""},
		{"/", []string{"-2147483648", "-1"}, "ERROR 22003: integer out of range", ""},
		{"/", []string{"1", "0"}, "ERROR 22012: division by zero", ""},
		{"%", []string{"1", "0"}, "ERROR 22012: division by zero", ""},
		{"/", []string{"NULL::int4", "0"}, NULL, "integer"},
		{"+", []string{"1", "NULL"}, NULL, "integer"},
		{"-", []string{"5"}, "-5", "integer"},
		{"-", []string{"'-2147483648'::int4"}, "ERROR 22003: integer out of range", ""},
		{"-", []string{"'-9223372036854775808'::int8"}, "ERROR 22003: bigint out of range", ""},
		{"+", []string{"5"}, "5", "integer"},
		{"+", []string{"1.5::float8", "1"}, "2.5", "double precision"},
		{"+", []string{"1::int4", "1::float4"}, "2", "double precision"},
		{"+", []string{"0.1::float4", "0.2::float4"}, "0.3", "real"},
		{"*", []string{"1.5::float4", "2::float8"}, "3", "double precision"},
		{"/", []string{"1::float8", "3"}, "0.3333333333333333", "double precision"},
		{"/", []string{"1::float8", "0"}, "ERROR 22012: division by zero", ""},
		{"*", []string{"1e308::float8", "10"}, "ERROR 22003: value out of range: overflow", ""},
		{"*", []string{"1e-300::float8", "1e-300::float8"}, "ERROR 22003: value out of range: underflow", ""},
		{"+", []string{"'Infinity'::float8", "1"}, "Infinity", "double precision"},
		{"-", []string{"'Infinity'::float8", "'Infinity'::float8"}, "NaN", "double precision"},
		{"-", []string{"1.5::float8"}, "-1.5", "double precision"},
		{"+", []string{"1.5", "2.25"}, "3.75", "numeric"},
		{"-", []string{"1.5", "2.25"}, "-0.75", "numeric"},
		{"*", []string{"1.5", "2.25"}, "3.375", "numeric"},
		{"/", []string{"1", "3.0"}, "0.33333333333333333333", "numeric"},
		{"/", []string{"10.0", "4"}, "2.5000000000000000", "numeric"},
		{"/", []string{"1.0", "0"}, "ERROR 22012: division by zero", ""},
		{"/", []string{"12345678901234567890", "3"}, "4115226300411522630", "numeric"},
		{"/", []string{"2", "3::numeric"}, "0.66666666666666666667", "numeric"},
		{"/", []string{"0.000001", "7"}, "0.000000142857142857142857", "numeric"},
		{"%", []string{"10.5", "3"}, "1.5", "numeric"},
		{"%", []string{"-10.5", "3"}, "-1.5", "numeric"},
		{"+", []string{"'NaN'::numeric", "1"}, "NaN", "numeric"},
		{"-", []string{"'Infinity'::numeric", "'Infinity'::numeric"}, "NaN", "numeric"},
		{"*", []string{"'Infinity'::numeric", "-2"}, "-Infinity", "numeric"},
		{"-", []string{"0.0"}, "0.0", "numeric"},
		{"+", []string{"1", "1.5"}, "2.5", "numeric"},
		{"+", []string{"1::int8", "1.5::float4"}, "2.5", "double precision"},
		{"+", []string{"'1'", "'1'"}, "ERROR 42725: operator is not unique: unknown + unknown", ""},
		{"+", []string{"'1'", "1"}, "2", "integer"},
		{"+", []string{"'a'::text", "1"}, "ERROR 42883: operator does not exist: text + integer", ""},
		{"-", []string{"'a'::text"}, "ERROR 42883: operator does not exist: - text", ""},
	})
}

// BenchmarkArithKernel adds and multiplies 64k-row int64 and float64
// columns, against a column and a constant.
func BenchmarkArithKernel(b *testing.B) {
	const n = 1 << 16
	m := memory.NewGoAllocator()
	ctx := testCtx(m)
	ib := array.NewInt64Builder(m)
	fb := array.NewFloat64Builder(m)
	for i := 0; i < n; i++ {
		ib.Append(int64(i))
		fb.Append(float64(i) / 7)
	}
	ints, floats := ib.NewArray(), fb.NewArray()
	for i := 0; i < n; i++ {
		ib.Append(int64(n - i))
		fb.Append(float64(i) * 3)
	}
	ints2, floats2 := ib.NewArray(), fb.NewArray()
	run := func(name, op string, args []Arg) {
		ov, _, err := Resolve(op, []types.T{args[0].Type, args[1].Type})
		if err != nil || ov.Kernel == nil {
			b.Fatalf("%s: %v", name, err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n * 8)
			for i := 0; i < b.N; i++ {
				out, err := ov.Kernel(ctx, args, n)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
	run("int64+col", "+", []Arg{{Array: ints, Type: types.Int8T}, {Array: ints2, Type: types.Int8T}})
	run("int64*const", "*", []Arg{{Array: ints, Type: types.Int8T}, {Const: int64(3), Type: types.Int8T}})
	run("int64/const", "/", []Arg{{Array: ints, Type: types.Int8T}, {Const: int64(3), Type: types.Int8T}})
	run("float64+col", "+", []Arg{{Array: floats, Type: types.Float8T}, {Array: floats2, Type: types.Float8T}})
	run("float64*const", "*", []Arg{{Array: floats, Type: types.Float8T}, {Const: 1.5, Type: types.Float8T}})
}
