//go:build !amd64 || purego

package vecindex

// hasCodeAsm is false: there is no assembly dot product here.
const hasCodeAsm = false

// dotCodesAsm is never called without the assembly.
func dotCodesAsm(q, x []byte) uint64 { panic("vecindex: no assembly dot product") }
