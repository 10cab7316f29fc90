//go:build !unix

package storage

import "os"

// mapFileReadOnly reads the file at path where there is no mmap: the
// release function has nothing to unmap.
func mapFileReadOnly(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
