package storage

// Trigram indexes (pg_trgm's gin_trgm_ops and gist_trgm_ops, pg_deeplake's
// exact_text): per immutable segment and indexed column, a trigram
// posting index (storage/trgmindex) persisted beside the segment
// (<segment>.c<column ID>.trgm, in the sidecar frame of sidecar.go). A
// flush or compaction builds it as it writes the segment, CREATE INDEX
// builds it for the segments that exist, and a search builds it for a
// segment that lacks it (its file missing or corrupt). The index depends
// only on the segment's rows, so every trigram index of a column shares
// it; its files go when the last such index is dropped. A search
// intersects postings per segment, drops deleted rows through the same
// bitmaps scans use, and checks the unflushed tail and the transaction's
// own inserts row by row: it returns a superset of the rows matching the
// pattern, never fewer, which the caller rechecks exactly.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/trgmindex"
)

// trgmIndexExt ends the name of a segment's trigram index file.
const trgmIndexExt = ".trgm"

// trgmIndexMagic starts a trigram index file.
var trgmIndexMagic = []byte("CAIRNTG1")

// trgmIndexPath is the trigram index file of column colID of the segment
// at segPath (seg-000042.parquet: seg-000042.c7.trgm).
func trgmIndexPath(segPath string, colID int) string {
	return strings.TrimSuffix(segPath, ".parquet") + ".c" + strconv.Itoa(colID) + trgmIndexExt
}

// trgmSidecarOf returns the segment file name a trigram index file name
// belongs to.
func trgmSidecarOf(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, trgmIndexExt)
	if !ok {
		return "", false
	}
	dot := strings.LastIndexByte(base, '.')
	if dot < 0 {
		return "", false
	}
	return base[:dot] + ".parquet", true
}

// TrigramSearch returns the IDs of the rows tx sees whose text column
// colID of table tableID holds every trigram of keys (trgmindex.LikeKeys
// of a pattern: a superset of the rows the pattern matches), in the order
// a scan returns them. NULLs are never found. Segments are searched through their trigram index, built first
// where it is missing; the rest row by row.
func (tx *Tx) TrigramSearch(ctx context.Context, tableID uint64, colID int, keys []trgmindex.Key) (ids []int64, err error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	_, col := def.ColumnByID(colID)
	if col == nil {
		return nil, pgerr.New(pgerrcode.UndefinedColumn, "column with ID %d of %q does not exist", colID, def.Name)
	}
	if !textColumn(col.Type) {
		return nil, pgerr.New(pgerrcode.InternalError, "trigram search of column %q of type %s", col.Name, col.Type)
	}
	if ts != nil {
		gone := func(id int64) bool {
			return ts.deleted.Contains(uint64(id)) || tt != nil && tt.deletes.Contains(uint64(id))
		}
		for _, seg := range ts.segments {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if ids, err = tx.db.trigramSegment(ids, seg, def, colID, keys, gone); err != nil {
				return nil, err
			}
		}
		for _, b := range ts.tail {
			ids = holdsBatch(ids, b, colID, keys, gone)
		}
	}
	if tt != nil {
		ownGone := func(id int64) bool { return tt.ownDel.Contains(uint64(id)) }
		for _, seg := range tt.spilled {
			if ids, err = tx.db.trigramSegment(ids, seg, def, colID, keys, ownGone); err != nil {
				return nil, err
			}
		}
		for _, b := range tt.inserts {
			ids = holdsBatch(ids, b, colID, keys, ownGone)
		}
	}
	return ids, nil
}

