package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

var joinKinds = []sql.JoinKind{sql.InnerJoin, sql.LeftJoin, sql.RightJoin, sql.FullJoin, sql.CrossJoin, sql.SemiJoin, sql.AntiJoin}

// refJoin is a naive nested-loop join: rows (l..., r...) where the key
// columns (0 of each side) are equal and non-NULL and cond holds.
func refJoin(kind sql.JoinKind, left, right [][]any, equi bool, cond func(l, r []any) bool) [][]any {
	match := func(l, r []any) bool {
		if equi && (l[0] == nil || r[0] == nil || l[0] != r[0]) {
			return false
		}
		return cond == nil || cond(l, r)
	}
	nl, nr := len(left[0]), len(right[0])
	nulls := func(n int) []any { return make([]any, n) }
	var out [][]any
	matchedR := make([]bool, len(right))
	for _, l := range left {
		matched := false
		for j, r := range right {
			if match(l, r) {
				if !matched && kind == sql.SemiJoin {
					out = append(out, l)
				}
				matched = true
				matchedR[j] = true
				if kind != sql.SemiJoin && kind != sql.AntiJoin {
					out = append(out, append(append([]any(nil), l...), r...))
				}
			}
		}
		if !matched && (kind == sql.LeftJoin || kind == sql.FullJoin) {
			out = append(out, append(append([]any(nil), l...), nulls(nr)...))
		}
		if !matched && kind == sql.AntiJoin {
			out = append(out, l)
		}
	}
	if kind == sql.RightJoin || kind == sql.FullJoin {
		for j, r := range right {
			if !matchedR[j] {
				out = append(out, append(nulls(nl), r...))
			}
		}
	}
	return out
}

func sortedRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmtRows([][]any{r})
	}
	sort.Strings(out)
	return out
}

func joinNode(kind sql.JoinKind, left, right *sql.Values, equi bool, cond sql.Expr) *sql.Join {
	n := &sql.Join{Kind: kind, Left: left, Right: right, Cond: cond}
	if equi {
		n.EquiLeft = []sql.Expr{ref(0, types.Int8T)}
		n.EquiRight = []sql.Expr{ref(0, types.Int8T)}
	}
	n.Out = append(n.Out, left.Out...)
	if kind != sql.SemiJoin && kind != sql.AntiJoin {
		n.Out = append(n.Out, right.Out...)
	}
	return n
}

func randRows(rng *rand.Rand, n, keys int) [][]any {
	var rows [][]any
	for i := 0; i < n; i++ {
		var k any
		if rng.Intn(8) > 0 {
			k = int64(rng.Intn(keys))
		}
		rows = append(rows, row(k, int64(rng.Intn(100))))
	}
	return rows
}

func TestJoinAgainstNestedLoop(t *testing.T) {
	rt := testRuntime(t)
	rng := rand.New(rand.NewSource(7))
	for _, size := range []struct{ l, r, batch int }{{0, 5, 4}, {5, 0, 4}, {1, 1, 4}, {30, 20, 4}, {60, 50, 16}, {40, 40, 8192}} {
		lrows, rrows := randRows(rng, size.l, 6), randRows(rng, size.r, 6)
		left := values([]sql.Col{col("lk", types.Int8T), col("lv", types.Int8T)}, lrows...)
		right := values([]sql.Col{col("rk", types.Int8T), col("rv", types.Int8T)}, rrows...)
		// Residual condition: lv < rv (column 1 < column 3).
		cond := call(opLt, ref(1, types.Int8T), ref(3, types.Int8T))
		condFn := func(l, r []any) bool { return l[1].(int64) < r[1].(int64) }
		for _, kind := range joinKinds {
			for _, equi := range []bool{false, true} {
				if kind == sql.CrossJoin && equi {
					continue
				}
				for _, withCond := range []bool{false, true} {
					name := fmt.Sprintf("%dx%d/%s/equi=%v/cond=%v", size.l, size.r, joinNode(kind, left, right, equi, nil).String(), equi, withCond)
					t.Run(name, func(t *testing.T) {
						smallBatches(t, size.batch)
						var c sql.Expr
						var cf func(l, r []any) bool
						if withCond {
							c, cf = cond, condFn
						}
						got := collect(t, rt, joinNode(kind, left, right, equi, c))
						if len(lrows) == 0 || len(rrows) == 0 {
							// refJoin needs rows to know widths; count instead.
							want := 0
							switch kind {
							case sql.LeftJoin, sql.AntiJoin:
								want = len(lrows)
							case sql.RightJoin:
								want = len(rrows)
							case sql.FullJoin:
								want = len(lrows) + len(rrows)
							}
							if len(got) != want {
								t.Fatalf("%d rows, want %d", len(got), want)
							}
							return
						}
						want := refJoin(kind, lrows, rrows, equi, cf)
						g, w := sortedRows(got), sortedRows(want)
						if fmt.Sprint(g) != fmt.Sprint(w) {
							t.Fatalf("got  %v\nwant %v", g, w)
						}
					})
				}
			}
		}
	}
}

func TestJoinMixedKeyTypes(t *testing.T) {
	rt := testRuntime(t)
	left := values([]sql.Col{col("a", types.Int4T)}, row(int64(1)), row(int64(2)), row(nil))
	right := values([]sql.Col{col("b", types.Int8T)}, row(int64(2)), row(int64(3)), row(nil))
	n := &sql.Join{Kind: sql.InnerJoin, Left: left, Right: right,
		EquiLeft: []sql.Expr{ref(0, types.Int4T)}, EquiRight: []sql.Expr{ref(0, types.Int8T)},
		Out: []sql.Col{left.Out[0], right.Out[0]}}
	wantRows(t, collect(t, rt, n), row(int64(2), int64(2)))
	fl := values([]sql.Col{col("f", types.Float8T)}, row(2.0), row(2.5))
	n = &sql.Join{Kind: sql.InnerJoin, Left: fl, Right: right,
		EquiLeft: []sql.Expr{ref(0, types.Float8T)}, EquiRight: []sql.Expr{ref(0, types.Int8T)},
		Out: []sql.Col{fl.Out[0], right.Out[0]}}
	wantRows(t, collect(t, rt, n), row(2.0, int64(2)))
}

func TestJoinManyMatchesChunks(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 5)
	var l, r [][]any
	for i := 0; i < 7; i++ {
		l = append(l, row(int64(1), int64(i)))
	}
	for i := 0; i < 13; i++ {
		r = append(r, row(int64(1), int64(i)))
	}
	left := values([]sql.Col{col("lk", types.Int8T), col("lv", types.Int8T)}, l...)
	right := values([]sql.Col{col("rk", types.Int8T), col("rv", types.Int8T)}, r...)
	got := collect(t, rt, joinNode(sql.InnerJoin, left, right, true, nil))
	if len(got) != 91 {
		t.Fatalf("%d rows, want 91", len(got))
	}
	// Left order is kept, each left row followed by its matches.
	for i, row := range got {
		if row[1] != int64(i/13) || row[3] != int64(i%13) {
			t.Fatalf("row %d = %v", i, row)
		}
	}
	// A condition true only for the last candidate of each left row.
	cond := call(opEq, ref(3, types.Int8T), i64(12))
	got = collect(t, rt, joinNode(sql.LeftJoin, left, right, true, cond))
	if len(got) != 7 {
		t.Fatalf("%d rows, want 7: %v", len(got), got)
	}
}
