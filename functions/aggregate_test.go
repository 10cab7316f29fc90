package functions

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// aggCase runs an aggregate over rows of SQL literals (one slice per
// row, one literal per argument); no rows means an empty input typed by
// the single literal in empty.
type aggCase struct {
	fn    string
	rows  [][]string
	want  string
	typ   string
	empty string // with rows == nil: a literal typing the (empty) column
}

func (c aggCase) sqlOf() string {
	n := 1
	if len(c.rows) > 0 {
		n = len(c.rows[0])
	}
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d", i+1)
	}
	args := strings.Join(cols, ", ")
	if c.fn == "count(*)" {
		args = "*"
	}
	name := strings.TrimSuffix(c.fn, "(*)")
	if len(c.rows) == 0 {
		return fmt.Sprintf("%s(%s) FROM (VALUES (%s)) t(%s) WHERE false", name, args, c.empty, strings.Join(cols, ", "))
	}
	vals := make([]string, len(c.rows))
	for i, r := range c.rows {
		vals[i] = "(" + strings.Join(r, ", ") + ")"
	}
	return fmt.Sprintf("%s(%s) FROM (VALUES %s) t(%s)", name, args, strings.Join(vals, ", "), strings.Join(cols, ", "))
}

func runAggCases(t *testing.T, cases []aggCase) {
	t.Helper()
	oracle := openOracle(t)
	for _, c := range cases {
		t.Run(c.sqlOf(), func(t *testing.T) {
			ctx := testCtx(memory.NewGoAllocator())
			got, res := evalAgg(ctx, c)
			if got != c.want {
				t.Errorf("%s = %q, want %q", c.sqlOf(), got, c.want)
			}
			if c.typ != "" && !strings.HasPrefix(got, "ERROR") && typeName(res) != c.typ {
				t.Errorf("%s: result type %s, want %s", c.sqlOf(), typeName(res), c.typ)
			}
			if oracle != nil {
				if pg := oracle.exec("SELECT " + c.sqlOf()); pg != c.want {
					t.Errorf("oracle: %s = %q, the case says %q", c.sqlOf(), pg, c.want)
				}
				if c.typ != "" && !strings.HasPrefix(c.want, "ERROR") {
					if pg := oracle.exec("SELECT pg_typeof(" + strings.Replace(c.sqlOf(), " FROM", ") FROM", 1)); pg != c.typ {
						t.Errorf("oracle: %s has type %s, the case says %s", c.sqlOf(), pg, c.typ)
					}
				}
			}
		})
	}
}

func evalAgg(ctx *Context, c aggCase) (string, types.T) {
	rows := c.rows
	if len(rows) == 0 {
		rows = [][]string{{c.empty}}
	}
	var lits [][]lit
	var colTypes []types.T
	for _, r := range rows {
		var lr []lit
		for i, a := range r {
			l, err := parseLit(ctx, a)
			if err != nil {
				return errText(err), types.T{}
			}
			lr = append(lr, l)
			if i >= len(colTypes) {
				colTypes = append(colTypes, l.t)
			} else if isUnknownArg(colTypes[i]) {
				colTypes[i] = l.t
			}
		}
		lits = append(lits, lr)
	}
	for i, t := range colTypes {
		if t.Family == types.Unknown {
			colTypes[i] = types.TextT // VALUES resolves unknown columns as text
		}
	}
	argTypes := colTypes
	if c.fn == "count(*)" {
		argTypes = nil
	}
	ag, targets, err := ResolveAggregate(strings.TrimSuffix(c.fn, "(*)"), argTypes)
	if err != nil {
		return errText(err), types.T{}
	}
	res := AggregateResultType(ag, targets)
	st := ag.New(targets)
	if len(c.rows) > 0 {
		for _, lr := range lits {
			args := make([]any, len(targets))
			skip := false
			for i := range targets {
				v, err := Cast(ctx, lr[i].v, lr[i].t, colTypes[i], false)
				if err == nil {
					v, err = Cast(ctx, v, colTypes[i], targets[i], false)
				}
				if err != nil {
					return errText(err), res
				}
				args[i] = v
				skip = skip || (v == nil && !ag.NullCall)
			}
			if skip {
				continue
			}
			if err := st.Step(ctx, args); err != nil {
				return errText(err), res
			}
		}
	}
	v, err := st.Result(ctx)
	if err != nil {
		return errText(err), res
	}
	if v == nil {
		return NULL, res
	}
	return outputText(ctx, v, res), res
}

