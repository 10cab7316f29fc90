package exec

import (
	"testing"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func TestFilter(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := intRows(2, row(int64(1), int64(10)), row(int64(2), nil), row(nil, int64(30)), row(int64(4), int64(40)), row(int64(5), int64(50)))
	a, b := ref(0, types.Int8T), ref(1, types.Int8T)
	cases := []struct {
		name string
		cond sql.Expr
		want [][]any
	}{
		{"a > 1", call(opGt, a, i64(1)), [][]any{row(int64(2), nil), row(int64(4), int64(40)), row(int64(5), int64(50))}},
		{"NULL drops", call(opGt, b, i64(0)), [][]any{row(int64(1), int64(10)), row(nil, int64(30)), row(int64(4), int64(40)), row(int64(5), int64(50))}},
		{"true", boolT, [][]any{row(int64(1), int64(10)), row(int64(2), nil), row(nil, int64(30)), row(int64(4), int64(40)), row(int64(5), int64(50))}},
		{"false", boolF, nil},
		{"NULL", boolNull, nil},
		{"none", call(opGt, a, i64(100)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantRows(t, collect(t, rt, &sql.Filter{Input: in, Cond: c.cond}), c.want...)
		})
	}
	// Errors carry their SQLSTATE.
	_, err := tryCollect(rt, &sql.Filter{Input: in, Cond: call(opGt, call(opDiv, i64(1), call(opPlus, a, i64(-1))), i64(0))})
	wantCode(t, err, pgerrcode.DivisionByZero)
}

func TestProject(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 3)
	var rows [][]any
	for i := 0; i < 10; i++ {
		rows = append(rows, row(int64(i), int64(i*i)))
	}
	in := intRows(2, rows...)
	p := &sql.Project{Input: in, Exprs: []sql.Expr{ref(1, types.Int8T), call(opPlus, ref(0, types.Int8T), i64(100)), cnst("k", types.TextT), cnst(nil, types.NullT)},
		Out: []sql.Col{col("b", types.Int8T), col("s", types.Int8T), col("k", types.TextT), col("n", types.TextT)}}
	got := collect(t, rt, p)
	if len(got) != 10 {
		t.Fatalf("%d rows", len(got))
	}
	for i, r := range got {
		if r[0] != int64(i*i) || r[1] != int64(i+100) || r[2] != "k" || r[3] != nil {
			t.Fatalf("row %d = %v", i, r)
		}
	}
}
