package exec

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// TestKeptRows checks keptRows' walk beside ascending row IDs against a
// lookup of each ID, for IDs ascending with gaps, shuffled, and around the
// ends of the kept set.
func TestKeptRows(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 200; trial++ {
		keep := roaring64.New()
		base := uint64(rng.Intn(1 << 20))
		for i := 0; i < rng.Intn(500); i++ {
			keep.Add(base + uint64(rng.Intn(5000)))
		}
		var ids []int64
		for id := int64(base) - int64(rng.Intn(50)); len(ids) < rng.Intn(800); id += 1 + int64(rng.Intn(12)) {
			ids = append(ids, id)
		}
		if trial%3 == 0 {
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		var want []int
		for i, id := range ids {
			if id >= 0 && keep.Contains(uint64(id)) {
				want = append(want, i)
			}
		}
		if got := keptRows(keep, ids, nil); !slices.Equal(got, want) {
			t.Fatalf("trial %d: kept %v, want %v", trial, got, want)
		}
	}
}
