package storage

// Vector indexes (hnsw, ivfflat and deeplake_index on a vector column):
// each immutable segment gets its own approximate index (storage/vecindex)
// over the column, built in the background once the segment exists and
// persisted beside it (<segment>.<key>.vidx), so a restart loads it
// instead of building it again. A search walks the index of every segment
// that has one, skipping deleted rows through the same bitmap scans use,
// and scores everything else exactly: segments whose index is not built
// yet, the unflushed tail and the transaction's own inserts. An index can
// make a search slower, never wrong about which rows exist: a missing,
// stale or corrupt index file only means an exact scan of that segment.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"
	"golang.org/x/sync/errgroup"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/vecindex"
)

// vecIndexExt ends the name of a segment's vector index file.
const vecIndexExt = ".vidx"

// vecIndexMagic starts a vector index file.
var vecIndexMagic = []byte("CAIRNVX1")

// VectorHit is one row a vector search found: its row ID and its exact
// distance to the query under the index's metric (smaller is nearer).
type VectorHit struct {
	RowID int64
	Dist  float32
}

// vecSpec is what a vector index definition means for building and
// searching: the column, the metric and the graph or list parameters.
type vecSpec struct {
	colID  int
	params vecindex.Params
	// key identifies the index's files: the same column, metric and
	// parameters give the same key, so a renamed index keeps its files.
	key string
}

// vectorSpec returns the spec of a vector index, ok false for an index
// that is not one (catalog.IndexDef.VectorMetric).
func vectorSpec(ix *catalog.IndexDef, def *catalog.TableDef) (vecSpec, bool) {
	var metric vecindex.Metric
	switch ix.VectorMetric(def) {
	case "cosine":
		metric = vecindex.Cosine
	case "l2":
		metric = vecindex.L2
	case "ip":
		metric = vecindex.InnerProduct
	default:
		return vecSpec{}, false
	}
	p := vecindex.Params{Metric: metric, M: ix.IntOption("m"), EfConstruction: ix.IntOption("ef_construction")}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d/%d", ix.Columns[0], p.Metric, p.M, p.EfConstruction)
	if ix.Method == "ivfflat" {
		// An IVF-Flat index; its key differs from that of the graph
		// ivfflat indexes were built as before.
		p.Lists = ix.IntOption("lists")
		fmt.Fprintf(h, "/ivf%d", p.Lists)
	}
	return vecSpec{colID: ix.Columns[0], params: p, key: strconv.FormatUint(h.Sum64(), 16)}, true
}

// vecIndexPath is the file of the vector index with the given key of the
// segment at segPath (seg-000042.parquet: seg-000042.<key>.vidx).
func vecIndexPath(segPath, key string) string {
	return strings.TrimSuffix(segPath, ".parquet") + "." + key + vecIndexExt
}

// VectorEffort is how hard a vector search looks: Ef is an HNSW walk's
// candidate list size (hnsw.ef_search), Probes the lists an IVF-Flat
// index scores (ivfflat.probes).
type VectorEffort = vecindex.Effort

// VectorSearch returns the k rows tx sees whose vector column, as index ix
// (a vector index on table tableID) defines it, is nearest to query,
// nearest first, with exact distances; eff is the session's search
// settings. allow, when not nil, holds the row IDs that may
// be found (a WHERE clause's): the index walk routes through other rows
// but returns only these, and falls back to scoring them exactly when
// they are too few for the walk to find. Rows with a NULL vector or a
// vector of another dimension are not candidates.
func (tx *Tx) VectorSearch(ctx context.Context, tableID uint64, ix *catalog.IndexDef, query []float32, k int, eff VectorEffort, allow *roaring64.Bitmap) ([]VectorHit, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	spec, ok := vectorSpec(ix, def)
	if !ok {
		return nil, pgerr.New(pgerrcode.InternalError, "index %q is not a vector index", ix.Name)
	}
	if _, col := def.ColumnByID(spec.colID); col == nil {
		return nil, pgerr.New(pgerrcode.UndefinedColumn, "the column of index %q no longer exists", ix.Name)
	}
	if k <= 0 {
		return nil, nil
	}
	k = min(k, maxSearchRows)
	eff.Ef = max(eff.Ef, k)
	s := &vecSearch{metric: spec.params.Metric, query: query, k: k}
	if spec.params.Metric == vecindex.Cosine {
		s.query = normalized(query)
	}
	if ts != nil {
		var over *roaring64.Bitmap
		if tt != nil && !tt.deletes.IsEmpty() {
			over = tt.deletes
		}
		var deleted func(id int64) bool // rows that may not be found; nil: none
		if !ts.deleted.IsEmpty() || over != nil || allow != nil {
			deleted = func(id int64) bool {
				return ts.deleted.Contains(uint64(id)) || over != nil && over.Contains(uint64(id)) ||
					allow != nil && !allow.Contains(uint64(id))
			}
		}
		if err := tx.db.searchSegments(ctx, s, ts.segments, def, spec, eff, deleted, allow); err != nil {
			return nil, err
		}
		for _, b := range ts.tail {
			s.batch(b, spec.colID, deleted)
		}
	}
	if tt != nil {
		ownGone := func(id int64) bool {
			return tt.ownDel.Contains(uint64(id)) || allow != nil && !allow.Contains(uint64(id))
		}
		for _, seg := range tt.spilled {
			// No index is built for a file that may never commit.
			if err := tx.db.exactSegment(s, seg, def, spec, ownGone); err != nil {
				return nil, err
			}
		}
		for _, b := range tt.inserts {
			s.batch(b, spec.colID, ownGone)
		}
	}
	return s.result(), nil
}

