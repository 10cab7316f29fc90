package functions

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// vectorFuncNames are the functions and operators whose Kernels read
// vectors from Arrow buffers.
var vectorFuncNames = []string{
	"cosine_similarity", "deeplake_cosine_similarity", "<#>", "maxsim", "deeplake_maxsim",
	"l2_distance", "<->", "inner_product", "cosine_distance", "<=>", "l1_distance", "<+>",
	"l2_norm", "l1_norm", "vector_norm", "vector_dims",
	"+", "-", "*", "||", "l2_normalize",
}

// takesMatrix reports whether an overload accepts float4[][] operands.
func takesMatrix(ov *Overload) bool {
	if ov.Args[0].Family != types.ArrayFamily {
		return false
	}
	switch ov.Name {
	case "cosine_similarity", "deeplake_cosine_similarity", "<#>", "maxsim", "deeplake_maxsim",
		"l2_norm", "l1_norm", "vector_dims":
		return true
	}
	return false
}

// vecTestRow is one random argument value: nil data with null set is SQL
// NULL; rows of width dim otherwise (one row for a 1-D value).
type vecTestRow struct {
	null bool
	rows [][]float32
}

func (r vecTestRow) datum(t types.T, matrix bool) any {
	switch {
	case r.null:
		return nil
	case matrix:
		return float4Matrix(r.rows)
	case len(r.rows) == 0:
		return types.NewArray(types.Float4T)
	case t.Family == types.Vector:
		return types.NewVector(r.rows[0])
	}
	return float4Array(r.rows[0])
}

// randVecRows makes n argument values of width dim: NULLs, empty values
// (float4[] only), zero vectors, NaNs (float4[] only) and random ones.
func randVecRows(rng *rand.Rand, n, dim int, vector, matrix bool) []vecTestRow {
	out := make([]vecTestRow, n)
	for i := range out {
		k := 1
		if matrix {
			k = 1 + rng.Intn(4)
		}
		var rows [][]float32
		for j := 0; j < k; j++ {
			rows = append(rows, randVec(rng, dim))
		}
		switch {
		case i%7 == 3:
			out[i].null = true
			continue
		case i%11 == 5 && !vector:
			rows = nil
		case i%13 == 4:
			for j := range rows[0] {
				rows[0][j] = 0
			}
		case i%17 == 6 && !vector:
			rows[0][rng.Intn(dim)] = float32(math.NaN())
		}
		out[i].rows = rows
	}
	return out
}

// vecTestColumn is the Arrow column of rows.
func vecTestColumn(m memory.Allocator, rows []vecTestRow, matrix bool) arrow.Array {
	nulls := map[int]bool{}
	if matrix {
		ms := make([][][]float32, len(rows))
		for i, r := range rows {
			nulls[i] = r.null
			ms[i] = r.rows
		}
		return float32MatrixColumn(m, ms, nulls)
	}
	vs := make([][]float32, len(rows))
	for i, r := range rows {
		nulls[i] = r.null
		if len(r.rows) > 0 {
			vs[i] = r.rows[0]
		}
	}
	return float32Column(m, vs, nulls)
}

// sameResult compares a Kernel's row with Eval's datum: both NULL, or the
// same number (NaN equal to NaN).
func sameResult(out arrow.Array, i int, ev any) bool {
	if out.IsNull(i) || ev == nil {
		return out.IsNull(i) && ev == nil
	}
	var got float64
	switch a := out.(type) {
	case *array.Float32:
		got = float64(a.Value(i))
	case *array.Float64:
		got = a.Value(i)
	case *array.Int32:
		return int64(a.Value(i)) == ev.(int64)
	case *array.List: // a vector, element by element
		want, ok := ev.(*types.Array).Float32s()
		s, e := a.ValueOffsets(i)
		got := a.ListValues().(*array.Float32).Float32Values()[s:e]
		return ok && slices.Equal(got, want)
	default:
		return false
	}
	want := ev.(float64)
	return got == want || (got != got && want != want)
}

// Every vector function's Kernel agrees with its Eval, bit for bit, on
// random data with NULL, empty, zero and NaN rows, for columns against
// constants (either side) and columns against columns; the batch is large
// enough for the streams of vecBinaryKernel (and not a multiple of them).
func TestVectorKernelsMatchEval(t *testing.T) {
	const n, dim = vecStreamMinRows*2 + 3, 37
	rng := rand.New(rand.NewSource(4))
	for _, name := range vectorFuncNames {
		for _, ov := range Overloads(name) {
			if !ov.Args[0].IsFloatVector() || ov.Kernel == nil {
				continue
			}
			for _, matrix := range []bool{false, true} {
				if matrix && !takesMatrix(ov) {
					continue
				}
				t.Run(fmt.Sprintf("%s(%s)/matrix=%v", name, typeListString(ov.Args), matrix), func(t *testing.T) {
					checkVecKernel(t, rng, ov, n, dim, matrix)
				})
			}
		}
	}
}

