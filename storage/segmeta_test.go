package storage

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// TestRowPositionsIDSet checks a segment's row IDs as a bitmap and the
// positions found by rank in it against find, for the layouts segments
// have: IDs ascending in one run, ascending in several runs with gaps
// (a merge of a bulk load's spills, other segments' rows between them),
// and out of order (rows an UPDATE moved), and that a filter's rows
// listed through it are exactly the segment's rows the filter holds.
func TestRowPositionsIDSet(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	runs := func(starts ...int64) []int64 {
		var ids []int64
		for _, s := range starts {
			for i := int64(0); i < 700; i++ {
				ids = append(ids, s+i)
			}
		}
		return ids
	}
	shuffled := runs(100, 5000, 9000)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for name, ids := range map[string][]int64{
		"one run":   runs(1),
		"gaps":      runs(0, 2000, 64000, 1<<33),
		"unordered": shuffled,
		"one row":   {42},
	} {
		t.Run(name, func(t *testing.T) {
			pos := newRowPositions(ids)
			set := pos.idSet()
			if set.GetCardinality() != uint64(len(ids)) {
				t.Fatalf("%d IDs in the set, want %d", set.GetCardinality(), len(ids))
			}
			for want, id := range ids {
				if got := pos.positionOf(id); got != want {
					t.Fatalf("positionOf(%d) = %d, want %d", id, got, want)
				}
			}
			// A filter of every third ID, of the segment's and of the
			// rows around each of its rows, and a deletion of every
			// seventh.
			allow := roaring64.New()
			for _, id := range ids {
				for near := max(id-5, 0); near <= id+5; near++ {
					if near%3 == 0 {
						allow.Add(uint64(near))
					}
				}
			}
			deleted := func(id int64) bool { return id%7 == 0 }
			var want []uint32
			for p, id := range ids {
				if id%3 == 0 && !deleted(id) {
					want = append(want, uint32(p))
				}
			}
			got := positionsOf(pos, roaring64.And(set, allow), deleted)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("listed %d positions, want %d", len(got), len(want))
			}
		})
	}
}
