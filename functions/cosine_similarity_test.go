package functions

import (
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// cosine_similarity, deeplake_cosine_similarity and float4[] <#> float4[]
// (pg_deeplake's, not in PostgreSQL). Expected values were computed
// independently in float64 (Python math.fsum) and rounded to float4.
func TestCosineSimilarity(t *testing.T) {
	var cases []tc
	for _, fn := range []string{"cosine_similarity", "deeplake_cosine_similarity", "<#>"} {
		cases = append(cases, []tc{
			{fn, []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "0.97463185", "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{1,2,3}'::float4[]"}, "1", "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{-2,-4,-6}'::float4[]"}, "-1", "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{-1,-2,-3.5}'::float4[]"}, "-0.9974086", "real"},
			{fn, []string{"'{1,0}'::float4[]", "'{0,1}'::float4[]"}, "0", "real"},
			{fn, []string{"'{0.1,0.2,0.3}'::float4[]", "'{0.3,0.2,0.1}'::float4[]"}, "0.71428573", "real"},
			// NULL, empty and zero-norm operands give NULL.
			{fn, []string{"NULL::float4[]", "'{1,2,3}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "NULL::float4[]"}, NULL, "real"},
			{fn, []string{"'{}'::float4[]", "'{1,2,3}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{0,0,0}'::float4[]", "'{1,2,3}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{0,0,0}'::float4[]"}, NULL, "real"},
			// Mismatched dimensions are an error naming both, never 0.
			{fn, []string{"'{1,2,3}'::float4[]", "'{1,2}'::float4[]"}, "ERROR 22000: vector dimensions differ: 3 and 2", "real"},
			{fn, []string{"'{1}'::float4[]", "'{1,2,3,4}'::float4[]"}, "ERROR 22000: vector dimensions differ: 1 and 4", "real"},
			{fn, []string{"'{1,NULL,3}'::float4[]", "'{1,2,3}'::float4[]"}, "ERROR 22004: array must not contain nulls", "real"},
			// A NaN or infinite element has no direction: NULL, as a
			// vector index leaves such a row out.
			{fn, []string{"'{NaN,1}'::float4[]", "'{1,1}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{Infinity,1}'::float4[]", "'{1,1}'::float4[]"}, NULL, "real"},
			{fn, []string{"'{1,1}'::float4[]", "'{-Infinity,1}'::float4[]"}, NULL, "real"},
			// float64 sums: squares that overflow or underflow float4 do
			// not turn into NaN or a zero norm.
			{fn, []string{"'{1e20,2e20}'::float4[]", "'{2e20,4e20}'::float4[]"}, "1", "real"},
			{fn, []string{"'{1e-30,2e-30}'::float4[]", "'{2e-30,4e-30}'::float4[]"}, "1", "real"},
			// A 2-D operand means MaxSim (maxsim.go has more).
			{fn, []string{"'{{1,0},{0,1}}'::float4[][]", "'{1,1}'::float4[]"}, "0.70710677", "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{{1,0},{0,1}}'::float4[][]"}, "1.4944272", "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{1,2,3}'::float4[]"}, "ERROR 22000: vector dimensions differ: 2 and 3", "real"},
			// A vector converts to float4[] implicitly.
			{fn, []string{"'[1,2,3]'::vector", "'{4,5,6}'::float4[]"}, "0.97463185", "real"},
		}...)
	}
	cases = append(cases, []tc{
		// An untyped literal takes the other operand's type.
		{"<#>", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'"}, "0.97463185", "real"},
		{"cosine_similarity", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'"}, "0.97463185", "real"},
		// On pgvector's vector, <#> is the negative inner product.
		{"<#>", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "-32", "double precision"},
		{"<#>", []string{"'[1,2,3]'::vector", "'[4,5,6]'"}, "-32", "double precision"},
	}...)
	runCasesNoOracle(t, cases)
}

// pg_deeplake's own test (postgres/tests/sql/hybrid_search.sql): the
// cosine of ten 5-d rows against ARRAY[0.1, 0.2, 0.3, 0.4, 0.5], checked
// there to within 1e-6, run here through the Kernel with the query as a
// constant and through Eval.
func TestCosineSimilarityDeeplakeReference(t *testing.T) {
	want := []float32{1, 0.99493665, 0.98644006, 0.9782321, 0.9710608, 0.96495056, 0.95975995, 0.9553303, 0.95152277, 0.9482238}
	rows := make([][]float32, len(want))
	for r := range rows {
		for i := 0; i < 5; i++ {
			rows[r] = append(rows[r], decimalF32(t, r+1+i))
		}
	}
	query := []float32{decimalF32(t, 1), decimalF32(t, 2), decimalF32(t, 3), decimalF32(t, 4), decimalF32(t, 5)}
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	col := float32Column(m, rows, nil)
	defer col.Release()
	ov := mustResolve(t, "<#>", tF4Arr, tF4Arr)
	out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: tF4Arr}, {Const: float4Array(query), Type: tF4Arr}}, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := out.(*array.Float32).Float32Values()
	for r, w := range want {
		if math.Abs(float64(got[r]-w)) > 1e-6 {
			t.Errorf("row %d: %v, pg_deeplake %v", r+1, got[r], w)
		}
		ev, err := ov.Eval(ctx, []any{float4Array(rows[r]), float4Array(query)})
		if err != nil || ev.(float64) != float64(got[r]) {
			t.Errorf("row %d: Eval %v (%v), Kernel %v", r+1, ev, err, got[r])
		}
	}
}

