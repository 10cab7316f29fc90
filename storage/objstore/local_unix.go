//go:build unix

package objstore

import (
	"io/fs"
	"syscall"
)

// fileID returns the file's inode number.
func fileID(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