// maxSearchRows caps a vector search's k: more rows than a table holds
// (a LIMIT of 2^63 - 1 asks for every row), and small enough that the
// multiples of k a search keeps (4k candidates, 4k + 64 hits) do not
// overflow.
const maxSearchRows = 1 << 40

// vecSearch gathers the best hits of a search over the units of a table:
// exact hits of the rows scored exactly, and the candidates of indexed
// segments, which one re-rank across all of them turns into hits
// (rerank).
type vecSearch struct {
	metric vecindex.Metric
	query  []float32
	k      int
	hits   []VectorHit
	// warm: the table's raw vectors fit the warm budget, and the files
	// a search opens are read into the page cache ahead of use.
	warm bool
	// cands are indexed segments' rows by the approximate distances of
	// their codes, read by readers, the raw vector files open until the
	// re-rank.
	cands   []vecCand
	readers []*rawReader
}

// vecCand is a candidate of an indexed segment: its position in the
// segment's raw vector file rd, its row ID and its approximate distance.
type vecCand struct {
	rd   *rawReader
	row  uint32
	id   int64
	dist float32
}

// add offers a candidate.
func (s *vecSearch) add(id int64, dist float32) {
	s.hits = append(s.hits, VectorHit{RowID: id, Dist: dist})
	if len(s.hits) >= 4*s.k+64 {
		s.trim()
	}
}

// trim keeps the k best hits.
func (s *vecSearch) trim() {
	sort.Slice(s.hits, func(i, j int) bool {
		if s.hits[i].Dist != s.hits[j].Dist {
			return s.hits[i].Dist < s.hits[j].Dist
		}
		return s.hits[i].RowID < s.hits[j].RowID
	})
	if len(s.hits) > s.k {
		s.hits = s.hits[:s.k]
	}
}

// result is the k best hits, nearest first.
func (s *vecSearch) result() []VectorHit {
	s.trim()
	return s.hits
}

// exact scores every row of arr (one vector per row) whose ID ids gives,
// unless skip says the row is gone. A vector of another dimension than
// the query's ranks first: the caller's exact ranking of the candidates
// then fails on it with the distance function's own error, as a search
// without the index would. An empty one, like NULL, has no score (the
// distance functions give NULL for it) and is left out.
func (s *vecSearch) exact(arr arrow.Array, ids func(i int) int64, skip func(id int64) bool) {
	for i := 0; i < arr.Len(); i++ {
		v := vectorAt(arr, i)
		if len(v) == 0 {
			continue
		}
		id := ids(i)
		if skip != nil && skip(id) {
			continue
		}
		if len(v) != len(s.query) {
			s.add(id, float32(math.Inf(-1)))
			continue
		}
		if d, ok := vecindex.Distance(s.metric, s.query, v); ok {
			s.add(id, d)
		}
	}
}

// batch scores the rows of an in-memory batch exactly.
func (s *vecSearch) batch(b *tailBatch, colID int, skip func(id int64) bool) {
	i := slices.Index(b.colIDs, colID)
	if i < 0 {
		return // the column was added after these rows: all NULL
	}
	s.exact(b.cols[i], func(r int) int64 { return b.rowIDs.Value(r) }, skip)
}

// searchSegments adds the best rows of segs, several segments at once
// (one goroutine per core, each taking whole segments) when there are
// several: a table of ten million rows is ten segments, ten index walks or
// exact scans per query, which one core would run one after another. The
// indexed segments' candidates are then re-ranked together (rerank). A
// panic in one of them fails the search, not the server.
func (db *DB) searchSegments(ctx context.Context, s *vecSearch, segs []*segment, def *catalog.TableDef, spec vecSpec, eff VectorEffort, deleted func(int64) bool, allow *roaring64.Bitmap) (err error) {
	defer func() {
		for _, rd := range s.readers {
			if cerr := rd.close(); err == nil {
				err = cerr
			}
		}
		s.readers, s.cands = nil, nil
	}()
	var raw int64 // the table's raw vectors, if every row had one
	for _, seg := range segs {
		raw += seg.rows * int64(4*len(s.query))
	}
	s.warm = raw <= warmBudget()
	workers := min(runtime.GOMAXPROCS(0), len(segs))
	if workers < 2 {
		for _, seg := range segs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := db.searchSegment(ctx, s, seg, def, spec, eff, deleted, allow); err != nil {
				return err
			}
		}
		return s.rerank()
	}
	parts := make([]*vecSearch, workers)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for w := range parts {
		part := &vecSearch{metric: s.metric, query: s.query, k: s.k, warm: s.warm}
		parts[w] = part
		g.Go(func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = pgerr.New(pgerrcode.InternalError, "vector search of %s: %v", def.Name, r)
				}
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(segs) {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				if err := db.searchSegment(gctx, part, segs[i], def, spec, eff, deleted, allow); err != nil {
					return err
				}
			}
		})
	}
	err = g.Wait()
	for _, part := range parts {
		s.readers = append(s.readers, part.readers...)
		s.cands = append(s.cands, part.cands...)
		for _, h := range part.result() {
			s.add(h.RowID, h.Dist)
		}
	}
	if err != nil {
		return err
	}
	return s.rerank()
}

