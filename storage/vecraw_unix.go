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
// that touching one vector does not read ahead the ones beside it, and
// mapped in ahead of use (prefault).
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
	release := prefault(owner, data)
	runtime.AddCleanup(owner, func(data []byte) {
		_ = unix.Munmap(data)
		release()
	}, data)
	return data
}
