//go:build !unix

package storage

import "os"

// mapFile maps nothing where there is no mmap: raw vector files are read
// with pread.
func mapFile(*rawVectors, string) []byte { return nil }

// mapFileReadOnly reads the file at path where there is no mmap: the
// release function has nothing to unmap.
func mapFileReadOnly(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}

// adviseMapped has nothing to advise where nothing is mapped.
func adviseMapped([]byte, int64, int64) {}
