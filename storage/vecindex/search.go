package vecindex

import (
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// searcher is the scratch of one search or one build worker, pooled per
// index so that a search allocates nothing but its result.
type searcher struct {
	// The visited set: a bit per row, and the rows whose bits are set so
	// that a reset clears just their words. n bits stay in cache where a
	// word per row would not.
	seen     []uint64
	seenRows []uint32
	cand     minHeap
	res      bounded
	probe    probe
	codes    []byte    // the query's codes
	unit     []float32 // the normalised query (Cosine)
	nbuf     []uint32
	dots     []uint32  // distRows' scratch
	dists    []float32 // distRows' distances
	ok       []bool
	eps      []cand
	lists    minHeap // IVF: the lists by their centroids' distance
	hits     []Hit
	vecs     [][]float32 // the re-rank's vectors
	rr       Reranker    // the re-rank's depth
	scored   int         // distances the current walk has computed
	// Build only: the probes of the kept neighbours, a pruned row's probe
	// and candidate lists.
	kept                  []probe
	rowProbe              probe
	chosen, prune, pruned []cand
	pool                  pool
}

func (x *Index) newSearcher() any {
	return &searcher{
		seen:  make([]uint64, (x.n+63)/64),
		probe: x.newProbe(),
		codes: make([]byte, x.stride),
		unit:  make([]float32, x.dim),
		dots:  make([]uint32, 2*x.params.M),
	}
}

// newProbe returns a probe with room for packed codes where dotCodes
// needs them.
func (x *Index) newProbe() probe {
	if hasCodeAsm {
		return probe{}
	}
	return probe{words: make([]uint64, x.stride/4)}
}

// newBuildSearcher is newSearcher with the scratch of a build worker.
func (x *Index) newBuildSearcher() *searcher {
	s := x.newSearcher().(*searcher)
	s.kept = make([]probe, 2*x.params.M)
	for i := range s.kept {
		s.kept[i] = x.newProbe()
	}
	s.rowProbe = x.newProbe()
	return s
}

// reset empties the visited set.
func (s *searcher) reset() {
	if len(s.seenRows) > len(s.seen)/8 {
		clear(s.seen)
	} else {
		for _, r := range s.seenRows {
			s.seen[r/64] = 0
		}
	}
	s.seenRows = s.seenRows[:0]
}

// visited reports whether row r is in the visited set.
func (s *searcher) visited(r uint32) bool { return s.seen[r/64]&(1<<(r%64)) != 0 }

// visit marks row r visited and reports whether it was not already.
func (s *searcher) visit(r uint32) bool {
	w, bit := &s.seen[r/64], uint64(1)<<(r%64)
	if *w&bit != 0 {
		return false
	}
	*w |= bit
	s.seenRows = append(s.seenRows, r)
	return true
}

// dist is the approximate distance from p to row r.
func (x *Index) dist(p *probe, r uint32) float32 {
	return p.dist(x.rowCodes(r), x.terms[2*r], x.terms[2*r+1])
}

// Search returns up to k rows nearest query, nearest first, among the rows
// allow accepts (nil: all), with their exact distances. eff.Ef is the size
// of the walk's candidate list; the walk keeps at least 4k, since its
// codes are approximate, and they are re-ranked nearest first by their
// codes, as deep as a Reranker asks, with exact distances from vector
// (the caller's float vectors, as at Build). A filtered search returns min(k, accepted
// rows) rows: a filter that keeps too few rows for the walk to pay is
// answered by a scan of their codes (see scan), and so is a walk that
// ends with fewer than k rows. An IVF index scores the rows of its
// eff.Probes nearest lists instead (ivf.go). A query of the wrong
// dimension, with a NaN or infinite element, or zero under Cosine, has no
// neighbours. Safe for concurrent use; it allocates nothing but the
// result.
func (x *Index) Search(query []float32, k int, eff Effort, allow func(row uint32) bool, vector func(row int) []float32) []Hit {
	defer runtime.KeepAlive(x) // its arrays are outside the heap (offheap.go)
	s, q, k := x.begin(query, k)
	if s == nil {
		return nil
	}
	defer x.pool.Put(s)
	x.gather(s, q, k, eff, allow)
	return x.rerank(s, q, k, vector)
}

// Candidates is Search without its exact re-rank: the rows Search would
// re-rank (the walk's max(eff.Ef, 4k) best), nearest first by the
// approximate distances of their codes. Those estimate the exact distance
// in the metric's own units, so candidates of several indexes over the
// same metric (a table's segments) can be merged and re-ranked once, as
// deep as a Reranker asks: each exact vector is a random read from disk
// when a table's vectors outgrow memory.
func (x *Index) Candidates(query []float32, k int, eff Effort, allow func(row uint32) bool) []Hit {
	defer runtime.KeepAlive(x) // its arrays are outside the heap (offheap.go)
	s, q, k := x.begin(query, k)
	if s == nil {
		return nil
	}
	defer x.pool.Put(s)
	x.gather(s, q, k, eff, allow)
	return x.candidates(s)
}

// SearchRows is Search among the given rows only (a filter's, each at most
// once, in any order), for a caller that has listed them: it scores each
// by its codes, as a filtered search that chooses not to walk does,
// without asking a filter about every row of the index, and re-ranks the
// max(e.Ef, 4k) it keeps as Search does. Use it when
// ScanRows says so.
func (x *Index) SearchRows(query []float32, k int, e Effort, rows []uint32, vector func(row int) []float32) []Hit {
	defer runtime.KeepAlive(x) // its arrays are outside the heap (offheap.go)
	if len(rows) == 0 {
		return nil
	}
	s, q, k := x.begin(query, k)
	if s == nil {
		return nil
	}
	defer x.pool.Put(s)
	x.scan(s, max(e.Ef, 4*k), rows, nil)
	return x.rerank(s, q, k, vector)
}

// CandidateRows is SearchRows without its exact re-rank, as Candidates is
// Search's.
func (x *Index) CandidateRows(query []float32, k int, e Effort, rows []uint32) []Hit {
	defer runtime.KeepAlive(x) // its arrays are outside the heap (offheap.go)
	if len(rows) == 0 {
		return nil
	}
	s, _, k := x.begin(query, k)
	if s == nil {
		return nil
	}
	defer x.pool.Put(s)
	x.scan(s, max(e.Ef, 4*k), rows, nil)
	return x.candidates(s)
}

// ScanRows reports whether a search for e.Ef rows among accepted of the
// index's rows should score them all (SearchRows) rather than walk the
// graph or probe the lists under a filter: when they are too few for a
// walk to connect, or scoring them costs less than the walk or the probe
// would.
func (x *Index) ScanRows(accepted int, e Effort) bool {
	if accepted == 0 || x.n == 0 || x.count == 0 {
		return true
	}
	if x.params.Lists > 0 {
		return x.scanListed(accepted, e)
	}
	p := float64(accepted) / float64(x.n)
	return p < minWalk || codeCost*float64(accepted) <= walkCost*float64(e.Ef)/math.Sqrt(p)
}

// RerankDepth is how many of a search's candidates for k rows are at
// least re-ranked with exact distances: where the codes separate the rows
// well, the k nearest are among the best max(4k, minRerank) by code, and
// each vector re-ranked is a random read of the caller's vectors (of the
// raw vector file, from disk when a table's raw vectors do not fit in
// memory: 10M x 384 is 15 GB). A Reranker goes deeper where they do not.
func RerankDepth(k int) int { return max(4*k, minRerank) }

// begin returns a pooled searcher with query prepared as its probe, the
// query as the walk compares it (normalised under Cosine, in the
// searcher's scratch), and k capped at the index's rows (a LIMIT of 2^63
// - 1 would overflow the 4k a search keeps); s is nil when there is
// nothing to search for: k <= 0, an empty index, or a query of the wrong
// dimension or that is not finite (or zero, under Cosine). The caller
// puts s back in the pool.
func (x *Index) begin(query []float32, k int) (s *searcher, q []float32, capped int) {
	if qq := vecmath.SqNorm(query); k <= 0 || len(query) != x.dim || x.count == 0 || math.IsNaN(qq) || math.IsInf(qq, 0) {
		return nil, nil, 0
	}
	k = min(k, x.n)
	s = x.pool.Get().(*searcher)
	q = query
	if x.params.Metric == Cosine {
		if !normalize(query, s.unit) {
			x.pool.Put(s)
			return nil, nil, 0
		}
		q = s.unit
	}
	x.quant.prepare(q, s.codes, &s.probe)
	return s, q, k
}

// gather leaves in s.res the candidates of a search for k rows, as
// Search describes: by the IVF lists, a walk of the graph, or a scan of
// the accepted rows' codes.
func (x *Index) gather(s *searcher, q []float32, k int, eff Effort, allow func(row uint32) bool) {
	if x.params.Lists > 0 {
		x.searchLists(s, q, k, max(eff.Probes, 1), allow)
		return
	}
	ef := max(eff.Ef, 4*k)
	budget := -1 // distances the walk may compute; -1: no limit
	if allow != nil {
		if budget = x.walkBudget(allow, ef); budget == 0 {
			x.scan(s, ef, nil, allow)
			return
		}
	}
	e := cand{x.dist(&s.probe, x.entry), x.entry}
	for l := x.top; l > 0; l-- {
		e = x.greedy(s, e, l)
	}
	if !x.walk(s, e, ef, allow, budget) || len(s.res.h) < min(k, x.count) {
		x.scan(s, ef, nil, allow)
	}
}

// candidates returns s.res, nearest first, with their approximate
// distances.
func (x *Index) candidates(s *searcher) []Hit {
	s.eps = s.res.drain(s.eps)
	hits := make([]Hit, len(s.eps))
	for i, c := range s.eps {
		hits[i] = Hit{c.id, c.d}
	}
	return hits
}

// rerank returns the k nearest of s.res by exact distance, re-ranking
// them nearest first by their codes as deep as a Reranker asks. The
// vectors are scattered, so each is prefetched a few vectors ahead of its
// distance.
func (x *Index) rerank(s *searcher, q []float32, k int, vector func(row int) []float32) []Hit {
	const ahead = 4
	s.eps = s.res.drain(s.eps)
	s.vecs = s.vecs[:0]
	// fetch asks for the vector of candidate i, if any, and prefetches it.
	fetch := func(i int) {
		if i >= len(s.eps) {
			return
		}
		v := vector(int(s.eps[i].id))
		s.vecs = append(s.vecs, v)
		if len(v) > 0 {
			prefetchSpan(unsafe.Pointer(&v[0]), uintptr(4*len(v)))
		}
	}
	for i := range ahead {
		fetch(i)
	}
	s.hits = s.hits[:0]
	s.rr = Reranker{k: k, best: s.rr.best[:0]}
	for i, c := range s.eps {
		if !s.rr.More(c.d) {
			break
		}
		fetch(i + ahead)
		if d, ok := exactDist(x.params.Metric, q, s.vecs[i]); ok {
			s.hits = append(s.hits, Hit{c.id, d})
			s.rr.Scored(c.d, d)
		} else {
			s.rr.Skipped()
		}
	}
	clear(s.vecs) // hold no caller's memory in the pool
	slices.SortFunc(s.hits, cmpHit)
	return slices.Clone(s.hits[:min(k, len(s.hits))])
}

// greedy walks upper layer l from e to a local minimum of the distance to
// the probe.
func (x *Index) greedy(s *searcher, e cand, l int) cand {
	for moved := true; moved; {
		moved = false
		nbs := x.neighbours(e.id, l)
		x.prefetch(nbs)
		for _, nb := range nbs {
			if d := x.dist(&s.probe, nb); d < e.d {
				e, moved = cand{d, nb}, true
			}
		}
	}
	return e
}

// Tuning of filtered walks, with costs in units of one distance a
// filtered walk scores (about 0.35 µs on the 100k × 384 benchmark with the
// assembly dot product, the codes being out of cache).
const (
	// scarce: a node with fewer than 1/scarce of its new neighbours
	// accepted is looked through to its neighbours' neighbours.
	scarce = 4
	// walkCost estimates the distances a walk for ef rows under a filter
	// of selectivity p scores as walkCost·ef/√p (measured 7.8 to 67 per
	// unit of ef for p from 50% down to 2%).
	walkCost = 10
	// codeCost is the cost of scoring an accepted row by its codes in a
	// scan (the codes are read in order, so cheaper than a walk's), and
	// allowCost that of one call of allow.
	codeCost  = 0.5
	allowCost = 0.01
	// minWalk is the lowest selectivity a walk is tried at: below it the
	// accepted rows are too sparse for the 2-hop expansion to connect
	// them (recall@10 at ef 100: 0.94 at 1%, 0.99 at 2%, 1.0 at 5%, on
	// 20k × 128).
	minWalk = 0.03
	// samples is the number of rows walkBudget tests to estimate a
	// filter's selectivity, at positions scattered by a multiplicative
	// hash so that a filter on row numbers cannot alias with them.
	samples = 1024
)

// walk runs the layer-0 search from e, keeping in s.res the ef accepted
// rows nearest the probe. It gives up, returning false, when it would
// compute more than budget distances (-1: no limit).
func (x *Index) walk(s *searcher, e cand, ef int, allow func(uint32) bool, budget int) bool {
	s.reset()
	s.res.reset(ef)
	s.scored = 0
	s.cand = append(s.cand[:0], e)
	s.visit(e.id)
	if allow == nil || allow(e.id) {
		s.res.add(e)
	}
	for len(s.cand) > 0 {
		c := s.cand.pop()
		if s.res.full() && c.d > s.res.worst() {
			break
		}
		nbs := x.neighbours(c.id, 0)
		if allow == nil {
			// Score the unvisited neighbours once all their rows are
			// on their way into cache: the walk is bound by those
			// misses, which overlap when issued together.
			s.nbuf = s.nbuf[:0]
			for _, nb := range nbs {
				if s.visit(nb) {
					s.nbuf = append(s.nbuf, nb)
				}
			}
			x.prefetch(s.nbuf)
			if len(s.cand) > 0 {
				x.prefetchLinks(s.cand[0].id)
			}
			s.scored += len(s.nbuf)
			s.dists = s.probe.distRows(x.codes, x.stride, x.terms, s.nbuf, s.dots, s.dists)
			for i, nb := range s.nbuf {
				if d := s.dists[i]; s.res.admits(d) {
					s.cand.push(cand{d, nb})
					s.res.add(cand{d, nb})
				}
			}
			continue
		}
		if budget >= 0 && s.scored > budget {
			return false
		}
		s.ok = s.ok[:0]
		s.nbuf = s.nbuf[:0] // the fresh neighbours: all are scored
		accepted := 0
		for _, nb := range nbs {
			fresh := !s.visited(nb)
			ok := fresh && allow(nb)
			s.ok = append(s.ok, ok)
			if fresh {
				s.nbuf = append(s.nbuf, nb)
			}
			if ok {
				accepted++
			}
		}
		x.prefetch(s.nbuf)
		hop2 := accepted*scarce < len(s.nbuf)
		reach := accepted // accepted rows this expansion scores, up to 2M
		for i, nb := range nbs {
			if !s.visit(nb) {
				continue
			}
			switch {
			case s.ok[i]:
				x.consider(s, nb, true)
			case !hop2:
				x.consider(s, nb, false)
			default:
				// ACORN-1: reach past a rejected neighbour to its
				// accepted ones, until the expansion has scored as
				// many as a full list; it still routes if it leads
				// nearer.
				s.scored++
				if d := x.dist(&s.probe, nb); d < c.d {
					s.cand.push(cand{d, nb})
				}
				for _, nb2 := range x.neighbours(nb, 0) {
					if reach >= len(nbs) {
						break
					}
					if !s.visited(nb2) && allow(nb2) {
						s.visit(nb2)
						reach++
						x.consider(s, nb2, true)
					}
				}
			}
		}
	}
	return true
}

// consider scores row r for the walk: it becomes a candidate to expand if
// it could improve the results, and a result too if accepted.
func (x *Index) consider(s *searcher, r uint32, accepted bool) {
	d := x.dist(&s.probe, r)
	s.scored++
	if !s.res.admits(d) {
		return
	}
	s.cand.push(cand{d, r})
	if accepted {
		s.res.add(cand{d, r})
	}
}

// walkBudget estimates allow's selectivity from a sample of rows, and
// returns how many distances a filtered walk for ef results may score
// before it gives up for an exact scan of the accepted rows (twice the
// scan's estimated cost): 0 when the scan is cheaper from the start.
func (x *Index) walkBudget(allow func(uint32) bool, ef int) int {
	m := min(samples, x.n)
	hit := 0
	for i := range m {
		r := uint32(uint64(i) * 0x9E3779B97F4A7C15 % uint64(x.n))
		if x.level[r] != noLevel && allow(r) {
			hit++
		}
	}
	if hit == 0 {
		return 0
	}
	p := float64(hit) / float64(m)
	scan := codeCost*p*float64(x.n) + allowCost*float64(x.n)
	if p < minWalk || scan <= walkCost*float64(ef)/math.Sqrt(p) {
		return 0
	}
	return int(2 * scan)
}

// scan scores every accepted row by its codes (the probe is prepared):
// the rows listed, or when rows is nil every indexed row allow accepts
// (nil: all), keeping the ef nearest in s.res for the re-rank: the codes'
// error is far below the gap between the k-th and the ef-th row, so the
// answer is exact search's in practice. Listed rows lie anywhere in the
// codes, so they are scored scanBatch at a time, all of a batch's rows
// prefetched first, as a walk scores a node's neighbours.
func (x *Index) scan(s *searcher, ef int, rows []uint32, allow func(uint32) bool) {
	s.res.reset(ef)
	if cap(s.dots) < scanBatch {
		s.dots = make([]uint32, scanBatch)
	}
	s.nbuf = s.nbuf[:0]
	score := func() {
		x.prefetch(s.nbuf)
		s.dists = s.probe.distRows(x.codes, x.stride, x.terms, s.nbuf, s.dots, s.dists)
		for i, r := range s.nbuf {
			if d := s.dists[i]; s.res.admits(d) {
				s.res.add(cand{d, r})
			}
		}
		s.nbuf = s.nbuf[:0]
	}
	consider := func(r uint32) {
		if s.nbuf = append(s.nbuf, r); len(s.nbuf) == scanBatch {
			score()
		}
	}
	if rows != nil {
		for _, r := range rows {
			if int(r) < x.n && x.level[r] != noLevel {
				consider(r)
			}
		}
	} else {
		for r, l := range x.level {
			if l != noLevel && (allow == nil || allow(uint32(r))) {
				consider(uint32(r))
			}
		}
	}
	score()
}

// scanBatch is how many rows scan scores at once.
const scanBatch = 64

// cmpHit orders hits by distance, then row.
func cmpHit(a, b Hit) int { return cmpCand(cand{a.Dist, a.Row}, cand{b.Dist, b.Row}) }
