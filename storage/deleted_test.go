package storage

import (
	"math/rand"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// TestDeletedRows applies random deletions (one row, a few, a bulk delete
// past foldDeleted) and compaction's removals to a deletedRows and to one
// plain bitmap, and checks after each step that the set answers as the
// bitmap does, that its layers stay disjoint, and that every earlier set
// (which older states hold) still answers as it did.
func TestDeletedRows(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const rows = 200_000
	type version struct {
		set   deletedRows
		model *roaring64.Bitmap
	}
	var d deletedRows
	model := roaring64.New()
	var history []version
	check := func(v version, step int) {
		t.Helper()
		if got, want := v.set.GetCardinality(), v.model.GetCardinality(); got != want {
			t.Fatalf("step %d: %d rows, want %d", step, got, want)
		}
		if v.set.IsEmpty() != v.model.IsEmpty() {
			t.Fatalf("step %d: IsEmpty %v", step, v.set.IsEmpty())
		}
		if !v.set.union().Equals(v.model) {
			t.Fatalf("step %d: union differs from the model", step)
		}
		if v.set.base != nil && v.set.recent != nil && v.set.base.Intersects(v.set.recent) {
			t.Fatalf("step %d: layers overlap", step)
		}
		for range 50 {
			id := uint64(rng.Intn(rows))
			if v.set.Contains(id) != v.model.Contains(id) {
				t.Fatalf("step %d: Contains(%d) = %v", step, id, v.set.Contains(id))
			}
			if v.set.Rank(id) != v.model.Rank(id) {
				t.Fatalf("step %d: Rank(%d) = %d, want %d", step, id, v.set.Rank(id), v.model.Rank(id))
			}
		}
	}
	for step := range 3000 {
		ids := roaring64.New()
		switch k := rng.Intn(100); {
		case k < 80:
			ids.Add(uint64(rng.Intn(rows)))
		case k < 95:
			for range rng.Intn(50) {
				ids.Add(uint64(rng.Intn(rows)))
			}
		case k < 98:
			lo := uint64(rng.Intn(rows))
			ids.AddRange(lo, lo+uint64(rng.Intn(3*foldDeleted)))
		default:
			// Compaction drops deleted rows it rewrote.
			for _, id := range model.ToArray() {
				if rng.Intn(3) == 0 {
					ids.Add(id)
				}
			}
			d = d.without(ids)
			model = roaring64.AndNot(model, ids)
			history = append(history, version{d, model.Clone()})
			check(history[len(history)-1], step)
			continue
		}
		d = d.with(ids)
		model.Or(ids)
		history = append(history, version{d, model.Clone()})
		check(history[len(history)-1], step)
		if d.recent != nil && d.recent.GetCardinality() > foldDeleted {
			t.Fatalf("step %d: %d recent rows not folded", step, d.recent.GetCardinality())
		}
	}
	for i, v := range history {
		check(v, i)
	}
	if got := history[len(history)-1].set.minus(history[len(history)/2].set); !got.Equals(roaring64.AndNot(model, history[len(history)/2].model)) {
		t.Fatal("minus differs from the model")
	}
}
