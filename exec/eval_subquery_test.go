package exec

import (
	"context"
	"testing"

	"github.com/cairn-db/cairn/functions"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// countingNode is a VALUES plan whose runs are counted through a
// volatile cell.
func countedValues(runs *int, rows ...int64) *sql.Values {
	counter := *opPlus
	counter.Kernel = nil
	counter.Volatility = functions.Volatile
	counter.Eval = func(_ *functions.Context, args []any) (any, error) {
		*runs++
		return args[0].(int64) + args[1].(int64), nil
	}
	n := &sql.Values{Out: []sql.Col{col("v", types.Int8T)}}
	for i, r := range rows {
		cell := sql.Expr(i64(r))
		if i == 0 {
			cell = call(&counter, i64(r), i64(0))
		}
		n.Rows = append(n.Rows, []sql.Expr{cell})
	}
	return n
}

func TestSubqueries(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := intRows(1, row(int64(1)), row(int64(2)), row(nil), row(int64(4)))
	x := ref(0, types.Int8T)
	runs := 0
	scalar := &sql.Subquery{Kind: sql.ScalarSubquery, Plan: countedValues(&runs, 7), T: types.Int8T}
	wantVals(t, "scalar", evalOver(t, rt, call(opPlus, x, scalar), in), int64(8), int64(9), nil, int64(11))
	if runs != 1 {
		t.Fatalf("subquery ran %d times", runs)
	}
	none := &sql.Subquery{Kind: sql.ScalarSubquery, Plan: intRows(1), T: types.Int8T}
	wantVals(t, "empty scalar", evalOver(t, rt, none, in), nil, nil, nil, nil)
	two := &sql.Subquery{Kind: sql.ScalarSubquery, Plan: intRows(1, row(int64(1)), row(int64(2))), T: types.Int8T}
	_, err := tryEvalOver(rt, two, in)
	wantCode(t, err, pgerrcode.CardinalityViolation)

	exists := &sql.Subquery{Kind: sql.ExistsSubquery, Plan: intRows(1, row(nil)), T: types.BoolT}
	wantVals(t, "EXISTS", evalOver(t, rt, exists, in), true, true, true, true)
	notExists := &sql.Subquery{Kind: sql.ExistsSubquery, Plan: intRows(1), T: types.BoolT, Negate: true}
	wantVals(t, "NOT EXISTS", evalOver(t, rt, notExists, in), true, true, true, true)

	for _, list := range [][][]any{
		{row(int64(1)), row(int64(4))},
		{row(int64(1)), row(int64(4)), row(nil)},
		{},
	} {
		inSub := &sql.Subquery{Kind: sql.InSubquery, Plan: intRows(1, list...), Left: x, Equal: opEq, T: types.BoolT}
		got := evalOver(t, rt, inSub, in)
		inSub.Negate = true
		gotNot := evalOver(t, rt, inSub, in)
		switch len(list) {
		case 2:
			wantVals(t, "IN", got, true, false, nil, true)
			wantVals(t, "NOT IN", gotNot, false, true, nil, false)
		case 3:
			wantVals(t, "IN with NULL", got, true, nil, nil, true)
			wantVals(t, "NOT IN with NULL", gotNot, false, nil, nil, false)
		case 0:
			wantVals(t, "IN empty", got, false, false, false, false)
			wantVals(t, "NOT IN empty", gotNot, true, true, true, true)
		}
	}
	arrT := types.ArrayOf(types.Int8T, 1)
	arr := &sql.Subquery{Kind: sql.ArraySubquery, Plan: intRows(1, row(int64(3)), row(nil), row(int64(5))), T: arrT}
	v, err := EvalScalar(context.Background(), rt, arr)
	if err != nil {
		t.Fatal(err)
	}
	if a := v.(*types.Array); len(a.Elems) != 3 || a.Elems[0] != int64(3) || a.Elems[1] != nil || a.Dims[0] != 3 {
		t.Fatalf("ARRAY(subquery) = %+v", a)
	}
	arr = &sql.Subquery{Kind: sql.ArraySubquery, Plan: intRows(1), T: arrT}
	if v, err := EvalScalar(context.Background(), rt, arr); err != nil || len(v.(*types.Array).Elems) != 0 {
		t.Fatalf("ARRAY(empty) = %v, %v", v, err)
	}

	// (a, b) IN (SELECT x, y ...), with PostgreSQL's row comparison NULLs.
	pairs := intRows(2, row(int64(1), int64(1)), row(int64(1), nil), row(nil, int64(2)), row(int64(3), int64(3)))
	sub := intRows(2, row(int64(1), int64(1)), row(int64(2), nil))
	tuple := &sql.Subquery{Kind: sql.InSubquery, Plan: sub, T: types.BoolT,
		Left: &sql.RowExpr{Args: []sql.Expr{ref(0, types.Int8T), ref(1, types.Int8T)}, T: types.RecordT}}
	wantVals(t, "row IN", evalOver(t, rt, tuple, pairs), true, nil, nil, false)
	tuple = &sql.Subquery{Kind: sql.InSubquery, Plan: sub, T: types.BoolT, Negate: true,
		Left: &sql.RowExpr{Args: []sql.Expr{ref(0, types.Int8T), ref(1, types.Int8T)}, T: types.RecordT}}
	wantVals(t, "row NOT IN", evalOver(t, rt, tuple, pairs), false, nil, nil, true)
}
