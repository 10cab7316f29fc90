//go:build !linux

package storage

// prefault does nothing where madvise cannot populate a mapping: pages
// come in as searches touch them.
func prefault(owner any, data []byte) (release func()) { return func() {} }
