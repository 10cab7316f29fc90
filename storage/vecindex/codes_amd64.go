//go:build !purego

package vecindex

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// dotCodesAVX2 is Σ a[i]·b[i] over n codes, n a multiple of 32
// (codes_amd64.s).
//
//go:noescape
func dotCodesAVX2(a, b *byte, n int) uint64

// hasCodeAsm reports whether dotCodesAVX2 runs on this CPU.
var hasCodeAsm = cpu.X86.HasAVX2

// dotCodesAsm is Σ q[i]·x[i] over two equally long code slices: the
// assembly over whole 32-byte blocks, Go over the rest.
func dotCodesAsm(q, x []byte) uint64 {
	x = x[:len(q)]
	n := len(q) &^ 31
	var s uint64
	if n > 0 {
		s = dotCodesAVX2(&q[0], &x[0], n)
	}
	for i := n; i < len(q); i++ {
		s += uint64(q[i]) * uint64(x[i])
	}
	return s
}

// prefetchRows starts loading into cache, for each of n row ids at ids, the
// row's stride bytes of codes at codes+id·stride and its pair of terms at
// terms+id·8 (codes_amd64.s), so that the rows a walk is about to score
// arrive from memory in parallel rather than one miss at a time.
//
//go:noescape
func prefetchRows(codes *byte, stride uintptr, terms *float32, ids *uint32, n int)

// prefetchSpan starts loading the n > 0 bytes at p into cache.
//
//go:noescape
func prefetchSpan(p unsafe.Pointer, n uintptr)

// dotRows sets out[i] to the dot product of the probe's codes q with the
// codes of row ids[i], for each of n rows of stride bytes at codes
// (codes_amd64.s): a walk's scores of a node's neighbours in one call.
//
//go:noescape
func dotRows(q, codes *byte, stride uintptr, ids *uint32, n int, out *uint32)
