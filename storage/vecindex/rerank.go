package vecindex

// Reranker decides how deep the exact re-rank of a search's candidates
// goes. The candidates are taken nearest first by their codes' estimate;
// the first RerankDepth(k) are always scored exactly, and after them the
// re-rank goes on while the next candidate could still be one of the k
// nearest: while its estimate, less rerankSlack times the largest
// estimation error the re-rank has seen so far, is no farther than the
// k-th nearest exact distance found.
//
// A fixed depth fails where the rows are dense: in tight clusters the k
// nearest rows of a table of several segments lie closer together than
// the codes' error, and merging the segments' candidates by estimate
// lost one true neighbour in twenty (recall@10 0.96 on 20k × 64 rows in
// 16 clusters of spread 0.3, each segment's own candidates holding
// 1.000). The errors the re-rank observes measure that, for this query
// and these segments' quantisers, so data where the codes separate the
// rows well stops at the fixed depth (40 of 40 re-ranked at k = 10 on
// 64 clusters of spread 0.6), and dense data re-ranks as deep as it
// needs (110–190 there, recall back to the candidates' 1.000).
type Reranker struct {
	k      int
	scored int
	maxErr float32
	best   minHeap // the k nearest exact distances, negated: the top is the k-th
}

// rerankSlack is the margin on the largest error seen: the errors of the
// candidates not yet scored are only estimated by those of the scored
// ones (1.0 left recall@10 at 0.992–0.996 where 1.5 reached the
// candidates' 1.000 on the data above).
const rerankSlack = 1.5

// NewReranker returns a Reranker for a search of k rows.
func NewReranker(k int) *Reranker { return &Reranker{k: k} }

// More reports whether the candidate whose estimated distance is est,
// the nearest by estimate of those not scored yet, must be scored.
func (r *Reranker) More(est float32) bool {
	if r.scored < RerankDepth(r.k) || len(r.best) < r.k {
		return true
	}
	return est-rerankSlack*r.maxErr <= -r.best[0].d
}

// Scored records a candidate's estimated and exact distances.
func (r *Reranker) Scored(est, exact float32) {
	r.scored++
	if e := abs32(est - exact); e > r.maxErr {
		r.maxErr = e
	}
	switch {
	case len(r.best) < r.k:
		r.best.push(cand{d: -exact})
	case -exact > r.best[0].d:
		r.best.pop()
		r.best.push(cand{d: -exact})
	}
}

// Skipped records a candidate that was taken but could not be scored (no
// vector, or no distance): it counts towards the fixed depth.
func (r *Reranker) Skipped() { r.scored++ }

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
