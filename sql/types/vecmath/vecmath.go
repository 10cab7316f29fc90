// Package vecmath is the float32 vector arithmetic cairn's vector
// functions and vector indexes share: dot products, norms and squared
// distances of []float32, accumulated in float64.
//
// Sums are accumulated in float64 although the elements are float32: the
// squares of large (above 1.8e19) or tiny (below 1e-23) float32 elements
// overflow or underflow in float32, which would turn a fine vector into a
// NaN or a "zero-norm" NULL, and float64 rounds a final float4 result
// correctly. On amd64 with AVX2 and FMA the sums run in assembly
// (vecmath_amd64.s) at memory speed; elsewhere the pure-Go loops below
// run, with four independent accumulators. The assembly and the Go loops
// add in different orders, so they agree to a relative 1e-12, not to the
// bit; every caller in one process uses the same one, so a kernel, an
// evaluation and an index re-rank give identical results.
package vecmath

// The dispatched sums; vecmath_amd64.go replaces them with the assembly
// versions when the CPU has AVX2 and FMA.
var (
	dot      = dotGo
	dotNorm  = func(a, b, _ []float32) (float64, float64) { return dotNormGo(a, b) }
	dotNorms = dotNormsGo
	sqDist   = sqDistGo
)

// Dot is Σ a[i]·b[i]; b must be at least as long as a.
func Dot(a, b []float32) float64 { return dot(a, b) }

// DotNorm is Σ a[i]·b[i] and Σ a[i]² in one pass over a (the column side
// of a column-constant cosine, whose constant norm is known). next is the
// row the caller will pass as a next, when that is not the one that
// follows a in memory (a scan of selected rows): the assembly loads it
// into the cache while it reads a. nil: the memory after a.
func DotNorm(a, b, next []float32) (dot, aa float64) { return dotNorm(a, b, next) }

// DotNorms is Σ a[i]·b[i], Σ a[i]² and Σ b[i]² in one pass.
func DotNorms(a, b []float32) (dot, aa, bb float64) { return dotNorms(a, b) }

// SqDist is Σ (a[i]-b[i])²; b must be at least as long as a.
func SqDist(a, b []float32) float64 { return sqDist(a, b) }

// SqNorm is Σ a[i]², computed exactly as DotNorms computes its second and
// third sums, so a constant's norm computed once equals the one a row
// would compute.
func SqNorm(a []float32) float64 { return dot(a, a) }

// dotGo is the pure-Go Dot.
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

// dotNormGo is the pure-Go DotNorm.
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

// dotNormsGo is the pure-Go DotNorms.
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

// sqDistGo is the pure-Go SqDist.
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
