//go:build !unix

package objstore

import "io/fs"

// fileID returns 0 where the platform has no inode numbers: the ETag then
// rests on the modification time and size alone.
func fileID(fs.FileInfo) uint64 { return 0 }
