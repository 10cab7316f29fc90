package functions

import (
	"testing"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// TestResolve checks overload choice through results and result types
// (the oracle checks both against PostgreSQL's pg_typeof).
func TestResolve(t *testing.T) {
	runCases(t, []tc{
		{"abs", []string{"'-1'"}, "1", "double precision"},
		{"abs", []string{"'x'"}, `ERROR 22P02: invalid input syntax for type double precision: "x"`, ""},
		{"abs", []string{"-1"}, "1", "integer"},
		{"abs", []string{"-1.50"}, "1.50", "numeric"},
		{"abs", []string{"-1::int2"}, "1", "smallint"},
		{"lower", []string{"1"}, "ERROR 42883: function lower(integer) does not exist", ""},
		{"lower", []string{"NULL"}, NULL, "text"},
		{"no_such_fn", []string{"1", "'a'::text"}, "ERROR 42883: function no_such_fn(integer, text) does not exist", ""},
		{"||", []string{"'abc'", "1"}, "abc1", "text"},
		{"||", []string{"1", "'abc'::text"}, "1abc", "text"},
		{"||", []string{"'a'::text", "true"}, "atrue", "text"},
		{"||", []string{"'a'::text", "1.5::float4"}, "a1.5", "text"},
		{"||", []string{"'a'::text", "NULL"}, NULL, "text"},
		{"||", []string{"'{a}'::text[]", "'b'"}, `ERROR 22P02: malformed array literal: "b"`, ""},
		{"||", []string{"'{a}'::text[]", "'b'::text"}, "{a,b}", "text[]"},
		{"||", []string{"'{1,2}'::int4[]", "3::int8"}, "{1,2,3}", "bigint[]"},
		{"||", []string{"'{1,2}'::int4[]", "'{3}'::int4[]"}, "{1,2,3}", "integer[]"},
		{"array_append", []string{"'{1,2}'::int4[]", "3::int8"}, "{1,2,3}", "bigint[]"},
		{"array_append", []string{"'{1,2}'::int4[]", "'3'"}, "{1,2,3}", "integer[]"},
		{"greatest", []string{"1", "2.5"}, "2.5", "numeric"},
		{"greatest", []string{"1", "NULL", "3"}, "3", "integer"},
		{"least", []string{"'b'", "'a'"}, "a", "text"},
		{"=", []string{"1", "'1'"}, "t", "boolean"},
		{"-", []string{"'2024-01-01'::date", "'2023-12-01'"}, "31", "integer"},
		{"-", []string{"'2024-01-01 10:00+00'::timestamptz", "'1 day'"}, `ERROR 22007: invalid input syntax for type timestamp with time zone: "1 day"`, ""},
		{"-", []string{"'2024-01-01 10:00+00'::timestamptz", "'1 day'::interval"}, "2023-12-31 10:00:00+00", "timestamp with time zone"},
		{"@>", []string{"'{\"a\":1,\"b\":2}'::jsonb", "'{\"a\":1}'"}, "t", "boolean"},
		{"@>", []string{"'{1,2}'::int4[]", "'{1}'"}, "t", "boolean"},
		{"length", []string{"'abc'"}, "3", "integer"},
		{"length", []string{"NULL"}, NULL, "integer"},
		{"round", []string{"2.5"}, "3", "numeric"},
		{"round", []string{"2.5::float8"}, "2", "double precision"},
		{"round", []string{"2"}, "2", "double precision"},
		{"sqrt", []string{"4"}, "2", "double precision"},
		{"mod", []string{"5", "2"}, "1", "integer"},
		{"%", []string{"5", "2.5"}, "0.0", "numeric"},
		{"power", []string{"2", "3"}, "8", "double precision"},
		{"^", []string{"2", "3"}, "8", "double precision"},
	})
}

func TestResolveErrors(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []types.T
		code, msg string
		hint      string
	}{
		{"lower", []types.T{types.Int4T}, "42883", "function lower(integer) does not exist",
			"No function matches the given name and argument types. You might need to add explicit type casts."},
		{"=", []types.T{types.Int4T, types.TextT}, "42883", "operator does not exist: integer = text",
			"No operator matches the given name and argument types. You might need to add explicit type casts."},
		{"-", []types.T{types.TextT}, "42883", "operator does not exist: - text",
			"No operator matches the given name and argument type. You might need to add an explicit type cast."},
		{"+", []types.T{types.UnknownT, types.UnknownT}, "42725", "operator is not unique: unknown + unknown",
			"Could not choose a best candidate operator. You might need to add explicit type casts."},
		{"~~", []types.T{types.UnknownT, types.Int4T}, "42883", "operator does not exist: unknown ~~ integer",
			"No operator matches the given name and argument types. You might need to add explicit type casts."},
		{"=", []types.T{{Family: types.Varchar, Mod: 10}, types.Int4T}, "42883", "operator does not exist: character varying = integer",
			"No operator matches the given name and argument types. You might need to add explicit type casts."},
	} {
		_, _, err := Resolve(c.name, c.args)
		pe := pgerr.From(err)
		if err == nil || pe.Code != c.code || pe.Message != c.msg || pe.Hint != c.hint {
			t.Errorf("Resolve(%s, %v) = %v (%s, hint %q), want %s %q hint %q", c.name, c.args, err, pe.Code, pe.Hint, c.code, c.msg, c.hint)
		}
	}
	if _, _, err := ResolveAggregate("sum", []types.T{types.TextT}); errText(err) != "ERROR 42883: function sum(text) does not exist" {
		t.Errorf("sum(text): %v", err)
	}
}

