//go:build !amd64 || purego

package vecmath

// hasAsm reports whether assembly sums run: never on this platform or
// with the purego build tag; vecmath.go's pure-Go loops do the work.
const hasAsm = false
