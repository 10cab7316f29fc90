package vecindex

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHugePages asks the kernel to back the whole 2 MiB pages of the n
// bytes at p with transparent huge pages (where THP is "madvise", as on
// most distributions, anonymous memory gets 4 KiB pages otherwise). A
// walk reads rows at random across arrays of hundreds of MB; with 4 KiB
// pages nearly every row read is also a TLB miss and a page-table walk,
// with 2 MiB pages the arrays' translations fit the TLB. Advice only: an
// error (an old kernel, THP disabled) changes nothing.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	const huge = 2 << 20
	start := (uintptr(p) + huge - 1) &^ (huge - 1)
	end := (uintptr(p) + n) &^ (huge - 1)
	if end <= start {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start), unix.MADV_HUGEPAGE)
}
