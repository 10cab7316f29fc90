package exec

import (
	"testing"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

func TestValues(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := values([]sql.Col{col("a", types.Int8T), col("b", types.TextT), col("c", types.BoolT)},
		row(int64(1), "x", true), row(nil, nil, nil), row(int64(3), "z", false))
	wantRows(t, collect(t, rt, in),
		row(int64(1), "x", true), row(nil, nil, nil), row(int64(3), "z", false))
	// Cells are expressions.
	e := &sql.Values{Out: []sql.Col{col("a", types.Int8T)}, Rows: [][]sql.Expr{{call(opPlus, i64(1), i64(2))}}}
	wantRows(t, collect(t, rt, e), row(int64(3)))
	// SELECT without FROM: one row of no columns.
	empty := &sql.Values{Rows: [][]sql.Expr{{}}}
	p := &sql.Project{Input: empty, Exprs: []sql.Expr{i64(5)}, Out: []sql.Col{col("x", types.Int8T)}}
	wantRows(t, collect(t, rt, p), row(int64(5)))
	// No rows.
	wantRows(t, collect(t, rt, intRows(1)))
}