// rerank adds the candidates of all indexed segments, nearest first by
// their codes and as deep as a vecindex.Reranker asks, with their exact
// distances: one re-rank for the table, not one per segment, as each
// vector it reads is a random read of a raw vector file, from disk when
// the table's raw vectors outgrow memory. The reads are announced to the
// kernel a block ahead (the first RerankDepth(k), then rerankAhead at a
// time), so that those the page cache does not hold overlap.
func (s *vecSearch) rerank() error {
	slices.SortFunc(s.cands, func(a, b vecCand) int {
		if c := cmp.Compare(a.dist, b.dist); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	rr := vecindex.NewReranker(s.k)
	announced := 0
	for i, c := range s.cands {
		if !rr.More(c.dist) {
			break
		}
		if i == announced {
			if i == 0 {
				announced = vecindex.RerankDepth(s.k)
			} else {
				announced += rerankAhead
			}
			for _, a := range s.cands[i:min(announced, len(s.cands))] {
				a.rd.willNeed(int(a.row))
			}
		}
		v := c.rd.vector(int(c.row))
		if v == nil {
			rr.Skipped()
			continue // NULL cannot be: a read error, which close reports
		}
		if d, ok := vecindex.Distance(s.metric, s.query, v); ok {
			s.add(c.id, d)
			rr.Scored(c.dist, d)
		} else {
			rr.Skipped()
		}
	}
	return nil
}

// rerankAhead is how many reads a re-rank that goes past RerankDepth(k)
// announces at a time.
const rerankAhead = 16

// searchSegment adds seg's best rows: through its index when it has one
// (and, when it has none yet, after queueing its build), else exactly.
// deleted says which rows may not be found; allow, when not nil, is the
// WHERE clause's rows (which deleted already excludes the others of). An
// indexed segment with raw vectors adds candidates, for the search's one
// re-rank; one without re-ranks its own from its column.
func (db *DB) searchSegment(ctx context.Context, s *vecSearch, seg *segment, def *catalog.TableDef, spec vecSpec, eff VectorEffort, deleted func(int64) bool, allow *roaring64.Bitmap) error {
	if _, ok := seg.columnName(spec.colID); !ok {
		return nil // the segment predates the column: all NULL
	}
	ix := db.segVectorIndex(seg, def, spec)
	if ix == nil {
		// No index yet, or a segment whose vectors differ in dimension:
		// exactly.
		return db.exactSegment(s, seg, def, spec, deleted)
	}
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return err
	}
	raw := segRawVectors(seg, spec.colID)
	if ix.Dim() != len(s.query) {
		if raw != nil && s.mismatch(raw, pos, deleted) {
			return nil
		}
		return db.exactSegment(s, seg, def, spec, deleted)
	}
	var rd *rawReader
	if raw != nil {
		rd, err = raw.open(s.warm)
		if errors.Is(err, os.ErrNotExist) {
			raw = nil // removed since (see segRawVectors): decoded instead
		} else if err != nil {
			return err
		}
	}
	if raw == nil {
		cols, err := db.vectorColumn(&files, seg, def, spec.colID, true)
		if err != nil {
			return err
		}
		defer releaseAll(cols.arrays)
		for _, h := range s.indexed(ix, pos, eff, deleted, allow, cols.vector) {
			s.add(pos.ids[h.Row], h.Dist)
		}
		return ctx.Err()
	}
	s.readers = append(s.readers, rd)
	if vecindex.RerankDepth(s.k)*exactShare >= int(seg.rows) {
		// A LIMIT near the segment's size: a walk would reach most of
		// its rows, and the re-rank read most of their vectors.
		s.rawExact(rd, pos, deleted)
		return ctx.Err()
	}
	for _, h := range s.indexed(ix, pos, eff, deleted, allow, nil) {
		s.cands = append(s.cands, vecCand{rd: rd, row: h.Row, id: pos.ids[h.Row], dist: h.Dist})
	}
	return ctx.Err()
}

// exactShare: a search re-ranking at least 1/exactShare of a segment's
// rows scores them all exactly instead (rawExact).
const exactShare = 8

// mismatch handles a query whose dimension differs from the vectors of an
// indexed segment (all of one dimension, raw): exact search fails on the
// first row it scores, so the first row that deleted does not exclude is
// added first, as exact would add it, for the caller's exact ranking to
// fail on with the distance function's own error. false when no row
// holds a vector, and the segment (NULLs and empty arrays) must be
// scored as it is.
func (s *vecSearch) mismatch(raw *rawVectors, pos *rowPositions, deleted func(int64) bool) bool {
	for row, id := range pos.ids {
		if raw.has(row) && (deleted == nil || !deleted(id)) {
			s.add(id, float32(math.Inf(-1)))
			return true
		}
	}
	return false
}

// rawExact scores every row of a segment that deleted does not exclude
// with its exact vector from the raw vector file, read in order.
func (s *vecSearch) rawExact(rd *rawReader, pos *rowPositions, deleted func(int64) bool) {
	rd.each(func(row int, v []float32) {
		if row >= len(pos.ids) {
			return
		}
		if id := pos.ids[row]; deleted == nil || !deleted(id) {
			if d, ok := vecindex.Distance(s.metric, s.query, v); ok {
				s.add(id, d)
			}
		}
	})
}

// exactSegment scores every row of seg that deleted (may be nil) does not
// exclude.
func (db *DB) exactSegment(s *vecSearch, seg *segment, def *catalog.TableDef, spec vecSpec, deleted func(int64) bool) error {
	if _, ok := seg.columnName(spec.colID); !ok {
		return nil // the segment predates the column: all NULL
	}
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return err
	}
	cols, err := db.vectorColumn(&files, seg, def, spec.colID, true)
	if err != nil {
		return err
	}
	defer releaseAll(cols.arrays)
	for g, a := range cols.arrays {
		start := cols.starts[g]
		s.exact(a, func(i int) int64 { return pos.ids[start+int64(i)] }, deleted)
	}
	return nil
}

