package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

func TestComparison(t *testing.T) {
	runCases(t, []tc{
		{"=", []string{"1", "1"}, "t", "boolean"},
		{"=", []string{"1", "2"}, "f", "boolean"},
		{"<>", []string{"1", "2"}, "t", "boolean"},
		{"!=", []string{"1", "2"}, "t", "boolean"},
		{"<", []string{"1", "2"}, "t", "boolean"},
		{"<=", []string{"2", "2"}, "t", "boolean"},
		{">", []string{"1", "2"}, "f", "boolean"},
		{">=", []string{"3", "2"}, "t", "boolean"},
		{"=", []string{"1", "NULL"}, NULL, "boolean"},
		{"<", []string{"NULL::int4", "1"}, NULL, "boolean"},
		{"=", []string{"1::int2", "1::int8"}, "t", "boolean"},
		{"<", []string{"32767::int2", "2147483648"}, "t", "boolean"},
		{"=", []string{"1", "1.0"}, "t", "boolean"},
		{"=", []string{"0.1::float4", "0.1"}, "f", "boolean"},
		{"=", []string{"0.1::float4", "0.1::float4"}, "t", "boolean"},
		{"=", []string{"'NaN'::float8", "'NaN'::float8"}, "t", "boolean"},
		{">", []string{"'NaN'::float8", "'Infinity'::float8"}, "t", "boolean"},
		{"<", []string{"1.5::float8", "'NaN'::float8"}, "t", "boolean"},
		{"=", []string{"'-0'::float8", "0::float8"}, "t", "boolean"},
		{"=", []string{"'NaN'::numeric", "'NaN'::numeric"}, "t", "boolean"},
		{"<", []string{"1.50", "1.5000001"}, "t", "boolean"},
		{"=", []string{"1.50", "1.5"}, "t", "boolean"},
		{"=", []string{"'abc'", "'abc'"}, "t", "boolean"},
		{"<", []string{"'abc'::text", "'abd'"}, "t", "boolean"},
		{"<", []string{"'B'::text", "'a'::text"}, "t", "boolean"},
		{">", []string{"'é'::text", "'z'::text"}, "t", "boolean"},
		{"=", []string{"'ab  '::char(4)", "'ab'::char(2)"}, "t", "boolean"},
		{"=", []string{"'ab'::varchar(5)", "'ab'::text"}, "t", "boolean"},
		{"=", []string{"'ab '::varchar", "'ab'::varchar"}, "f", "boolean"},
		{"<", []string{"false", "true"}, "t", "boolean"},
		{"=", []string{"true", "'t'"}, "t", "boolean"},
		{"=", []string{"'\\x0102'::bytea", "'\\x0102'::bytea"}, "t", "boolean"},
		{"<", []string{"'\\x01'::bytea", "'\\x0102'::bytea"}, "t", "boolean"},
		{"=", []string{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'"}, "t", "boolean"},
		{"<", []string{"'2024-01-01'::date", "'2024-01-02'::date"}, "t", "boolean"},
		{"=", []string{"'2024-01-01'::date", "'2024-01-01 00:00'::timestamp"}, "t", "boolean"},
		{"<", []string{"'2024-01-01 10:00'::timestamp", "'2024-01-01 10:00:01'::timestamptz"}, "t", "boolean"},
		{"<", []string{"'10:00'::time", "'09:00'::time"}, "f", "boolean"},
		{"=", []string{"'1 mon'::interval", "'30 days'::interval"}, "t", "boolean"},
		{"<", []string{"'1 day'::interval", "'25 hours'::interval"}, "t", "boolean"},
		{"=", []string{"'{\"a\": 1, \"b\": [1, 2]}'::jsonb", "'{\"b\":[1,2],\"a\":1}'::jsonb"}, "t", "boolean"},
		{"<", []string{"'1'::jsonb", "'\"a\"'::jsonb"}, "f", "boolean"},
		{"=", []string{"'{1,2,3}'::int4[]", "'{1,2,3}'::int4[]"}, "t", "boolean"},
		{"<", []string{"'{1,2}'::int4[]", "'{1,2,3}'::int4[]"}, "t", "boolean"},
		{"=", []string{"'{1,NULL}'::int4[]", "'{1,NULL}'::int4[]"}, "t", "boolean"},
		{"<", []string{"'{1,2}'::int4[]", "'{1,NULL}'::int4[]"}, "t", "boolean"},
		{"=", []string{"'{a,b}'::text[]", "'{a,b}'"}, "t", "boolean"},
		{"=", []string{"1", "'a'"}, `ERROR 22P02: invalid input syntax for type integer: "a"`, ""},
		{"=", []string{"1", "'a'::text"}, "ERROR 42883: operator does not exist: integer = text", ""},
		{"=", []string{"'{\"a\":1}'::json", "'{\"a\":1}'::json"}, "ERROR 42883: operator does not exist: json = json", ""},
	})
}

// BenchmarkCompareKernel compares 64k-row columns: int64 column against a
// constant and against a column, float64, and text.
func BenchmarkCompareKernel(b *testing.B) {
	const n = 1 << 16
	m := memory.NewGoAllocator()
	ctx := testCtx(m)
	ib := array.NewInt64Builder(m)
	fb := array.NewFloat64Builder(m)
	sb := array.NewStringBuilder(m)
	for i := 0; i < n; i++ {
		ib.Append(int64(i * 7 % 1000))
		fb.Append(float64(i%1000) / 3)
		sb.Append([]string{"alpha", "beta", "gamma", "delta"}[i%4])
	}
	ints, floats, strs := ib.NewArray(), fb.NewArray(), sb.NewArray()
	ints2 := ib.NewArray()
	for i := 0; i < n; i++ {
		ib.Append(int64(i % 997))
	}
	ints2.Release()
	ints2 = ib.NewArray()
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
	run("int64<const", "<", []Arg{{Array: ints, Type: types.Int8T}, {Const: int64(500), Type: types.Int8T}})
	run("int64=col", "=", []Arg{{Array: ints, Type: types.Int8T}, {Array: ints2, Type: types.Int8T}})
	run("float64>=const", ">=", []Arg{{Array: floats, Type: types.Float8T}, {Const: 100.5, Type: types.Float8T}})
	run("text=const", "=", []Arg{{Array: strs, Type: types.TextT}, {Const: "gamma", Type: types.TextT}})
}