func TestResolveCastTargets(t *testing.T) {
	vc := types.T{Family: types.Varchar, Mod: 10}
	ov, targets, err := Resolve("=", []types.T{vc, types.UnknownT})
	if err != nil {
		t.Fatal(err)
	}
	if ov.Args[0].Family != types.Text || targets[0].Family != types.Text || targets[1].Family != types.Text {
		t.Errorf("varchar = unknown resolved to %v with targets %v", ov.Args, targets)
	}
	ov, targets, err = Resolve("array_position", []types.T{types.ArrayOf(types.Int4T, 1), types.Int8T})
	if err != nil {
		t.Fatal(err)
	}
	if targets[0].String() != "bigint[]" || targets[1].String() != "bigint" || ResultType(ov, targets).String() != "integer" {
		t.Errorf("array_position(int[], bigint) targets %v", targets)
	}
	ov, targets, err = Resolve("concat", []types.T{types.Int4T, types.UnknownT, types.BoolT})
	if err != nil {
		t.Fatal(err)
	}
	if !targets[0].Equal(types.Int4T) || !targets[1].Equal(types.TextT) || !targets[2].Equal(types.BoolT) {
		t.Errorf("concat targets %v", targets)
	}
	v, err := ov.Eval(testCtx(nil), []any{int64(1), "x", true})
	if err != nil || v != "1xt" {
		t.Errorf("concat = %v, %v", v, err)
	}
}

// TestResolveMemo checks that a resolution Resolve remembers is the one it
// made: the same overload, the same targets, which a caller may change
// without changing the next caller's, and a type-aware overload that
// still evaluates with its argument types.
func TestResolveMemo(t *testing.T) {
	var first *Overload
	for i := 0; i < 3; i++ {
		ov, targets, err := Resolve("=", []types.T{types.Int8T, types.Int4T})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = ov
		}
		if ov != first || !targets[0].Equal(types.Int8T) || !targets[1].Equal(types.Int8T) {
			t.Fatalf("call %d: int8 = int4 resolved to %v with targets %v", i, ov.Args, targets)
		}
		targets[0] = types.TextT
		ov, targets, err = Resolve("concat", []types.T{types.Int4T, types.UnknownT, types.BoolT})
		if err != nil {
			t.Fatal(err)
		}
		if !targets[0].Equal(types.Int4T) || !targets[1].Equal(types.TextT) || !targets[2].Equal(types.BoolT) {
			t.Fatalf("call %d: concat targets %v", i, targets)
		}
		targets[1] = types.Int8T
		v, err := ov.Eval(testCtx(nil), []any{int64(1), "x", true})
		if err != nil || v != "1xt" {
			t.Fatalf("call %d: concat = %v, %v", i, v, err)
		}
	}
	if _, _, err := Resolve("lower", []types.T{types.Int4T}); err == nil {
		t.Fatal("lower(integer) resolved")
	}
	if _, _, err := Resolve("lower", []types.T{types.Int4T}); err == nil {
		t.Fatal("lower(integer) resolved the second time")
	}
}

// BenchmarkResolve times the resolution of a point lookup's int8 = int4,
// remembered (Resolve) and searched for through the overloads (resolve).
func BenchmarkResolve(b *testing.B) {
	args := []types.T{types.Int8T, types.Int4T}
	for _, c := range []struct {
		name string
		fn   func(string, []types.T) (*Overload, []types.T, error)
	}{{"memo", Resolve}, {"search", resolve}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := c.fn("=", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
