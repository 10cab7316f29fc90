package storage

import (
	"errors"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
)

// dbState is one immutable version of the whole database: the catalog and,
// per table, its segments, in-memory tail and deleted row IDs. Commits,
// flushes and compactions derive a new dbState from the newest one (the
// head) under DB.mu; a transaction reads the version that was published
// (durable) when it began. Nothing reachable from a dbState is mutated once
// the dbState is visible to another goroutine.
type dbState struct {
	version uint64 // increases with every new state
	lsn     uint64 // the last WAL record this state includes
	cat     *catalog.Catalog
	tables  map[uint64]*tableState
}

// derive returns a shallow copy of s with the next version; the caller
// replaces what it changes (copy on write).
func (s *dbState) derive() *dbState {
	return &dbState{
		version: s.version + 1,
		lsn:     s.lsn,
		cat:     s.cat,
		tables:  maps.Clone(s.tables),
	}
}

// tableState is the data of one table in one dbState.
type tableState struct {
	id       uint64
	segments []*segment
	tail     []*tailBatch
	tailRows int64
	// deleted holds the row IDs deleted from segments and tail.
	deleted deletedRows
	// epoch counts truncations: a flush or compaction started in an older
	// epoch is discarded.
	epoch uint64
	// lastMod is the LSN of the last commit that changed the table's data.
	lastMod uint64
}

func newTableState(id uint64) *tableState {
	return &tableState{id: id}
}

func (t *tableState) clone() *tableState {
	n := *t
	return &n
}

// segmentRows is the number of rows of each segment, in order.
func (t *tableState) segmentRows() []int64 {
	out := make([]int64, len(t.segments))
	for i, s := range t.segments {
		out[i] = s.rows
	}
	return out
}

// liveRows is the number of rows in segments and tail minus the deleted
// ones (an estimate when deleted IDs include rows no longer stored).
func (t *tableState) liveRows() int64 {
	n := t.tailRows
	for _, s := range t.segments {
		n += s.rows
	}
	n -= int64(t.deleted.GetCardinality())
	return max(n, 0)
}

// tailBatch is one batch of inserted rows kept in memory until a flush
// writes it to a segment: table columns by column ID (as of the insert) and
// the rows' IDs.
type tailBatch struct {
	colIDs []int
	cols   []arrow.Array
	rowIDs *array.Int64
	n      int
	// lsn is the (last) commit that inserted the rows, minLSN the first:
	// small batches of consecutive commits are merged.
	lsn    uint64
	minLSN uint64
	// sealed is set (under DB.mu) once a flush took the batch: it is not
	// merged into any more.
	sealed bool
	// text is the batch's text index, built on first use (textunit.go).
	text lazyTextUnit
	// keys are the batch's key indexes, built on first use (keysearch.go).
	keys keyIndexes
}

// Small batches (single-row INSERTs) are merged as they are committed so
// that the tail does not hold one Arrow record per row.
const (
	tailMergeRows  = 1024
	tailMergeBytes = 256 << 10
)

// appendTail returns tail with b added, merged with the small batches at
// the end of tail that are no larger than what is being merged (as a
// binary counter carries): a stream of single-row commits then copies
// each row about log2(tailMergeRows) times on its way into a full batch,
// where merging every commit into the last batch copied that whole batch
// each time, and the tail holds no more than that many unfull batches
// after its full ones. tail is never modified in place: states share it.
func appendTail(tail []*tailBatch, b *tailBatch) []*tailBatch {
	start, rows, bytes := len(tail), b.n, batchBytes(b)
	for start > 0 {
		prev := tail[start-1]
		if prev.sealed || prev.n > rows || prev.n+rows > tailMergeRows || !sameLayout(prev, b) {
			break
		}
		pb := batchBytes(prev)
		if bytes+pb > tailMergeBytes {
			break
		}
		start--
		rows += prev.n
		bytes += pb
	}
	if start == len(tail) {
		return append(tail, b)
	}
	m, err := mergeBatches(append(slices.Clip(tail[start:]), b)...)
	if err != nil {
		return append(tail, b)
	}
	out := make([]*tailBatch, start+1, start+8)
	copy(out, tail[:start])
	out[start] = m
	return out
}

func batchBytes(b *tailBatch) int64 {
	n := int64(b.n) * 8
	for _, c := range b.cols {
		n += arraySize(c.Data())
	}
	return n
}

