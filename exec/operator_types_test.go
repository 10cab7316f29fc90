package exec

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// typeSamples are two distinct non-NULL datums of each column type.
func typeSamples() []struct {
	t    types.T
	a, b any
} {
	text2 := types.ArrayOf(types.TextT, 1)
	f2 := types.ArrayOf(types.Float4T, 2)
	return []struct {
		t    types.T
		a, b any
	}{
		{types.BoolT, false, true},
		{types.Int2T, int64(-3), int64(7)},
		{types.Int4T, int64(-3), int64(70000)},
		{types.Int8T, int64(-3), int64(1 << 40)},
		{types.OidT, int64(3), int64(70000)},
		{types.Float4T, -1.5, 2.25},
		{types.Float8T, -1.5, 1e300},
		{types.NumericT, types.NewNumeric("1.50"), types.NewNumeric("123456789012345678901234567890.1")},
		{types.TextT, "", "héllo"},
		{types.VarcharT, "a", "b"},
		{types.ByteaT, []byte{0, 1}, []byte{0xff}},
		{types.UUIDT, [16]byte{1}, [16]byte{2}},
		{types.JSONBT, `{"a": 1}`, `[1, 2]`},
		{types.DateT, types.Date(-5), types.Date(19000)},
		{types.TimeT, types.TimeOfDay(1), types.TimeOfDay(86399000000)},
		{types.TimestampT, types.Timestamp(-1), types.Timestamp(1700000000000000)},
		{types.TimestampTZT, types.Timestamp(-1), types.Timestamp(1700000000000000)},
		{types.IntervalT, types.IntervalValue{Days: 1}, types.IntervalValue{Months: 2, Micros: 5}},
		{types.Float4ArrayT, types.NewArray(types.Float4T, 1.0, nil), types.NewArray(types.Float4T, 1.0, 2.0, 3.0)},
		{f2, &types.Array{Elem: types.Float4T, Dims: []int{2, 2}, Elems: []any{1.0, 2.0, 3.0, 4.0}}, types.NewArray(types.Float4T)},
		{text2, types.NewArray(types.TextT, "x", nil), types.NewArray(types.TextT, "y")},
		{types.VectorOf(3), types.NewVector([]float32{1, 2, 3}), types.NewVector([]float32{-1, 0, 1})},
	}
}

func sameDatum(a, b any, t types.T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.Compare(a, b, t) == 0
}

