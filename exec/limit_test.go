package exec

import (
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func TestLimit(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 3)
	var rows [][]any
	for i := 0; i < 10; i++ {
		rows = append(rows, row(int64(i)))
	}
	in := intRows(1, rows...)
	firsts := func(got [][]any) []int64 {
		var out []int64
		for _, r := range got {
			out = append(out, r[0].(int64))
		}
		return out
	}
	cases := []struct {
		count, offset sql.Expr
		want          []int64
	}{
		{i64(2), nil, []int64{0, 1}},
		{i64(4), i64(2), []int64{2, 3, 4, 5}},
		{i64(3), i64(8), []int64{8, 9}},
		{i64(3), i64(10), nil},
		{i64(0), nil, nil},
		{nil, i64(7), []int64{7, 8, 9}},
		{cnst(nil, types.Int8T), cnst(nil, types.Int8T), []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{&sql.Param{Index: 0, T: types.Int8T}, nil, []int64{0}},
	}
	rt.Params = []any{int64(1)}
	for _, c := range cases {
		got := firsts(collect(t, rt, &sql.Limit{Input: in, Count: c.count, Offset: c.offset}))
		if len(got) != len(c.want) {
			t.Fatalf("LIMIT %v OFFSET %v: %v, want %v", c.count, c.offset, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("LIMIT %v OFFSET %v: %v, want %v", c.count, c.offset, got, c.want)
			}
		}
	}
	_, err := tryCollect(rt, &sql.Limit{Input: in, Count: i64(-1)})
	wantCode(t, err, pgerrcode.InvalidRowCountInLimitClause)
	_, err = tryCollect(rt, &sql.Limit{Input: in, Offset: i64(-1)})
	wantCode(t, err, pgerrcode.InvalidRowCountInResultOffsetClause)
	_, err = tryCollect(rt, &sql.TopK{Input: in, Keys: []sql.SortKey{{Expr: ref(0, types.Int8T)}}, Count: i64(-1)})
	wantCode(t, err, pgerrcode.InvalidRowCountInLimitClause)
}

// countingOp counts the batches pulled from it.
type countingOp struct {
	Operator
	pulls int
}

func (c *countingOp) Next(ctx context.Context) (arrow.Record, error) {
	c.pulls++
	return c.Operator.Next(ctx)
}

func TestLimitStopsPulling(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, row(int64(i)))
	}
	src := &countingOp{Operator: newValues(rt, intRows(1, rows...))}
	lim := newLimit(rt, i64(3), nil, src)
	n := 0
	if err := Drain(context.Background(), lim, func(r arrow.Record) error { n += int(r.NumRows()); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 3 || src.pulls != 2 {
		t.Fatalf("%d rows after %d pulls", n, src.pulls)
	}
	src = &countingOp{Operator: newValues(rt, intRows(1, rows...))}
	lim = newLimit(rt, i64(0), nil, src)
	if _, err := lim.Next(context.Background()); err != io.EOF || src.pulls != 0 {
		t.Fatalf("LIMIT 0: %v after %d pulls", err, src.pulls)
	}
	lim.Close()
}
