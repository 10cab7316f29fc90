//go:build unix

package storage

import (
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
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 || st.Size() != int64(int(st.Size())) {
		return nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	runtime.AddCleanup(owner, func(data []byte) { _ = unix.Munmap(data) }, data)
	return data
}

// pageSize is the granularity of the advice below.
var pageSize = int64(os.Getpagesize())

// adviseMapped asks the kernel to start reading bytes off..off+n of the
// mapping data from disk, without waiting for them.
func adviseMapped(data []byte, off, n int64) {
	start := off &^ (pageSize - 1) // the mapping starts on a page
	_ = unix.Madvise(data[start:off+n], unix.MADV_WILLNEED)
}
