//go:build !unix

package storage

// mapFile maps nothing where there is no mmap: raw vector files are read
// with pread.
func mapFile(*rawVectors, string) []byte { return nil }

// adviseMapped has nothing to advise where nothing is mapped.
func adviseMapped([]byte, int64, int64) {}
