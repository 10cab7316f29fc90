package storage

import (
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// prefaulted is the bytes of mapped raw vector files whose pages were
// mapped in ahead of use and are still mapped.
var prefaulted atomic.Int64

// prefaultChunk is how much of a mapping one madvise call populates.
const prefaultChunk = 16 << 20

// prefaultBudget is the most bytes of raw vector files that are
// prefaulted at once: a quarter of the machine's memory (a variable for
// tests).
var prefaultBudget = func() int64 { return physicalMemory() / 4 }

// prefault maps the pages of data, a read-only file mapping owned by
// owner, into the process in the background, reading them from disk where
// they are not cached. A search's re-rank touches a few dozen vectors at
// random: on a fresh mapping each is a page fault (several microseconds
// on a virtual machine, most of a warm top-10's time), so the first
// searches after a build or a restart would otherwise run at a fraction
// of their speed. Mappings are prefaulted while their total stays within
// prefaultBudget; ok is false when data would exceed it (nothing is
// done). release, called when the mapping goes, returns its share.
func prefault(owner any, data []byte) (release func(), ok bool) {
	n := int64(len(data))
	if prefaulted.Add(n) > prefaultBudget() {
		prefaulted.Add(-n)
		return nil, false
	}
	go func() {
		for off := 0; off < len(data); off += prefaultChunk {
			chunk := data[off:min(off+prefaultChunk, len(data))]
			// Read ahead first: the mapping is advised random, so
			// populating alone would read one page at a time.
			_ = unix.Madvise(chunk, unix.MADV_WILLNEED)
			if unix.Madvise(chunk, unix.MADV_POPULATE_READ) != nil {
				break // a kernel before 5.14: pages come in as touched
			}
		}
		runtime.KeepAlive(owner) // the mapping lives until this is done
	}()
	return func() { prefaulted.Add(-n) }, true
}
