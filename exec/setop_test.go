package exec

import (
	"testing"

	"github.com/cairn-db/cairn/sql"
)

func TestSetOps(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	// Left: 1 1 1 2 NULL NULL 3; right: 1 1 2 2 NULL 4.
	left := intRows(1, row(int64(1)), row(int64(1)), row(int64(1)), row(int64(2)), row(nil), row(nil), row(int64(3)))
	right := intRows(1, row(int64(1)), row(int64(1)), row(int64(2)), row(int64(2)), row(nil), row(int64(4)))
	cases := []struct {
		kind sql.SetOpKind
		all  bool
		want [][]any
	}{
		{sql.Union, true, [][]any{row(int64(1)), row(int64(1)), row(int64(1)), row(int64(2)), row(nil), row(nil), row(int64(3)),
			row(int64(1)), row(int64(1)), row(int64(2)), row(int64(2)), row(nil), row(int64(4))}},
		{sql.Union, false, [][]any{row(int64(1)), row(int64(2)), row(nil), row(int64(3)), row(int64(4))}},
		{sql.Intersect, true, [][]any{row(int64(1)), row(int64(1)), row(int64(2)), row(nil)}},
		{sql.Intersect, false, [][]any{row(int64(1)), row(int64(2)), row(nil)}},
		{sql.Except, true, [][]any{row(int64(1)), row(nil), row(int64(3))}},
		{sql.Except, false, [][]any{row(int64(3))}},
	}
	for _, c := range cases {
		n := &sql.SetOp{Kind: c.kind, All: c.all, Left: left, Right: right, Out: left.Out}
		t.Run(n.String(), func(t *testing.T) {
			wantRows(t, collect(t, rt, n), c.want...)
		})
	}
	n := &sql.SetOp{Kind: sql.Except, Left: intRows(1), Right: right, Out: left.Out}
	wantRows(t, collect(t, rt, n))
}
