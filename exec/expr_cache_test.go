package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

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
	arr, err := Eval(context.Background(), rt, e, rec)
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

// repeated is n strings cycling through vals.
func repeated(n int, vals ...string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vals[i%len(vals)]
	}
	return out
}

// TestExprCache checks that a memoised result is served only for the same
// expression over the same immutable input, that short inputs are not
// memoised, and that an entry counts the input it keeps alive.
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
	const n = minMemoRows + 44
	a, b := stringRecord(repeated(n, "a", "Bb")...), stringRecord(repeated(n, "x", "Yy")...)
	short := stringRecord(repeated(minMemoRows-1, "s")...)
	defer a.Release()
	defer b.Release()
	defer short.Release()
	for round := 0; round < 2; round++ {
		if got := evalStrings(t, rt, upper, a); got[0] != "A" || got[1] != "BB" {
			t.Fatalf("round %d upper(a) = %q", round, got[:2])
		}
		if got := evalStrings(t, rt, upper, b); got[0] != "X" || got[1] != "YY" {
			t.Fatalf("round %d upper(b) = %q", round, got[:2])
		}
		if got := evalStrings(t, rt, lower, a); got[0] != "a" || got[1] != "bb" {
			t.Fatalf("round %d lower(a) = %q", round, got[:2])
		}
		// A slice of a is a different input.
		tail := a.NewSlice(1, n)
		if got := evalStrings(t, rt, upper, tail); len(got) != n-1 || got[0] != "BB" {
			t.Fatalf("round %d upper(a[1:]) = %q", round, got[:1])
		}
		tail.Release()
		if got := evalStrings(t, rt, upper, short); got[0] != "S" {
			t.Fatalf("round %d upper(short) = %q", round, got[:1])
		}
	}
	if len(cache.entries) != 4 {
		t.Fatalf("cache holds %d entries, want 4 (none for the short input)", len(cache.entries))
	}
	k, _ := cacheKey(upper, a.Column(0))
	ent := cache.entries[k].Value.(*exprEntry)
	if min := arraySize(a.Column(0)) + arraySize(ent.result); ent.bytes < min {
		t.Fatalf("entry counts %d bytes, less than its input and result (%d)", ent.bytes, min)
	}
}

// TestDictionaryEvaluation checks that functions of a low-cardinality
// column computed over its dictionary (boolean filters and other results,
// NULL rows, sliced batches) equal the row-by-row results, and that a
// high-cardinality column is remembered as such.
func TestDictionaryEvaluation(t *testing.T) {
	const n = 5000
	vals := make([]string, n)
	valid := make([]bool, n)
	for i := range vals {
		vals[i] = []string{"api", "web", "ml"}[i%3]
		valid[i] = i%11 != 0
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues(vals, valid)
	low := b.NewArray()
	for i := 0; i < n; i++ {
		b.Append("row" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)))
	}
	high := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "low", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "high", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{low, high}, n)
	low.Release()
	high.Release()
	defer rec.Release()

	call := func(name string, args ...sql.Expr) *sql.Call {
		ts := make([]types.T, len(args))
		for i, a := range args {
			ts[i] = a.Type()
		}
		ov, _, err := functions.Resolve(name, ts)
		if err != nil {
			t.Fatal(err)
		}
		return &sql.Call{Name: name, Overload: ov, Args: args, T: ov.Result}
	}
	col := func(i int) sql.Expr { return &sql.ColumnRef{Index: i, Name: schema.Field(i).Name, T: types.TextT} }
	text := func(s string) sql.Expr { return &sql.Const{Value: s, T: types.TextT} }
	exprs := []sql.Expr{
		call("=", col(0), text("web")),
		call("<>", text("web"), col(0)),
		call("~~", col(0), text("%p%")),
		call("upper", col(0)),
		call("=", call("upper", col(0)), text("ML")),
		call("=", col(1), text("rowabc")),
	}
	plain := &Runtime{}
	cache := NewExprCache(64 << 20)
	memo := &Runtime{ExprCache: cache}
	for _, batch := range []arrow.Record{rec, rec.NewSlice(1003, 4700)} {
		for round := 0; round < 2; round++ {
			for _, e := range exprs {
				want, err := Eval(context.Background(), plain, e, batch)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Eval(context.Background(), memo, e, batch)
				if err != nil {
					t.Fatal(err)
				}
				if !array.Equal(got, want) {
					t.Fatalf("%s over %d rows, round %d: dictionary result differs from row by row", e, batch.NumRows(), round)
				}
				got.Release()
				want.Release()
			}
		}
		if batch != rec {
			batch.Release()
		}
	}
	var encoded, refused int
	for k, el := range cache.entries {
		if k.expr == dictionaryKeyText {
			if el.Value.(*exprEntry).dict != nil {
				encoded++
			} else {
				refused++
			}
		}
	}
	// Two batches: low and upper(low) encoded in each, high refused in each.
	if encoded != 4 || refused != 2 {
		t.Fatalf("%d dictionaries built and %d refused, want 4 and 2", encoded, refused)
	}
}
