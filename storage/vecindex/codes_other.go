//go:build !amd64 || purego

package vecindex

import "unsafe"

// hasCodeAsm is false: there is no assembly dot product here.
const hasCodeAsm = false

// dotCodesAsm is never called without the assembly.
func dotCodesAsm(q, x []byte) uint64 { panic("vecindex: no assembly dot product") }

// prefetchRows does nothing: Go has no prefetch instruction.
func prefetchRows(codes *byte, stride uintptr, terms *float32, ids *uint32, n int) {}

// prefetchSpan does nothing: Go has no prefetch instruction.
func prefetchSpan(p unsafe.Pointer, n uintptr) {}

// dotRows is never called without the assembly.
func dotRows(q, codes *byte, stride uintptr, ids *uint32, n int, out *uint32) {
	panic("vecindex: no assembly dot product")
}
