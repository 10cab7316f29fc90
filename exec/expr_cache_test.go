package exec

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

func stringRecord(vals ...string) arrow.Record {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecord(schema, []arrow.Array{col}, int64(len(vals)))
}

func evalStrings(t *testing.T, rt *Runtime, e sql.Expr, rec arrow.Record) []string {
	t.Helper()
	arr, err := Eval(rt, e, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	s := arr.(*array.String)
	out := make([]string, s.Len())
	for i := range out {
		out[i] = s.Value(i)
	}
	return out
}

// TestExprCache checks that a memoised result is served only for the same
// expression over the same immutable input.
func TestExprCache(t *testing.T) {
	ov, _, err := functions.Resolve("upper", []types.T{types.TextT})
	if err != nil {
		t.Fatal(err)
	}
	upper := &sql.Call{Name: "upper", Overload: ov, Args: []sql.Expr{&sql.ColumnRef{Index: 0, Name: "s", T: types.TextT}}, T: types.TextT}
	ovl, _, _ := functions.Resolve("lower", []types.T{types.TextT})
	lower := &sql.Call{Name: "lower", Overload: ovl, Args: upper.Args, T: types.TextT}
	cache := NewExprCache(1 << 20)
	rt := &Runtime{ExprCache: cache}
	a, b := stringRecord("a", "Bb"), stringRecord("x", "Yy")
	defer a.Release()
	defer b.Release()
	for round := 0; round < 2; round++ {
		if got := evalStrings(t, rt, upper, a); got[0] != "A" || got[1] != "BB" {
			t.Fatalf("round %d upper(a) = %q", round, got)
		}
		if got := evalStrings(t, rt, upper, b); got[0] != "X" || got[1] != "YY" {
			t.Fatalf("round %d upper(b) = %q", round, got)
		}
		if got := evalStrings(t, rt, lower, a); got[0] != "a" || got[1] != "bb" {
			t.Fatalf("round %d lower(a) = %q", round, got)
		}
		// A slice of a is a different input.
		tail := a.NewSlice(1, 2)
		if got := evalStrings(t, rt, upper, tail); len(got) != 1 || got[0] != "BB" {
			t.Fatalf("round %d upper(a[1:]) = %q", round, got)
		}
		tail.Release()
	}
	if len(cache.entries) != 4 {
		t.Fatalf("cache holds %d entries, want 4", len(cache.entries))
	}
}
