package vecindex

// A graph build's memory order. A large segment's codes (384 MB for a
// million 384-d rows) are far larger than the CPU's caches, and a walk
// reads ~1,000 rows scattered across them per insertion: in row order
// nearly every row read is a miss to memory, and a million-row build costs
// 1.7x the CPU per row of a 300k-row one. So a large build groups the rows
// into cells of about rowsPerCell near rows (k-means on a sample, then
// each row into its nearest centroid's cell by code distance), lays the
// cells out one after another (each next the nearest cell not yet laid
// out), and builds the graph on that copy: the rows of the upper layers
// first, in random order (a random sample of the rows, as HNSW draws
// them, so the graph's long links span the whole segment as they would
// for random insertion), then the others cell by cell, so that
// consecutive insertions walk the same few megabytes of codes and links,
// which stay in cache. The finished links are translated back to row
// numbers: the index itself is in row order, as before.

import (
	"context"
	"math"
	"math/rand"

	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// rowsPerCell is the rows of a cell: their codes and links (3 MB at
// 384-d) stay in the last-level cache while their rows are inserted. A
// variable only for tests, which build in cell order at smaller sizes.
var rowsPerCell = 8192

// cellSampler returns the sampler of a build of n rows that groups them
// into cells, or nil when n is too small to need it.
func cellSampler(p Params, n, dim int) *sampler {
	cells := n / rowsPerCell
	if cells < 2 {
		return nil
	}
	return &sampler{rng: rand.New(rand.NewSource(p.Seed)), dim: dim, max: samplesPerList * cells}
}

// cellOrder returns the build's indexed rows (coded, with their layers
// drawn and their build terms set) in the order of their cells, the cells
// in tour order (see the top of this file), or nil when there are too few
// rows for cells. A row's cell is that of the centroid nearest it by the
// build's own distance between codes.
func (b *builder) cellOrder(ctx context.Context, smp *sampler, rng *rand.Rand) ([]uint32, error) {
	x := b.x
	cells := min(x.count/rowsPerCell, len(smp.data)/x.dim)
	if cells < 2 {
		return nil, nil
	}
	cents, err := kmeans(ctx, smp.data, x.dim, cells, false, rng)
	if err != nil {
		return nil, err
	}
	smp.data = nil
	tour := centroidTour(cents, x.dim, cells)
	probes := make([]probe, cells)
	codes := make([]byte, cells*x.stride)
	for i, j := range tour {
		c := codes[i*x.stride:][:x.stride]
		_, _, sq := x.quant.encode(cents[j*x.dim:(j+1)*x.dim], c)
		probes[i] = x.newProbe()
		x.quant.prepareRow(c, sq, 0, &probes[i])
	}
	_, order, err := x.groupRows(ctx, probes, b.dist)
	return order, err
}

// centroidTour orders k centroids of dim values so that each is the
// nearest to its predecessor of those not yet taken, from centroid 0.
func centroidTour(cents []float32, dim, k int) []int {
	cent := func(j int) []float32 { return cents[j*dim : (j+1)*dim] }
	taken := make([]bool, k)
	tour := make([]int, 0, k)
	for j := 0; len(tour) < k; {
		taken[j] = true
		tour = append(tour, j)
		next, nextD := -1, math.Inf(1)
		for i := range k {
			if d := vecmath.SqDist(cent(j), cent(i)); !taken[i] && d < nextD {
				next, nextD = i, d
			}
		}
		j = next
	}
	return tour
}

// inOrder returns a copy of x for a build in order: the rows of x's
// indexed rows order[i] become rows i of the copy, with their codes,
// layers and build terms (of terms, by row of x). The copy has no links
// yet, and no terms of its own but the build's.
func (x *Index) inOrder(order []uint32, terms []float32) (*Index, []float32) {
	y := &Index{params: x.params, n: len(order), count: len(order), dim: x.dim, stride: x.stride, quant: x.quant, top: -1}
	y.mem = newOffHeap(y)
	y.level = make([]int8, y.n)
	y.codes = makeArray[byte](y.mem, y.n*y.stride)
	yTerms := make([]float32, 2*y.n)
	for i, r := range order {
		y.level[i] = x.level[r]
		copy(y.rowCodes(uint32(i)), x.rowCodes(r))
		yTerms[2*i], yTerms[2*i+1] = terms[2*r], terms[2*r+1]
	}
	return y, yTerms
}

// adoptLinks gives x the graph built on y = x.inOrder(order, ...): every
// block of y's row i becomes that of x's row order[i], its links mapped
// through order.
func (x *Index) adoptLinks(y *Index, order []uint32) {
	x.allocLinks()
	for i, r := range order {
		for l := 0; l <= int(y.level[i]); l++ {
			src, dst := y.block(uint32(i), l), x.block(r, l)
			dst[0] = src[0]
			for j := 1; j <= int(src[0]); j++ {
				dst[j] = order[src[j]]
			}
		}
	}
	x.entry, x.top = order[y.entry], y.top
}

// insertionOrder is the order a build inserts y's rows (laid out by
// cellOrder) in: the rows of the upper layers shuffled, then the others
// in layout order.
func insertionOrder(y *Index, rng *rand.Rand) []uint32 {
	rows := make([]uint32, 0, y.n)
	for i, l := range y.level {
		if l > 0 {
			rows = append(rows, uint32(i))
		}
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	for i, l := range y.level {
		if l == 0 {
			rows = append(rows, uint32(i))
		}
	}
	return rows
}