// TestOperatorsKeepEveryType sends two values and a NULL of each type
// through the copying paths (Values, Filter's selection, Sort's gather,
// Distinct's keys, a hash join, TopK) and checks they come back intact.
func TestOperatorsKeepEveryType(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	for _, s := range typeSamples() {
		t.Run(s.t.String(), func(t *testing.T) {
			cols := []sql.Col{col("id", types.Int8T), col("v", s.t)}
			in := values(cols, row(int64(0), s.a), row(int64(1), nil), row(int64(2), s.b), row(int64(3), s.a), row(int64(4), s.b))
			want := [][]any{{int64(0), s.a}, {int64(1), nil}, {int64(2), s.b}, {int64(3), s.a}, {int64(4), s.b}}
			check := func(what string, got [][]any, ids ...int) {
				t.Helper()
				if len(got) != len(ids) {
					t.Fatalf("%s: %d rows, want %d: %s", what, len(got), len(ids), fmtRows(got))
				}
				for i, id := range ids {
					if got[i][0] != want[id][0] || !sameDatum(got[i][1], want[id][1], s.t) {
						t.Fatalf("%s: row %d = %s, want %s", what, i, fmtRows(got[i:i+1]), fmtRows(want[id:id+1]))
					}
				}
			}
			check("values", collect(t, rt, in), 0, 1, 2, 3, 4)
			id := ref(0, types.Int8T)
			check("filter", collect(t, rt, &sql.Filter{Input: in, Cond: call(opNe, id, i64(3))}), 0, 1, 2, 4)
			desc := []sql.SortKey{{Expr: id, Desc: true}}
			check("sort", collect(t, rt, &sql.Sort{Input: in, Keys: desc}), 4, 3, 2, 1, 0)
			check("topk", collect(t, rt, &sql.TopK{Input: in, Keys: desc, Count: i64(3)}), 4, 3, 2)
			// Distinct on the value column: first of each.
			proj := &sql.Project{Input: in, Exprs: []sql.Expr{ref(1, s.t), id}, Out: []sql.Col{cols[1], cols[0]}}
			dist := &sql.Project{Input: &sql.Distinct{Input: proj, OnCount: 1}, Exprs: []sql.Expr{ref(1, types.Int8T), ref(0, s.t)}, Out: cols}
			check("distinct", collect(t, rt, dist), 0, 1, 2)
			// Sort by the value itself: a, a, b, b, NULL (or b first).
			got := collect(t, rt, &sql.Sort{Input: in, Keys: []sql.SortKey{{Expr: ref(1, s.t)}, {Expr: id}}})
			if types.Compare(s.a, s.b, s.t) < 0 {
				check("sort by value", got, 0, 3, 2, 4, 1)
			} else {
				check("sort by value", got, 2, 4, 0, 3, 1)
			}
			// Hash join on the value with itself: NULL never matches.
			join := &sql.Join{Kind: sql.InnerJoin, Left: in, Right: in,
				EquiLeft: []sql.Expr{ref(1, s.t)}, EquiRight: []sql.Expr{ref(1, s.t)},
				Out: append(append([]sql.Col(nil), cols...), cols...)}
			jrows := collect(t, rt, join)
			if len(jrows) != 8 {
				t.Fatalf("self join: %d rows: %s", len(jrows), fmtRows(jrows))
			}
			for _, r := range jrows {
				if !sameDatum(r[1], r[3], s.t) || r[1] == nil {
					t.Fatalf("self join row %s", fmtRows([][]any{r}))
				}
			}
			// CASE picks values from two columns row by row.
			cs := &sql.Case{Whens: []sql.When{{Cond: call(opEq, id, i64(0)), Result: cnst(s.b, s.t)}}, Else: ref(1, s.t), T: s.t}
			vals := evalOver(t, rt, cs, in)
			if !sameDatum(vals[0], s.b, s.t) || vals[1] != nil || !sameDatum(vals[3], s.a, s.t) {
				t.Fatalf("CASE: %v", fmt.Sprint(vals...))
			}
		})
	}
}

func TestDistinctNumericAndFloatEquality(t *testing.T) {
	rt := testRuntime(t)
	in := values([]sql.Col{col("n", types.NumericT), col("f", types.Float8T)},
		row(types.NewNumeric("1.0"), 0.0), row(types.NewNumeric("1.00"), -0.0), row(types.NewNumeric("2"), 0.0))
	got := collect(t, rt, &sql.Distinct{Input: in, OnCount: 1})
	if len(got) != 2 {
		t.Fatalf("DISTINCT numeric: %s", fmtRows(got))
	}
	proj := &sql.Project{Input: in, Exprs: []sql.Expr{ref(1, types.Float8T)}, Out: []sql.Col{col("f", types.Float8T)}}
	if got := collect(t, rt, &sql.Distinct{Input: proj}); len(got) != 1 {
		t.Fatalf("DISTINCT float: %s", fmtRows(got))
	}
}

func TestConformRelabels(t *testing.T) {
	rt := testRuntime(t)
	op, err := Build(rt, values([]sql.Col{col("e", types.Float4ArrayT), col("ts", types.TimestampTZT)},
		row(types.NewArray(types.Float4T, 1.0, 2.0), types.Timestamp(5))))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	rec, err := op.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i, dt := range []arrow.DataType{
		// A list whose item field is called "element" (as Parquet readers
		// make) is the same Arrow type.
		arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Float32, Nullable: true}),
		// A timestamp without its time zone label is relabelled.
		&arrow.TimestampType{Unit: arrow.Microsecond},
	} {
		arr := rec.Column(i)
		arr.Retain()
		out, err := conformToType(rt.mem(), arr, dt)
		if err != nil {
			t.Fatal(err)
		}
		if !arrow.TypeEqual(out.DataType(), dt) || out.Len() != 1 {
			t.Fatalf("relabelled to %s", out.DataType())
		}
		out.Release()
	}
	arr := rec.Column(1)
	arr.Retain()
	if _, err := conformToType(rt.mem(), arr, arrow.PrimitiveTypes.Float64); err == nil {
		t.Fatal("timestamp relabelled as float64")
	}
}
