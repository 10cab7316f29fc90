package functions

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// castCase casts a literal to a type explicitly (CAST(lit AS typ)).
type castCase struct {
	lit, typ, want string
}

func TestCast(t *testing.T) {
	cases := []castCase{
		{"1", "int2", "1"},
		{"70000", "int2", "ERROR 22003: smallint out of range"},
		{"3000000000", "int4", "ERROR 22003: integer out of range"},
		{"1", "float4", "1"},
		{"1", "numeric", "1"},
		{"1", "bool", "t"},
		{"0", "bool", "f"},
		{"true", "int4", "1"},
		{"1", "text", "1"},
		{"1", "varchar(3)", "1"},
		{"1", "uuid", "ERROR 42846: cannot cast type integer to uuid"},
		{"1", "date", "ERROR 42846: cannot cast type integer to date"},
		{"1::int8", "bool", "ERROR 42846: cannot cast type bigint to boolean"},
		{"2.5::float8", "int4", "2"},
		{"3.5::float8", "int4", "4"},
		{"-2.5::float8", "int4", "-2"},
		{"2.5", "int4", "3"},
		{"-2.5", "int4", "-3"},
		{"1e20::float8", "int8", "ERROR 22003: bigint out of range"},
		{"'NaN'::float8", "int4", "ERROR 22003: integer out of range"},
		{"1e20", "int8", "ERROR 22003: bigint out of range"},
		{"'NaN'::numeric", "int4", "ERROR 0A000: cannot convert NaN to integer"},
		{"'Infinity'::numeric", "int8", "ERROR 0A000: cannot convert infinity to bigint"},
		{"1e39", "float4", `ERROR 22003: "1000000000000000000000000000000000000000" is out of range for type real`},
		{"1e300::float8", "float4", "ERROR 22003: value out of range: overflow"},
		{"0.1::float8", "numeric", "0.1"},
		{"(1::float8 / 3)", "numeric", "0.333333333333333"},
		{"0.1::float4", "numeric", "0.1"},
		{"0.1::float4", "float8", "0.10000000149011612"},
		{"1e20::float8", "numeric", "100000000000000000000"},
		{"1.5e-7::float8", "numeric", "0.00000015"},
		{"'NaN'::float8", "numeric", "NaN"},
		{"'-Infinity'::float8", "numeric", "-Infinity"},
		{"1.25", "float8", "1.25"},
		{"123.456", "numeric(5,2)", "123.46"},
		{"123.456", "numeric(4,2)", "ERROR 22003: numeric field overflow"},
		{"0.5", "numeric(2,2)", "0.50"},
		{"12.345", "numeric(3,3)", "ERROR 22003: numeric field overflow"},
		{"'abcd'", "varchar(2)", "ab"},
		{"'ab'", "char(4)", "ab  "},
		{"'ab  '::char(4)", "text", "ab"},
		{"'ab  '::char(4)", "varchar", "ab"},
		{"'abc'::varchar", "char(2)", "ab"},
		{"true", "text", "true"},
		{"false", "varchar", "false"},
		{"'yes'", "bool", "t"},
		{"'maybe'", "bool", `ERROR 22P02: invalid input syntax for type boolean: "maybe"`},
		{"' 42 '", "int4", "42"},
		{"'4x'", "int4", `ERROR 22P02: invalid input syntax for type integer: "4x"`},
		{"'1.5'::text", "numeric", "1.5"},
		{"'{\"b\":1, \"a\":[1, 2.50]}'::json", "jsonb", `{"a": [1, 2.50], "b": 1}`},
		{"'{\"b\":1}'::jsonb", "json", `{"b": 1}`},
		{"'{\"b\":1}'::jsonb", "text", `{"b": 1}`},
		{"'1.5'::jsonb", "int4", "2"},
		{"'1.5'::jsonb", "float8", "1.5"},
		{"'true'::jsonb", "bool", "t"},
		{"'\"a\"'::jsonb", "int4", "ERROR 22023: cannot cast jsonb string to type integer"},
		{"'true'::jsonb", "numeric", "ERROR 22023: cannot cast jsonb boolean to type numeric"},
		{"'null'::jsonb", "int4", "ERROR 22023: cannot cast jsonb null to type integer"},
		{"'[1]'::jsonb", "bool", "ERROR 22023: cannot cast jsonb array to type boolean"},
		{"1.5", "jsonb", "ERROR 42846: cannot cast type numeric to jsonb"},
		{"'2024-02-29'::date", "timestamp", "2024-02-29 00:00:00"},
		{"'2024-02-29'::date", "timestamptz", "2024-02-29 00:00:00+00"},
		{"'2024-02-29 23:59:59.5'::timestamp", "date", "2024-02-29"},
		{"'2024-02-29 23:59:59.5'::timestamp", "time", "23:59:59.5"},
		{"'2024-02-29 23:59:59'::timestamp", "timestamptz", "2024-02-29 23:59:59+00"},
		{"'2024-02-29 23:59:59+02'::timestamptz", "timestamp", "2024-02-29 21:59:59"},
		{"'1 day 25:00'::interval", "time", "01:00:00"},
		{"'-1 hour'::interval", "time", "23:00:00"},
		{"'10:30'::time", "interval", "10:30:00"},
		{"'infinity'::date", "timestamp", "infinity"},
		{"'{1,2}'::int4[]", "text[]", "{1,2}"},
		{"'{1.5,2.5}'::float8[]", "int4[]", "{2,2}"},
		{"'{1,NULL,3}'::int4[]", "int8[]", "{1,NULL,3}"},
		{"'{abc,de}'::text[]", "varchar(2)[]", "{ab,de}"},
		{"'{1,2}'::int4[]", "text", "{1,2}"},
		{"'{1,2}'", "int4[]", "{1,2}"},
		{"'{{1,2},{3,4}}'::int4[]", "float8[]", "{{1,2},{3,4}}"},
		{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "text", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"'\\x4142'::bytea", "text", `\x4142`},
		{"3::oid", "int8", "3"},
		{"'4294967295'::oid", "int4", "-1"},
		{"NULL::int4", "text", NULL},
		{"NULL", "uuid", NULL},
	}
	oracle := openOracle(t)
	for _, c := range cases {
		sql := fmt.Sprintf("CAST(%s AS %s)", c.lit, c.typ)
		t.Run(sql, func(t *testing.T) {
			m := memory.NewCheckedAllocator(memory.NewGoAllocator())
			ctx := testCtx(m)
			got := castText(ctx, c.lit, c.typ)
			if got != c.want {
				t.Errorf("%s = %q, want %q", sql, got, c.want)
			}
			if oracle != nil {
				if pg := oracle.exec("SELECT " + sql); pg != c.want {
					t.Errorf("oracle: %s = %q, the case says %q", sql, pg, c.want)
				}
			}
		})
	}
}

