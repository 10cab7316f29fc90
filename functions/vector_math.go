package functions

// The arithmetic of the vector functions (cosine_similarity, maxsim, the
// pgvector distances and norms) on plain []float32, kept apart from the
// batch loops in vector_kernel.go so it can be tested and benchmarked on its
// own. The sums themselves are vecmath's (assembly at memory speed where
// the CPU allows), shared with storage's vector indexes.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

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
	c, ok := cosineOf(vecmath.DotNorms(a, b))
	return float32(c), ok
}

// cosineNorm is cosine(a, b) when Σ b[i]² is already known as bb (the
// query vector of a scan, computed once).
func cosineNorm(a, b []float32, bb float64) (float32, bool) {
	d, aa := vecmath.DotNorm(a, b, nil)
	c, ok := cosineOf(d, aa, bb)
	return float32(c), ok
}

// l2Distance is pgvector's l2_distance: the Euclidean distance.
func l2Distance(a, b []float32) float64 { return math.Sqrt(vecmath.SqDist(a, b)) }

// innerProduct is pgvector's inner_product: Σ a[i]·b[i].
func innerProduct(a, b []float32) float64 { return vecmath.Dot(a, b) }

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
func l2Norm(a []float32) float64 { return math.Sqrt(vecmath.SqNorm(a)) }

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
