//go:build !unix

package vecindex

// mapAnonymous has no mapping to give where there is no mmap: the arrays
// stay on the heap.
func mapAnonymous(int) []byte { return nil }

// unmap has nothing to release.
func unmap([]byte) {}
