package vecindex

// IVF-Flat (pgvector's ivfflat), the index Params.Lists > 0 asks for: the
// segment's indexed rows are split into lists around centroids trained by
// k-means, and a search scores only the rows of the lists whose centroids
// are nearest the query, by their codes, re-ranking the best exactly.
//
// Build. Pass 1 draws a uniform sample of 50 rows per list (as pgvector
// does) by reservoir sampling with Seed, copying their exact float
// vectors; under Cosine and InnerProduct the sample is normalised and the
// k-means is spherical (centroids normalised after every update), again
// as pgvector's is. The centroids are seeded by k-means++ and refined by
// Lloyd iterations. Once every row is coded, each indexed row joins the
// list whose centroid is nearest by the metric, scored against the row's
// codes with the same quantised distance searches use (the centroid
// prepared as a query), which needs no third pass over the vectors and
// costs one code dot product per row and list. Under InnerProduct that is
// the largest inner product with a normalised centroid, pgvector's rule.
//
// Search. The query's exact distance to every centroid orders the lists;
// the Effort.Probes nearest are scored, rows allow rejects skipped, and
// the best max(4k, 40) re-ranked exactly. When those lists hold fewer
// than min(k, indexed rows) accepted rows, the next lists in order are
// scored too until they do (or none is left), so a filtered search
// returns min(k, accepted) rows like a graph search.

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

const (
	// samplesPerList is the sample k-means trains on, per list
	// (pgvector's).
	samplesPerList = 50
	// kmeansIters bounds the Lloyd iterations; they stop earlier when no
	// sample changes its centroid.
	kmeansIters = 10
	// minRerank is the fewest candidates a search re-ranks exactly
	// (RerankDepth).
	minRerank = 40
	// listCandidates: a search of the lists keeps this many times
	// RerankDepth(k) candidates, for a Reranker that goes deeper than
	// RerankDepth where the codes do not separate the rows.
	listCandidates = 4
)

// sampler keeps a uniform sample of the vectors offered (reservoir
// sampling, Vitter's algorithm R), copied and, for a spherical k-means,
// normalised.
type sampler struct {
	rng       *rand.Rand
	dim, max  int
	seen      int
	spherical bool
	data      []float32 // the sample, dim per vector
}

func newSampler(p Params, dim int) *sampler {
	return &sampler{
		rng:       rand.New(rand.NewSource(p.Seed)),
		dim:       dim,
		max:       samplesPerList * p.Lists,
		spherical: p.Metric != L2,
	}
}

// offer offers an indexed row's vector (normalised already under Cosine).
// Under InnerProduct a zero vector, which has no direction, is not
// sampled.
func (s *sampler) offer(v []float32) {
	var dst []float32
	switch {
	case s.seen < s.max:
		s.data = append(s.data, make([]float32, s.dim)...)
		dst = s.data[len(s.data)-s.dim:]
	default:
		j := s.rng.Int63n(int64(s.seen) + 1)
		if j >= int64(s.max) {
			s.seen++
			return
		}
		dst = s.data[int(j)*s.dim:][:s.dim]
	}
	if s.spherical {
		if !normalize(v, dst) {
			if s.seen < s.max {
				s.data = s.data[:len(s.data)-s.dim]
			}
			return
		}
	} else {
		copy(dst, v)
	}
	s.seen++
}

// buildLists trains the centroids on smp's sample and puts every indexed
// row (coded already) in its nearest centroid's list.
func (x *Index) buildLists(ctx context.Context, smp *sampler) error {
	x.listStart = []uint32{0}
	if x.count == 0 {
		return nil
	}
	k := min(x.params.Lists, x.count, len(smp.data)/x.dim)
	var err error
	if k == 0 {
		// Under InnerProduct every row is a zero vector: one list, whose
		// zero centroid is as near as any.
		x.centroids = make([]float32, x.dim)
		k = 1
	} else {
		x.centroids, err = kmeans(ctx, smp.data, x.dim, k, smp.spherical, smp.rng)
		if err != nil {
			return err
		}
	}
	smp.data = nil

	// The centroids as prepared queries.
	probes := make([]probe, k)
	codes := make([]byte, k*x.stride)
	for j := range probes {
		probes[j] = x.newProbe()
		x.quant.prepare(x.centroid(j), codes[j*x.stride:][:x.stride], &probes[j])
	}
	x.listStart, x.listRows, err = x.groupRows(ctx, probes, x.dist)
	return err
}

