package storage

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRawVectorsWarmedIntoPageCache checks that a raw vector file that a
// search asks to warm comes into the page cache without being read by a
// search, so that the first searches after a build or a restart do not
// wait for the disk, and that it is not mapped into the process: its
// pages count in the machine's cache, not in the server's resident set.
func TestRawVectorsWarmedIntoPageCache(t *testing.T) {
	const size = 3*warmChunk/2 + 4096 // more than one read
	path := filepath.Join(t.TempDir(), "v.vraw")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Drop the written pages where the file system allows it (not on
	// tmpfs), so that warming has something to read.
	_ = f.Sync()
	_ = unix.Fadvise(int(f.Fd()), 0, size, unix.FADV_DONTNEED)
	cached := func() int64 {
		t.Helper()
		m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Munmap(m)
		pages := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
		if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&pages[0]))); errno != 0 {
			t.Fatal(errno)
		}
		var n int64
		for _, p := range pages {
			n += int64(p & 1)
		}
		return n * int64(os.Getpagesize())
	}
	before := warmedBytes.Load()
	raw := &rawVectors{path: path, dim: 1, rows: size / 4}
	if _, err := raw.open(true); err != nil {
		t.Fatal(err)
	}
	if !raw.warmed.Load() {
		t.Fatal("not warmed")
	}
	if got := warmedBytes.Load() - before; got != size {
		t.Fatalf("warmed bytes grew by %d, want %d", got, size)
	}
	deadline := time.Now().Add(10 * time.Second)
	for cached() < size {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d bytes cached after 10s", cached(), size)
		}
		time.Sleep(10 * time.Millisecond)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(maps), path) {
		t.Fatalf("%s is mapped into the process", path)
	}
	runtime.KeepAlive(raw)
}

// TestSearchWarmsTablesThatFit checks the warming policy of searches: a
// table whose raw vectors fit the budget has its segments' files warmed
// by its first search, and one that outgrows it has none warmed (not the
// first few segments that happen to fit), while its searches still find
// the same rows.
func TestSearchWarmsTablesThatFit(t *testing.T) {
	saved := warmBudget
	t.Cleanup(func() { warmBudget = saved })
	db := openDB(t, t.TempDir(), Options{})
	def, ix := vectorTable(t, db, "mem", "hnsw", nil)
	const dim, perSeg = 16, 600
	vecs := clustered(rand.New(rand.NewSource(3)), 3*perSeg, dim)
	for s := 0; s < 3; s++ {
		insertSegment(t, db, def, vecs, s*perSeg, (s+1)*perSeg)
	}
	waitVectorBuilds(t, db)
	search := func() []VectorHit {
		t.Helper()
		tx := db.Begin()
		defer tx.Rollback()
		hits, err := tx.VectorSearch(context.Background(), def.ID, ix, vecs[7], 10, VectorEffort{Ef: 40}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	warmed := func() (n, of int) {
		t.Helper()
		spec, _ := vectorSpec(ix, def)
		for _, seg := range db.published.Load().tables[def.ID].segments {
			if db.segVectorIndex(seg, def, spec) == nil {
				t.Fatalf("segment %s has no index", seg.path)
			}
			raw := segRawVectors(seg, spec.colID)
			if raw == nil {
				t.Fatalf("segment %s has no raw vectors", seg.path)
			}
			of++
			if raw.warmed.Load() {
				n++
			}
		}
		return n, of
	}
	tableBytes := int64(3 * perSeg * 4 * dim)
	warmBudget = func() int64 { return tableBytes - 1 } // each segment would fit, the table does not
	cold := search()
	if n, of := warmed(); n != 0 || of != 3 {
		t.Fatalf("a table over the budget: %d of %d segments warmed", n, of)
	}
	warmBudget = func() int64 { return 1 << 40 }
	warm := search()
	if n, of := warmed(); n != of {
		t.Fatalf("a table within the budget: %d of %d segments warmed", n, of)
	}
	if len(cold) != 10 || !slices.Equal(cold, warm) || cold[0].Dist > 1e-6 {
		t.Fatalf("searches differ or miss the query's own row: %v, %v", cold, warm)
	}
}
