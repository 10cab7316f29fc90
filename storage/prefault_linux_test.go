package storage

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestMappedRawVectorsPrefaulted checks that a mapped raw vector file that
// a search asks to warm has its pages come into the process without being
// touched, so that the first searches after a build or a restart do not
// fault on every vector.
func TestMappedRawVectorsPrefaulted(t *testing.T) {
	const size = 3*prefaultChunk/2 + 4096 // more than one chunk
	path := filepath.Join(t.TempDir(), "v.vraw")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	before := prefaulted.Load()
	raw := &rawVectors{path: path, dim: 1}
	if _, err := raw.open(true); err != nil {
		t.Fatal(err)
	}
	data := raw.mapped
	if data == nil || !raw.warmed.Load() {
		t.Fatal("not mapped and warmed")
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

// TestSearchWarmsTablesThatFit checks the prefault policy of searches: a
// table whose raw vectors fit the budget has its segments' files warmed
// by its first search, and one that outgrows it has none warmed (not the
// first few segments that happen to fit), while its searches still find
// the same rows.
func TestSearchWarmsTablesThatFit(t *testing.T) {
	saved := prefaultBudget
	t.Cleanup(func() { prefaultBudget = saved })
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
	prefaultBudget = func() int64 { return tableBytes - 1 } // each segment would fit, the table does not
	cold := search()
	if n, of := warmed(); n != 0 || of != 3 {
		t.Fatalf("a table over the budget: %d of %d segments warmed", n, of)
	}
	prefaultBudget = func() int64 { return 1 << 40 }
	warm := search()
	if n, of := warmed(); n != of {
		t.Fatalf("a table within the budget: %d of %d segments warmed", n, of)
	}
	if len(cold) != 10 || !slices.Equal(cold, warm) || cold[0].Dist > 1e-6 {
		t.Fatalf("searches differ or miss the query's own row: %v, %v", cold, warm)
	}
}