// indexed returns the best rows of a segment by its index: re-ranked
// with the exact vectors vector gives (the column's), or, when vector is
// nil, the candidates by code for the search's one re-rank. Under a
// WHERE clause whose rows are few in the segment, it lists them and
// scores just those; otherwise the walk asks deleted about the rows it
// meets.
func (s *vecSearch) indexed(ix *vecindex.Index, pos *rowPositions, eff VectorEffort, deleted func(int64) bool, allow *roaring64.Bitmap, vector func(row int) []float32) []vecindex.Hit {
	if allow != nil {
		if in := roaring64.And(pos.idSet(), allow); ix.ScanRows(int(in.GetCardinality()), eff) {
			rows := positionsOf(pos, in, deleted)
			if vector == nil {
				return ix.CandidateRows(s.query, s.k, eff, rows)
			}
			return ix.SearchRows(s.query, s.k, eff, rows, vector)
		}
	}
	var accept func(row uint32) bool
	if deleted != nil {
		accept = func(row uint32) bool { return !deleted(pos.ids[row]) }
	}
	if vector == nil {
		return ix.Candidates(s.query, s.k, eff, accept)
	}
	return ix.Search(s.query, s.k, eff, accept, vector)
}

// positionsOf lists the positions in a segment (pos) of the row IDs of
// ids, a subset of its rows (of pos.idSet()), that deleted does not
// exclude.
func positionsOf(pos *rowPositions, ids *roaring64.Bitmap, deleted func(int64) bool) []uint32 {
	rows := make([]uint32, 0, ids.GetCardinality())
	it := ids.Iterator()
	for it.HasNext() {
		id := int64(it.Next())
		if !deleted(id) {
			rows = append(rows, uint32(pos.positionOf(id)))
		}
	}
	return rows
}

// segVectors is a segment's vector column, one array per row group:
// all of them read up front, or, streamed, each decoded when a row of it
// is first asked for and released when another group is (an index
// build's passes read the rows in order, so it holds one row group at a
// time, not the column).
type segVectors struct {
	arrays []arrow.Array
	starts []int64 // position of each group's first row
	// load decodes row group g of a streamed column; err is its first
	// error, after which every row reads as NULL.
	load func(g int) (arrow.Array, error)
	err  error
}

// group returns row group g's array (nil after a read error).
func (c *segVectors) group(g int) arrow.Array {
	if c.arrays[g] == nil && c.load != nil && c.err == nil {
		releaseAll(c.arrays)
		clear(c.arrays)
		c.arrays[g], c.err = c.load(g)
	}
	return c.arrays[g]
}

// vector returns the vector at a position of the segment (nil for NULL).
func (c *segVectors) vector(row int) []float32 {
	g := sort.Search(len(c.arrays), func(g int) bool { return c.starts[g+1] > int64(row) })
	if g == len(c.arrays) {
		return nil
	}
	a := c.group(g)
	if a == nil {
		return nil
	}
	return vectorAt(a, row-int(c.starts[g]))
}

// vectorColumn reads the vector column colID of seg: every row group
// through the column cache when cached (searches, which read it again),
// else streamed straight from the file (an index build, which reads it in
// order); the caller releases the arrays and, streamed, checks err.
func (db *DB) vectorColumn(files *segReader, seg *segment, def *catalog.TableDef, colID int, cached bool) (*segVectors, error) {
	groups, starts, err := db.groupsOf(seg)
	if err != nil {
		return nil, err
	}
	_, col := def.ColumnByID(colID)
	out := &segVectors{starts: starts, arrays: make([]arrow.Array, len(groups))}
	if !cached {
		out.load = func(g int) (arrow.Array, error) {
			sf, err := files.file(seg)
			if err != nil {
				return nil, err
			}
			return sf.readColumn(g, colID, col.Type.Arrow())
		}
		return out, nil
	}
	for g := range groups {
		if out.arrays[g], err = db.column(files, seg, g, colID, col.Type.Arrow()); err != nil {
			releaseAll(out.arrays)
			return nil, err
		}
	}
	return out, nil
}

