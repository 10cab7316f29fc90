package exec

import (
	"fmt"
	"math"
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

// TestSortNormalizedKeys checks the byte-encoded keys against the key by
// key comparison on random rows of ints, floats (NaN, -0, infinities) and
// strings (with NUL bytes and prefixes), in every direction.
func TestSortNormalizedKeys(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 16)
	rng := rand.New(rand.NewSource(3))
	floats := []any{nil, 0.0, math.Copysign(0, -1), 1.5, -1.5, math.Inf(1), math.Inf(-1), math.NaN(), 1e300, -1e-300}
	ints := []any{nil, int64(0), int64(-1), int64(1), int64(math.MinInt64), int64(math.MaxInt64), int64(42)}
	strs := []any{nil, "", "a", "a\x00", "a\x00b", "ab", "b", "\xff", "abc"}
	cols := []sql.Col{col("i", types.Int8T), col("f", types.Float8T), col("s", types.TextT), col("id", types.Int8T)}
	var rows [][]any
	for i := 0; i < 300; i++ {
		rows = append(rows, row(ints[rng.Intn(len(ints))], floats[rng.Intn(len(floats))], strs[rng.Intn(len(strs))], int64(i)))
	}
	in := values(cols, rows...)
	for trial := 0; trial < 20; trial++ {
		var keys []sql.SortKey
		for _, c := range rng.Perm(3)[:1+rng.Intn(3)] {
			keys = append(keys, sql.SortKey{Expr: ref(c, cols[c].T), Desc: rng.Intn(2) == 0, NullsFirst: rng.Intn(2) == 0})
		}
		specs := keySpecs(keys)
		want := slices.Clone(rows)
		vals := func(r []any) []sortVal {
			out := make([]sortVal, len(keys))
			for k, key := range keys {
				out[k] = datumSortVal(r[key.Expr.(*sql.ColumnRef).Index], &specs[k])
			}
			return out
		}
		slices.SortStableFunc(want, func(a, b []any) int { return compareRows(specs, vals(a), vals(b)) })
		got := collect(t, rt, &sql.Sort{Input: in, Keys: keys})
		for i := range got {
			if got[i][3] != want[i][3] {
				t.Fatalf("keys %v: row %d is id %v, want %v", keys, i, got[i][3], want[i][3])
			}
		}
	}
}

// TestGatherFromSlices sorts and joins batches that Limit sliced (their
// buffers start before their first row).
func TestGatherFromSlices(t *testing.T) {
	rt := testRuntime(t)
	smallBatches(t, 4)
	cols := []sql.Col{col("id", types.Int8T), col("s", types.TextT), col("b", types.ByteaT), col("e", types.Float4ArrayT)}
	var rows [][]any
	for i := 0; i < 10; i++ {
		rows = append(rows, row(int64(i), fmt.Sprintf("str%d", i), []byte{byte(i), byte(i)}, types.NewArray(types.Float4T, float64(i))))
	}
	lim := &sql.Limit{Input: values(cols, rows...), Count: i64(5), Offset: i64(3)}
	got := collect(t, rt, &sql.Sort{Input: lim, Keys: []sql.SortKey{{Expr: ref(0, types.Int8T), Desc: true}}})
	if len(got) != 5 {
		t.Fatalf("%d rows", len(got))
	}
	for j, r := range got {
		i := 7 - j
		if r[0] != int64(i) || r[1] != fmt.Sprintf("str%d", i) || r[2].([]byte)[0] != byte(i) || r[3].(*types.Array).Elems[0] != float64(i) {
			t.Fatalf("row %d = %v", j, r)
		}
	}
	join := &sql.Join{Kind: sql.InnerJoin, Left: lim, Right: lim, EquiLeft: []sql.Expr{ref(1, types.TextT)}, EquiRight: []sql.Expr{ref(1, types.TextT)},
		Out: append(append([]sql.Col(nil), cols...), cols...)}
	for _, r := range collect(t, rt, join) {
		if r[1] != r[5] || r[1] != fmt.Sprintf("str%d", r[0]) {
			t.Fatalf("join row %v", r)
		}
	}
}
