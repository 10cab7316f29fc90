package vecindex

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// bytes is the memory of o's mappings.
func (o *offHeap) bytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	for _, m := range o.mappings {
		n += int64(len(m))
	}
	return n
}

// holds reports whether one of o's mappings holds the n bytes at p.
func (o *offHeap) holds(p unsafe.Pointer, n uintptr) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, m := range o.mappings {
		start := uintptr(unsafe.Pointer(&m[0]))
		if uintptr(p) >= start && uintptr(p)+n <= start+uintptr(len(m)) {
			return true
		}
	}
	return false
}

// TestArraysOutsideHeap checks that a large index's codes and links, built
// or read, live in the index's own mappings (not on the Go heap, where the
// collector would let as much garbage again pile up beside them), that it
// answers as a heap-allocated one would, and that the mappings are
// released once the index is unreachable.
func TestArraysOutsideHeap(t *testing.T) {
	if mapAnonymous(1) == nil {
		t.Skip("no anonymous mappings on this system") // !unix: the arrays stay on the heap
	}
	const n, dim = 8000, 136 // 1.09 MB of codes, 1.06 MB of links: above offHeapMin
	rows := dataset(21, n, dim, 12)
	x, err := Build(context.Background(), n, dim, accessor(rows), Params{Metric: Cosine})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	y, err := Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for name, ix := range map[string]*Index{"built": x, "read": y} {
		if !ix.mem.holds(unsafe.Pointer(&ix.codes[0]), uintptr(len(ix.codes))) {
			t.Errorf("%s index: codes on the heap", name)
		}
		if !ix.mem.holds(unsafe.Pointer(&ix.links0[0]), 4*uintptr(len(ix.links0))) {
			t.Errorf("%s index: links on the heap", name)
		}
	}
	for _, q := range rows[:20] {
		want := exact(Cosine, rows, q, 10, nil)
		got := y.Search(q, 10, Effort{Ef: 64}, nil, accessor(rows))
		if r := recall(got, want); r < 0.9 {
			t.Fatalf("recall %.2f: %v, want %v", r, got, want)
		}
		if g := x.Search(q, 10, Effort{Ef: 64}, nil, accessor(rows)); !slices.Equal(g, got) {
			t.Fatalf("built index answers %v, read one %v", g, got)
		}
	}

	mems := []*offHeap{x.mem, y.mem}
	x, y = nil, nil
	deadline := time.Now().Add(10 * time.Second)
	for _, o := range mems {
		for o.bytes() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d bytes still mapped after the index became unreachable", o.bytes())
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
	}
}
