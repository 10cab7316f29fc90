package vecindex

import (
	"context"
	"math/rand"
	"slices"
	"testing"
)

// denseRow is row i of a hard dataset for the re-rank: 64-d rows in 16
// tight clusters (unit-variance centres, spread 0.3), whose nearest rows
// lie closer together than the codes' error.
func denseRow(i int64) []float32 {
	centre := rand.New(rand.NewSource(1000 + i%16))
	noise := rand.New(rand.NewSource(i))
	v := make([]float32, 64)
	for d := range v {
		v[d] = float32(centre.NormFloat64()) + 0.3*float32(noise.NormFloat64())
	}
	return v
}

// TestRerankAcrossSegments merges the candidates of two indexes (a
// table's segments) and re-ranks them with a Reranker, as storage does:
// on dense data the re-rank must find what the candidates hold (a fixed
// depth of RerankDepth(10) found 0.96 of it), and on data the codes
// separate well it must stop at RerankDepth(10).
func TestRerankAcrossSegments(t *testing.T) {
	const n, queries, k = 6000, 24, 10
	dense := make([][]float32, 2*n+queries)
	for i := range dense {
		dense[i] = denseRow(int64(i))
	}
	clustered := dataset(1, 2*n+queries, 128, 64)
	for _, tc := range []struct {
		name     string
		rows     [][]float32
		maxDepth int // the most rows a query's re-rank may score on average
	}{
		{"dense", dense, 8 * RerankDepth(k)},
		{"clustered", clustered, RerankDepth(k) + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, qs := tc.rows[:2*n], tc.rows[2*n:]
			var segs []*Index
			for s := range 2 {
				x, err := Build(context.Background(), n, len(rows[0]), accessor(rows[s*n:(s+1)*n]), Params{Metric: Cosine, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				segs = append(segs, x)
			}
			for _, sel := range []int{100, 50} {
				allow := func(r uint32) bool { return int(r)%100 < sel }
				var got, held float64
				scored := 0
				for _, q := range qs {
					want := exact(Cosine, rows, q, k, allow)
					var cands []Hit
					for s, x := range segs {
						off := uint32(s * n)
						for _, h := range x.Candidates(q, k, Effort{Ef: 100}, func(r uint32) bool { return allow(r + off) }) {
							cands = append(cands, Hit{h.Row + off, h.Dist})
						}
					}
					held += recall(cands, want)
					slices.SortFunc(cands, cmpHit)
					u := unitFor(Cosine, q)
					rr := NewReranker(k)
					var hits []Hit
					for _, c := range cands {
						if !rr.More(c.Dist) {
							break
						}
						d, _ := exactDist(Cosine, u, rows[c.Row])
						rr.Scored(c.Dist, d)
						hits = append(hits, Hit{c.Row, d})
						scored++
					}
					slices.SortFunc(hits, cmpHit)
					got += recall(hits[:k], want)
				}
				got, held = got/queries, held/queries
				t.Logf("%d%% of rows: recall@%d %.3f, candidates hold %.3f, %d re-ranked per query", sel, k, got, held, scored/queries)
				if got < held {
					t.Errorf("%d%% of rows: the re-rank found %.3f, the candidates hold %.3f", sel, got, held)
				}
				if scored/queries > tc.maxDepth {
					t.Errorf("%d%% of rows: %d re-ranked per query, want at most %d", sel, scored/queries, tc.maxDepth)
				}
			}
		})
	}
}
