package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/cairn-db/cairn/sql/catalog"
)

// CommittedTable is one table as its committed files and log hold it:
// what an exporter (cmd/cairn-iceberg) needs to describe the table to
// another format without rewriting its segments.
type CommittedTable struct {
	Def      *catalog.TableDef
	Segments []CommittedSegment
	// Tail are the rows committed since the table's last flush, which no
	// segment holds yet (only the log): always empty for a stopped data
	// directory (ReadCommitted), in commit order for an object store
	// (StoreReader).
	Tail []CommittedBatch
	// LSN is the log position of the last commit that changed the table
	// (0 when ReadCommitted does not know it).
	LSN uint64
}

// CommittedSegment is one live Parquet segment file of a table.
type CommittedSegment struct {
	// Path is the absolute path of the file: in the data directory, or,
	// for an object store, where the cache directory keeps it once
	// fetched (Local).
	Path string
	// Key is the file's object key in the store (StoreReader; ""
	// for a data directory).
	Key   string
	Rows  int64
	Bytes int64
	// Columns maps the column IDs the file holds to their field names in
	// the file (a column renamed later keeps its old name in older files).
	Columns map[int]string
	// DeletedPositions are the 0-based row positions in the file of the
	// rows deleted since it was written, ascending.
	DeletedPositions []int64

	seg *segment
}

// Local returns the path of the segment's file in the data directory,
// fetching it from the object store first when it is not there.
func (s CommittedSegment) Local() (string, error) {
	if err := s.seg.local(s.seg.path); err != nil {
		return "", err
	}
	return s.Path, nil
}

// CommittedBatch is rows of a table's tail: those inserted by the commits
// from MinLSN to LSN (small consecutive commits share a batch), which a
// later flush writes to a segment. The same rows always make the same
// batch, so (MinLSN, LSN, Rows) names them across readings of one store.
type CommittedBatch struct {
	MinLSN, LSN uint64
	Rows        int64
	// DeletedPositions are the positions (as Write lays the rows out) of
	// the batch's rows deleted since, ascending.
	DeletedPositions []int64

	b     *tailBatch
	specs []segColumnSpec
}

// Write writes the batch's rows, deleted ones included, to a new Parquet
// file at path laid out as a segment of the table's current columns (NULL
// where the batch predates a column), in the order DeletedPositions
// counts; it returns the file as a CommittedSegment.
func (cb CommittedBatch) Write(path string) (CommittedSegment, error) {
	sw, err := newSegmentWriter(path, cb.specs)
	if err != nil {
		return CommittedSegment{}, err
	}
	if err := sw.write(tailChunk(cb.b, cb.specs)); err != nil {
		sw.abort()
		return CommittedSegment{}, err
	}
	seg, err := sw.finish()
	if err != nil {
		return CommittedSegment{}, err
	}
	cs := CommittedSegment{Path: seg.path, Rows: seg.rows, Bytes: seg.bytes, Columns: map[int]string{},
		DeletedPositions: cb.DeletedPositions, seg: seg}
	for _, c := range seg.columns {
		cs.Columns[c.ID] = c.Name
	}
	return cs, nil
}

// ReadCommitted reads the committed state of the data directory dir
// without changing it: catalog.json, each table's manifest and its
// segments' row IDs. It takes the directory's lock for the duration, so it
// fails while a server has the directory open, and it refuses a directory
// whose write-ahead log holds commits no checkpoint covers yet (a server
// that was killed rather than stopped): its files would miss them. It
// refuses an object store's cache (Options.Store) for the same reason:
// StoreReader reads the store itself.
func ReadCommitted(dir string) (*catalog.Catalog, []CommittedTable, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, "wal")); err != nil {
		return nil, nil, fmt.Errorf("%s is not a cairn data directory: %w", abs, err)
	}
	if _, err := os.Stat(filepath.Join(abs, cacheMarker)); err == nil {
		return nil, nil, fmt.Errorf("%s is the cache of an object store, not a database: its files miss the commits in the store's log", abs)
	}
	lock, err := lockDir(abs)
	if err != nil {
		return nil, nil, err
	}
	defer lock.Close()
	cf, err := readCatalogFile(filepath.Join(abs, catalogFileName))
	if err != nil {
		return nil, nil, err
	}
	if cf == nil { // never checkpointed: everything is in the log
		cf = &catalogFile{Catalog: catalog.New()}
	}
	if err := checkWALCovered(filepath.Join(abs, "wal"), cf.LSN); err != nil {
		return nil, nil, err
	}
	var out []CommittedTable
	for _, id := range sortedTableIDs(cf.Catalog) {
		def := cf.Catalog.Tables[id]
		// The folder keeps the schema the table was created in; a table
		// that never flushed has none.
		tdirs, err := filepath.Glob(filepath.Join(abs, "tables", "*", strconv.FormatUint(id, 10)))
		if err != nil || len(tdirs) > 1 {
			return nil, nil, fmt.Errorf("table %s.%s (id %d) has %d folders", def.Schema, def.Name, id, len(tdirs))
		}
		var segs []*segment
		var deleted *roaring64.Bitmap
		if len(tdirs) == 1 {
			if _, segs, deleted, err = readManifest(tdirs[0]); err != nil {
				return nil, nil, err
			}
		}
		t, err := committedTable(def, segs, deleted, nil, nil, nil, nil)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, t)
	}
	return cf.Catalog, out, nil
}

