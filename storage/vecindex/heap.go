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