func rowsOf(lits ...string) [][]string {
	out := make([][]string, len(lits))
	for i, l := range lits {
		out[i] = []string{l}
	}
	return out
}

func TestAggregates(t *testing.T) {
	ints := rowsOf("1", "2", "4", "NULL::int4")
	runAggCases(t, []aggCase{
		{"count(*)", ints, "4", "bigint", ""},
		{"count", ints, "3", "bigint", ""},
		{"count(*)", nil, "0", "bigint", "1"},
		{"count", nil, "0", "bigint", "1"},
		{"sum", ints, "7", "bigint", ""},
		{"sum", rowsOf("1::int8", "2::int8"), "3", "numeric", ""},
		{"sum", rowsOf("9223372036854775807::int8", "1::int8"), "9223372036854775808", "numeric", ""},
		{"sum", rowsOf("2147483647", "1"), "2147483648", "bigint", ""},
		{"sum", rowsOf("1.5::float8", "2::float8"), "3.5", "double precision", ""},
		{"sum", rowsOf("0.1::float4", "0.2::float4"), "0.3", "real", ""},
		{"sum", rowsOf("1.50", "2.25"), "3.75", "numeric", ""},
		{"sum", rowsOf("'1 day'::interval", "'2 hours'::interval"), "1 day 02:00:00", "interval", ""},
		{"sum", nil, NULL, "bigint", "1"},
		{"sum", rowsOf("'a'::text"), "ERROR 42883: function sum(text) does not exist", "", ""},
		{"avg", ints, "2.3333333333333333", "numeric", ""},
		{"avg", rowsOf("1.5::float8", "2::float8", "4::float8"), "2.5", "double precision", ""},
		{"avg", rowsOf("1.50", "2.25", "4"), "2.5833333333333333", "numeric", ""},
		{"avg", rowsOf("'1 day'::interval", "'2 hours'::interval"), "13:00:00", "interval", ""},
		{"avg", nil, NULL, "numeric", "1"},
		{"min", ints, "1", "integer", ""},
		{"max", ints, "4", "integer", ""},
		{"max", rowsOf("'b'::text", "'a'::text", "NULL::text"), "b", "text", ""},
		{"min", rowsOf("'2024-01-02'::date", "'2023-05-01'::date"), "2023-05-01", "date", ""},
		{"max", rowsOf("'NaN'::float8", "1::float8"), "NaN", "double precision", ""},
		{"max", rowsOf("'{1,2}'::int4[]", "'{1,3}'::int4[]"), "{1,3}", "integer[]", ""},
		{"min", rowsOf("'1 mon'::interval", "'29 days'::interval"), "29 days", "interval", ""},
		{"max", nil, NULL, "integer", "1"},
		{"max", rowsOf("true"), "ERROR 42883: function max(boolean) does not exist", "", ""},
		{"bool_and", rowsOf("true", "NULL::bool", "false"), "f", "boolean", ""},
		{"bool_or", rowsOf("true", "NULL::bool", "false"), "t", "boolean", ""},
		{"every", rowsOf("true", "true"), "t", "boolean", ""},
		{"bool_and", nil, NULL, "boolean", "true"},
		{"array_agg", ints, "{1,2,4,NULL}", "integer[]", ""},
		{"array_agg", rowsOf("NULL::int8", "-9223372036854775808::int8", "NULL::int8", "7::int8"), "{NULL,-9223372036854775808,NULL,7}", "bigint[]", ""},
		{"array_agg", rowsOf("1.5::float4", "NULL::float4", "'-Infinity'::float4", "'NaN'::float4"), "{1.5,NULL,-Infinity,NaN}", "real[]", ""},
		{"array_agg", rowsOf("0.1::float8", "'-0'::float8", "NULL::float8"), "{0.1,-0,NULL}", "double precision[]", ""},
		{"array_agg", rowsOf("NULL::int2", "NULL::int2"), "{NULL,NULL}", "smallint[]", ""},
		{"array_agg", rowsOf("'a'::text", "'b c'::text"), `{a,"b c"}`, "text[]", ""},
		{"array_agg", rowsOf("'{1,2}'::int4[]", "'{3,4}'::int4[]"), "{{1,2},{3,4}}", "integer[]", ""},
		{"array_agg", rowsOf("'{1,2}'::int4[]", "'{3}'::int4[]"), "ERROR 2202E: cannot accumulate arrays of different dimensionality", "", ""},
		{"array_agg", rowsOf("'{1,2}'::int4[]", "NULL::int4[]"), "ERROR 22004: cannot accumulate null arrays", "", ""},
		{"array_agg", nil, NULL, "integer[]", "1"},
		{"string_agg", [][]string{{"'a'", "','"}, {"'b'", "NULL::text"}, {"NULL::text", "';'"}, {"'c'", "'-'"}}, "ab-c", "text", ""},
		{"string_agg", [][]string{{"'x'::text", "', '"}}, "x", "text", ""},
		{"string_agg", [][]string{{"'\\x01'::bytea", "'\\x00'::bytea"}, {"'\\x02'::bytea", "'\\xff'::bytea"}}, `\x01ff02`, "bytea", ""},
		{"jsonb_agg", rowsOf("1", "NULL::int4", "3"), "[1, null, 3]", "jsonb", ""},
		{"jsonb_agg", rowsOf("'{\"a\":1}'::jsonb", "'\"x\"'::jsonb"), `[{"a": 1}, "x"]`, "jsonb", ""},
		{"json_agg", rowsOf("'a'::text", "'b'::text"), `["a", "b"]`, "json", ""},
		{"jsonb_agg", nil, NULL, "jsonb", "1"},
		{"jsonb_object_agg", [][]string{{"'a'::text", "1"}, {"'b'::text", "NULL::int4"}}, `{"a": 1, "b": null}`, "jsonb", ""},
		{"jsonb_object_agg", [][]string{{"'a'::text", "1"}, {"NULL::text", "2"}}, "ERROR 22023: field name must not be null", "", ""},
		{"json_object_agg", [][]string{{"'a'::text", "'1'::text"}, {"'b'::text", "'x'::text"}}, `{ "a" : "1", "b" : "x" }`, "json", ""},
		{"stddev", ints, "1.5275252316519467", "numeric", ""},
		{"variance", ints, "2.3333333333333333", "numeric", ""},
		{"stddev_pop", ints, "1.2472191289246471", "numeric", ""},
		{"var_pop", ints, "1.5555555555555556", "numeric", ""},
		{"stddev_samp", rowsOf("1.5::float8", "2::float8", "4::float8"), "1.3228756555322954", "double precision", ""},
		{"var_samp", rowsOf("1.5::float8", "2::float8", "4::float8"), "1.75", "double precision", ""},
		{"stddev", rowsOf("1.50", "2.25", "4"), "1.2829003598617210", "numeric", ""},
		{"var_pop", rowsOf("1.50", "2.25", "4"), "1.09722222222222222222", "numeric", ""},
		{"stddev", rowsOf("1"), NULL, "numeric", ""},
		{"stddev_pop", rowsOf("1"), "0", "numeric", ""},
		{"variance", rowsOf("5", "5"), "0", "numeric", ""},
	})
}
