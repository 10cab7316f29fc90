package exec

import (
	"testing"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func aggNode(in sql.Node, groupBy []sql.Expr, aggs ...sql.AggCall) *sql.Aggregate {
	n := &sql.Aggregate{Input: in, GroupBy: groupBy, Aggs: aggs}
	for i, g := range groupBy {
		n.Out = append(n.Out, col(string(rune('g'+i)), g.Type()))
	}
	for _, a := range aggs {
		n.Out = append(n.Out, col(a.Name, a.T))
	}
	return n
}

func TestAggregate(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := intRows(2,
		row(int64(1), int64(10)), row(int64(2), int64(20)), row(nil, int64(5)),
		row(int64(1), nil), row(int64(1), int64(10)), row(nil, int64(7)), row(int64(2), int64(1)))
	a, b := ref(0, types.Int8T), ref(1, types.Int8T)
	countStar := sql.AggCall{Agg: aggCountStar, Name: "count", T: types.Int8T}
	countB := sql.AggCall{Agg: aggCount, Name: "count", Args: []sql.Expr{b}, T: types.Int8T}
	sumB := sql.AggCall{Agg: aggSum, Name: "sum", Args: []sql.Expr{b}, T: types.Int8T}

	// GROUP BY a: NULL keys form one group; groups in first-seen order.
	got := collect(t, rt, aggNode(in, []sql.Expr{a}, countStar, countB, sumB))
	wantRows(t, got,
		row(int64(1), int64(3), int64(2), int64(20)),
		row(int64(2), int64(2), int64(2), int64(21)),
		row(nil, int64(2), int64(2), int64(12)))

	// No GROUP BY: one row, even over no input.
	wantRows(t, collect(t, rt, aggNode(in, nil, countStar, sumB)), row(int64(7), int64(53)))
	empty := intRows(2)
	wantRows(t, collect(t, rt, aggNode(empty, nil, countStar, sumB)), row(int64(0), nil))
	wantRows(t, collect(t, rt, aggNode(empty, []sql.Expr{a}, countStar)))

	// DISTINCT, FILTER (arguments only evaluated where it holds).
	distinctSum := sumB
	distinctSum.Distinct = true
	filtered := sql.AggCall{Agg: aggSum, Name: "sum", Args: []sql.Expr{call(opDiv, i64(100), b)}, T: types.Int8T,
		Filter: call(opGt, b, i64(5))}
	wantRows(t, collect(t, rt, aggNode(in, []sql.Expr{a}, distinctSum, filtered)),
		row(int64(1), int64(10), int64(20)),
		row(int64(2), int64(21), int64(5)),
		row(nil, int64(12), int64(14)))
	_, err := tryCollect(rt, aggNode(in, nil, sql.AggCall{Agg: aggSum, Name: "sum", Args: []sql.Expr{call(opDiv, i64(1), call(opPlus, a, i64(-1)))}, T: types.Int8T}))
	wantCode(t, err, pgerrcode.DivisionByZero)

	// ORDER BY inside the aggregate, with a non-strict aggregate seeing NULLs.
	list := sql.AggCall{Agg: aggList, Name: "list", Args: []sql.Expr{b}, T: types.TextT,
		OrderBy: []sql.SortKey{{Expr: b, Desc: true, NullsFirst: true}}}
	wantRows(t, collect(t, rt, aggNode(in, []sql.Expr{a}, list)),
		row(int64(1), "NULL,10,10"), row(int64(2), "20,1"), row(nil, "7,5"))
	list.Distinct = true
	list.OrderBy[0].Desc, list.OrderBy[0].NullsFirst = false, false
	wantRows(t, collect(t, rt, aggNode(in, nil, list)), row("1,5,7,10,20,NULL"))
}

func TestAggregateManyGroups(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 64)
	var rows [][]any
	for i := 0; i < 1000; i++ {
		rows = append(rows, row(int64(i%300), int64(i)))
	}
	in := intRows(2, rows...)
	got := collect(t, rt, aggNode(in, []sql.Expr{ref(0, types.Int8T)},
		sql.AggCall{Agg: aggCountStar, Name: "count", T: types.Int8T}))
	if len(got) != 300 {
		t.Fatalf("%d groups", len(got))
	}
	for i, r := range got {
		want := int64(3) // 0..99 appear four times in 0..999 mod 300
		if i < 1000%300 {
			want = 4
		}
		if r[0] != int64(i) || r[1] != want {
			t.Fatalf("group %d = %v", i, r)
		}
	}
}

func TestDistinct(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := intRows(2, row(int64(1), int64(1)), row(int64(1), int64(2)), row(nil, nil), row(int64(1), int64(1)), row(nil, nil), row(int64(2), nil))
	wantRows(t, collect(t, rt, &sql.Distinct{Input: in}),
		row(int64(1), int64(1)), row(int64(1), int64(2)), row(nil, nil), row(int64(2), nil))
	wantRows(t, collect(t, rt, &sql.Distinct{Input: in, OnCount: 1}),
		row(int64(1), int64(1)), row(nil, nil), row(int64(2), nil))
	wantRows(t, collect(t, rt, &sql.Distinct{Input: intRows(1)}))
}
