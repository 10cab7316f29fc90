package exec

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

func TestSort(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 2)
	in := values([]sql.Col{col("a", types.Int8T), col("s", types.TextT), col("id", types.Int8T)},
		row(int64(2), "b", int64(1)), row(nil, "a", int64(2)), row(int64(1), nil, int64(3)),
		row(int64(2), "a", int64(4)), row(int64(1), "c", int64(5)), row(nil, nil, int64(6)))
	a, s := ref(0, types.Int8T), ref(1, types.TextT)
	ids := func(rows [][]any) []any {
		var out []any
		for _, r := range rows {
			out = append(out, r[2])
		}
		return out
	}
	cases := []struct {
		name string
		keys []sql.SortKey
		want []any
	}{
		// PostgreSQL defaults: NULLs last ascending, first descending.
		{"a", []sql.SortKey{{Expr: a}}, []any{int64(3), int64(5), int64(1), int64(4), int64(2), int64(6)}},
		{"a DESC", []sql.SortKey{{Expr: a, Desc: true, NullsFirst: true}}, []any{int64(2), int64(6), int64(1), int64(4), int64(3), int64(5)}},
		{"a NULLS FIRST", []sql.SortKey{{Expr: a, NullsFirst: true}}, []any{int64(2), int64(6), int64(3), int64(5), int64(1), int64(4)}},
		{"a DESC NULLS LAST", []sql.SortKey{{Expr: a, Desc: true}}, []any{int64(1), int64(4), int64(3), int64(5), int64(2), int64(6)}},
		{"a, s DESC", []sql.SortKey{{Expr: a}, {Expr: s, Desc: true, NullsFirst: true}}, []any{int64(3), int64(5), int64(1), int64(4), int64(6), int64(2)}},
		{"s", []sql.SortKey{{Expr: s}}, []any{int64(2), int64(4), int64(1), int64(5), int64(3), int64(6)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ids(collect(t, rt, &sql.Sort{Input: in, Keys: c.keys}))
			if !slices.Equal(got, c.want) {
				t.Fatalf("ids %v, want %v", got, c.want)
			}
		})
	}
	wantRows(t, collect(t, rt, &sql.Sort{Input: intRows(1), Keys: []sql.SortKey{{Expr: ref(0, types.Int8T)}}}))
}

func TestSortFloatNaN(t *testing.T) {
	rt := testRuntime(t)
	nan := 0.0
	nan = nan / nan
	in := values([]sql.Col{col("f", types.Float8T)}, row(1.5), row(nan), row(nil), row(-2.0))
	got := collect(t, rt, &sql.Sort{Input: in, Keys: []sql.SortKey{{Expr: ref(0, types.Float8T)}}})
	if got[0][0] != -2.0 || got[1][0] != 1.5 || got[2][0] == got[2][0] || got[3][0] != nil {
		t.Fatalf("sorted %v", got)
	}
}

// TestTopKMatchesSortLimit compares TopK with a stable sort and a slice.
func TestTopKMatchesSortLimit(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 7)
	rng := rand.New(rand.NewSource(1))
	var rows [][]any
	for i := 0; i < 200; i++ {
		var k any
		if rng.Intn(10) > 0 {
			k = int64(rng.Intn(20))
		}
		rows = append(rows, row(k, int64(i)))
	}
	in := intRows(2, rows...)
	for _, desc := range []bool{false, true} {
		keys := []sql.SortKey{{Expr: ref(0, types.Int8T), Desc: desc, NullsFirst: desc}}
		sorted := collect(t, rt, &sql.Sort{Input: in, Keys: keys})
		for _, lim := range []struct{ count, offset sql.Expr }{
			{i64(0), nil}, {i64(1), nil}, {i64(10), nil}, {i64(10), i64(5)}, {i64(500), nil},
			{i64(3), i64(199)}, {i64(3), i64(300)}, {nil, i64(190)}, {cnst(nil, types.Int8T), i64(195)},
		} {
			got := collect(t, rt, &sql.TopK{Input: in, Keys: keys, Count: lim.count, Offset: lim.offset})
			want := collect(t, rt, &sql.Limit{Input: &sql.Sort{Input: in, Keys: keys}, Count: lim.count, Offset: lim.offset})
			wantRows(t, got, want...)
			if lim.count == nil && len(got) != 10 {
				t.Fatalf("OFFSET 190 without LIMIT gave %d rows", len(got))
			}
		}
		if len(sorted) != 200 {
			t.Fatalf("%d sorted rows", len(sorted))
		}
	}
}
