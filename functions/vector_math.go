package functions

// The arithmetic of the vector functions (cosine_similarity, maxsim, the
// pgvector distances and norms) on plain []float32, kept apart from the
// batch loops in vector_kernel.go so it can be tested and benchmarked on its
// own.
//
// Sums are accumulated in float64 although the elements are float32: the
// squares of large (above 1.8e19) or tiny (below 1e-23) float32 elements
// overflow or underflow in float32, which would turn a fine vector into a
// NaN or a "zero-norm" NULL, and float64 rounds the final float4 result
// correctly. On amd64 with AVX2 and FMA the four hot sums run in assembly
// (vector_math_amd64.s) at memory speed; elsewhere the pure-Go loops below
// run, with four independent accumulators. The assembly and the Go loops
// add in different orders, so they agree to a relative 1e-12, not to the
// bit; every caller in one process uses the same one, so a Kernel and an
// Eval give identical results.

import "math"

// The dispatched sums; vector_math_amd64.go replaces them with the
// assembly versions when the CPU has AVX2 and FMA.
var (
	// vecDot is Σ a[i]·b[i]; b must be at least as long as a.
	vecDot = dotGo
	// vecDotNorm is Σ a[i]·b[i] and Σ a[i]² in one pass over a (the
	// column side of a column-constant cosine, whose constant norm is
	// known). next is the row the caller will pass as a next, when that
	// is not the one that follows a in memory (a scan of selected rows):
	// the assembly loads it into the cache while it reads a. nil: the
	// memory after a.
	vecDotNorm = func(a, b, _ []float32) (dot, aa float64) { return dotNormGo(a, b) }
	// vecDotNorms is Σ a[i]·b[i], Σ a[i]² and Σ b[i]² in one pass.
	vecDotNorms = dotNormsGo
	// vecSqDist is Σ (a[i]-b[i])².
	vecSqDist = sqDistGo
)

// vecSqNorm is Σ a[i]², computed exactly as vecDotNorms computes its second
// and third sums, so a constant's norm computed once equals the one a row
// would compute.
func vecSqNorm(a []float32) float64 { return vecDot(a, a) }

// cosineOf is the cosine similarity from a dot product and the two squared
// norms, clamped to [-1, 1] (rounding can step just outside it). ok is
// false when a norm is zero: the cosine of a zero vector is undefined. A
// NaN, or an infinite element (which makes the quotient Inf/Inf), gives
// NaN.
func cosineOf(dot, aa, bb float64) (c float64, ok bool) {
	if aa == 0 || bb == 0 {
		return 0, false
	}
	// aa·bb cannot overflow or underflow in float64 for float32 inputs.
	c = dot / math.Sqrt(aa*bb)
	if c > 1 {
		c = 1
	} else if c < -1 {
		c = -1
	}
	return c, true
}

// cosine is the cosine similarity of two vectors of equal length, rounded
// to float32 as pg_deeplake returns it; ok is false when either has zero
// norm.
func cosine(a, b []float32) (float32, bool) {
	c, ok := cosineOf(vecDotNorms(a, b))
	return float32(c), ok
}

// cosineNorm is cosine(a, b) when Σ b[i]² is already known as bb (the
// query vector of a scan, computed once).
func cosineNorm(a, b []float32, bb float64) (float32, bool) {
	d, aa := vecDotNorm(a, b, nil)
	c, ok := cosineOf(d, aa, bb)
	return float32(c), ok
}

// l2Distance is pgvector's l2_distance: the Euclidean distance.
func l2Distance(a, b []float32) float64 { return math.Sqrt(vecSqDist(a, b)) }

// innerProduct is pgvector's inner_product: Σ a[i]·b[i].
func innerProduct(a, b []float32) float64 { return vecDot(a, b) }