// castText evaluates CAST(lit AS typ) and formats the result. A literal in
// parentheses is a one-operator expression "(a op b)".
func castText(ctx *Context, litText, typ string) string {
	var l lit
	if litText[0] == '(' {
		var a, op, b string
		fmt.Sscanf(litText[1:len(litText)-1], "%s %s %s", &a, &op, &b)
		out, res, _, _ := evalCase(ctx, tc{fn: op, args: []string{a, b}})
		if len(out) > 5 && out[:5] == "ERROR" {
			return out
		}
		v, err := types.ParseText(out, res)
		if err != nil {
			return errText(err)
		}
		l = lit{v, res}
	} else {
		var err error
		if l, err = parseLit(ctx, litText); err != nil {
			return errText(err)
		}
	}
	to, err := parseTypeName(typ)
	if err != nil {
		return errText(err)
	}
	v, err := Cast(ctx, l.v, l.t, to, true)
	if err != nil {
		return errText(err)
	}
	if v == nil {
		return NULL
	}
	return outputText(ctx, v, to)
}

func TestCastAssignment(t *testing.T) {
	ctx := testCtx(memory.NewGoAllocator())
	vc3, _ := parseTypeName("varchar(3)")
	if _, err := Cast(ctx, "abcd", types.TextT, vc3, false); errText(err) != "ERROR 22001: value too long for type character varying(3)" {
		t.Errorf("assignment of a long value: %v", err)
	}
	if v, err := Cast(ctx, "ab   ", types.TextT, vc3, false); err != nil || v != "ab " {
		t.Errorf("assignment with trailing blanks: %q, %v", v, err)
	}
	if _, err := Cast(ctx, int64(1), types.Int4T, types.BoolT, false); errText(err) != "ERROR 42846: cannot cast type integer to boolean" {
		t.Errorf("implicit int to bool: %v", err)
	}
	for _, k := range []struct {
		from, to types.T
		i, a, e  bool
	}{
		{types.Int4T, types.Int8T, true, true, true},
		{types.Int8T, types.Int4T, false, true, true},
		{types.Int4T, types.BoolT, false, false, true},
		{types.TextT, types.Int4T, false, false, true},
		{types.Int4T, types.TextT, false, true, true},
		{types.VarcharT, types.TextT, true, true, true},
		{types.DateT, types.TimestampTZT, true, true, true},
		{types.TimestampTZT, types.DateT, false, true, true},
		{types.JSONT, types.JSONBT, false, true, true},
		{types.Int4T, types.UUIDT, false, false, false},
		{types.ArrayOf(types.Int4T, 1), types.ArrayOf(types.Int8T, 1), true, true, true},
		{types.ArrayOf(types.Float4T, 1), types.VectorOf(3), false, true, true},
		{types.VectorOf(3), types.ArrayOf(types.Float4T, 1), true, true, true},
		{types.UnknownT, types.UUIDT, true, true, true},
	} {
		i, a, e := CastKind(k.from, k.to)
		if i != k.i || a != k.a || e != k.e {
			t.Errorf("CastKind(%s, %s) = %v %v %v, want %v %v %v", k.from, k.to, i, a, e, k.i, k.a, k.e)
		}
	}
}

func TestCastVector(t *testing.T) {
	ctx := testCtx(memory.NewGoAllocator())
	arr := types.NewArray(types.Float4T, 1.0, 2.0, 3.0)
	if _, err := Cast(ctx, arr, types.Float4ArrayT, types.VectorOf(2), false); errText(err) != "ERROR 22000: expected 2 dimensions, not 3" {
		t.Errorf("vector(2) of 3 floats: %v", err)
	}
	v, err := Cast(ctx, types.NewArray(types.Int4T, int64(1), int64(2)), types.ArrayOf(types.Int4T, 1), types.VectorOf(2), false)
	if err != nil || types.FormatText(v, types.VectorOf(2)) != "[1,2]" {
		t.Errorf("int[] to vector: %v %v", v, err)
	}
	if _, err := Cast(ctx, types.NewArray(types.Float4T, 1.0, nil), types.Float4ArrayT, types.VectorOf(0), false); errText(err) != "ERROR 22004: array must not contain nulls" {
		t.Errorf("vector with NULL: %v", err)
	}
}