// vectorAt returns row i of a list-of-float32 array as a slice of its
// values buffer (nil for NULL, or an array of another shape).
func vectorAt(a arrow.Array, i int) []float32 {
	if a.IsNull(i) {
		return nil
	}
	switch l := a.(type) {
	case *array.List:
		vals, ok := l.ListValues().(*array.Float32)
		if !ok {
			return nil
		}
		start, end := l.ValueOffsets(i)
		return vals.Float32Values()[start:end]
	case *array.FixedSizeList:
		vals, ok := l.ListValues().(*array.Float32)
		if !ok {
			return nil
		}
		n := l.DataType().(*arrow.FixedSizeListType).Len()
		off := (l.Offset() + i) * int(n)
		return vals.Float32Values()[off : off+int(n)]
	}
	return nil
}

// normalized returns v scaled to unit length (v itself when zero).
func normalized(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

// segVectorIndex returns seg's index for spec: loaded, read from its file,
// or nil when it is not built yet (the build is then queued) or the
// segment cannot have one (its vectors differ in dimension).
func (db *DB) segVectorIndex(seg *segment, def *catalog.TableDef, spec vecSpec) *vecindex.Index {
	x := &seg.x
	x.mu.Lock()
	ix, ok := x.vec[spec.key]
	x.mu.Unlock()
	if ok {
		return ix
	}
	ix, err := readVecIndexFile(seg, spec.key)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		db.queueVectorBuild(seg, def, spec)
		return nil
	default:
		db.log.Warn("rebuilding vector index", "file", vecIndexPath(seg.path, spec.key), "err", err)
		db.queueVectorBuild(seg, def, spec)
		return nil
	}
	db.loadRawVectors(seg, spec.colID)
	db.installVectorIndex(seg, spec, ix)
	return ix
}

// loadRawVectors loads seg's raw vectors of column colID, when they exist
// and are not loaded yet, beside an index read from its file. A segment
// without them (its vectors cannot be given back exactly, or it was
// indexed before raw files existed) is read from the column instead.
func (db *DB) loadRawVectors(seg *segment, colID int) {
	if segRawVectors(seg, colID) != nil {
		return
	}
	raw, err := readRawVectors(seg, colID)
	switch {
	case err == nil:
		installRawVectors(seg, colID, raw)
	case !errors.Is(err, os.ErrNotExist):
		db.log.Warn("ignoring raw vector file", "file", vecRawPath(seg.path, colID), "err", err)
	}
}

// queueVectorBuilds queues the builds of seg's indexes for every vector
// index the catalog has on its table (a new segment of a flush or a
// compaction).
func (db *DB) queueVectorBuilds(seg *segment, def *catalog.TableDef) {
	for _, ix := range db.Catalog().IndexesOf(def.ID) {
		if spec, ok := vectorSpec(ix, def); ok {
			db.queueVectorBuild(seg, def, spec)
		}
	}
}

// BuildVectorIndexes makes every segment of table tableID indexed by
// every vector index the catalog has on it, flushing the table's
// unflushed rows into segments first: CREATE INDEX calls it once the
// index is committed, so that it returns with the index built, as in
// PostgreSQL. The builds run on the background builder (a build a flush
// queued is not repeated); other sessions read and write the table
// meanwhile. When compaction merges segments while it waits (after a bulk
// load), it waits for the merged segments' builds too, until the table's
// segments are all indexed. It returns when they are done or ctx ends (the
// builds go on). indexed, when not nil, is told the rows of each segment
// once all of its indexes are built (CREATE INDEX's progress); it must be
// cheap.
func (db *DB) BuildVectorIndexes(ctx context.Context, tableID uint64, indexed func(rows int64)) error {
	if err := db.flushTable(tableID, true); err != nil {
		return err
	}
	if indexed == nil {
		indexed = func(int64) {}
	}
	done := map[*segment]bool{} // segments whose rows were told to indexed
	waited := map[string]bool{} // builds waited for
	for {
		def := db.Catalog().TableByID(tableID)
		ts := db.head.Load().tables[tableID]
		if def == nil || ts == nil {
			return nil
		}
		var keys []string
		segOf := map[string]*segment{}
		pending := map[*segment]int{} // builds not done yet, by segment
		for _, ix := range db.Catalog().IndexesOf(tableID) {
			spec, ok := vectorSpec(ix, def)
			if !ok {
				continue
			}
			for _, seg := range ts.segments {
				if _, ok := pending[seg]; !ok {
					pending[seg] = 0
				}
				if !db.segVectorIndexLoaded(seg, spec) {
					key := db.queueVectorBuild(seg, def, spec)
					keys = append(keys, key)
					segOf[key] = seg
					pending[seg]++
				}
			}
		}
		tell := func(seg *segment) {
			if !done[seg] && !seg.x.merged.Load() {
				done[seg] = true
				indexed(seg.rows)
			}
		}
		for seg, n := range pending {
			if n == 0 {
				tell(seg)
			}
		}
		if len(keys) == 0 {
			return nil
		}
		fresh := false
		for _, key := range keys {
			fresh = fresh || !waited[key]
			waited[key] = true
		}
		if !fresh {
			// Builds that ended without an index (dropped meanwhile, or
			// failed: those segments are scored exactly).
			return nil
		}
		if err := db.waitVectorBuilds(ctx, keys, func(key string) {
			seg := segOf[key]
			if pending[seg]--; pending[seg] == 0 {
				tell(seg)
			}
		}); err != nil {
			return err
		}
		// Look again: a segment merged away meanwhile was not indexed
		// (its successor is queued instead).
	}
}

