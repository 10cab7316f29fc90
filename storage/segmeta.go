package storage

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage/trgmindex"
	"github.com/cairn-db/cairn/storage/vecindex"
)

// segExtra is what storage learns about an immutable segment file once
// and keeps for as long as the segment is in use: its row group sizes, a
// row ID -> position index and its text index. All of it is loaded on
// first use (or handed over by the writer).
type segExtra struct {
	mu     sync.Mutex
	groups []int64       // rows per row group; nil until known
	starts []int64       // position of each group's first row; len(groups)+1
	rows   *rowPositions // nil until loaded
	text   *textUnit     // nil until loaded
	textMu sync.Mutex    // serialises loading text
	// vec are the segment's vector indexes by key (vector.go), once read
	// or built.
	vec map[string]*vecindex.Index
	// raw are the raw vectors of the columns with a vector index, by
	// column ID (vecraw.go), once read or written.
	raw map[int]*rawVectors
	// trgm are the segment's trigram indexes by column ID (trigram.go),
	// once read or built; a nil entry: it could not be built.
	trgm   map[int]*trgmindex.Index
	trgmMu sync.Mutex // serialises reading and building them
	// keys are the segment's key indexes (keysearch.go), once built.
	keys keyIndexes
	// merged is set once a compaction has replaced the segment in its
	// table: a vector index build still queued for it is skipped (the
	// merged segment has a build of its own).
	merged atomic.Bool
}

// groupsOf returns the row counts of seg's row groups and the position of
// each group's first row, reading the file's footer the first time.
func (db *DB) groupsOf(seg *segment) ([]int64, []int64, error) {
	x := &seg.x
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.groups != nil {
		return x.groups, x.starts, nil
	}
	if err := seg.local(seg.path); err != nil {
		return nil, nil, err
	}
	groups, err := footerGroups(seg.path)
	if err != nil {
		return nil, nil, err
	}
	if err := x.setGroupsLocked(seg, groups); err != nil {
		return nil, nil, err
	}
	return x.groups, x.starts, nil
}

// setGroupsLocked records the row group sizes (x.mu held).
func (x *segExtra) setGroupsLocked(seg *segment, groups []int64) error {
	starts := make([]int64, len(groups)+1)
	for i, n := range groups {
		starts[i+1] = starts[i] + n
	}
	if starts[len(groups)] != seg.rows {
		return fmt.Errorf("corrupt segment %s: row groups hold %d rows, manifest says %d", seg.path, starts[len(groups)], seg.rows)
	}
	x.groups, x.starts = groups, starts
	return nil
}

// footerGroups reads the row group sizes of a segment file.
func footerGroups(path string) (groups []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			groups, err = nil, fmt.Errorf("corrupt segment %s: %v", path, r)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkParquetFooter(f, st.Size()); err != nil {
		return nil, fmt.Errorf("corrupt segment %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("corrupt segment %s: %w", path, err)
	}
	for _, rg := range pf.RowGroups() {
		groups = append(groups, rg.NumRows())
	}
	return groups, nil
}

// segReader opens segment files on demand for cache misses, keeping the
// last one open. It is used by one goroutine.
type segReader struct {
	cur *segmentFile
}

func (r *segReader) file(seg *segment) (*segmentFile, error) {
	if r.cur != nil && r.cur.seg == seg {
		return r.cur, nil
	}
	r.close()
	sf, err := openSegment(seg)
	if err != nil {
		return nil, err
	}
	r.cur = sf
	return sf, nil
}

func (r *segReader) close() {
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
	}
}

// column returns column id (Arrow type dt) of row group g of seg through
// the column cache; rowIDCacheCol gives the row IDs. The caller releases
// the array.
func (db *DB) column(r *segReader, seg *segment, g int, id int, dt arrow.DataType) (arrow.Array, error) {
	key := cacheKey{path: seg.path, group: int32(g), col: int32(id)}
	return db.cache.get(key, func() (arrow.ArrayData, error) {
		sf, err := r.file(seg)
		if err != nil {
			return nil, err
		}
		var a arrow.Array
		if id == rowIDCacheCol {
			a, err = sf.readRowIDs(g)
		} else {
			a, err = sf.readColumn(g, id, dt)
		}
		if err != nil {
			return nil, err
		}
		d := a.Data()
		d.Retain()
		a.Release()
		return d, nil
	})
}

