//go:build !linux

package vecindex

import "unsafe"

// adviseHugePages does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHugePages(p unsafe.Pointer, n uintptr) {}