// waitVectorBuilds waits until the builds of keys are done (or ctx ends),
// calling built with each key as its build ends.
func (db *DB) waitVectorBuilds(ctx context.Context, keys []string, built func(key string)) error {
	stop := context.AfterFunc(ctx, func() {
		db.vecMu.Lock()
		db.vecDone.Broadcast()
		db.vecMu.Unlock()
	})
	defer stop()
	db.vecMu.Lock()
	defer db.vecMu.Unlock()
	for _, key := range keys {
		for db.vecQueued[key] {
			if err := ctx.Err(); err != nil {
				return err
			}
			db.vecDone.Wait()
		}
		built(key)
	}
	return nil
}

// segVectorIndexLoaded reports whether seg's index for spec is in memory
// or readable from its file (and then loads it), without queueing a build.
func (db *DB) segVectorIndexLoaded(seg *segment, spec vecSpec) bool {
	x := &seg.x
	x.mu.Lock()
	_, ok := x.vec[spec.key]
	x.mu.Unlock()
	if ok {
		return true
	}
	ix, err := readVecIndexFile(seg, spec.key)
	if err != nil {
		return false
	}
	db.loadRawVectors(seg, spec.colID)
	db.installVectorIndex(seg, spec, ix)
	return true
}

// installVectorIndex keeps seg's index for spec in memory.
func (db *DB) installVectorIndex(seg *segment, spec vecSpec, ix *vecindex.Index) {
	x := &seg.x
	x.mu.Lock()
	if x.vec == nil {
		x.vec = map[string]*vecindex.Index{}
	}
	x.vec[spec.key] = ix
	x.mu.Unlock()
	var bytes int64
	if ix != nil {
		bytes = ix.Bytes()
	}
	db.accountVectorIndex(seg.path+"|"+spec.key, bytes)
}

// accountVectorIndex records that the loaded index with build key key
// (segment path | index key) holds bytes of memory (0: none any more),
// reserving them in the column cache's budget. (The index's arrays are
// outside the Go heap, so the process's soft memory limit does not count
// them.)
func (db *DB) accountVectorIndex(key string, bytes int64) {
	db.vecMu.Lock()
	delta := bytes - db.vecMem[key]
	if bytes == 0 {
		delete(db.vecMem, key)
	} else {
		db.vecMem[key] = bytes
	}
	db.vecMu.Unlock()
	if delta != 0 {
		db.cache.reserve(delta)
	}
}

// forgetVectorIndexes releases the memory reservations of the indexes
// whose build keys start with prefix: a removed segment's ("<path>|") or
// those of every segment under a removed folder ("<dir>/").
func (db *DB) forgetVectorIndexes(prefix string) {
	db.vecMu.Lock()
	var freed int64
	for key, bytes := range db.vecMem {
		if strings.HasPrefix(key, prefix) {
			freed += bytes
			delete(db.vecMem, key)
		}
	}
	db.vecMu.Unlock()
	if freed != 0 {
		db.cache.reserve(-freed)
	}
}

// vecBuild is a queued build of one segment's vector index.
type vecBuild struct {
	seg  *segment
	def  *catalog.TableDef
	spec vecSpec
}

// queueVectorBuild asks the builder to index seg for spec, unless it is
// queued or running already, and returns the build's key in vecQueued.
// An index the latest catalog does not have (dropped, or a transaction's
// uncommitted one, which it searches) is not built: its segments are
// scored exactly.
func (db *DB) queueVectorBuild(seg *segment, def *catalog.TableDef, spec vecSpec) string {
	key := seg.path + "|" + spec.key
	if !db.vecKeyInUse(def.ID, spec.key) {
		return key
	}
	db.vecMu.Lock()
	defer db.vecMu.Unlock()
	if db.vecQueued[key] {
		return key
	}
	db.vecQueued[key] = true
	db.vecQueue = append(db.vecQueue, vecBuild{seg: seg, def: def, spec: spec})
	if !db.vecRunning {
		db.vecRunning = true
		db.wg.Add(1)
		go db.runVectorBuilds()
	}
	return key
}