// l1Distance is pgvector's l1_distance: Σ |a[i]-b[i]|.
func l1Distance(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += math.Abs(float64(x[0]) - float64(y[0]))
		s1 += math.Abs(float64(x[1]) - float64(y[1]))
		s2 += math.Abs(float64(x[2]) - float64(y[2]))
		s3 += math.Abs(float64(x[3]) - float64(y[3]))
	}
	for ; i < len(a); i++ {
		s0 += math.Abs(float64(a[i]) - float64(b[i]))
	}
	return (s0 + s1) + (s2 + s3)
}

// l2Norm is the Euclidean norm √Σ a[i]² (pgvector's vector_norm).
func l2Norm(a []float32) float64 { return math.Sqrt(vecSqNorm(a)) }

// l1Norm is Σ |a[i]|.
func l1Norm(a []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		s0 += math.Abs(float64(x[0]))
		s1 += math.Abs(float64(x[1]))
		s2 += math.Abs(float64(x[2]))
		s3 += math.Abs(float64(x[3]))
	}
	for ; i < len(a); i++ {
		s0 += math.Abs(float64(a[i]))
	}
	return (s0 + s1) + (s2 + s3)
}

// dotGo is the pure-Go vecDot.
func dotGo(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += float64(x[0]) * float64(y[0])
		s1 += float64(x[1]) * float64(y[1])
		s2 += float64(x[2]) * float64(y[2])
		s3 += float64(x[3]) * float64(y[3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotNormGo is the pure-Go vecDotNorm.
func dotNormGo(a, b []float32) (dot, aa float64) {
	b = b[:len(a)]
	var d0, d1, d2, d3, n0, n1, n2, n3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		x0, x1, x2, x3 := float64(x[0]), float64(x[1]), float64(x[2]), float64(x[3])
		d0 += x0 * float64(y[0])
		d1 += x1 * float64(y[1])
		d2 += x2 * float64(y[2])
		d3 += x3 * float64(y[3])
		n0 += x0 * x0
		n1 += x1 * x1
		n2 += x2 * x2
		n3 += x3 * x3
	}
	for ; i < len(a); i++ {
		x := float64(a[i])
		d0 += x * float64(b[i])
		n0 += x * x
	}
	return (d0 + d1) + (d2 + d3), (n0 + n1) + (n2 + n3)
}

// dotNormsGo is the pure-Go vecDotNorms.
func dotNormsGo(a, b []float32) (dot, aa, bb float64) {
	b = b[:len(a)]
	var d0, d1, d2, d3, n0, n1, n2, n3, m0, m1, m2, m3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		x0, x1, x2, x3 := float64(x[0]), float64(x[1]), float64(x[2]), float64(x[3])
		y0, y1, y2, y3 := float64(y[0]), float64(y[1]), float64(y[2]), float64(y[3])
		d0 += x0 * y0
		d1 += x1 * y1
		d2 += x2 * y2
		d3 += x3 * y3
		n0 += x0 * x0
		n1 += x1 * x1
		n2 += x2 * x2
		n3 += x3 * x3
		m0 += y0 * y0
		m1 += y1 * y1
		m2 += y2 * y2
		m3 += y3 * y3
	}
	for ; i < len(a); i++ {
		x, y := float64(a[i]), float64(b[i])
		d0 += x * y
		n0 += x * x
		m0 += y * y
	}
	return (d0 + d1) + (d2 + d3), (n0 + n1) + (n2 + n3), (m0 + m1) + (m2 + m3)
}

// sqDistGo is the pure-Go vecSqDist.
func sqDistGo(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		e0 := float64(x[0]) - float64(y[0])
		e1 := float64(x[1]) - float64(y[1])
		e2 := float64(x[2]) - float64(y[2])
		e3 := float64(x[3]) - float64(y[3])
		s0 += e0 * e0
		s1 += e1 * e1
		s2 += e2 * e2
		s3 += e3 * e3
	}
	for ; i < len(a); i++ {
		e := float64(a[i]) - float64(b[i])
		s0 += e * e
	}
	return (s0 + s1) + (s2 + s3)
}
