package vecindex

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

// Build indexes rows 0..n-1 of a segment. vector(row) returns a row's
// vector, or nil for a NULL; it is called from Build's own goroutine only,
// twice per row (once to find the value ranges, and under IVF to sample
// rows, once to code the row). A row whose vector has a NaN or infinite
// element, an empty one, or under Cosine a zero vector (which has no
// direction), is left out like a NULL. The graph is built by GOMAXPROCS goroutines
// inserting rows in parallel, each row's links behind its own lock, as
// hnswlib and pgvector do; a parallel build is therefore not bit-for-bit
// repeatable, though Seed fixes every row's layer. An IVF-Flat index
// (Params.Lists > 0) has no graph: its lists are trained and filled as
// ivf.go describes, repeatably for a given Seed. Build stops with ctx's
// error when ctx is cancelled.
func Build(ctx context.Context, n, dim int, vector func(row int) []float32, p Params) (_ *Index, err error) {
	p, err = p.withDefaults()
	if err != nil {
		return nil, err
	}
	if n < 0 || int64(n) > math.MaxUint32 {
		return nil, fmt.Errorf("vecindex: %d rows out of range", n)
	}
	if dim < 1 || dim > maxDim {
		return nil, fmt.Errorf("vecindex: dimension %d out of range 1..%d", dim, maxDim)
	}
	x := &Index{params: p, n: n, dim: dim, stride: (dim + 7) &^ 7, top: -1}
	x.mem = newOffHeap(x)
	defer func() {
		if err != nil {
			x.mem.release() // nothing else will read the arrays
		}
	}()
	x.level = make([]int8, n)

	// Pass 1: which rows are indexed, and the range of each dimension.
	lo, hi := make([]float32, dim), make([]float32, dim)
	for d := range lo {
		lo[d], hi[d] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	unit := make([]float32, dim)
	indexable := func(r int) ([]float32, error) {
		v := vector(r)
		if len(v) == 0 { // NULL or empty: no distance to anything
			return nil, nil
		}
		if len(v) != dim {
			return nil, fmt.Errorf("vecindex: row %d has %d dimensions, not %d", r, len(v), dim)
		}
		if f := vecmath.SqNorm(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		if p.Metric == Cosine {
			if !normalize(v, unit) {
				return nil, nil
			}
			v = unit
		}
		return v, nil
	}
	var smp, cells *sampler
	if p.Lists > 0 {
		smp = newSampler(p, dim)
	} else {
		cells = cellSampler(p, n, dim)
	}
	for r := 0; r < n; r++ {
		if r%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		v, err := indexable(r)
		if err != nil {
			return nil, err
		}
		if v == nil {
			x.level[r] = noLevel
			continue
		}
		x.count++
		for d, f := range v {
			lo[d], hi[d] = min(lo[d], f), max(hi[d], f)
		}
		if smp != nil {
			smp.offer(v)
		}
		if cells != nil {
			cells.offer(v)
		}
	}
	if x.count == 0 {
		clear(lo)
		clear(hi)
	}
	x.quant = newQuantizer(p.Metric, lo, hi)

	// Pass 2: code the rows and draw their layers.
	x.codes = makeArray[byte](x.mem, n*x.stride)
	x.terms = makeArray[float32](x.mem, 2*n)
	b := &builder{x: x, terms: make([]float32, 2*n)}
	var maxNorm float64
	rng := rand.New(rand.NewSource(p.Seed))
	mL := 1 / math.Log(float64(p.M))
	for r := 0; r < n; r++ {
		if x.level[r] == noLevel {
			continue
		}
		if r%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		v, err := indexable(r)
		if err != nil || v == nil {
			return nil, fmt.Errorf("vecindex: row %d changed during the build", r)
		}
		x.terms[2*r], x.terms[2*r+1], b.terms[2*r] = x.quant.encode(v, x.rowCodes(uint32(r)))
		if smp != nil {
			continue // level 0: indexed, in no graph
		}
		if p.Metric == InnerProduct {
			b.terms[2*r+1] = float32(vecmath.SqNorm(v)) // t² for now
			maxNorm = max(maxNorm, float64(b.terms[2*r+1]))
		}
		x.level[r] = int8(min(int(-math.Log(1-rng.Float64())*mL), maxLevel))
	}
	if smp != nil {
		if err := x.buildLists(ctx, smp); err != nil {
			return nil, err
		}
		x.pool.New = x.newSearcher
		return x, nil
	}
	if p.Metric == InnerProduct {
		// The graph is built for the Euclidean distance between rows
		// extended by t = √(max|x|² - |x|²), under which the nearest rows
		// to a query extended by 0 are those of the largest inner product
		// (Bachrach et al. 2014), so that the graph's metric is a metric.
		for r, l := range x.level {
			if l != noLevel {
				t := math.Sqrt(max(0, maxNorm-float64(b.terms[2*r+1])))
				b.terms[2*r] += float32(t * t)
				b.terms[2*r+1] = float32(t)
			}
		}
	}
	var order []uint32
	if cells != nil {
		if order, err = b.cellOrder(ctx, cells, rng); err != nil {
			return nil, err
		}
	}
	if order == nil {
		x.allocLinks()
		rows := make([]uint32, 0, x.count)
		for r, l := range x.level {
			if l != noLevel {
				rows = append(rows, uint32(r))
			}
		}
		if err := b.insertAll(ctx, rows); err != nil {
			return nil, err
		}
		b.reconnect()
	} else {
		y, yTerms := x.inOrder(order, b.terms)
		defer y.mem.release() // a working copy: its links become x's
		b = &builder{x: y, terms: yTerms}
		y.allocLinks()
		if err := b.insertAll(ctx, insertionOrder(y, rng)); err != nil {
			return nil, err
		}
		b.reconnect()
		x.adoptLinks(y, order)
	}
	x.pool.New = x.newSearcher
	return x, nil
}

// allocLinks allocates the link blocks for the rows' drawn layers.
func (x *Index) allocLinks() {
	m := x.params.M
	x.links0 = makeArray[uint32](x.mem, x.n*(2*m+1))
	var words int
	for r, l := range x.level {
		if l > 0 {
			x.upperRows = append(x.upperRows, uint32(r))
			x.upperStart = append(x.upperStart, uint32(words))
			words += int(l) * (m + 1)
		}
	}
	x.upper = makeArray[uint32](x.mem, words)
}

// builder is the shared state of a parallel build.
type builder struct {
	x *Index
	// Row r's build terms of quantizer.prepareRow, sq and t, at
	// terms[2r] and terms[2r+1].
	terms []float32
	locks []sync.Mutex // per row, guarding its link blocks
	epMu  sync.Mutex   // guards x.entry and x.top
}

// prepare makes p the probe of row r.
func (b *builder) prepare(r uint32, p *probe) {
	b.x.quant.prepareRow(b.x.rowCodes(r), b.terms[2*r], b.terms[2*r+1], p)
}

// dist is the build distance from p to row r.
func (b *builder) dist(p *probe, r uint32) float32 {
	return p.dist(b.x.rowCodes(r), b.terms[2*r], b.terms[2*r+1])
}

// prefetch starts loading the codes and build terms of rows ids into
// cache.
func (b *builder) prefetch(ids []uint32) {
	if len(ids) > 0 {
		prefetchRows(&b.x.codes[0], uintptr(b.x.stride), &b.terms[0], &ids[0], len(ids))
	}
}

// insertAll inserts rows, the indexed rows, into the graph in parallel,
// roughly in the order given (the first is the entry point).
func (b *builder) insertAll(ctx context.Context, rows []uint32) error {
	x := b.x
	b.locks = make([]sync.Mutex, x.n)
	if len(rows) == 0 {
		return nil
	}
	x.entry, x.top = rows[0], int(x.level[rows[0]])
	rows = rows[1:]
	workers := min(runtime.GOMAXPROCS(0), 1+len(rows)/1024)
	var next atomic.Int64
	var wg sync.WaitGroup
	// A panic in a worker (a bug) must not take the process down: it
	// ends the build with an error, and the other workers stop.
	var failed atomic.Pointer[error]
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					err := fmt.Errorf("vecindex: panic building the graph: %v", r)
					failed.CompareAndSwap(nil, &err)
					next.Store(int64(len(rows)))
				}
			}()
			s := x.newBuildSearcher()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(rows) || i%64 == 0 && ctx.Err() != nil {
					return
				}
				b.insert(s, rows[i])
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return ctx.Err()
}

