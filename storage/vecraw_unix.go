//go:build unix

package storage

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path into memory read-only for as long as
// owner is reachable, or returns nil when it cannot (the caller then
// reads the file with pread). The pages are advised as read at random, so
// that touching one vector does not read ahead the ones beside it; a
// search may have them read in ahead of use later (rawVectors.warm).
func mapFile(owner *rawVectors, path string) []byte {
	data, err := mmapFile(path)
	if err != nil || data == nil {
		return nil
	}
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	runtime.AddCleanup(owner, func(data []byte) { _ = unix.Munmap(data) }, data)
	return data
}

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

// pageSize is the granularity of the advice below.
var pageSize = int64(os.Getpagesize())

// adviseMapped asks the kernel to start reading bytes off..off+n of the
// mapping data from disk, without waiting for them.
func adviseMapped(data []byte, off, n int64) {
	start := off &^ (pageSize - 1) // the mapping starts on a page
	_ = unix.Madvise(data[start:off+n], unix.MADV_WILLNEED)
}