// mergeBatches concatenates batches of the same layout.
func mergeBatches(bs ...*tailBatch) (*tailBatch, error) {
	first := bs[0]
	m := &tailBatch{colIDs: first.colIDs, cols: make([]arrow.Array, len(first.cols)), lsn: first.lsn, minLSN: first.minLSN}
	parts := make([]arrow.Array, len(bs))
	for _, b := range bs {
		m.n += b.n
		m.lsn, m.minLSN = max(m.lsn, b.lsn), min(m.minLSN, b.minLSN)
	}
	for i := range first.cols {
		for k, b := range bs {
			parts[k] = b.cols[i]
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		m.cols[i] = c
	}
	for k, b := range bs {
		parts[k] = b.rowIDs
	}
	r, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	m.rowIDs = r.(*array.Int64)
	return m, nil
}

// coalesceBatches merges the runs of consecutive small batches of the same
// layout in bs (a transaction's single-row INSERTs), within the limits by
// which appendTail merges, with one concatenation per run: committing n
// small batches then copies each once rather than the growing tail batch
// once per batch, and the WAL record holds a record per run, not per row.
func coalesceBatches(bs []*tailBatch) ([]*tailBatch, error) {
	if len(bs) < 2 {
		return bs, nil
	}
	out := make([]*tailBatch, 0, len(bs))
	for start := 0; start < len(bs); {
		end, rows, bytes := start+1, bs[start].n, batchBytes(bs[start])
		for end < len(bs) && rows+bs[end].n <= tailMergeRows && bytes < tailMergeBytes && sameLayout(bs[start], bs[end]) {
			rows += bs[end].n
			bytes += batchBytes(bs[end])
			end++
		}
		if end-start == 1 {
			out = append(out, bs[start])
		} else {
			m, err := mergeBatches(bs[start:end]...)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		start = end
	}
	return out, nil
}

// column returns the array holding column ID id, or nil.
func (b *tailBatch) column(id int) arrow.Array {
	for i, c := range b.colIDs {
		if c == id {
			return b.cols[i]
		}
	}
	return nil
}

// segment is one immutable Parquet file of a table.
type segment struct {
	name    string // file name in the table folder
	path    string
	columns []segColumn // table columns the file holds
	rows    int64
	minRow  int64
	maxRow  int64
	bytes   int64
	// lsn is the commit that added the segment when its transaction
	// wrote the file itself (a spill, spill.go); 0 for the segments of
	// flushes and compactions. Only files of durable commits go into a
	// manifest.
	lsn uint64
	// x is what is learnt about the file at run time (segmeta.go).
	x segExtra
	// remote, when set, brings the file or one of its sidecars into the
	// data directory when the cache lacks it: a segment of an object
	// home that recovery loaded (objhome.go). nil: the files are local.
	remote fetcher
}

// local makes sure the file at path, seg's own or one of its sidecars, is
// in the data directory.
func (s *segment) local(path string) error {
	if s.remote == nil {
		return nil
	}
	return s.remote.fetch(path)
}

// gone reports whether seg's file was removed (a compaction replaced the
// segment, its table was dropped): it is neither in the data directory
// nor, for a segment of an object home, in the object store (the data
// directory is then a cache that may have evicted it). A sidecar written
// for a segment that is gone is removed again.
func (s *segment) gone() bool {
	var err error
	if s.remote != nil {
		err = s.remote.exists(s.path)
	} else {
		_, err = os.Stat(s.path)
	}
	return errors.Is(err, os.ErrNotExist)
}

// segColumn maps a column of a segment file (by name) to a table column ID.
type segColumn struct {
	Name string `json:"name"`
	ID   int    `json:"id"`
}

func (s *segment) columnName(id int) (string, bool) {
	for _, c := range s.columns {
		if c.ID == id {
			return c.Name, true
		}
	}
	return "", false
}

// tableRT is the mutable runtime of a table that lives outside the
// versioned state: row ID allocation, unique indexes, the deletion log used
// to detect write conflicts and the on-disk manifest bookkeeping.
type tableRT struct {
	id  uint64
	dir string

	nextRowID atomic.Int64

	// flushMu serialises flush, compaction and manifest writes.
	flushMu       sync.Mutex
	nextSeg       atomic.Int64 // next segment number (flushes and transactions' spills take numbers)
	manifestLSN   uint64       // LSN the on-disk manifest covers (flushMu)
	manifestFiles []string     // segment files the on-disk manifest lists (flushMu)
	retired       []string     // files earlier manifests listed, to retire (flushMu)

	// uniq maps a constraint signature to its index (DB.idxMu).
	uniq map[string]*uniqueIndex

	// delLog lists recent commits' deletions (DB.mu), newest last.
	delLog []delLogEntry
	// refLog lists the rows of this table that recent commits' child
	// rows reference (DB.mu; fkref.go), newest last.
	refLog []refLogEntry
	// foreignIns is the LSN of the last record of another server that
	// inserted rows (DB.mu; tail.go): their row IDs may be ones a
	// transaction that began before it drew too.
	foreignIns uint64
	// fence counts the open transactions whose DDL gave the table a
	// rule every row must meet (rulesAdded) or a foreign key referencing
	// it (writeFence).
	fence writeFence
}

// delLogEntry records the rows one commit deleted, for first-committer-wins
// conflict detection.
type delLogEntry struct {
	lsn  uint64
	rows *roaring64.Bitmap
}

// pin is a reader's claim on a state: files that state uses are not deleted
// while it is held.
type pin struct {
	state *dbState
}

// obsoleteFile is a file or folder no longer used by states of version
// >= version; it is removed once no pinned state is older.
type obsoleteFile struct {
	path    string
	version uint64
	dir     bool
}
