//go:build !purego

package vecindex

import "golang.org/x/sys/cpu"

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
