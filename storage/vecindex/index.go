package vecindex

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"
)

// Metric is the distance an index orders rows by; lower is nearer.
type Metric uint8

const (
	// Cosine is 1 - cos(q, x): rows are normalised when built and the
	// query when searched (pgvector's <=>).
	Cosine Metric = iota
	// L2 is the squared Euclidean distance (pgvector's <-> squared).
	L2
	// InnerProduct is -q·x (pgvector's <#>).
	InnerProduct
)

func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case L2:
		return "l2"
	case InnerProduct:
		return "inner_product"
	}
	return fmt.Sprintf("Metric(%d)", uint8(m))
}

// Params are an index's build parameters. Zero M and EfConstruction take
// the defaults, pgvector's. Lists > 0 makes the index an IVF-Flat one
// (ivf.go) instead of an HNSW graph: M and EfConstruction then shape
// nothing.
type Params struct {
	Metric Metric
	// M is the number of links a row keeps per upper layer; it keeps 2M at
	// layer 0. Default 16.
	M int
	// EfConstruction is the candidate list size of a build. Default 64.
	EfConstruction int
	// Lists is the number of inverted lists of an IVF-Flat index
	// (pgvector's ivfflat lists), at most maxLists; a segment with fewer
	// indexed rows gets one list per row. 0: an HNSW graph.
	Lists int
	// Seed draws the rows' layers, or an IVF index's sample and its
	// k-means seeding.
	Seed int64
}

// Effort is how hard a search looks: Ef is an HNSW walk's candidate list
// size (hnsw.ef_search), Probes the number of an IVF index's lists it
// scores (ivfflat.probes). Each kind of index ignores the other's field.
type Effort struct {
	Ef, Probes int
}

// Limits on Params and shapes, checked by Build and Read.
const (
	maxM        = 128
	maxEfc      = 4096
	maxDim      = 1 << 16
	maxLevel    = 30
	maxLists    = 32768
	defaultM    = 16
	defaultEfc  = 64
	noLevel     = -1 // the level of a row the index leaves out
	metricCount = 3
)

// withDefaults returns p with its zero fields defaulted, or an error for
// values out of range.
func (p Params) withDefaults() (Params, error) {
	if p.M == 0 {
		p.M = defaultM
	}
	if p.EfConstruction == 0 {
		p.EfConstruction = defaultEfc
	}
	switch {
	case p.Metric >= metricCount:
		return p, fmt.Errorf("vecindex: unknown metric %d", p.Metric)
	case p.M < 2 || p.M > maxM:
		return p, fmt.Errorf("vecindex: M %d out of range 2..%d", p.M, maxM)
	case p.EfConstruction < 1 || p.EfConstruction > maxEfc:
		return p, fmt.Errorf("vecindex: ef_construction %d out of range 1..%d", p.EfConstruction, maxEfc)
	case p.Lists < 0 || p.Lists > maxLists:
		return p, fmt.Errorf("vecindex: lists %d out of range 0..%d", p.Lists, maxLists)
	}
	return p, nil
}

// Hit is one search result: a row and its exact distance to the query.
type Hit struct {
	Row  uint32
	Dist float32
}

// Index is an HNSW or an IVF-Flat index over rows 0..Len()-1 of one
// segment. It is immutable once built or read, and safe for concurrent
// use. Its large arrays live outside the Go heap (offheap.go), so even a
// large index costs the garbage collector nothing to scan or to pace by.
type Index struct {
	params Params
	n, dim int
	stride int // bytes of codes per row: dim rounded up to 8
	count  int // rows indexed (not NULL)
	quant  quantizer
	level  []int8 // per row: its top layer (0 under IVF), or noLevel
	// terms holds row r's two stored terms of quant.go's formula, term
	// and S1, at terms[2r] and terms[2r+1]: side by side, so that scoring
	// a row touches one cache line for them.
	terms []float32
	codes []byte // row r's codes: codes[r*stride:][:stride]
	// links0 holds layer 0: row r's block is links0[r*(2M+1):][:2M+1], a
	// count then the neighbours.
	links0 []uint32
	// The upper layers of the rows that reach them: upperRows ascending,
	// and upperRows[i]'s block for layer l ≥ 1 at
	// upper[upperStart[i]+(l-1)*(M+1):][:M+1].
	upperRows  []uint32
	upperStart []uint32
	upper      []uint32
	entry      uint32 // the row search starts from, at layer top
	top        int    // the highest layer; -1 when no row is indexed or under IVF
	// IVF-Flat only (params.Lists > 0): the lists' centroids, centroid j
	// at centroids[j*dim:][:dim] (normalised under Cosine and
	// InnerProduct), and the lists in CSR form: list j's rows, ascending,
	// are listRows[listStart[j]:listStart[j+1]]. Every indexed row is in
	// exactly one list.
	centroids []float32
	listStart []uint32
	listRows  []uint32

	mem  *offHeap  // the mappings of the large arrays above (offheap.go)
	pool sync.Pool // *searcher
}

// Len is the number of rows the index covers, NULL rows included: it
// was built over rows 0..Len()-1.
func (x *Index) Len() int { return x.n }

// Dim is the dimension of the indexed vectors.
func (x *Index) Dim() int { return x.dim }

// Params returns the parameters the index was built with, defaults filled
// in.
func (x *Index) Params() Params { return x.params }

// Bytes is the memory the index holds, excluding pooled search scratch.
func (x *Index) Bytes() int64 {
	words := len(x.terms) + len(x.links0) + len(x.upperRows) + len(x.upperStart) + len(x.upper) + len(x.quant.lo) +
		len(x.centroids) + len(x.listStart) + len(x.listRows)
	return int64(len(x.codes)+len(x.level)) + 4*int64(words)
}

// prefetch starts loading the codes and terms of rows ids into cache.
func (x *Index) prefetch(ids []uint32) {
	if len(ids) > 0 {
		prefetchRows(&x.codes[0], uintptr(x.stride), &x.terms[0], &ids[0], len(ids))
	}
}

// rowCodes returns row r's codes.
func (x *Index) rowCodes(r uint32) []byte {
	o := int(r) * x.stride
	return x.codes[o : o+x.stride : o+x.stride]
}

// block returns row r's block at layer l: a count, then its link slots.
func (x *Index) block(r uint32, l int) []uint32 {
	if l == 0 {
		w := 2*x.params.M + 1
		o := int(r) * w
		return x.links0[o : o+w : o+w]
	}
	i := sort.Search(len(x.upperRows), func(i int) bool { return x.upperRows[i] >= r })
	w := x.params.M + 1
	o := int(x.upperStart[i]) + (l-1)*w
	return x.upper[o : o+w : o+w]
}

// prefetchLinks starts loading row r's layer-0 link block into cache: a
// walk calls it for the candidate it will expand next while it scores the
// current one's neighbours, so that the block's miss overlaps that work.
func (x *Index) prefetchLinks(r uint32) {
	w := 2*x.params.M + 1
	prefetchSpan(unsafe.Pointer(&x.links0[int(r)*w]), uintptr(4*w))
}

// neighbours returns row r's links at layer l (of an immutable index).
func (x *Index) neighbours(r uint32, l int) []uint32 {
	b := x.block(r, l)
	return b[1 : 1+b[0]]
}