// reconnect links the indexed rows that no walk can reach from the entry
// point at layer 0. Pruning can take a row out of every list that held
// it (a few rows in ten thousand; hnswlib's and pgvector's graphs have
// them too), and such a row is never found. Each is added to the links
// of a reached row it links to, in a free slot or in place of that row's
// farthest link to a row that keeps another link to it; the rounds
// repeat while that reaches more rows, since a replaced link can strand
// a row whose other links came from unreached rows.
func (b *builder) reconnect() {
	x := b.x
	if x.count == 0 {
		return
	}
	indeg := make([]uint32, x.n)
	for r, l := range x.level {
		if l != noLevel {
			for _, nb := range x.neighbours(uint32(r), 0) {
				indeg[nb]++
			}
		}
	}
	p := x.newProbe()
	for stranded := x.count; ; {
		reached := make([]uint64, (x.n+63)/64)
		isReached := func(r uint32) bool { return reached[r/64]&(1<<(r%64)) != 0 }
		var stack []uint32
		reach := func(r uint32) {
			stack = append(stack[:0], r)
			reached[r/64] |= 1 << (r % 64)
			for len(stack) > 0 {
				r := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, nb := range x.neighbours(r, 0) {
					if !isReached(nb) {
						reached[nb/64] |= 1 << (nb % 64)
						stack = append(stack, nb)
					}
				}
			}
		}
		reach(x.entry)
		left := 0
		for r, l := range x.level {
			u := uint32(r)
			if l == noLevel || isReached(u) {
				continue
			}
			host, ok := uint32(0), false
			for _, nb := range x.neighbours(u, 0) {
				if isReached(nb) {
					host, ok = nb, true
					break
				}
			}
			if ok && b.linkStranded(&p, host, u, indeg) {
				reach(u)
			} else {
				left++
			}
		}
		if left == 0 || left >= stranded {
			return
		}
		stranded = left
	}
}

