package storage

import (
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// warmedBytes is the bytes of raw vector files read into the page cache
// ahead of use whose rawVectors are still in use.
var warmedBytes atomic.Int64

// warmChunk is how much of a file one read of warmFile takes.
const warmChunk = 4 << 20

// warmBudget is the most bytes of raw vector files that are warmed at
// once: a quarter of the machine's memory (a variable for tests).
var warmBudget = func() int64 { return physicalMemory() / 4 }

// warmFile reads the file f of size bytes in the background, so that its
// pages are in the page cache before a search's re-rank asks for them: a
// re-rank reads a few dozen vectors at random, and each that must come
// from disk costs a disk read, most of a top-10's time, after a build or
// a restart. The pages are cached by the kernel, not mapped into the
// process: they count in the machine's memory as PostgreSQL's
// relations do, not in the server's resident set, and the kernel may
// drop them (they are clean). Files are warmed while their total stays
// within warmBudget; ok is false when f would exceed it (nothing is done).
// release, called when the file goes out of use, returns its share.
func warmFile(f *os.File, size int64) (release func(), ok bool) {
	if warmedBytes.Add(size) > warmBudget() {
		warmedBytes.Add(-size)
		return nil, false
	}
	go func() {
		buf := make([]byte, warmChunk)
		for off := int64(0); off < size; off += warmChunk {
			if _, err := f.ReadAt(buf[:min(warmChunk, size-off)], off); err != nil {
				return // closed (the file went out of use) or unreadable: searches read it as it is
			}
		}
	}()
	return func() { warmedBytes.Add(-size) }, true
}

// adviseWillNeed asks the kernel to start reading bytes off..off+n of f
// from disk, without waiting for them.
func adviseWillNeed(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED)
}