// groupRows puts each indexed row in the group of the probe nearest it by
// dist (in parallel) and returns the groups' rows, group by group and in
// row order within a group, with the start of each group's rows in them
// (len(probes)+1 offsets). An IVF index's lists and a cell-ordered
// build's cells (order.go) are both made so.
func (x *Index) groupRows(ctx context.Context, probes []probe, dist func(p *probe, r uint32) float32) (start, rows []uint32, err error) {
	group := make([]uint32, x.n)
	err = parallel(ctx, x.n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if x.level[r] == noLevel {
				continue
			}
			best, bestD := 0, float32(math.Inf(1))
			for j := range probes {
				if d := dist(&probes[j], uint32(r)); d < bestD {
					best, bestD = j, d
				}
			}
			group[r] = uint32(best)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	start = make([]uint32, len(probes)+1)
	for r, l := range x.level {
		if l != noLevel {
			start[group[r]+1]++
		}
	}
	for j := range probes {
		start[j+1] += start[j]
	}
	rows = make([]uint32, x.count)
	next := slices.Clone(start[:len(probes)])
	for r, l := range x.level {
		if l != noLevel {
			rows[next[group[r]]] = uint32(r)
			next[group[r]]++
		}
	}
	return start, rows, nil
}

// centroid returns list j's centroid.
func (x *Index) centroid(j int) []float32 {
	return x.centroids[j*x.dim : (j+1)*x.dim : (j+1)*x.dim]
}

// lists is the number of an IVF index's lists.
func (x *Index) lists() int { return len(x.listStart) - 1 }

// kmeans returns k centroids (dim values each) of the samples (k of them
// at least): k-means++ seeding, then Lloyd iterations by squared
// Euclidean distance, which for unit vectors orders as the cosine does.
// A spherical k-means normalises each centroid; a list left empty takes
// the sample farthest from its own centroid.
func kmeans(ctx context.Context, samples []float32, dim, k int, spherical bool, rng *rand.Rand) ([]float32, error) {
	m := len(samples) / dim
	sample := func(i int) []float32 { return samples[i*dim : (i+1)*dim : (i+1)*dim] }
	cents := make([]float32, k*dim)
	cent := func(j int) []float32 { return cents[j*dim : (j+1)*dim : (j+1)*dim] }

	// k-means++: each next centroid is a sample drawn with probability
	// proportional to its squared distance to the nearest so far.
	dist := make([]float64, m)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	copy(cent(0), sample(rng.Intn(m)))
	for j := 0; j+1 < k; j++ {
		c := cent(j)
		if err := parallel(ctx, m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dist[i] = min(dist[i], vecmath.SqDist(sample(i), c))
			}
		}); err != nil {
			return nil, err
		}
		var sum float64
		for _, d := range dist {
			sum += d
		}
		pick := rng.Intn(m)
		if sum > 0 {
			at := rng.Float64() * sum
			for i, d := range dist {
				if at -= d; at < 0 {
					pick = i
					break
				}
			}
		}
		copy(cent(j+1), sample(pick))
	}

	assign := make([]int32, m)
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	for it := 0; it < kmeansIters; it++ {
		var changed atomic.Bool
		if err := parallel(ctx, m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				v := sample(i)
				best, bestD := int32(0), math.Inf(1)
				for j := range k {
					if d := vecmath.SqDist(v, cent(j)); d < bestD {
						best, bestD = int32(j), d
					}
				}
				if assign[i] != best || it == 0 {
					assign[i] = best
					changed.Store(true)
				}
				dist[i] = bestD
			}
		}); err != nil {
			return nil, err
		}
		if !changed.Load() {
			break
		}
		clear(sums)
		clear(counts)
		for i, j := range assign {
			counts[j]++
			acc := sums[int(j)*dim:][:dim]
			for d, f := range sample(i) {
				acc[d] += float64(f)
			}
		}
		for j := range k {
			c := cent(j)
			if counts[j] > 0 {
				for d := range c {
					c[d] = float32(sums[j*dim+d] / float64(counts[j]))
				}
				if !spherical || normalize(c, c) {
					continue
				}
			}
			// An empty list, or a spherical mean with no direction:
			// the sample worst served by its centroid moves here.
			far := 0
			for i, d := range dist {
				if d > dist[far] {
					far = i
				}
			}
			copy(c, sample(far))
			dist[far] = 0
		}
	}
	return cents, nil
}

// parallel runs fn over [0, n) in chunks on GOMAXPROCS goroutines. A
// panic in fn (a bug) is returned as an error, as a graph build's is,
// instead of ending the process; so is ctx's cancellation.
func parallel(ctx context.Context, n int, fn func(lo, hi int)) error {
	const chunk = 256
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					err := fmt.Errorf("vecindex: panic building lists: %v", r)
					failed.CompareAndSwap(nil, &err)
					next.Store(int64(n))
				}
			}()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n || ctx.Err() != nil {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return ctx.Err()
}

// searchLists gathers the candidates of a search of an IVF index, the
// probe prepared (see the top of this file), into s.res.
func (x *Index) searchLists(s *searcher, q []float32, k, probes int, allow func(uint32) bool) {
	s.lists = s.lists[:0]
	for j := range x.lists() {
		d, ok := exactDist(x.params.Metric, q, x.centroid(j))
		if !ok {
			d = float32(math.Inf(1))
		}
		s.lists.push(cand{d, uint32(j)})
	}
	s.res.reset(listCandidates * RerankDepth(k))
	want := min(k, x.count)
	found := 0
	for probed := 0; len(s.lists) > 0 && (probed < probes || found < want); probed++ {
		j := s.lists.pop().id
		for _, r := range x.listRows[x.listStart[j]:x.listStart[j+1]] {
			if allow != nil && !allow(r) {
				continue
			}
			found++
			if d := x.dist(&s.probe, r); s.res.admits(d) {
				s.res.add(cand{d, r})
			}
		}
	}
}

// scanListed reports, for an IVF index, whether scoring accepted listed
// rows beats probing: when they are no more than the probed lists hold
// on average, or too few of them would be in the probed lists to give ef
// rows without scoring further lists.
func (x *Index) scanListed(accepted int, e Effort) bool {
	lists := x.lists()
	probes := min(max(e.Probes, 1), lists)
	probed := float64(x.count) * float64(probes) / float64(lists)
	return float64(accepted) <= probed || float64(accepted)*float64(probes)/float64(lists) < float64(e.Ef)
}
