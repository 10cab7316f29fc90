package storage

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's dirty pages to disk
// without waiting for them, so that a later fsync finds little left to
// do. It is only a hint: an error is ignored.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}

// fdatasync makes f's data durable, and of its metadata only what reading
// the data back needs (the size, not the modification time).
func fdatasync(f *os.File) error {
	return unix.Fdatasync(int(f.Fd()))
}
