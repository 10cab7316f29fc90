//go:build !purego

package vecmath

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The assembly sums of vecmath_amd64.s; n is the length of a, and b
// has at least n elements.

//go:noescape
func dotAVX2(a, b *float32, n int) float64

// dotNormAVX2 prefetches the memory at pf, 64 bytes per 16 elements, as
// it reads a (see DotNorm's next).
//
//go:noescape
func dotNormAVX2(a, b *float32, n int, pf uintptr) (dot, aa float64)

//go:noescape
func dotNormsAVX2(a, b *float32, n int) (dot, aa, bb float64)

//go:noescape
func sqDistAVX2(a, b *float32, n int) float64

// hasAsm reports whether the assembly sums run on this CPU.
var hasAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func init() {
	if hasAsm {
		dot, dotNorm, dotNorms, sqDist = dotAsm, dotNormAsm, dotNormsAsm, sqDistAsm
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

func dotNormAsm(a, b, next []float32) (dot, aa float64) {
	b = b[:len(a)]
	first := vecFirst(a)
	pf := uintptr(unsafe.Pointer(first)) + prefetchAhead
	if len(next) > 0 {
		pf = uintptr(unsafe.Pointer(&next[0]))
	}
	return dotNormAVX2(first, vecFirst(b), len(a), pf)
}

// prefetchAhead is PREFETCH_AHEAD of the assembly: how far past the
// current element the loops of a sequential scan prefetch.
const prefetchAhead = 4096

func dotNormsAsm(a, b []float32) (dot, aa, bb float64) {
	b = b[:len(a)]
	return dotNormsAVX2(vecFirst(a), vecFirst(b), len(a))
}

func sqDistAsm(a, b []float32) float64 {
	b = b[:len(a)]
	return sqDistAVX2(vecFirst(a), vecFirst(b), len(a))
}