// linkStranded adds row u to row host's layer-0 links (see reconnect),
// reporting whether it could.
func (b *builder) linkStranded(p *probe, host, u uint32, indeg []uint32) bool {
	blk := b.x.block(host, 0)
	if n := blk[0]; int(n) < len(blk)-1 {
		blk[1+n], blk[0] = u, n+1
		indeg[u]++
		return true
	}
	b.prepare(host, p)
	worst, worstD := 0, float32(math.Inf(-1))
	for j := 1; j < len(blk); j++ {
		if t := blk[j]; indeg[t] > 1 {
			if d := b.dist(p, t); d > worstD {
				worst, worstD = j, d
			}
		}
	}
	if worst == 0 {
		return false
	}
	indeg[blk[worst]]--
	blk[worst] = u
	indeg[u]++
	return true
}

// links copies row r's links at layer l into buf. It takes no lock (an
// uncontended lock still costs a cache miss on the lock's word): it loads
// the words atomically, and the writers (setLinks) store a block's links
// before its count, so a reader racing a writer sees old and new links
// mixed at worst, every one a row of layer l or above; the walks need no
// more.
func (b *builder) links(r uint32, l int, buf []uint32) []uint32 {
	blk := b.x.block(r, l)
	n := min(int(atomic.LoadUint32(&blk[0])), len(blk)-1)
	buf = buf[:0]
	for i := 1; i <= n; i++ {
		buf = append(buf, atomic.LoadUint32(&blk[i]))
	}
	return buf
}

// setLinks makes cs a block's links, under its row's lock: the links
// first, then the count, for links to read without the lock.
func setLinks(blk []uint32, cs []cand) {
	for i, c := range cs {
		atomic.StoreUint32(&blk[1+i], c.id)
	}
	atomic.StoreUint32(&blk[0], uint32(len(cs)))
}

// insert links row q into the graph (the paper's Algorithm 1).
func (b *builder) insert(s *searcher, q uint32) {
	x := b.x
	p := &s.probe
	b.prepare(q, p)
	lq := int(x.level[q])
	b.epMu.Lock()
	ep, top := x.entry, x.top
	if lq > top {
		// A new top layer: hold the entry point until q is linked.
		defer func() { x.entry, x.top = q, lq; b.epMu.Unlock() }()
	} else {
		b.epMu.Unlock()
	}
	e := cand{b.dist(p, ep), ep}
	for l := top; l > lq; l-- {
		e = b.greedy(s, e, l)
	}
	s.eps = append(s.eps[:0], e)
	for l := min(lq, top); l >= 0; l-- {
		s.eps = b.searchLayer(s, q, s.eps, l)
		maxLinks := x.params.M
		if l == 0 {
			maxLinks *= 2
		}
		s.chosen = b.selectNeighbours(s, s.eps, maxLinks, s.chosen)
		b.locks[q].Lock()
		setLinks(x.block(q, l), s.chosen)
		b.locks[q].Unlock()
		for _, c := range s.chosen {
			b.link(s, c.id, cand{c.d, q}, l)
		}
	}
}

