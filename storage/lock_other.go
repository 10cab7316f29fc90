//go:build !unix

package storage

import (
	"os"
	"path/filepath"
)

// lockDir creates dir/LOCK; other platforms get no exclusion.
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o644)
}
