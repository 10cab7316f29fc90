package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// evalOver evaluates e over the rows of in (through a Project) and returns
// one datum per row.
func evalOver(t *testing.T, rt *Runtime, e sql.Expr, in sql.Node) []any {
	t.Helper()
	got, err := tryEvalOver(rt, e, in)
	if err != nil {
		t.Fatalf("%s: %v", e.String(), err)
	}
	return got
}

func tryEvalOver(rt *Runtime, e sql.Expr, in sql.Node) ([]any, error) {
	p := &sql.Project{Input: in, Exprs: []sql.Expr{e}, Out: []sql.Col{col("x", e.Type())}}
	rows, err := tryCollect(rt, p)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out, nil
}

func wantVals(t *testing.T, what string, got []any, want ...any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

var (
	boolNull = cnst(nil, types.BoolT)
	boolT    = cnst(true, types.BoolT)
	boolF    = cnst(false, types.BoolT)
)

func TestEvalColumnRefIsZeroCopy(t *testing.T) {
	rt := testRuntime(t)
	op, err := Build(rt, intRows(2, row(int64(1), int64(2)), row(int64(3), nil)))
	if err != nil {
		t.Fatal(err)
	}
	err = Drain(context.Background(), op, func(rec arrow.Record) error {
		arr, err := Eval(context.Background(), rt, ref(1, types.Int8T), rec)
		if err != nil {
			return err
		}
		defer arr.Release()
		if arr != rec.Column(1) {
			t.Errorf("column reference copied its column")
		}
		c, err := Eval(context.Background(), rt, i64(7), rec)
		if err != nil {
			return err
		}
		defer c.Release()
		if c.Len() != 2 || types.ValueAt(c, 1, types.Int8T) != int64(7) {
			t.Errorf("constant not broadcast: %v", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEvalScalar(t *testing.T) {
	rt := testRuntime(t)
	rt.Params = []any{int64(40)}
	v, err := EvalScalar(context.Background(), rt, call(opPlus, &sql.Param{Index: 0, T: types.Int8T}, i64(2)))
	if err != nil || v != int64(42) {
		t.Fatalf("$1 + 2 = %v, %v", v, err)
	}
	_, err = EvalScalar(context.Background(), rt, &sql.Param{Index: 3, T: types.Int8T})
	wantCode(t, err, pgerrcode.UndefinedParameter)
	_, err = EvalScalar(context.Background(), rt, ref(0, types.Int8T))
	wantCode(t, err, pgerrcode.InternalError)
}

func TestEvalCallStrictness(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(2, row(int64(1), int64(2)), row(nil, int64(3)), row(int64(5), nil))
	// Row loop (no kernel) and kernel paths give the same answers.
	rowLoop := *opPlus
	rowLoop.Kernel = nil
	for _, ov := range []*struct {
		name string
		e    sql.Expr
	}{
		{"kernel", call(opPlus, ref(0, types.Int8T), ref(1, types.Int8T))},
		{"row loop", call(&rowLoop, ref(0, types.Int8T), ref(1, types.Int8T))},
		{"kernel const", call(opPlus, ref(0, types.Int8T), i64(10))},
	} {
		got := evalOver(t, rt, ov.e, in)
		if ov.name == "kernel const" {
			wantVals(t, ov.name, got, int64(11), nil, int64(15))
		} else {
			wantVals(t, ov.name, got, int64(3), nil, nil)
		}
	}
	// A non-strict function sees the NULLs.
	seen := 0
	nonStrict := *opEq
	nonStrict.NullCall = true
	nonStrict.Eval = func(_ *functions.Context, args []any) (any, error) {
		seen++
		return args[0] == nil, nil
	}
	got := evalOver(t, rt, call(&nonStrict, ref(0, types.Int8T), ref(1, types.Int8T)), in)
	wantVals(t, "non-strict", got, false, true, false)
	if seen != 3 {
		t.Fatalf("non-strict function called %d times", seen)
	}
}

func TestEvalBoolThreeValued(t *testing.T) {
	rt := testRuntime(t)
	vals := []any{true, false, nil}
	var rows [][]any
	for _, a := range vals {
		for _, b := range vals {
			rows = append(rows, row(a, b))
		}
	}
	in := values([]sql.Col{col("a", types.BoolT), col("b", types.BoolT)}, rows...)
	a, b := ref(0, types.BoolT), ref(1, types.BoolT)
	and := evalOver(t, rt, &sql.BoolOp{Op: sql.And, Args: []sql.Expr{a, b}}, in)
	wantVals(t, "AND", and, true, false, nil, false, false, false, nil, false, nil)
	or := evalOver(t, rt, &sql.BoolOp{Op: sql.Or, Args: []sql.Expr{a, b}}, in)
	wantVals(t, "OR", or, true, true, true, true, false, nil, true, nil, nil)
	not := evalOver(t, rt, &sql.BoolOp{Op: sql.Not, Args: []sql.Expr{a}}, in)
	wantVals(t, "NOT", not, false, false, false, true, true, true, nil, nil, nil)
	// Constants fold.
	for _, c := range []struct {
		e    sql.Expr
		want any
	}{
		{&sql.BoolOp{Op: sql.And, Args: []sql.Expr{boolT, boolNull}}, nil},
		{&sql.BoolOp{Op: sql.And, Args: []sql.Expr{boolNull, boolF}}, false},
		{&sql.BoolOp{Op: sql.Or, Args: []sql.Expr{boolNull, boolT}}, true},
		{&sql.BoolOp{Op: sql.Or, Args: []sql.Expr{boolF, boolNull}}, nil},
		{&sql.BoolOp{Op: sql.Not, Args: []sql.Expr{boolNull}}, nil},
	} {
		if v, err := EvalScalar(context.Background(), rt, c.e); err != nil || v != c.want {
			t.Errorf("%s = %v (%v), want %v", c.e, v, err, c.want)
		}
	}
}

func TestEvalShortCircuit(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(1, row(int64(0)), row(int64(5)), row(nil), row(int64(20)))
	x := ref(0, types.Int8T)
	div := call(opDiv, i64(10), x)
	// x <> 0 AND 10/x > 1: never divides by zero.
	and := &sql.BoolOp{Op: sql.And, Args: []sql.Expr{call(opNe, x, i64(0)), call(opGt, div, i64(1))}}
	wantVals(t, "AND", evalOver(t, rt, and, in), false, true, nil, false)
	// x = 0 OR 10/x > 1
	or := &sql.BoolOp{Op: sql.Or, Args: []sql.Expr{call(opEq, x, i64(0)), call(opGt, div, i64(1))}}
	wantVals(t, "OR", evalOver(t, rt, or, in), true, true, nil, false)
	// Without the guard the division fails.
	_, err := tryEvalOver(rt, call(opGt, div, i64(1)), in)
	wantCode(t, err, pgerrcode.DivisionByZero)
	// CASE WHEN x = 0 THEN -1 ELSE 10/x END
	cs := &sql.Case{Whens: []sql.When{{Cond: call(opEq, x, i64(0)), Result: i64(-1)}}, Else: div, T: types.Int8T}
	wantVals(t, "CASE", evalOver(t, rt, cs, in), int64(-1), int64(2), nil, int64(0))
	// COALESCE(x, 10/0) evaluates the division only for the NULL row.
	co := &sql.Coalesce{Args: []sql.Expr{x, call(opDiv, i64(10), i64(0))}, T: types.Int8T}
	_, err = tryEvalOver(rt, co, in)
	wantCode(t, err, pgerrcode.DivisionByZero)
	co = &sql.Coalesce{Args: []sql.Expr{call(opDiv, i64(100), x), x, i64(7)}, T: types.Int8T}
	_, err = tryEvalOver(rt, co, in) // row 0 divides by zero
	wantCode(t, err, pgerrcode.DivisionByZero)
	co = &sql.Coalesce{Args: []sql.Expr{x, call(opDiv, i64(100), x), i64(7)}, T: types.Int8T}
	wantVals(t, "COALESCE", evalOver(t, rt, co, in), int64(0), int64(5), int64(7), int64(20))
}

func TestEvalCase(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(1, row(int64(1)), row(int64(2)), row(int64(3)), row(nil))
	x := ref(0, types.Int8T)
	cs := &sql.Case{Whens: []sql.When{
		{Cond: call(opEq, x, i64(1)), Result: cnst("one", types.TextT)},
		{Cond: call(opEq, x, i64(2)), Result: cnst("two", types.TextT)},
	}, T: types.TextT}
	wantVals(t, "CASE no ELSE", evalOver(t, rt, cs, in), "one", "two", nil, nil)
	cs.Else = cnst("many", types.TextT)
	wantVals(t, "CASE", evalOver(t, rt, cs, in), "one", "two", "many", "many")
	// Column results.
	cs = &sql.Case{Whens: []sql.When{{Cond: call(opGt, x, i64(1)), Result: x}}, Else: i64(0), T: types.Int8T}
	wantVals(t, "CASE col", evalOver(t, rt, cs, in), int64(0), int64(2), int64(3), int64(0))
	// All rows in one arm.
	cs = &sql.Case{Whens: []sql.When{{Cond: boolT, Result: x}}, T: types.Int8T}
	wantVals(t, "CASE const", evalOver(t, rt, cs, in), int64(1), int64(2), int64(3), nil)
}

func TestEvalIsNullIsDistinct(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(2, row(int64(1), int64(1)), row(int64(1), int64(2)), row(nil, int64(2)), row(nil, nil))
	a, b := ref(0, types.Int8T), ref(1, types.Int8T)
	wantVals(t, "IS NULL", evalOver(t, rt, &sql.IsNull{Arg: a}, in), false, false, true, true)
	wantVals(t, "IS NOT NULL", evalOver(t, rt, &sql.IsNull{Arg: a, Negate: true}, in), true, true, false, false)
	wantVals(t, "IS DISTINCT", evalOver(t, rt, &sql.IsDistinct{Left: a, Right: b, Equal: opEq}, in), false, true, true, false)
	wantVals(t, "IS NOT DISTINCT", evalOver(t, rt, &sql.IsDistinct{Left: a, Right: b, Equal: opEq, Negate: true}, in), true, false, false, true)
	rowE := &sql.RowExpr{Args: []sql.Expr{a, b}, T: types.RecordT}
	wantVals(t, "ROW IS NULL", evalOver(t, rt, &sql.IsNull{Arg: rowE}, in), false, false, false, true)
	wantVals(t, "ROW IS NOT NULL", evalOver(t, rt, &sql.IsNull{Arg: rowE, Negate: true}, in), true, true, false, false)
}

func TestEvalInList(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(1, row(int64(1)), row(int64(4)), row(nil))
	x := ref(0, types.Int8T)
	for _, n := range []int{2, 10} { // OR of comparisons, hash set
		list := []sql.Expr{i64(1), i64(2)}
		for i := 2; i < n; i++ {
			list = append(list, i64(int64(100+i)))
		}
		e := &sql.InList{Arg: x, List: list, Equal: opEq}
		wantVals(t, "IN", evalOver(t, rt, e, in), true, false, nil)
		e.Negate = true
		wantVals(t, "NOT IN", evalOver(t, rt, e, in), false, true, nil)
		withNull := append(append([]sql.Expr(nil), list...), cnst(nil, types.Int8T))
		e = &sql.InList{Arg: x, List: withNull, Equal: opEq}
		wantVals(t, "IN with NULL", evalOver(t, rt, e, in), true, nil, nil)
		e.Negate = true
		wantVals(t, "NOT IN with NULL", evalOver(t, rt, e, in), false, nil, nil)
	}
	// Items that are columns.
	e := &sql.InList{Arg: i64(4), List: []sql.Expr{x, i64(9)}, Equal: opEq}
	wantVals(t, "IN columns", evalOver(t, rt, e, in), false, true, nil)
}

func intArray(vs ...any) *types.Array {
	a := &types.Array{Elem: types.Int8T, Elems: vs}
	if len(vs) > 0 {
		a.Dims = []int{len(vs)}
	}
	return a
}

func TestEvalAnyAll(t *testing.T) {
	rt := testRuntime(t)
	arrT := types.ArrayOf(types.Int8T, 1)
	in := values([]sql.Col{col("x", types.Int8T), col("a", arrT)},
		row(int64(1), intArray(int64(1), int64(2))),
		row(int64(3), intArray(int64(1), int64(2))),
		row(int64(3), intArray(int64(1), nil)),
		row(int64(1), intArray(int64(1), nil)),
		row(nil, intArray(int64(1))),
		row(nil, intArray()),
		row(int64(1), nil),
	)
	x, a := ref(0, types.Int8T), ref(1, arrT)
	anyE := &sql.AnyAll{Left: x, Op: opEq, OpStr: "=", Array: a}
	wantVals(t, "= ANY", evalOver(t, rt, anyE, in), true, false, nil, true, nil, false, nil)
	allE := &sql.AnyAll{Left: x, Op: opEq, OpStr: "=", Array: a, All: true}
	wantVals(t, "= ALL", evalOver(t, rt, allE, in), false, false, false, nil, nil, true, nil)
	ltAll := &sql.AnyAll{Left: x, Op: opLt, OpStr: "<", Array: a, All: true}
	wantVals(t, "< ALL", evalOver(t, rt, ltAll, in), false, false, false, false, nil, true, nil)
	// Constant arrays: vectorised, and hashed when long.
	for _, arr := range []*types.Array{intArray(int64(1), nil), intArray(int64(1), int64(5), int64(6), int64(7), int64(8), nil)} {
		e := &sql.AnyAll{Left: x, Op: opEq, OpStr: "=", Array: cnst(arr, arrT)}
		wantVals(t, "= ANY const", evalOver(t, rt, e, in), true, nil, nil, true, nil, nil, true)
	}
	e := &sql.AnyAll{Left: x, Op: opEq, OpStr: "=", Array: cnst(intArray(), arrT), All: true}
	wantVals(t, "= ALL '{}'", evalOver(t, rt, e, in), true, true, true, true, true, true, true)
}

func TestEvalArrays(t *testing.T) {
	rt := testRuntime(t)
	arrT := types.ArrayOf(types.Int8T, 1)
	in := intRows(2, row(int64(1), int64(2)), row(int64(3), nil))
	a, b := ref(0, types.Int8T), ref(1, types.Int8T)
	arr := &sql.ArrayExpr{Elems: []sql.Expr{a, b, i64(9)}, T: arrT}
	got := evalOver(t, rt, arr, in)
	if g := got[0].(*types.Array); len(g.Elems) != 3 || g.Elems[0] != int64(1) || g.Dims[0] != 3 {
		t.Fatalf("ARRAY[a, b, 9] = %+v", g)
	}
	if g := got[1].(*types.Array); g.Elems[1] != nil {
		t.Fatalf("ARRAY[a, NULL, 9] = %+v", g)
	}
	// Subscripts: 1-based, out of range and NULL index give NULL.
	sub := func(i sql.Expr) sql.Expr {
		return &sql.Subscript{Arg: arr, Indexes: []sql.SubscriptIndex{{Lower: i}}, T: types.Int8T}
	}
	wantVals(t, "a[1]", evalOver(t, rt, sub(i64(1)), in), int64(1), int64(3))
	wantVals(t, "a[3]", evalOver(t, rt, sub(i64(3)), in), int64(9), int64(9))
	wantVals(t, "a[0]", evalOver(t, rt, sub(i64(0)), in), nil, nil)
	wantVals(t, "a[4]", evalOver(t, rt, sub(i64(4)), in), nil, nil)
	wantVals(t, "a[NULL]", evalOver(t, rt, sub(cnst(nil, types.Int8T)), in), nil, nil)
	// 2-D from nested ARRAYs.
	arr2T := types.ArrayOf(types.Int8T, 2)
	inner1 := &sql.ArrayExpr{Elems: []sql.Expr{i64(1), i64(2)}, T: arrT}
	inner2 := &sql.ArrayExpr{Elems: []sql.Expr{i64(3), i64(4)}, T: arrT}
	outer := &sql.ArrayExpr{Elems: []sql.Expr{inner1, inner2}, T: arr2T}
	v, err := EvalScalar(context.Background(), rt, outer)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*types.Array)
	if len(m.Dims) != 2 || m.Dims[0] != 2 || m.Dims[1] != 2 || m.Elems[3] != int64(4) {
		t.Fatalf("ARRAY[[1,2],[3,4]] = %+v", m)
	}
	el := &sql.Subscript{Arg: outer, Indexes: []sql.SubscriptIndex{{Lower: i64(2)}, {Lower: i64(1)}}, T: types.Int8T}
	if v, err := EvalScalar(context.Background(), rt, el); err != nil || v != int64(3) {
		t.Fatalf("m[2][1] = %v, %v", v, err)
	}
	one := &sql.Subscript{Arg: outer, Indexes: []sql.SubscriptIndex{{Lower: i64(2)}}, T: types.Int8T}
	if v, err := EvalScalar(context.Background(), rt, one); err != nil || v != nil {
		t.Fatalf("m[2] = %v, %v (want NULL)", v, err)
	}
	bad := &sql.ArrayExpr{Elems: []sql.Expr{inner1, &sql.ArrayExpr{Elems: []sql.Expr{i64(1)}, T: arrT}}, T: arr2T}
	_, err = EvalScalar(context.Background(), rt, bad)
	wantCode(t, err, pgerrcode.ArraySubscriptError)
	// Slices.
	five := cnst(intArray(int64(1), int64(2), int64(3), int64(4), int64(5)), arrT)
	for _, c := range []struct {
		lo, hi sql.Expr
		want   []any
	}{
		{i64(2), i64(3), []any{int64(2), int64(3)}},
		{nil, i64(2), []any{int64(1), int64(2)}},
		{i64(4), nil, []any{int64(4), int64(5)}},
		{i64(-1), i64(100), []any{int64(1), int64(2), int64(3), int64(4), int64(5)}},
		{i64(4), i64(2), nil},
	} {
		s := &sql.Subscript{Arg: five, Indexes: []sql.SubscriptIndex{{Lower: c.lo, Upper: c.hi, Slice: true}}, T: arrT}
		v, err := EvalScalar(context.Background(), rt, s)
		if err != nil {
			t.Fatal(err)
		}
		got := v.(*types.Array)
		if len(got.Elems) != len(c.want) {
			t.Fatalf("%s = %v, want %v", s, got.Elems, c.want)
		}
		for i := range c.want {
			if got.Elems[i] != c.want[i] {
				t.Fatalf("%s = %v, want %v", s, got.Elems, c.want)
			}
		}
	}
	s := &sql.Subscript{Arg: outer, Indexes: []sql.SubscriptIndex{{Lower: i64(2), Upper: i64(2), Slice: true}}, T: arr2T}
	v, err = EvalScalar(context.Background(), rt, s)
	if err != nil {
		t.Fatal(err)
	}
	if g := v.(*types.Array); len(g.Dims) != 2 || g.Dims[0] != 1 || g.Dims[1] != 2 || g.Elems[0] != int64(3) {
		t.Fatalf("m[2:2] = %+v", g)
	}
}

func TestEvalCast(t *testing.T) {
	rt := testRuntime(t)
	in := intRows(1, row(int64(1)), row(nil))
	e := &sql.Cast{Arg: ref(0, types.Int8T), To: types.Float8T, Explicit: true}
	wantVals(t, "::float8", evalOver(t, rt, e, in), 1.0, nil)
	e = &sql.Cast{Arg: ref(0, types.Int8T), To: types.Int8T}
	wantVals(t, "no-op cast", evalOver(t, rt, e, in), int64(1), nil)
	if v, err := EvalScalar(context.Background(), rt, &sql.Cast{Arg: cnst(nil, types.NullT), To: types.TextT}); err != nil || v != nil {
		t.Fatalf("NULL::text = %v, %v", v, err)
	}
}

func TestEvalRowExpr(t *testing.T) {
	rt := testRuntime(t)
	v, err := EvalScalar(context.Background(), rt, &sql.RowExpr{Args: []sql.Expr{i64(1), cnst("a", types.TextT)}, T: types.RecordT})
	if err != nil {
		t.Fatal(err)
	}
	r := v.([]any)
	if len(r) != 2 || r[0] != int64(1) || r[1] != "a" {
		t.Fatalf("ROW(1, 'a') = %v", r)
	}
}
