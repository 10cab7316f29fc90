package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestMappedRawVectorsPrefaulted checks that a mapped raw vector file's
// pages come into the process without being touched, so that the first
// searches after a build or a restart do not fault on every vector.
func TestMappedRawVectorsPrefaulted(t *testing.T) {
	const size = 3*prefaultChunk/2 + 4096 // more than one chunk
	path := filepath.Join(t.TempDir(), "v.vraw")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	before := prefaulted.Load()
	raw := &rawVectors{path: path, dim: 1}
	data := mapFile(raw, path)
	if data == nil {
		t.Fatal("not mapped")
	}
	if got := prefaulted.Load() - before; got != size {
		t.Fatalf("prefaulted grew by %d bytes, want %d", got, size)
	}
	// The mapping's resident size in this process, from its entry in
	// /proc/self/smaps (the page cache holding the file is not enough).
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(unsafe.SliceData(data))))
	mappedKB := func() int64 {
		b, err := os.ReadFile("/proc/self/smaps")
		if err != nil {
			t.Fatal(err)
		}
		_, entry, ok := strings.Cut(string(b), "\n"+start)
		if !ok {
			t.Fatalf("no mapping at %s in /proc/self/smaps", start)
		}
		_, rss, _ := strings.Cut(entry, "\nRss:")
		kb, _ := strconv.ParseInt(strings.Fields(rss)[0], 10, 64)
		return kb
	}
	deadline := time.Now().Add(10 * time.Second)
	for mappedKB()*1024 < size {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d bytes mapped in after 10s", mappedKB()*1024, size)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(raw)
}
