package functions

import (
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// maxsim and deeplake_maxsim (pg_deeplake's). Expected values computed
// independently in float64 and rounded to float4.
func TestMaxSim(t *testing.T) {
	var cases []tc
	for _, fn := range []string{"maxsim", "deeplake_maxsim"} {
		cases = append(cases, []tc{
			// Two query vectors: best of (0.447, 0.6) plus best of
			// (0.894, 0.8).
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{{1,0},{0,1}}'::float4[][]"}, "1.4944272", "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{{1,1}}'::float4[][]"}, "0.98994946", "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{1,1}'::float4[]"}, "0.98994946", "real"},
			// A 1-D document is one vector: each query vector's cosine.
			{fn, []string{"'{1,0}'::float4[]", "'{{1,0},{0,1}}'::float4[][]"}, "1", "real"},
			{fn, []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "0.97463185", "real"},
			{fn, []string{"'{{1,0},{0,1},{-1,0}}'::float4[][]", "'{{1,0},{0,1},{-1,-1}}'::float4[][]"}, "2.7071068", "real"},
			{fn, []string{"NULL::float4[][]", "'{{1,0}}'::float4[][]"}, NULL, "real"},
			{fn, []string{"'{}'::float4[][]", "'{{1,0}}'::float4[][]"}, NULL, "real"},
			// A zero vector in either operand makes the score undefined.
			{fn, []string{"'{{1,2},{0,0}}'::float4[][]", "'{{1,0}}'::float4[][]"}, NULL, "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{{1,0},{0,0}}'::float4[][]"}, NULL, "real"},
			{fn, []string{"'{{1,2},{3,4}}'::float4[][]", "'{{1,0,0}}'::float4[][]"}, "ERROR 22000: vector dimensions differ: 2 and 3", "real"},
			{fn, []string{"'{{1,NULL},{3,4}}'::float4[][]", "'{{1,0}}'::float4[][]"}, "ERROR 22004: array must not contain nulls", "real"},
			{fn, []string{"'{{{1,2}}}'::float4[][][]", "'{{1,0}}'::float4[][]"}, "ERROR 22000: vector arrays must have 1 or 2 dimensions, not 3", "real"},
			{fn, []string{"'{{NaN,2},{3,4}}'::float4[][]", "'{{1,0}}'::float4[][]"}, NULL, "real"},
		}...)
	}
	runCasesNoOracle(t, cases)
}

// pg_deeplake's own MaxSim test (postgres/tests/sql/hybrid_search.sql):
// ten rows of three 8-d vectors against ARRAY[[0.1, ..., 0.8]], checked
// there to within 1e-6. Row 1's first vector equals the query; pg_deeplake
// prints 0.99999994 (its sums are float4), cairn's float64 sums give 1,
// which is within the test's tolerance.
func TestMaxSimDeeplakeReference(t *testing.T) {
	want := []float32{0.99999994, 0.997096, 0.9912933, 0.9848203, 0.97851676, 0.97267884, 0.96738243, 0.9626168, 0.9583381, 0.954494}
	docs := make([][][]float32, len(want))
	for r := range docs {
		for j := 0; j < 3; j++ {
			var v []float32
			for i := 0; i < 8; i++ {
				v = append(v, decimalF32(t, r+1+2*j+i))
			}
			docs[r] = append(docs[r], v)
		}
	}
	var q []float32
	for i := 1; i <= 8; i++ {
		q = append(q, decimalF32(t, i))
	}
	query := float4Matrix([][]float32{q})
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	col := float32MatrixColumn(m, docs, nil)
	defer col.Release()
	t2 := types.ArrayOf(types.Float4T, 2)
	for _, name := range []string{"<#>", "maxsim", "deeplake_maxsim", "cosine_similarity"} {
		ov := mustResolve(t, name, t2, t2)
		out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: t2}, {Const: query, Type: t2}}, len(docs))
		if err != nil {
			t.Fatal(err)
		}
		got := out.(*array.Float32).Float32Values()
		for r, w := range want {
			if math.Abs(float64(got[r]-w)) > 1e-6 {
				t.Errorf("%s row %d: %v, pg_deeplake %v", name, r+1, got[r], w)
			}
			ev, err := ov.Eval(ctx, []any{float4Matrix(docs[r]), query})
			if err != nil || ev.(float64) != float64(got[r]) {
				t.Errorf("%s row %d: Eval %v (%v), Kernel %v", name, r+1, ev, err, got[r])
			}
		}
		out.Release()
	}
}

