package vecindex

// cand is a row and its distance to the probe.
type cand struct {
	d  float32
	id uint32
}

// minHeap is a binary min-heap of candidates by distance. The walks keep
// their results in one too, with distances negated, so that its top is the
// worst result.
type minHeap []cand

func (h *minHeap) push(c cand) {
	a := append(*h, c)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d <= c.d {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = c
	*h = a
}

func (h *minHeap) pop() cand {
	a := *h
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		if r := l + 1; r < len(a) && a[r].d < a[l].d {
			l = r
		}
		if last.d <= a[l].d {
			break
		}
		a[i] = a[l]
		i = l
	}
	if len(a) > 0 {
		a[i] = last
	}
	*h = a
	return top
}

// bounded is a result set of at most cap candidates: the nearest seen.
type bounded struct {
	h   minHeap // distances negated: the top is the worst kept
	cap int
}

func (b *bounded) reset(cap int) { b.h, b.cap = b.h[:0], cap }

func (b *bounded) full() bool { return len(b.h) >= b.cap }

// worst is the largest distance kept; only meaningful when not empty.
func (b *bounded) worst() float32 { return -b.h[0].d }

// admits reports whether a candidate at distance d would be kept.
func (b *bounded) admits(d float32) bool { return !b.full() || d < b.worst() }

// add keeps c if it is among the cap nearest seen.
func (b *bounded) add(c cand) {
	b.h.push(cand{-c.d, c.id})
	if len(b.h) > b.cap {
		b.h.pop()
	}
}

// drain empties b into dst, nearest first, and returns it.
func (b *bounded) drain(dst []cand) []cand {
	n := len(b.h)
	dst = append(dst[:0], make([]cand, n)...)
	for i := n - 1; i >= 0; i-- {
		c := b.h.pop()
		dst[i] = cand{-c.d, c.id}
	}
	return dst
}

// pool is a build walk's candidate list (the pool of DiskANN's greedy
// search): the at most cap rows nearest the probe seen so far, sorted by
// distance, each marked once expanded. Expanding the nearest unexpanded
// row until none is left visits the same rows as the paper's pair of
// heaps (a candidate the results have dropped is farther than all of them,
// so the heaps' walk stops when it reaches one), without their sift work
// per row: an insertion is a search and a shift of at most cap short
// entries.
type pool struct {
	rows []poolRow
	cap  int
	next int // no unexpanded row before it
}

type poolRow struct {
	cand
	expanded bool
}

func (p *pool) reset(cap int) { p.rows, p.cap, p.next = p.rows[:0], cap, 0 }

// admits reports whether a row at distance d would be kept.
func (p *pool) admits(d float32) bool {
	return len(p.rows) < p.cap || d < p.rows[len(p.rows)-1].d
}

// add keeps c if it is among the cap nearest seen, after those at the same
// distance.
func (p *pool) add(c cand) {
	if !p.admits(c.d) {
		return
	}
	lo, hi := 0, len(p.rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.rows[m].d <= c.d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if len(p.rows) < p.cap {
		p.rows = append(p.rows, poolRow{})
	}
	copy(p.rows[lo+1:], p.rows[lo:])
	p.rows[lo] = poolRow{cand: c}
	p.next = min(p.next, lo)
}

// expand marks the nearest unexpanded row expanded and returns it; ok is
// false when every row is.
func (p *pool) expand() (c cand, ok bool) {
	for p.next < len(p.rows) && p.rows[p.next].expanded {
		p.next++
	}
	if p.next == len(p.rows) {
		return cand{}, false
	}
	p.rows[p.next].expanded = true
	return p.rows[p.next].cand, true
}

// peek returns the row expand would return next, if it returned c now.
func (p *pool) peek() (c cand, ok bool) {
	for i := p.next + 1; i < len(p.rows); i++ {
		if !p.rows[i].expanded {
			return p.rows[i].cand, true
		}
	}
	return cand{}, false
}

// drain returns the pool's rows, nearest first, in dst[:0].
func (p *pool) drain(dst []cand) []cand {
	dst = dst[:0]
	for _, r := range p.rows {
		dst = append(dst, r.cand)
	}
	return dst
}
