//go:build !purego

package functions

import "golang.org/x/sys/cpu"

// The assembly sums of vector_math_amd64.s; n is the length of a, and b
// has at least n elements.

//go:noescape
func dotAVX2(a, b *float32, n int) float64

//go:noescape
func dotNormAVX2(a, b *float32, n int) (dot, aa float64)

//go:noescape
func dotNormsAVX2(a, b *float32, n int) (dot, aa, bb float64)

//go:noescape
func sqDistAVX2(a, b *float32, n int) float64

// hasVecAsm reports whether the assembly sums run on this CPU.
var hasVecAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func init() {
	if hasVecAsm {
		vecDot, vecDotNorm, vecDotNorms, vecSqDist = dotAsm, dotNormAsm, dotNormsAsm, sqDistAsm
	}
}

// vecFirst is &a[0], or nil for an empty slice (the assembly reads nothing
// then).
func vecFirst(a []float32) *float32 {
	if len(a) == 0 {
		return nil
	}
	return &a[0]
}

func dotAsm(a, b []float32) float64 {
	b = b[:len(a)]
	return dotAVX2(vecFirst(a), vecFirst(b), len(a))
}

func dotNormAsm(a, b []float32) (dot, aa float64) {
	b = b[:len(a)]
	return dotNormAVX2(vecFirst(a), vecFirst(b), len(a))
}

func dotNormsAsm(a, b []float32) (dot, aa, bb float64) {
	b = b[:len(a)]
	return dotNormsAVX2(vecFirst(a), vecFirst(b), len(a))
}

func sqDistAsm(a, b []float32) float64 {
	b = b[:len(a)]
	return sqDistAVX2(vecFirst(a), vecFirst(b), len(a))
}