// columnUncached is column for a reader that must not fill the cache: a
// cached copy is used, but a column it decodes is not kept. Compaction
// reads the segments it replaces so, which would otherwise fill the cache
// (and the heap) with a million rows of columns about to be deleted and
// push out the columns searches use.
func (db *DB) columnUncached(r *segReader, seg *segment, g int, id int, dt arrow.DataType) (arrow.Array, error) {
	if a, ok := db.cache.lookup(cacheKey{path: seg.path, group: int32(g), col: int32(id)}); ok {
		return a, nil
	}
	sf, err := r.file(seg)
	if err != nil {
		return nil, err
	}
	return sf.readColumn(g, id, dt)
}

// scanColumn returns row group g of seg's column id, of type dt, for a
// scan: from the cache, else decoded from the segment (and cached unless
// uncached, a reader that must not fill it), except that a column with
// raw vectors (it has a vector index) is read from them when the cache
// has no room for it or the reader must not fill it. Reading raw vectors
// is one copy from the page cache, several times cheaper than Parquet's
// list assembly; decoding them into a cache too small to hold them beside
// the index (a million 384-d rows is 1.5 GB) would evict the rows a scan
// is about to read, so that every exact search decoded the whole column
// again, ten times slower than the one before it.
func (db *DB) scanColumn(r *segReader, seg *segment, g int, id int, dt arrow.DataType, uncached bool) (arrow.Array, error) {
	if a, ok := db.cache.lookup(cacheKey{path: seg.path, group: int32(g), col: int32(id)}); ok {
		return a, nil
	}
	if raw := segRawVectors(seg, id); raw != nil {
		a, ok, err := db.rawColumn(raw, seg, g, dt, uncached)
		if ok || err != nil {
			return a, err
		}
	}
	if uncached {
		return db.columnUncached(r, seg, g, id, dt)
	}
	return db.column(r, seg, g, id, dt)
}

// rawColumn is scanColumn from seg's raw vectors raw, when the cache has
// no room for the decoded column or uncached is set; ok is false
// otherwise, or when dt is not the list type they read as.
func (db *DB) rawColumn(raw *rawVectors, seg *segment, g int, dt arrow.DataType, uncached bool) (a arrow.Array, ok bool, err error) {
	lt, isList := dt.(*arrow.ListType)
	if !isList || lt.Elem().ID() != arrow.FLOAT32 {
		return nil, false, nil
	}
	groups, starts, err := db.groupsOf(seg)
	if err != nil || g >= len(groups) {
		return nil, false, err
	}
	n := groups[g]
	if !uncached && db.cache.hasRoom(n*(4*int64(raw.dim)+4)) {
		return nil, false, nil
	}
	a, err = raw.column(lt, int(starts[g]), int(n))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil // removed since (see segRawVectors): decoded instead
	}
	return a, err == nil, err
}

// rowIDs returns the row IDs of row group g of seg.
func (db *DB) rowIDs(r *segReader, seg *segment, g int) (*array.Int64, error) {
	a, err := db.column(r, seg, g, rowIDCacheCol, arrow.PrimitiveTypes.Int64)
	if err != nil {
		return nil, err
	}
	ids, ok := a.(*array.Int64)
	if !ok || ids.NullN() > 0 {
		a.Release()
		return nil, fmt.Errorf("corrupt segment %s: bad %s column", seg.path, catalog.RowIDColumn)
	}
	return ids, nil
}