// sortedTableIDs lists the IDs of cat's tables, ascending.
func sortedTableIDs(cat *catalog.Catalog) []uint64 {
	ids := make([]uint64, 0, len(cat.Tables))
	for id := range cat.Tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// committedTable describes table def of segments segs, tail batches tail
// and deleted row IDs deleted (nil: none); keyOf, when set, gives the
// segments' object keys. A segment's deleted positions are taken from
// known when the deleted IDs in its range are those they were found for,
// and found otherwise (reading the segment's row IDs); when found is not
// nil, each segment's go into it, for the next call's known.
func committedTable(def *catalog.TableDef, segs []*segment, deleted *roaring64.Bitmap, tail []*tailBatch, keyOf func(string) (string, error),
	known, found map[*segment]segmentDeletes) (CommittedTable, error) {
	t := CommittedTable{Def: def}
	isDeleted := func(id int64) bool { return deleted != nil && deleted.Contains(uint64(id)) }
	for _, s := range segs {
		cs := CommittedSegment{Path: s.path, Rows: s.rows, Bytes: s.bytes, Columns: map[int]string{}, seg: s}
		if keyOf != nil {
			key, err := keyOf(s.path)
			if err != nil {
				return t, err
			}
			cs.Key = key
		}
		for _, c := range s.columns {
			cs.Columns[c.ID] = c.Name
		}
		if deleted != nil && (deleted.Contains(uint64(s.minRow)) || deleted.Rank(uint64(s.maxRow)) > deleted.Rank(uint64(s.minRow))) {
			inRange := roaring64.New()
			inRange.AddRange(uint64(s.minRow), uint64(s.maxRow)+1)
			inRange.And(deleted)
			if k, ok := known[s]; ok && k.ids.Equals(inRange) {
				cs.DeletedPositions = k.positions
			} else {
				var err error
				if cs.DeletedPositions, err = deletedPositions(s, isDeleted); err != nil {
					return t, err
				}
			}
			if found != nil {
				found[s] = segmentDeletes{ids: inRange, positions: cs.DeletedPositions}
			}
		}
		t.Segments = append(t.Segments, cs)
	}
	specs := segmentSpecs(def)
	for _, b := range tail {
		cb := CommittedBatch{MinLSN: b.minLSN, LSN: b.lsn, Rows: int64(b.n), b: b, specs: specs}
		for i, id := range b.rowIDs.Int64Values() {
			if isDeleted(id) {
				cb.DeletedPositions = append(cb.DeletedPositions, int64(i))
			}
		}
		t.Tail = append(t.Tail, cb)
	}
	return t, nil
}

// segmentDeletes are the positions of a segment's deleted rows, found for
// the deleted row IDs ids of the segment's range.
type segmentDeletes struct {
	ids       *roaring64.Bitmap
	positions []int64
}

// deletedPositions lists the positions in seg's file of the rows whose
// IDs isDeleted reports.
func deletedPositions(seg *segment, isDeleted func(int64) bool) ([]int64, error) {
	sf, err := openSegment(seg)
	if err != nil {
		return nil, err
	}
	defer sf.close()
	var out []int64
	pos := int64(0)
	for g := 0; g < sf.numRowGroups(); g++ {
		ids, err := sf.readRowIDs(g)
		if err != nil {
			return nil, err
		}
		for _, id := range ids.Int64Values() {
			if isDeleted(id) {
				out = append(out, pos)
			}
			pos++
		}
		ids.Release()
	}
	return out, nil
}

// errNotCheckpointed reports a write-ahead log with records past
// catalog.json.
var errNotCheckpointed = errors.New("the data directory has commits that are only in its write-ahead log: start the server and stop it cleanly (or run CHECKPOINT) first")

// checkWALCovered fails with errNotCheckpointed when a record in the WAL
// files of walDir is newer than LSN lsn.
func checkWALCovered(walDir string, lsn uint64) error {
	files, err := listWALFiles(walDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, f := range files {
		_, _, err := readWALFile(f.path, func(p []byte) error {
			rec, err := decodeWALRecord(p)
			if err != nil {
				return err
			}
			if rec.lsn > lsn {
				return errNotCheckpointed
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