// The cosine of random vectors against a float64 reference (sequential
// sums of exact products), for the lengths that exercise the unrolled
// loops' tails.
func TestCosineAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 100, 384, 385, 1536} {
		for k := 0; k < 20; k++ {
			a, b := randVec(rng, n), randVec(rng, n)
			var d, aa, bb float64
			for i := range a {
				d += float64(a[i]) * float64(b[i])
				aa += float64(a[i]) * float64(a[i])
				bb += float64(b[i]) * float64(b[i])
			}
			ref := d / math.Sqrt(aa) / math.Sqrt(bb)
			got, ok := cosine(a, b)
			if !ok || !within32(got, ref) {
				t.Fatalf("n=%d: cosine %v, reference %v", n, got, ref)
			}
			got2, ok := cosineNorm(a, b, vecmath.SqNorm(b))
			if !ok || got2 != got {
				t.Fatalf("n=%d: cosineNorm %v, cosine %v", n, got2, got)
			}
		}
	}
}

// within32 reports whether a float4 result is the reference rounded to
// float4, give or take one unit in the last place (the sums' order differs).
func within32(got float32, ref float64) bool {
	w := float32(ref)
	return got == w || got == math.Nextafter32(w, float32(math.Inf(1))) || got == math.Nextafter32(w, float32(math.Inf(-1)))
}

// decimalF32 is the float4 that the decimal literal k/10 becomes
// (PostgreSQL parses numeric -> float4 with strtof).
func decimalF32(t testing.TB, k int) float32 {
	s := strconv.Itoa(k/10) + "." + strconv.Itoa(k%10)
	f, err := strconv.ParseFloat(s, 32)
	if err != nil {
		t.Fatal(err)
	}
	return float32(f)
}

func randVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// float4Matrix is the float4[][] datum of rows of equal length.
func float4Matrix(rows [][]float32) *types.Array {
	var elems []any
	for _, r := range rows {
		for _, x := range r {
			elems = append(elems, float64(x))
		}
	}
	if len(elems) == 0 {
		return &types.Array{Elem: types.Float4T}
	}
	return &types.Array{Elem: types.Float4T, Dims: []int{len(rows), len(rows[0])}, Elems: elems}
}

// float32Column builds a list<float32> column; rows listed in nulls are
// NULL.
func float32Column(m memory.Allocator, rows [][]float32, nulls map[int]bool) arrow.Array {
	b := array.NewListBuilder(m, arrow.PrimitiveTypes.Float32)
	defer b.Release()
	vb := b.ValueBuilder().(*array.Float32Builder)
	for i, r := range rows {
		if nulls[i] {
			b.AppendNull()
			continue
		}
		b.Append(true)
		vb.AppendValues(r, nil)
	}
	return b.NewArray()
}

// mustResolve resolves name for the argument types.
func mustResolve(t testing.TB, name string, args ...types.T) *Overload {
	t.Helper()
	ov, _, err := Resolve(name, args)
	if err != nil {
		t.Fatal(err)
	}
	return ov
}

