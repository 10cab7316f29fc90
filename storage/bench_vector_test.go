package storage

import (
	"context"
	"math/rand"
	"testing"
)

// BenchmarkVectorSearch times a top-10 through an HNSW index (ef 100)
// over 60k × 384-d clustered rows in three segments, after the table's
// raw vector files were warmed into the page cache by a first search:
// the walk over the codes in memory and the one re-rank that reads the
// candidates' raw vectors from their files.
func BenchmarkVectorSearch(b *testing.B) {
	const dim, perSeg, segs = 384, 20_000, 3
	db := openDB(b, b.TempDir(), Options{})
	def, ix := vectorTable(b, db, "mem", "hnsw", nil)
	rng := rand.New(rand.NewSource(5))
	vecs := clustered(rng, segs*perSeg+1000, dim)
	for s := range segs {
		insertSegment(b, db, def, vecs, s*perSeg, (s+1)*perSeg)
	}
	waitVectorBuilds(b, db)
	queries := vecs[segs*perSeg:]
	search := func(q []float32) {
		tx := db.Begin()
		defer tx.Rollback()
		hits, err := tx.VectorSearch(context.Background(), def.ID, ix, q, 10, VectorEffort{Ef: 100}, nil)
		if err != nil || len(hits) != 10 {
			b.Fatalf("%d hits, %v", len(hits), err)
		}
	}
	for _, q := range queries {
		search(q) // warm the files and the codes
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		search(queries[i%len(queries)])
	}
}