// runVectorBuilds builds the queued indexes one at a time (a build uses
// every core itself), until the queue is empty or the database closes.
func (db *DB) runVectorBuilds() {
	defer db.wg.Done()
	for {
		db.vecMu.Lock()
		if len(db.vecQueue) == 0 || db.closed.Load() {
			db.vecRunning = false
			db.vecQueue = nil
			clear(db.vecQueued)
			db.vecDone.Broadcast()
			db.vecMu.Unlock()
			return
		}
		job := db.vecQueue[0]
		db.vecQueue = db.vecQueue[1:]
		last := len(db.vecQueue) == 0
		db.vecMu.Unlock()
		if err := db.buildQueued(job); err != nil && !errors.Is(err, context.Canceled) {
			// Not retried until a restart: the segment is scored exactly
			// (a vector too long for the index, a panic, a full disk).
			db.log.Warn("building vector index", "file", job.seg.path, "err", err)
			db.installVectorIndex(job.seg, job.spec, nil)
		}
		if last {
			// A build decodes its segment's vectors and scratch space
			// several times the size of the index it keeps: give that
			// back to the operating system once the queue is done,
			// rather than holding it as free heap.
			debug.FreeOSMemory()
		}
		db.vecMu.Lock()
		delete(db.vecQueued, job.seg.path+"|"+job.spec.key)
		db.vecDone.Broadcast()
		db.vecMu.Unlock()
	}
}

// buildQueued runs a queued build, cancelled when the database closes.
func (db *DB) buildQueued(job vecBuild) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-db.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	return db.buildVectorIndex(ctx, job)
}

// testHookVectorBuild, when set (by tests only), runs before each queued
// vector index build.
var testHookVectorBuild func(seg *segment)

// buildVectorIndex builds, writes and installs one segment's index. A
// segment removed meanwhile (compacted away) keeps no file. A panic in
// the build is its error: the segment is then searched exactly.
func (db *DB) buildVectorIndex(ctx context.Context, job vecBuild) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic building a vector index: %v", r)
		}
	}()
	if testHookVectorBuild != nil {
		testHookVectorBuild(job.seg)
	}
	if job.seg.x.merged.Load() {
		return nil
	}
	var files segReader
	defer files.close()
	cols, err := db.vectorColumn(&files, job.seg, job.def, job.spec.colID, false)
	if err != nil {
		return err
	}
	defer releaseAll(cols.arrays)
	dim := 0
	for row := 0; row < int(job.seg.rows); row++ {
		switch n := len(cols.vector(row)); {
		case n == 0 || n == dim:
		case dim == 0:
			dim = n
		default:
			// Vectors of two dimensions: no index; the segment is
			// always scored exactly (which reports the mismatch).
			db.installVectorIndex(job.seg, job.spec, nil)
			return nil
		}
	}
	if dim == 0 {
		dim = 1 // no vectors: an empty index still records that
	}
	vector := cols.vector
	ix, err := vecindex.Build(ctx, int(job.seg.rows), dim, vector, job.spec.params)
	if err == nil {
		err = cols.err
	}
	if err != nil {
		return err
	}
	// The raw vectors first: an index file on disk means they were
	// written (or cannot be).
	if segRawVectors(job.seg, job.spec.colID) == nil {
		raw, err := writeRawVectors(job.seg, job.spec.colID, cols, dim)
		if err == nil {
			err = cols.err
		}
		if err != nil {
			if raw != nil {
				os.Remove(raw.path)
			}
			return err
		}
		if raw != nil {
			installRawVectors(job.seg, job.spec.colID, raw)
			// Searches and small fetches read the raw vectors now: the
			// column's decoded row groups need not stay in the cache.
			colID := int32(job.spec.colID)
			db.cache.drop(func(k cacheKey) bool { return k.path == job.seg.path && k.col == colID })
		}
	}
	if err := writeVecIndexFile(job.seg, job.spec.key, ix); err != nil {
		return err
	}
	if !db.vecKeyInUse(job.def.ID, job.spec.key) {
		// The index was dropped while it was built (or is a
		// transaction's uncommitted one): neither a file, which
		// removeUnusedVecIndexes may have looked for before it existed,
		// nor a copy in memory, which an index created again with the
		// same definition would take as built without writing its file.
		paths := []string{vecIndexPath(job.seg.path, job.spec.key)}
		if !db.vecKeyInUse(job.def.ID, vecRawKey(job.spec.colID)) {
			// No other index on the column: its raw vectors go too.
			paths = append(paths, vecRawPath(job.seg.path, job.spec.colID))
			x := &job.seg.x
			x.mu.Lock()
			delete(x.raw, job.spec.colID)
			x.mu.Unlock()
		}
		for _, path := range paths {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				db.log.Warn("removing unused vector index", "path", path, "err", err)
			}
		}
		return nil
	}
	db.installVectorIndex(job.seg, job.spec, ix)
	db.counters.vectorBuilds.Add(1)
	return nil
}