// greedy walks layer l from e to a local minimum of the distance to the
// probe.
func (b *builder) greedy(s *searcher, e cand, l int) cand {
	for moved := true; moved; {
		moved = false
		s.nbuf = b.links(e.id, l, s.nbuf)
		b.prefetch(s.nbuf)
		for _, nb := range s.nbuf {
			if d := b.dist(&s.probe, nb); d < e.d {
				e, moved = cand{d, nb}, true
			}
		}
	}
	return e
}

// searchLayer returns the EfConstruction rows of layer l nearest the probe
// of row q reachable from eps, nearest first (the paper's Algorithm 2). q
// itself is never among them: another worker's walk may have found q
// through its upper layers and linked it at layer l already, and a row
// linked to itself would hold one neighbour fewer.
func (b *builder) searchLayer(s *searcher, q uint32, eps []cand, l int) []cand {
	x := b.x
	s.reset()
	s.visit(q)
	s.pool.reset(x.params.EfConstruction)
	for _, e := range eps {
		if s.visit(e.id) {
			s.pool.add(e)
		}
	}
	for {
		c, ok := s.pool.expand()
		if !ok {
			break
		}
		s.nbuf = b.links(c.id, l, s.nbuf)
		fresh := s.nbuf[:0]
		for _, nb := range s.nbuf {
			if s.visit(nb) {
				fresh = append(fresh, nb)
			}
		}
		b.prefetch(fresh)
		if next, ok := s.pool.peek(); ok && l == 0 {
			x.prefetchLinks(next.id)
		}
		s.dists = s.probe.distRows(x.codes, x.stride, b.terms, fresh, s.dots, s.dists)
		for i, nb := range fresh {
			s.pool.add(cand{s.dists[i], nb})
		}
	}
	return s.pool.drain(eps)
}

// link adds q (at distance q.d) to row r's links at layer l, pruning them
// with the heuristic when they are full.
func (b *builder) link(s *searcher, r uint32, q cand, l int) {
	x := b.x
	b.locks[r].Lock()
	defer b.locks[r].Unlock()
	blk := x.block(r, l)
	if n := blk[0]; int(n) < len(blk)-1 {
		atomic.StoreUint32(&blk[1+n], q.id)
		atomic.StoreUint32(&blk[0], n+1)
		return
	}
	b.prefetch(blk[1:])
	rp := &s.rowProbe
	b.prepare(r, rp)
	s.prune = append(s.prune[:0], q)
	for _, nb := range blk[1:] {
		s.prune = append(s.prune, cand{b.dist(rp, nb), nb})
	}
	slices.SortFunc(s.prune, func(a, b cand) int { return cmpCand(a, b) })
	s.pruned = b.selectNeighbours(s, s.prune, len(blk)-1, s.pruned)
	setLinks(blk, s.pruned)
}

// selectNeighbours picks at most m of cands (nearest first) by the paper's
// heuristic (Algorithm 4): a candidate is kept only if it is nearer the
// probe than to every candidate kept before it, so links spread out in
// different directions. It appends to dst[:0].
func (b *builder) selectNeighbours(s *searcher, cands []cand, m int, dst []cand) []cand {
	dst = dst[:0]
	for _, c := range cands {
		if len(dst) == m {
			break
		}
		keep := true
		for i := range dst {
			if b.dist(&s.kept[i], c.id) < c.d {
				keep = false
				break
			}
		}
		if keep {
			b.prepare(c.id, &s.kept[len(dst)])
			dst = append(dst, c)
		}
	}
	return dst
}

// cmpCand orders candidates by distance, then row.
func cmpCand(a, b cand) int {
	switch {
	case a.d < b.d:
		return -1
	case a.d > b.d:
		return 1
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}