// holdsRows appends the IDs of the rows of a (a text column) that hold
// every trigram of keys, unless gone says they were deleted.
func holdsRows(ids []int64, a arrow.Array, rowID func(i int) int64, keys []trgmindex.Key, gone func(int64) bool) []int64 {
	s, ok := a.(*array.String)
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			continue
		}
		// A text array of another layout: every row is a candidate.
		if ok && !trgmindex.Holds(s.Value(i), keys) {
			continue
		}
		if id := rowID(i); !gone(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// holdsBatch is holdsRows over an in-memory batch.
func holdsBatch(ids []int64, b *tailBatch, colID int, keys []trgmindex.Key, gone func(int64) bool) []int64 {
	for i, id := range b.colIDs {
		if id == colID {
			return holdsRows(ids, b.cols[i], func(r int) int64 { return b.rowIDs.Value(r) }, keys, gone)
		}
	}
	return ids // the column was added after these rows: all NULL
}

// trigramSegment appends the candidates of seg: through its index, or
// row by row where it has none (its build failed).
func (db *DB) trigramSegment(ids []int64, seg *segment, def *catalog.TableDef, colID int, keys []trgmindex.Key, gone func(int64) bool) ([]int64, error) {
	if _, ok := seg.columnName(colID); !ok {
		return ids, nil // the segment predates the column: all NULL
	}
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return nil, err
	}
	if ix := db.segTrigramIndex(seg, def, colID); ix != nil {
		it := ix.Candidates(keys).Iterator()
		for it.HasNext() {
			if id := pos.ids[it.Next()]; !gone(id) {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	err = db.eachTextGroup(&files, seg, def, colID, func(a arrow.Array, start int64) {
		ids = holdsRows(ids, a, func(i int) int64 { return pos.ids[start+int64(i)] }, keys, gone)
	})
	return ids, err
}

// eachTextGroup calls f with column colID of each row group of seg and
// the position of the group's first row.
func (db *DB) eachTextGroup(files *segReader, seg *segment, def *catalog.TableDef, colID int, f func(a arrow.Array, start int64)) error {
	groups, starts, err := db.groupsOf(seg)
	if err != nil {
		return err
	}
	_, col := def.ColumnByID(colID)
	for g := range groups {
		a, err := db.column(files, seg, g, colID, col.Type.Arrow())
		if err != nil {
			return err
		}
		f(a, starts[g])
		a.Release()
	}
	return nil
}

// segTrigramIndex returns seg's trigram index of column colID: in memory,
// read from its file, or built (and written) now; nil when it cannot be
// built (the segment is then searched row by row).
func (db *DB) segTrigramIndex(seg *segment, def *catalog.TableDef, colID int) *trgmindex.Index {
	x := &seg.x
	x.trgmMu.Lock()
	defer x.trgmMu.Unlock()
	if ix, ok := x.trgm[colID]; ok {
		return ix
	}
	ix, err := readTrgmIndexFile(seg, colID)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("rebuilding trigram index", "file", trgmIndexPath(seg.path, colID), "err", err)
		}
		if ix, err = db.buildTrgmIndex(seg, def, colID); err != nil {
			db.log.Warn("building trigram index", "file", seg.path, "err", err)
			ix = nil
		}
	}
	if x.trgm == nil {
		x.trgm = map[int]*trgmindex.Index{}
	}
	x.trgm[colID] = ix
	return ix
}

// buildTrgmIndex builds and writes seg's trigram index of column colID.
// A panic is its error.
func (db *DB) buildTrgmIndex(seg *segment, def *catalog.TableDef, colID int) (ix *trgmindex.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			ix, err = nil, fmt.Errorf("panic building a trigram index: %v", r)
		}
	}()
	var files segReader
	defer files.close()
	b := trgmindex.NewBuilder()
	ok := true
	err = db.eachTextGroup(&files, seg, def, colID, func(a arrow.Array, _ int64) {
		ok = ok && addTrigrams(b, a)
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("column %d of segment %s is not a string array", colID, seg.path)
	}
	ix = b.Build()
	if ix.Rows() != int(seg.rows) {
		return nil, fmt.Errorf("segment %s: %d rows indexed of %d", seg.path, ix.Rows(), seg.rows)
	}
	if err := writeTrgmIndexFile(seg, colID, ix); err != nil {
		return ix, err
	}
	db.counters.trigramBuilds.Add(1)
	return ix, nil
}

// addTrigrams adds the rows of a to b; false when a is not a string
// array (then b is of no use).
func addTrigrams(b *trgmindex.Builder, a arrow.Array) bool {
	s, ok := a.(*array.String)
	if !ok {
		return false
	}
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AddNull()
		} else {
			b.Add(s.Value(i))
		}
	}
	return true
}

// writeTrgmIndexFile writes seg's trigram index file of column colID.
func writeTrgmIndexFile(seg *segment, colID int, ix *trgmindex.Index) error {
	buf, err := ix.Append(sidecarHead(trgmIndexMagic, seg))
	if err != nil {
		return err
	}
	return writeSidecar(trgmIndexPath(seg.path, colID), seg, buf)
}