// MaxSim of random matrices against a naive float64 reference.
func TestMaxSimAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for k := 0; k < 200; k++ {
		dim := 1 + rng.Intn(40)
		doc := make([][]float32, 1+rng.Intn(6))
		for i := range doc {
			doc[i] = randVec(rng, dim)
		}
		query := make([][]float32, 1+rng.Intn(6))
		for i := range query {
			query[i] = randVec(rng, dim)
		}
		ref := 0.0
		for _, q := range query {
			best := -2.0
			for _, d := range doc {
				var dot, dd, qq float64
				for i := range q {
					dot += float64(d[i]) * float64(q[i])
					dd += float64(d[i]) * float64(d[i])
					qq += float64(q[i]) * float64(q[i])
				}
				best = math.Max(best, dot/math.Sqrt(dd)/math.Sqrt(qq))
			}
			ref += best
		}
		a, b := vecVal{}, vecVal{}
		var err error
		if a, err = vecOfDatum(float4Matrix(doc)); err != nil {
			t.Fatal(err)
		}
		if b, err = vecOfDatum(float4Matrix(query)); err != nil {
			t.Fatal(err)
		}
		var s vecScratch
		got, ok, err := similarity(&s, &a, &b)
		if err != nil || !ok || math.Abs(got-ref) > 1e-12*float64(len(query)) {
			t.Fatalf("maxsim %v (%v, %v), reference %v", got, ok, err, ref)
		}
	}
}

// A float4[][] column whose rows' sub-arrays differ in length (Arrow allows
// it, a SQL array does not) or hold NULLs is an error, not a wrong score.
func TestMaxSimColumnErrors(t *testing.T) {
	m := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer m.AssertSize(t, 0)
	ctx := testCtx(m)
	t2 := types.ArrayOf(types.Float4T, 2)
	ov := mustResolve(t, "maxsim", t2, t2)
	query := float4Matrix([][]float32{{1, 0}})
	run := func(col arrow.Array) string {
		defer col.Release()
		out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: t2}, {Const: query, Type: t2}}, col.Len())
		if err != nil {
			return errText(err)
		}
		out.Release()
		return "ok"
	}
	ragged := float32MatrixColumn(m, [][][]float32{{{1, 2}, {3}}}, nil)
	if got := run(ragged); got != "ERROR 2202E: multidimensional arrays must have array expressions with matching dimensions" {
		t.Errorf("ragged: %s", got)
	}
	// A NULL sub-array.
	b := array.NewListBuilder(m, arrow.ListOf(arrow.PrimitiveTypes.Float32))
	mid := b.ValueBuilder().(*array.ListBuilder)
	b.Append(true)
	mid.Append(true)
	mid.ValueBuilder().(*array.Float32Builder).AppendValues([]float32{1, 2}, nil)
	mid.AppendNull()
	nullSub := b.NewArray()
	b.Release()
	if got := run(nullSub); got != "ERROR 22004: array must not contain nulls" {
		t.Errorf("NULL sub-array: %s", got)
	}
	// NULL rows and an empty row are NULL.
	col := float32MatrixColumn(m, [][][]float32{{{1, 0}}, nil, {}, {{0, 2}, {2, 0}}}, map[int]bool{1: true})
	defer col.Release()
	out, err := ov.Kernel(ctx, []Arg{{Array: col, Type: t2}, {Const: query, Type: t2}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	f := out.(*array.Float32)
	if f.IsNull(0) || f.Value(0) != 1 || !f.IsNull(1) || !f.IsNull(2) || f.IsNull(3) || f.Value(3) != 1 {
		t.Errorf("maxsim over [[1,0]], NULL, {}, [[0,2],[2,0]] = %v", f)
	}
}

// float32MatrixColumn builds a list<list<float32>> column (float4[][]);
// rows listed in nulls are NULL.
func float32MatrixColumn(m memory.Allocator, rows [][][]float32, nulls map[int]bool) arrow.Array {
	b := array.NewListBuilder(m, arrow.ListOf(arrow.PrimitiveTypes.Float32))
	defer b.Release()
	mid := b.ValueBuilder().(*array.ListBuilder)
	vb := mid.ValueBuilder().(*array.Float32Builder)
	for i, r := range rows {
		if nulls[i] {
			b.AppendNull()
			continue
		}
		b.Append(true)
		for _, v := range r {
			mid.Append(true)
			vb.AppendValues(v, nil)
		}
	}
	return b.NewArray()
}

// BenchmarkMaxSimKernel scores 10k documents of 32 128-d token vectors
// against a 32-vector query (ColBERT-like).
func BenchmarkMaxSimKernel(b *testing.B) {
	const n, rows, dim = 10_000, 32, 128
	rng := rand.New(rand.NewSource(3))
	docs := make([][][]float32, n)
	for i := range docs {
		for j := 0; j < rows; j++ {
			docs[i] = append(docs[i], randVec(rng, dim))
		}
	}
	var q [][]float32
	for j := 0; j < rows; j++ {
		q = append(q, randVec(rng, dim))
	}
	m := memory.NewGoAllocator()
	col := float32MatrixColumn(m, docs, nil)
	defer col.Release()
	t2 := types.ArrayOf(types.Float4T, 2)
	ov := mustResolve(b, "maxsim", t2, t2)
	ctx := testCtx(m)
	args := []Arg{{Array: col, Type: t2}, {Const: float4Matrix(q), Type: t2}}
	b.SetBytes(int64(n * rows * dim * 4))
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
