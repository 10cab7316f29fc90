//go:build unix

package storage

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFileReadOnly returns the contents of the file at path, mapped
// read-only and advised as read in order, and the function that unmaps
// them once the caller is done with them.
func mapFileReadOnly(path string) ([]byte, func(), error) {
	data, err := mmapFile(path)
	if err != nil {
		return nil, nil, err
	}
	if data == nil { // empty: nothing to map
		return nil, func() {}, nil
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, func() { _ = unix.Munmap(data) }, nil
}

// mmapFile maps the whole file at path read-only and shared; nil for an
// empty file.
func mmapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, nil
	}
	if st.Size() != int64(int(st.Size())) {
		return nil, fmt.Errorf("%s: %d bytes cannot be mapped", path, st.Size())
	}
	return unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
}