// writeVecIndexFile writes seg's index file for key: the sidecar frame
// (sidecar.go) around the index's encoding, streamed to the file.
func writeVecIndexFile(seg *segment, key string, ix *vecindex.Index) error {
	return writeSidecarFunc(vecIndexPath(seg.path, key), seg, sidecarHead(vecIndexMagic, seg), func(w io.Writer) error {
		_, err := ix.WriteTo(w)
		return err
	})
}

// readVecIndexFile reads seg's index file for key; an error wrapping
// os.ErrNotExist when there is none. The file is mapped while the index
// is decoded from it into arrays of its own.
func readVecIndexFile(seg *segment, key string) (*vecindex.Index, error) {
	path := vecIndexPath(seg.path, key)
	body, release, err := mapSidecar(path, "vector index", vecIndexMagic, seg)
	if err != nil {
		return nil, err
	}
	defer release()
	ix, err := vecindex.Read(body)
	if err != nil {
		return nil, fmt.Errorf("corrupt vector index %s: %w", path, err)
	}
	return ix, nil
}

// vecSidecarOf returns the segment file name a vector index or raw vector
// file name belongs to and the key it holds (an index's key, or
// vecRawKey of the raw vectors' column).
func vecSidecarOf(name string) (seg, key string, ok bool) {
	base, ok := strings.CutSuffix(name, vecIndexExt)
	if !ok {
		if base, ok = strings.CutSuffix(name, vecRawExt); !ok {
			return "", "", false
		}
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return "", "", false
	}
	return base[:dot] + ".parquet", base[dot+1:], true
}

// vecKeysOf returns the keys of the vector indexes cat has on table def
// and the vecRawKey of their columns: the index and raw vector files its
// segments need.
func vecKeysOf(cat *catalog.Catalog, def *catalog.TableDef) map[string]bool {
	keys := map[string]bool{}
	for _, ix := range cat.IndexesOf(def.ID) {
		if spec, ok := vectorSpec(ix, def); ok {
			keys[spec.key] = true
			keys[vecRawKey(spec.colID)] = true
		}
	}
	return keys
}

// vecKeyInUse reports whether the latest catalog has a vector index with
// key on table tableID.
func (db *DB) vecKeyInUse(tableID uint64, key string) bool {
	cat := db.Catalog()
	def := cat.Tables[tableID]
	return def != nil && vecKeysOf(cat, def)[key]
}

// tablesLosingVecIndexes returns the tables that a catalog change from old
// to cur left without some vector index key they had (the tables whose
// index files removeUnusedVecIndexes should look at).
func tablesLosingVecIndexes(old, cur *catalog.Catalog) []uint64 {
	var out []uint64
	kept := map[uint64]map[string]bool{} // vecKeysOf cur, by table
	for _, ix := range old.Indexes {
		def, now := old.Tables[ix.Table], cur.Tables[ix.Table]
		if def == nil || now == nil || slices.Contains(out, ix.Table) {
			continue
		}
		spec, ok := vectorSpec(ix, def)
		if !ok {
			continue
		}
		if kept[ix.Table] == nil {
			kept[ix.Table] = vecKeysOf(cur, now)
		}
		if !kept[ix.Table][spec.key] {
			out = append(out, ix.Table)
		}
	}
	return out
}

// removeUnusedVecIndexes forgets and deletes the vector indexes of table
// tableID's segments that no vector index of the latest catalog uses any
// more (a DROP INDEX, or a dropped column's indexes). A transaction that
// still sees the dropped index searches those segments exactly.
func (db *DB) removeUnusedVecIndexes(tableID uint64) {
	cat := db.Catalog()
	def, rt := cat.Tables[tableID], db.lookupRT(tableID)
	if def == nil || rt == nil {
		return
	}
	keep := vecKeysOf(cat, def)
	if ts := db.published.Load().tables[tableID]; ts != nil {
		for _, seg := range ts.segments {
			seg.x.mu.Lock()
			var dropped []string
			for key := range seg.x.vec {
				if !keep[key] {
					delete(seg.x.vec, key)
					dropped = append(dropped, key)
				}
			}
			for colID := range seg.x.raw {
				if !keep[vecRawKey(colID)] {
					delete(seg.x.raw, colID)
				}
			}
			seg.x.mu.Unlock()
			for _, key := range dropped {
				db.accountVectorIndex(seg.path+"|"+key, 0)
			}
		}
	}
	ents, _ := os.ReadDir(rt.dir)
	for _, e := range ents {
		if _, key, ok := vecSidecarOf(e.Name()); ok && !keep[key] {
			path := filepath.Join(rt.dir, e.Name())
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				db.log.Warn("removing unused vector index", "path", path, "err", err)
			}
		}
	}
}

// removeVecIndexFiles removes every vector index and raw vector file of
// the segment at segPath (it was compacted away or dropped).
func (db *DB) removeVecIndexFiles(segPath string) {
	base := strings.TrimSuffix(segPath, ".parquet")
	files, _ := filepath.Glob(base + ".*" + vecIndexExt)
	raws, _ := filepath.Glob(base + ".col*" + vecRawExt)
	for _, f := range append(files, raws...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("removing obsolete file", "path", f, "err", err)
		}
	}
}
