package storage

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage/textindex"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

// segSide follows a segment being written (flush, compaction or spill):
// for a flush or a compaction it indexes the text columns of the rows as
// they pass (BM25, and trigrams for columns with a trigram index), and
// keeps the rows' arrays, while they fit in a share of the cache budget,
// so that once the file is in place the segment's row groups go into the
// column cache without being decoded again. It also records the segment's row group
// sizes and row IDs, so reading it needs no footer read.
type segSide struct {
	db    *DB
	def   *catalog.TableDef
	specs []segColumnSpec
	text  []*textindex.Builder // per spec; nil for columns not indexed
	trgm  []*trgmindex.Builder // per spec; nil for columns without a trigram index
	ids   []int64
	warm  bool
	limit int64
	// keyIndexes: the segment's key indexes (keysearch.go) are built
	// once it is in place (a flush or compaction; not a spill, which is
	// on a statement's path).
	keyIndexes bool
	held       int64
	chunks     []segmentChunk // retained while warm
}

// newSegSide returns the side of a segment of def's columns specs. The
// segment's row groups are put into the column cache if its arrays take
// at most warmLimit bytes (a flush allows a quarter of the cache budget;
// a compaction, whose inputs are usually still cached, which would
// briefly double their memory, a sixteenth).
func (db *DB) newSegSide(def *catalog.TableDef, specs []segColumnSpec, warmLimit int64) *segSide {
	s := db.newSpillSide(def, specs)
	s.warm, s.limit, s.keyIndexes = warmLimit > 0, warmLimit, true
	trgmCols := db.Catalog().TrigramColumns(def.ID)
	for i, sp := range specs {
		if _, c := def.ColumnByID(sp.id); c != nil && textColumn(c.Type) && slices.Contains(trgmCols, sp.id) {
			s.trgm[i] = trgmindex.NewBuilder()
		}
	}
	if !db.opts.DisableTextIndex {
		for i, sp := range specs {
			if _, c := def.ColumnByID(sp.id); c != nil && textColumn(c.Type) {
				s.text[i] = textindex.NewBuilder()
			}
		}
	}
	return s
}

// newSpillSide returns the side of a segment a transaction spills
// (spill.go): its row IDs and row groups, but no text or trigram index
// (building them was a tenth of a bulk load's CPU, on the statement's
// path) and no cached columns. The commit has the indexes built in the
// background (sidebuild.go).
func (db *DB) newSpillSide(def *catalog.TableDef, specs []segColumnSpec) *segSide {
	return &segSide{db: db, def: def, specs: specs, text: make([]*textindex.Builder, len(specs)),
		trgm: make([]*trgmindex.Builder, len(specs))}
}

// add sees a chunk about to be written.
func (s *segSide) add(c segmentChunk) {
	s.ids = append(s.ids, c.rowIDs.Int64Values()...)
	for i, b := range s.text {
		if b != nil {
			addText(b, c.cols[i])
		}
	}
	for i, b := range s.trgm {
		if b != nil && !addTrigrams(b, c.cols[i]) {
			s.trgm[i] = nil // built from the file when searched
		}
	}
	if !s.warm {
		return
	}
	size := int64(c.rowIDs.Len()) * 8
	for _, a := range c.cols {
		size += arraySize(a.Data())
	}
	if s.held+size > s.limit {
		s.dropChunks()
		s.warm = false
		return
	}
	s.held += size
	for _, a := range c.cols {
		a.Retain()
	}
	c.rowIDs.Retain()
	c.cols = append([]arrow.Array(nil), c.cols...)
	s.chunks = append(s.chunks, c)
}

func (s *segSide) dropChunks() {
	for _, c := range s.chunks {
		releaseAll(c.cols)
		c.rowIDs.Release()
	}
	s.chunks = nil
}

// discard abandons the side (the segment was not written).
func (s *segSide) discard() { s.dropChunks() }

