package vecmath

import (
	"math"
	"math/rand"
	"testing"
)

// vecLengths exercise the 16-element blocks of the assembly and the
// 4-element blocks of the Go loops, and their tails.
var vecLengths = []int{0, 1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100, 384, 385, 768, 1536}

// closeSum reports whether got is within a relative 1e-12 of want, scaled
// by the sum of the absolute values of the terms (the error bound of a
// float64 sum in any order).
func closeSum(got, want, scale float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= 1e-12*scale
}

// The dispatched sums (assembly on amd64 with AVX2 and FMA) agree with the
// pure-Go loops and with a naive float64 reference; and the sums of one
// dispatch agree with each other to the bit, which makes Kernel and Eval
// results identical.
func TestVecSumsAgree(t *testing.T) {
	t.Logf("assembly sums: %v", hasAsm)
	rng := rand.New(rand.NewSource(5))
	for _, n := range vecLengths {
		for k := 0; k < 10; k++ {
			a, b := randVec(rng, n), randVec(rng, n)
			var dot, aa, bb, sq, scaleD float64
			for i := range a {
				x, y := float64(a[i]), float64(b[i])
				dot += x * y
				scaleD += math.Abs(x * y)
				aa += x * x
				bb += y * y
				sq += (x - y) * (x - y)
			}
			for _, impl := range []struct {
				name   string
				dot    func(a, b []float32) float64
				dn     func(a, b []float32) (float64, float64)
				dns    func(a, b []float32) (float64, float64, float64)
				sqDist func(a, b []float32) float64
			}{
				{"go", dotGo, dotNormGo, dotNormsGo, sqDistGo},
				{"dispatched", Dot, func(a, b []float32) (float64, float64) { return DotNorm(a, b, nil) }, DotNorms, SqDist},
			} {
				d1 := impl.dot(a, b)
				d2, aa2 := impl.dn(a, b)
				d3, aa3, bb3 := impl.dns(a, b)
				if !closeSum(d1, dot, scaleD) || !closeSum(aa2, aa, aa) || !closeSum(bb3, bb, bb) || !closeSum(impl.sqDist(a, b), sq, sq) {
					t.Fatalf("%s n=%d: dot %v/%v, aa %v/%v, bb %v/%v, sq %v/%v", impl.name, n, d1, dot, aa2, aa, bb3, bb, impl.sqDist(a, b), sq)
				}
				if d1 != d2 || d1 != d3 || aa2 != aa3 || impl.dot(a, a) != aa3 || impl.dot(b, b) != bb3 {
					t.Fatalf("%s n=%d: the sums of one implementation differ in the last bits", impl.name, n)
				}
			}
		}
	}
}

// NaN and infinite elements propagate through every implementation, and
// huge or tiny float4 values neither overflow nor underflow.
func TestVecSumsSpecialValues(t *testing.T) {
	for _, n := range []int{3, 16, 19, 40} {
		for _, pos := range []int{0, n - 1, n / 2} {
			for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
				a := make([]float32, n)
				b := make([]float32, n)
				for i := range a {
					a[i], b[i] = 1, 2
				}
				a[pos] = v
				for _, dot := range []func(a, b []float32) float64{dotGo, Dot} {
					got := dot(a, b)
					if math.IsNaN(float64(v)) != math.IsNaN(got) || (!math.IsNaN(got) && !math.IsInf(got, 1)) {
						t.Errorf("n=%d pos=%d v=%v: dot %v", n, pos, v, got)
					}
				}
			}
			big := make([]float32, n)
			tiny := make([]float32, n)
			for i := range big {
				big[i], tiny[i] = 3e38, 1e-40
			}
			if s := SqNorm(big); math.IsInf(s, 0) || s < 9e76*float64(n) {
				t.Errorf("n=%d: sqnorm of 3e38s %v", n, s)
			}
			if s := SqNorm(tiny); s == 0 {
				t.Errorf("n=%d: sqnorm of 1e-40s underflowed", n)
			}
		}
	}
}

// The pure-Go sums, benchmarked against the dispatched ones: the reason
// for the assembly.
func BenchmarkVecDotNorm(b *testing.B) {
	const dim = 384
	rng := rand.New(rand.NewSource(6))
	x, y := randVec(rng, dim), randVec(rng, dim)
	b.Run("go", func(b *testing.B) {
		b.SetBytes(dim * 4)
		for i := 0; i < b.N; i++ {
			benchSink, _ = dotNormGo(x, y)
		}
	})
	b.Run("dispatched", func(b *testing.B) {
		b.SetBytes(dim * 4)
		for i := 0; i < b.N; i++ {
			benchSink, _ = DotNorm(x, y, nil)
		}
	})
}

func randVec(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

var benchSink float64