// BenchmarkCosineKernel is the hot loop of the product: the cosine of a
// 384-d query (a constant) against 100k rows of one Arrow batch. The bytes
// are the embeddings read; compare with BenchmarkMemoryBandwidth from the
// same run.
func BenchmarkCosineKernel(b *testing.B) {
	const n, dim = 100_000, 384
	col, query := benchColumn(n, dim)
	defer col.Release()
	ov := mustResolve(b, "<#>", tF4Arr, tF4Arr)
	ctx := testCtx(memory.NewGoAllocator())
	args := []Arg{{Array: col, Type: tF4Arr}, {Const: float4Array(query), Type: tF4Arr}}
	b.SetBytes(int64(n * dim * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ov.Kernel(ctx, args, n)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// A Kernel given a selection (Arg.Sel) computes exactly the selected rows,
// in order, with NULL rows NULL — the same values as over the whole batch —
// whether the rows are dense, sparse or repeat, for columns on either side.
func TestCosineKernelSelection(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const n, dim = 300, 384
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = randVec(rng, dim)
	}
	m := memory.NewGoAllocator()
	col := float32Column(m, rows, map[int]bool{7: true, 150: true})
	defer col.Release()
	query := float4Array(randVec(rng, dim))
	ov := mustResolve(t, "<#>", tF4Arr, tF4Arr)
	ctx := testCtx(m)
	for _, colFirst := range []bool{true, false} {
		whole := []Arg{{Array: col, Type: tF4Arr}, {Const: query, Type: tF4Arr}}
		if !colFirst {
			whole[0], whole[1] = whole[1], whole[0]
		}
		all, err := ov.Kernel(ctx, whole, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, sel := range [][]int32{
			{0, 1, 2, 3},
			{7, 8, 150, 299},
			{299, 0, 5, 5, 5, 100},
			{1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225, 256, 289},
		} {
			args := append([]Arg(nil), whole...)
			for i := range args {
				if args[i].Array != nil {
					args[i].Sel = sel
				}
			}
			got, err := ov.Kernel(ctx, args, len(sel))
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != len(sel) {
				t.Fatalf("sel %v: %d results", sel, got.Len())
			}
			for i, r := range sel {
				if got.IsNull(i) != all.IsNull(int(r)) || (!got.IsNull(i) && got.(*array.Float32).Value(i) != all.(*array.Float32).Value(int(r))) {
					t.Fatalf("sel %v, row %d: got %v, whole batch %v", sel, r, got.ValueStr(i), all.ValueStr(int(r)))
				}
			}
			got.Release()
		}
		all.Release()
	}
}

// BenchmarkCosineKernelSelected is the filtered search: the cosine of a
// query against every fifth row, scattered, of 100k (a WHERE clause that
// keeps one repository of five). The bytes are the rows read.
func BenchmarkCosineKernelSelected(b *testing.B) {
	const n, dim = 100_000, 384
	col, query := benchColumn(n, dim)
	defer col.Release()
	rng := rand.New(rand.NewSource(3))
	var sel []int32
	for i := 0; i < n; i++ {
		if rng.Intn(5) == 0 {
			sel = append(sel, int32(i))
		}
	}
	ov := mustResolve(b, "<#>", tF4Arr, tF4Arr)
	ctx := testCtx(memory.NewGoAllocator())
	args := []Arg{{Array: col, Type: tF4Arr, Sel: sel}, {Const: float4Array(query), Type: tF4Arr}}
	b.SetBytes(int64(len(sel) * dim * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ov.Kernel(ctx, args, len(sel))
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(len(sel))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCosineKernelColumns is the column-column case (no norm known
// in advance): 100k pairs of 384-d rows.
func BenchmarkCosineKernelColumns(b *testing.B) {
	const n, dim = 100_000, 384
	col, _ := benchColumn(n, dim)
	defer col.Release()
	col2, _ := benchColumn(n, dim)
	defer col2.Release()
	ov := mustResolve(b, "<#>", tF4Arr, tF4Arr)
	ctx := testCtx(memory.NewGoAllocator())
	args := []Arg{{Array: col, Type: tF4Arr}, {Array: col2, Type: tF4Arr}}
	b.SetBytes(int64(2 * n * dim * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ov.Kernel(ctx, args, n)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkMemoryBandwidth measures how fast one core of this machine
// streams the same 153 MB from memory, the ceiling for
// BenchmarkCosineKernel in the same run. One sequential stream leaves the
// hardware prefetcher too few lines in flight, so the loops read eight
// distant parts of the buffer at once: "sum8" adds the float32s, "xor8"
// folds them as uint64 words (half the operations), "lines" reads one word
// per 64-byte line (pure memory traffic). "sum1" is the naive
// single-stream sum, for comparison.
func BenchmarkMemoryBandwidth(b *testing.B) {
	const n, dim = 100_000, 384
	col, _ := benchColumn(n, dim)
	defer col.Release()
	xs := col.(*array.List).ListValues().(*array.Float32).Float32Values()
	ws := arrow.Uint64Traits.CastFromBytes(arrow.Float32Traits.CastToBytes(xs))
	for _, c := range []struct {
		name string
		f    func() float64
	}{
		{"sum8", func() float64 { return float64(sumFloat32x8(xs)) }},
		{"xor8", func() float64 { return float64(xorUint64x8(ws)) }},
		{"lines", func() float64 { return float64(xorLines(ws)) }},
		{"sum1", func() float64 { return float64(sumFloat32(xs)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(xs) * 4))
			for i := 0; i < b.N; i++ {
				benchSink = c.f()
			}
		})
	}
}

var benchSink float64

// sumFloat32x8 sums xs reading eight equal parts side by side (the tail
// of len(xs)%8 elements is left out).
func sumFloat32x8(xs []float32) float32 {
	q := len(xs) / 8
	p := [8][]float32{xs[:q], xs[q : 2*q], xs[2*q : 3*q], xs[3*q : 4*q], xs[4*q : 5*q], xs[5*q : 6*q], xs[6*q : 7*q], xs[7*q : 8*q]}
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for i := 0; i < q; i++ {
		s0 += p[0][i]
		s1 += p[1][i]
		s2 += p[2][i]
		s3 += p[3][i]
		s4 += p[4][i]
		s5 += p[5][i]
		s6 += p[6][i]
		s7 += p[7][i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// sumFloat32 sums xs front to back with eight accumulators.
func sumFloat32(xs []float32) float32 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(xs); i += 8 {
		x := xs[i : i+8 : i+8]
		s0 += x[0]
		s1 += x[1]
		s2 += x[2]
		s3 += x[3]
		s4 += x[4]
		s5 += x[5]
		s6 += x[6]
		s7 += x[7]
	}
	for ; i < len(xs); i++ {
		s0 += xs[i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// xorUint64x8 folds ws reading eight equal parts side by side.
func xorUint64x8(ws []uint64) uint64 {
	q := len(ws) / 8
	p := [8][]uint64{ws[:q], ws[q : 2*q], ws[2*q : 3*q], ws[3*q : 4*q], ws[4*q : 5*q], ws[5*q : 6*q], ws[6*q : 7*q], ws[7*q : 8*q]}
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	for i := 0; i < q; i++ {
		s0 ^= p[0][i]
		s1 ^= p[1][i]
		s2 ^= p[2][i]
		s3 ^= p[3][i]
		s4 ^= p[4][i]
		s5 ^= p[5][i]
		s6 ^= p[6][i]
		s7 ^= p[7][i]
	}
	return s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7
}

// xorLines reads the first word of every 64-byte line of ws.
func xorLines(ws []uint64) uint64 {
	var s uint64
	for i := 0; i < len(ws); i += 8 {
		s ^= ws[i]
	}
	return s
}

// benchColumn is a list<float32> column of n random dim-d rows (built
// straight into one values buffer) and a random query.
func benchColumn(n, dim int) (arrow.Array, []float32) {
	rng := rand.New(rand.NewSource(int64(n + dim)))
	vals := make([]float32, n*dim)
	for i := range vals {
		vals[i] = rng.Float32() - 0.5
	}
	offs := make([]int32, n+1)
	for i := range offs {
		offs[i] = int32(i * dim)
	}
	child := array.NewData(arrow.PrimitiveTypes.Float32, n*dim,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Float32Traits.CastToBytes(vals))}, nil, 0, 0)
	defer child.Release()
	data := array.NewData(arrow.ListOf(arrow.PrimitiveTypes.Float32), n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))}, []arrow.ArrayData{child}, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), randVec(rng, dim)
}