func checkVecKernel(t *testing.T, rng *rand.Rand, ov *Overload, n, dim int, matrix bool) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	nargs := len(ov.Args)
	vector := ov.Args[0].Family == types.Vector
	typ := ov.Args[0]
	if matrix {
		typ = types.ArrayOf(types.Float4T, 2)
	}
	cols := make([][]vecTestRow, nargs)
	arrs := make([]arrow.Array, nargs)
	consts := make([]vecTestRow, nargs)
	for i := range cols {
		cols[i] = randVecRows(rng, n, dim, vector, matrix)
		arrs[i] = vecTestColumn(m, cols[i], matrix)
		defer arrs[i].Release()
		consts[i] = randVecRows(rng, 1, dim, vector, matrix)[0]
	}
	for mask := 1; mask < 1<<nargs; mask++ {
		args := make([]Arg, nargs)
		for i := range args {
			if mask&(1<<i) != 0 {
				args[i] = Arg{Array: arrs[i], Type: typ}
			} else {
				args[i] = Arg{Const: consts[i].datum(typ, matrix), Type: typ}
			}
		}
		out, err := ov.Kernel(ctx, args, n)
		if err != nil {
			t.Fatalf("mask %b: %v", mask, err)
		}
		for r := 0; r < n; r++ {
			row := make([]any, nargs)
			null := false
			for i := range row {
				v := consts[i]
				if mask&(1<<i) != 0 {
					v = cols[i][r]
				}
				row[i] = v.datum(typ, matrix)
				null = null || row[i] == nil
			}
			var ev any
			if !null {
				if ev, err = ov.Eval(ctx, row); err != nil {
					t.Fatalf("mask %b row %d: Eval: %v", mask, r, err)
				}
			}
			if !sameResult(out, r, ev) {
				t.Errorf("mask %b row %d: Kernel %v, Eval %v", mask, r, out.ValueStr(r), ev)
			}
		}
		out.Release()
	}
}

// A dimension mismatch in any row fails the batch with Eval's error.
func TestVectorKernelDimensionError(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	col := float32Column(m, [][]float32{{1, 2, 3}, {1, 2}, {4, 5, 6}}, nil)
	defer col.Release()
	for _, c := range []struct {
		name string
		typ  types.T
		want string
	}{
		{"<#>", tF4Arr, "ERROR 22000: vector dimensions differ: 2 and 3"},
		{"l2_distance", tF4Arr, "ERROR 22000: vector dimensions differ: 2 and 3"},
		{"<->", tVec, "ERROR 22000: different vector dimensions 2 and 3"},
		{"<=>", tVec, "ERROR 22000: different vector dimensions 2 and 3"},
	} {
		ov := mustResolve(t, c.name, c.typ, c.typ)
		q := types.NewVector([]float32{1, 2, 3})
		_, err := ov.Kernel(ctx, []Arg{{Array: col, Type: c.typ}, {Const: q, Type: c.typ}}, 3)
		if err == nil || errText(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// In a batch read as interleaved streams, the error is still that of the
// first failing row: row 150 (3-d) and row 600 (5-d) both differ from the
// 384-d query, and the streams reach row 600 first.
func TestVectorKernelFirstErrorInStreams(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(5))
	const n = 2000
	if n < vecStreamMinRows || vecStreams != 4 {
		t.Fatalf("the rows below assume 4 streams over %d rows", n)
	}
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = randVec(rng, 384)
	}
	rows[150], rows[600] = randVec(rng, 3), randVec(rng, 5)
	col := float32Column(m, rows, nil)
	defer col.Release()
	ov := mustResolve(t, "<#>", tF4Arr, tF4Arr)
	_, err := ov.Kernel(testCtx(m), []Arg{{Array: col, Type: tF4Arr}, {Const: float4Array(randVec(rng, 384)), Type: tF4Arr}}, n)
	if want := "ERROR 22000: vector dimensions differ: 3 and 384"; err == nil || errText(err) != want {
		t.Fatalf("%v, want %s", err, want)
	}
}

// Columns that are slices of larger arrays (a non-zero Arrow offset), with
// NULL elements in rows that are not selected, are read correctly.
func TestVectorKernelSlicedColumn(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	b := array.NewListBuilder(m, arrow.PrimitiveTypes.Float32)
	vb := b.ValueBuilder().(*array.Float32Builder)
	b.Append(true)
	vb.AppendValues([]float32{9, 0}, []bool{true, false}) // NULL element
	b.Append(true)
	vb.AppendValues([]float32{1, 0}, nil)
	b.AppendNull()
	b.Append(true)
	vb.AppendValues([]float32{0, 3}, nil)
	full := b.NewArray()
	b.Release()
	defer full.Release()
	col := array.NewSlice(full, 1, 4)
	defer col.Release()
	ov := mustResolve(t, "<#>", tF4Arr, tF4Arr)
	out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: tF4Arr}, {Const: float4Array([]float32{1, 1}), Type: tF4Arr}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	f := out.(*array.Float32)
	w := float32(1 / math.Sqrt2)
	if f.Value(0) != w || !f.IsNull(1) || f.Value(2) != w {
		t.Errorf("sliced column: %v", f)
	}
	// The full column has the NULL element in row 0: an error.
	if _, err := ov.Kernel(ctx, []Arg{{Array: full, Type: tF4Arr}, {Const: float4Array([]float32{1, 1}), Type: tF4Arr}}, 4); err == nil ||
		errText(err) != "ERROR 22004: array must not contain nulls" {
		t.Errorf("NULL element: %v", err)
	}
}