// positionsOf returns seg's row ID index, loading the row IDs the first
// time.
func (db *DB) positionsOf(r *segReader, seg *segment) (*rowPositions, error) {
	groups, _, err := db.groupsOf(seg)
	if err != nil {
		return nil, err
	}
	x := &seg.x
	x.mu.Lock()
	p := x.rows
	x.mu.Unlock()
	if p != nil {
		return p, nil
	}
	all := make([]int64, 0, seg.rows)
	for g := range groups {
		ids, err := db.rowIDs(r, seg, g)
		if err != nil {
			return nil, err
		}
		all = append(all, ids.Int64Values()...)
		ids.Release()
	}
	p = newRowPositions(all)
	x.mu.Lock()
	if x.rows == nil {
		x.rows = p
	}
	p = x.rows
	x.mu.Unlock()
	return p, nil
}

// locate returns the row group and the position in it of segment
// position pos.
func locate(starts []int64, pos int) (g, off int) {
	g = sort.Search(len(starts)-1, func(i int) bool { return starts[i+1] > int64(pos) })
	return g, pos - int(starts[g])
}

// rowPositions maps row IDs to their positions in an ID array.
type rowPositions struct {
	ids  []int64
	perm []uint32 // positions in ID order; nil when ids ascend
	min  int64
	max  int64
	// dense: ids are min, min+1, ..., max (a segment a load wrote), so
	// an ID's position is its distance from min, with no search through
	// ids (a cache miss a step on a large segment).
	dense bool

	setOnce sync.Once
	set     *roaring64.Bitmap // the IDs as a bitmap (idSet)
}

func newRowPositions(ids []int64) *rowPositions {
	p := &rowPositions{ids: ids, min: 1, max: 0}
	if len(ids) == 0 {
		return p
	}
	sorted := true
	p.min, p.max = ids[0], ids[0]
	for i, id := range ids {
		if i > 0 && id <= ids[i-1] {
			sorted = false
		}
		p.min = min(p.min, id)
		p.max = max(p.max, id)
	}
	p.dense = sorted && p.max-p.min == int64(len(ids)-1)
	if !sorted {
		p.perm = make([]uint32, len(ids))
		for i := range p.perm {
			p.perm[i] = uint32(i)
		}
		slices.SortFunc(p.perm, func(a, b uint32) int {
			x, y := ids[a], ids[b]
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return int(a) - int(b)
		})
	}
	return p
}

// idSet returns the segment's row IDs as a bitmap, built on first use, to
// intersect with a WHERE clause's rows: a segment merged from a bulk
// load's spills holds several ranges of IDs with other segments' rows
// between them, so its ID range says little about which of a filter's
// rows it holds. Runs of consecutive IDs make it small.
func (p *rowPositions) idSet() *roaring64.Bitmap {
	p.setOnce.Do(func() {
		set := roaring64.New()
		n := len(p.ids)
		at := func(i int) int64 {
			if p.perm != nil {
				return p.ids[p.perm[i]]
			}
			return p.ids[i]
		}
		for i := 0; i < n; {
			j := i + 1
			for j < n && at(j) == at(j-1)+1 {
				j++
			}
			set.AddRange(uint64(at(i)), uint64(at(j-1))+1)
			i = j
		}
		set.RunOptimize()
		p.set = set
	})
	return p.set
}

// positionOf returns the position of row ID id, which must be one of the
// segment's (in idSet): its rank among them, found in the bitmap's few
// runs rather than by a binary search of every ID.
func (p *rowPositions) positionOf(id int64) int {
	r := int(p.idSet().Rank(uint64(id))) - 1
	if p.perm != nil {
		return int(p.perm[r])
	}
	return r
}

// find returns the position of row ID id.
func (p *rowPositions) find(id int64) (int, bool) {
	if id < p.min || id > p.max {
		return 0, false
	}
	if p.dense {
		return int(id - p.min), true
	}
	if p.perm == nil {
		i, ok := slices.BinarySearch(p.ids, id)
		return i, ok
	}
	i := sort.Search(len(p.perm), func(i int) bool { return p.ids[p.perm[i]] >= id })
	if i < len(p.perm) && p.ids[p.perm[i]] == id {
		return int(p.perm[i]), true
	}
	return 0, false
}

// nullColumn is an all-NULL column of type dt and n rows.
func nullColumn(dt arrow.DataType, n int) arrow.Array {
	return array.MakeArrayOfNull(memory.DefaultAllocator, dt, n)
}