// readTrgmIndexFile reads seg's trigram index file of column colID; an
// error wrapping os.ErrNotExist when there is none.
func readTrgmIndexFile(seg *segment, colID int) (*trgmindex.Index, error) {
	path := trgmIndexPath(seg.path, colID)
	body, err := readSidecar(path, "trigram index", trgmIndexMagic, seg)
	if err != nil {
		return nil, err
	}
	ix, err := trgmindex.Read(body)
	if err == nil && ix.Rows() != int(seg.rows) {
		err = errors.New("row count differs from the segment's")
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt trigram index %s: %w", path, err)
	}
	return ix, nil
}

// BuildTrigramIndexes makes every segment of table tableID indexed for
// every trigram index the catalog has on it, flushing the table's
// unflushed rows into segments first: CREATE INDEX calls it once the
// index is committed, so that it returns with the index built, as in
// PostgreSQL. Segments are indexed in parallel; other sessions read and
// write the table meanwhile. It stops early when ctx ends (a search
// builds what is left). indexed, when not nil, is told the rows of each
// segment once it is indexed (CREATE INDEX's progress); it must be cheap
// and safe to call concurrently.
func (db *DB) BuildTrigramIndexes(ctx context.Context, tableID uint64, indexed func(rows int64)) error {
	cols := db.Catalog().TrigramColumns(tableID)
	if len(cols) == 0 {
		return nil
	}
	if err := db.flushTable(tableID, true); err != nil {
		return err
	}
	def := db.Catalog().TableByID(tableID)
	ts := db.published.Load().tables[tableID]
	if def == nil || ts == nil {
		return nil
	}
	if indexed == nil {
		indexed = func(int64) {}
	}
	jobs := make(chan *segment)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seg := range jobs {
				for _, c := range cols {
					if _, ok := seg.columnName(c); ok {
						db.segTrigramIndex(seg, def, c)
					}
				}
				indexed(seg.rows)
			}
		}()
	}
	defer wg.Wait()
	defer close(jobs)
	for _, seg := range ts.segments {
		select {
		case jobs <- seg:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// dropUnusedTrigramFiles removes the trigram index files of the columns
// that a trigram index covered in catalog before and none covers in after
// (a DDL commit).
func (db *DB) dropUnusedTrigramFiles(before, after *catalog.Catalog) {
	for id := range before.Tables {
		if len(before.TrigramColumns(id)) == 0 || after.Tables[id] == nil {
			continue
		}
		for _, c := range before.TrigramColumns(id) {
			if !slices.Contains(after.TrigramColumns(id), c) {
				db.dropTrigramFiles(after, id)
				break
			}
		}
	}
}

// dropTrigramFiles removes the trigram index files (and the in-memory
// indexes) of the columns of table tableID that no trigram index of
// catalog cat covers any more (DROP INDEX committed).
func (db *DB) dropTrigramFiles(cat *catalog.Catalog, tableID uint64) {
	ts := db.published.Load().tables[tableID]
	if ts == nil {
		return
	}
	keep := cat.TrigramColumns(tableID)
	for _, seg := range ts.segments {
		x := &seg.x
		x.trgmMu.Lock()
		for id := range x.trgm {
			if !slices.Contains(keep, id) {
				delete(x.trgm, id)
			}
		}
		x.trgmMu.Unlock()
		files, _ := filepath.Glob(strings.TrimSuffix(seg.path, ".parquet") + ".c*" + trgmIndexExt)
		for _, f := range files {
			id, err := strconv.Atoi(strings.TrimSuffix(f[strings.LastIndex(f, ".c")+2:], trgmIndexExt))
			if err == nil && slices.Contains(keep, id) {
				continue
			}
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				db.log.Warn("removing obsolete file", "path", f, "err", err)
			}
		}
	}
}

// removeTrgmIndexFiles removes every trigram index file of the segment at
// segPath (it was compacted away or dropped).
func (db *DB) removeTrgmIndexFiles(segPath string) {
	files, _ := filepath.Glob(strings.TrimSuffix(segPath, ".parquet") + ".c*" + trgmIndexExt)
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("removing obsolete file", "path", f, "err", err)
		}
	}
}
