//go:build !amd64 || purego

package functions

// hasVecAsm reports whether assembly sums run: never on this platform or
// with the purego build tag; vector_math.go's pure-Go loops do the work.
const hasVecAsm = false
