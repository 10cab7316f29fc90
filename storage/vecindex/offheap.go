package vecindex

import (
	"runtime"
	"sync"
	"unsafe"
)

// An index's large arrays (codes, terms, links) live outside the Go heap,
// in anonymous memory mappings the index owns. On the heap they were live
// memory the garbage collector paces itself by: with GOGC at 100 the heap
// may grow to twice the live heap before a collection, so a loaded
// index's 500 MB (1M × 384-d) let the server hold about as much garbage
// again, and its memory limit had to grow by every loaded index to keep
// the collector from running back to back. Outside the heap an index
// costs its own size and nothing more; the collector paces itself by the
// rest. The mappings are released when the index becomes unreachable
// (runtime.AddCleanup), or at once by release for an index known to be
// finished with (a build's working copy, a failed build). Every exported
// method that reads the arrays keeps its index alive until it returns
// (runtime.KeepAlive), so a cleanup never unmaps memory a search is still
// reading; nothing outside the package ever holds a slice of them.

// offHeapMin is the size below which an array stays on the Go heap: a
// small segment's index is not worth a mapping (whole pages, a system
// call) of its own.
const offHeapMin = 1 << 20

// hugePage is the size of a transparent huge page, which the mappings are
// aligned to so that all of a large array can sit on them.
const hugePage = 2 << 20

// offHeap owns the mappings of one index's arrays.
type offHeap struct {
	mu       sync.Mutex
	mappings [][]byte
}

// newOffHeap returns the owner of x's mappings, which releases them once
// x is unreachable.
func newOffHeap(x *Index) *offHeap {
	o := &offHeap{}
	runtime.AddCleanup(x, (*offHeap).release, o)
	return o
}

// alloc returns n zeroed bytes aligned to a huge page, in a mapping of
// their own, or nil when n is small or the system has no mapping to give
// (the caller then allocates on the heap).
func (o *offHeap) alloc(n int) []byte {
	if n < offHeapMin {
		return nil
	}
	m := mapAnonymous(n + hugePage)
	if m == nil {
		return nil
	}
	o.mu.Lock()
	o.mappings = append(o.mappings, m)
	o.mu.Unlock()
	skip := (hugePage - int(uintptr(unsafe.Pointer(&m[0]))%hugePage)) % hugePage
	return m[skip : skip+n : skip+n]
}

// release unmaps every mapping alloc returned; the arrays in them must not
// be read again. Releasing twice is harmless.
func (o *offHeap) release() {
	o.mu.Lock()
	mappings := o.mappings
	o.mappings = nil
	o.mu.Unlock()
	for _, m := range mappings {
		unmap(m)
	}
}

// makeArray returns a zeroed slice of n Ts for one of an index's large
// arrays (codes, terms, links), outside the heap in mem's mappings when it
// is large, and advised onto huge pages (hugepages_*.go) before its first
// write.
func makeArray[T byte | uint32 | float32](mem *offHeap, n int) []T {
	if n == 0 {
		return nil
	}
	size := uintptr(n) * unsafe.Sizeof(*new(T))
	if b := mem.alloc(int(size)); b != nil {
		adviseHugePages(unsafe.Pointer(&b[0]), size)
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	a := make([]T, n)
	adviseHugePages(unsafe.Pointer(&a[0]), size)
	return a
}
