package storage

import (
	"math/rand"
	"runtime/debug"
	"testing"
)

// TestMemoryLimitFollowsVectorIndexes checks that the soft memory limit
// set with SetMemoryLimit grows by the memory of the vector indexes a
// database loads and shrinks back when it closes, so that indexes larger
// than the base (ten million rows) do not leave the garbage collector
// running back to back under a limit it cannot meet.
func TestMemoryLimitFollowsVectorIndexes(t *testing.T) {
	saved := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		SetMemoryLimit(0)
		debug.SetMemoryLimit(saved)
	})
	const base = 3 << 30
	SetMemoryLimit(base)
	if got := debug.SetMemoryLimit(-1); got != base+memLimit.index {
		t.Fatalf("limit %d, want %d", got, base+memLimit.index)
	}
	before := memLimit.index

	db := openDB(t, t.TempDir(), Options{})
	def, _ := vectorTable(t, db, "mem", "hnsw", nil)
	insertSegment(t, db, def, clustered(rand.New(rand.NewSource(9)), 2000, 64), 0, 2000)
	waitVectorBuilds(t, db)
	grown := memLimit.index - before
	if grown < 2000*64 { // at least a code byte per dimension and row
		t.Fatalf("index memory grew by %d bytes", grown)
	}
	if got := debug.SetMemoryLimit(-1); got != base+before+grown {
		t.Fatalf("limit %d with the index loaded, want %d", got, base+before+grown)
	}
	db.Close()
	if got := debug.SetMemoryLimit(-1); got != base+before || memLimit.index != before {
		t.Fatalf("limit %d after close, want %d", got, base+before)
	}
}
