//go:build !linux

package storage

import "os"

// startWriteback does nothing where sync_file_range does not exist: the
// later fsync writes the whole file.
func startWriteback(*os.File) {}

// fdatasync is fsync where fdatasync does not exist.
func fdatasync(f *os.File) error { return f.Sync() }