// finish completes seg, which is now in place: its row groups, row IDs,
// text index (written to its .bm25 file) and cached columns. Failures are
// logged: all of it can be rebuilt from the segment.
func (s *segSide) finish(seg *segment) {
	db := s.db
	defer s.dropChunks()
	groups, err := footerGroups(seg.path)
	if err != nil {
		db.log.Warn("reading new segment", "file", seg.path, "err", err)
		return
	}
	pos := newRowPositions(s.ids)
	x := &seg.x
	x.mu.Lock()
	err = x.setGroupsLocked(seg, groups)
	if err == nil && len(s.ids) == int(seg.rows) {
		x.rows = pos
	}
	x.mu.Unlock()
	if err != nil {
		db.log.Warn("reading new segment", "file", seg.path, "err", err)
		return
	}
	cols := map[int]*textindex.Index{}
	for i, b := range s.text {
		if b != nil {
			cols[s.specs[i].id] = b.Build()
		}
	}
	if len(cols) > 0 && len(s.ids) == int(seg.rows) {
		if err := writeTextIndexFile(seg, cols); err != nil {
			db.log.Warn("writing text index", "file", textIndexPath(seg.path), "err", err)
		}
		u := db.newSegTextUnit(seg, pos, cols)
		x.mu.Lock()
		x.text = u
		x.mu.Unlock()
	}
	if len(s.ids) == int(seg.rows) {
		s.finishTrigrams(seg)
	}
	if s.warm {
		s.fillCache(seg, groups)
	}
	if s.keyIndexes && len(s.ids) == int(seg.rows) {
		db.buildSegKeyIndexes(seg, s.def, db.Catalog())
	}
	db.queueVectorBuilds(seg, s.def)
}

// finishTrigrams writes and installs seg's trigram indexes.
func (s *segSide) finishTrigrams(seg *segment) {
	for i, b := range s.trgm {
		if b == nil {
			continue
		}
		ix := b.Build()
		colID := s.specs[i].id
		if err := writeTrgmIndexFile(seg, colID, ix); err != nil {
			s.db.log.Warn("writing trigram index", "file", trgmIndexPath(seg.path, colID), "err", err)
		}
		x := &seg.x
		x.trgmMu.Lock()
		if x.trgm == nil {
			x.trgm = map[int]*trgmindex.Index{}
		}
		x.trgm[colID] = ix
		x.trgmMu.Unlock()
	}
}

// fillCache puts the segment's row groups, sliced from the chunks written,
// into the column cache, except the columns with a vector index: searches
// read those from the raw vectors the index build writes (vecraw.go).
func (s *segSide) fillCache(seg *segment, groups []int64) {
	indexed := map[int]bool{}
	for _, ix := range s.db.Catalog().IndexesOf(s.def.ID) {
		if spec, ok := vectorSpec(ix, s.def); ok {
			indexed[spec.colID] = true
		}
	}
	var start int64
	for g, n := range groups {
		end := start + n
		for i, sp := range s.specs {
			if indexed[sp.id] {
				continue
			}
			if d := s.rows(start, end, func(c segmentChunk) arrow.Array { return c.cols[i] }); d != nil {
				s.db.cache.put(cacheKey{path: seg.path, group: int32(g), col: int32(sp.id)}, d)
			}
		}
		if d := s.rows(start, end, func(c segmentChunk) arrow.Array { return c.rowIDs }); d != nil {
			s.db.cache.put(cacheKey{path: seg.path, group: int32(g), col: rowIDCacheCol}, d)
		}
		start = end
	}
}

// rows returns rows [start, end) of the column col picks from the chunks,
// as data holding one reference (nil on failure).
func (s *segSide) rows(start, end int64, col func(segmentChunk) arrow.Array) arrow.ArrayData {
	var parts []arrow.Array
	defer func() { releaseAll(parts) }()
	var off int64
	for _, c := range s.chunks {
		a := col(c)
		n := int64(a.Len())
		lo, hi := max(start, off), min(end, off+n)
		if lo < hi {
			if lo == off && hi == off+n {
				a.Retain()
				parts = append(parts, a)
			} else {
				parts = append(parts, array.NewSlice(a, lo-off, hi-off))
			}
		}
		off += n
		if off >= end {
			break
		}
	}
	if len(parts) == 0 {
		return nil
	}
	if len(parts) == 1 && parts[0].Data().Offset() == 0 && int64(parts[0].Len()) == end-start {
		d := parts[0].Data()
		d.Retain()
		return d
	}
	out, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		return nil
	}
	d := out.Data()
	d.Retain()
	out.Release()
	return d
}
