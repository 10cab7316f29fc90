package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/textindex"
)

// BM25 text indexes. Every text column (text, varchar, char, name) is
// indexed, whether or not the user created an index: per segment, an
// inverted index written next to the Parquet file when a flush or a
// compaction writes it, or in the background after the commit of a
// transaction that spilled it (sidebuild.go) (seg-000042.bm25, tmp +
// fsync + rename like the segment; built from the segment when missing
// or corrupt), and per
// in-memory batch one built on first use. Both are textUnits: immutable
// rows with a row ID -> position index. Deleted rows are not removed
// from a unit; their contribution to the statistics is computed once per
// deleted-row set the unit is read with (unitDel), incrementally when the
// set only grew, so queries stay O(query terms) per unit.

// ErrNoTextIndex is returned by TextStats and TextSearch for a column that
// has no text index (not a text column, or Options.DisableTextIndex): the
// caller computes what it needs from a Scan instead.
var ErrNoTextIndex = errors.New("storage: column has no text index")

// textIndexExt is the extension of a segment's text index file.
const textIndexExt = ".bm25"

// textIndexMagic starts a text index file (format version 1).
var textIndexMagic = []byte("CAIRNBM25\x01")

// textColumn reports whether columns of type t are text indexed.
func textColumn(t types.T) bool { return t.IsString() }

// textIndexPath is the text index file of the segment at segPath.
func textIndexPath(segPath string) string {
	return strings.TrimSuffix(segPath, ".parquet") + textIndexExt
}

// sidecarOfListed reports whether name is the text index or a trigram
// index of a segment in listed (file names), or a vector index or raw
// vector file of one that a key in vecKeys uses.
func sidecarOfListed(listed []string, vecKeys map[string]bool, name string) bool {
	if seg, key, ok := vecSidecarOf(name); ok {
		return vecKeys[key] && slices.Contains(listed, seg)
	}
	if seg, ok := trgmSidecarOf(name); ok {
		return slices.Contains(listed, seg)
	}
	base, ok := strings.CutSuffix(name, textIndexExt)
	return ok && slices.Contains(listed, base+".parquet")
}

// forgetFile drops what is kept about a removed segment file (or every
// file under a removed folder): its cached columns and its text index
// file (pinMu held).
func (db *DB) forgetFile(path string, dir bool) {
	if dir {
		db.cache.dropDir(path)
		db.forgetVectorIndexes(strings.TrimSuffix(path, "/") + "/")
		return
	}
	if strings.HasSuffix(path, ".parquet") {
		db.cache.dropPath(path)
		if err := os.Remove(textIndexPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("removing obsolete file", "path", textIndexPath(path), "err", err)
		}
		db.removeVecIndexFiles(path)
		db.forgetVectorIndexes(path + "|")
		db.removeTrgmIndexFiles(path)
	}
}

// textUnit is the text index of an immutable set of rows (a segment or an
// in-memory batch): per text column an inverted index over the rows'
// positions, and the row IDs of those positions.
type textUnit struct {
	pos *rowPositions
	// build indexes a column the unit has no index for yet; nil when the
	// rows lack the column (all NULL).
	build func(colID int) (*textindex.Index, error)

	mu   sync.Mutex
	cols map[int]*textindex.Index // by column ID; nil entries: no such column
	dels []*unitDel               // recent deletion states, newest first
}

// maxUnitDels is how many deletion states a unit remembers (snapshots of
// concurrent transactions may differ).
const maxUnitDels = 4

// index returns the unit's index of column colID (nil: the rows lack the
// column).
func (u *textUnit) index(colID int) (*textindex.Index, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if ix, ok := u.cols[colID]; ok {
		return ix, nil
	}
	ix, err := u.build(colID)
	if err != nil {
		return nil, err
	}
	u.cols[colID] = ix
	return ix, nil
}

// unitDel is which positions of a unit one deleted-row set removes, and
// per column what those rows contributed to the statistics.
type unitDel struct {
	del     *roaring64.Bitmap
	inRange uint64   // values of del within the unit's row ID range
	offs    []uint32 // deleted positions, ascending
	bits    []uint64 // the same as a bitset
	cols    map[int]*colDel
}

// colDel is what the deleted rows of a unit contributed to a column's
// statistics: documents, tokens and per term ID documents.
type colDel struct {
	docs, tokens int64
	df           []int32
}

func (d *unitDel) has(off uint32) bool {
	return d != nil && d.bits[off>>6]&(1<<(off&63)) != 0
}

// deletions returns which of the unit's rows del removes (nil: none).
// With remember, the result is kept for later calls with the same
// (immutable) set, and a later set that only adds to it is computed from
// it; del must then never change.
func (u *textUnit) deletions(del *roaring64.Bitmap, remember bool) *unitDel {
	p := u.pos
	if del == nil || del.IsEmpty() || p.max < p.min || p.min < 0 || !rangeHasAny(del, uint64(p.min), uint64(p.max)) {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var prev *unitDel
	if remember {
		for _, d := range u.dels {
			if d.del == del {
				return d
			}
		}
		if len(u.dels) > 0 {
			prev = u.dels[0]
		}
	}
	var fresh []uint32
	var inRange, inPrev uint64
	collect := func(skipPrev bool) {
		it := del.Iterator()
		it.AdvanceIfNeeded(uint64(p.min))
		for it.HasNext() {
			v := it.Next()
			if v > uint64(p.max) {
				break
			}
			inRange++
			if skipPrev && prev.del.Contains(v) {
				inPrev++
				continue
			}
			if off, ok := p.find(int64(v)); ok {
				fresh = append(fresh, uint32(off))
			}
		}
	}
	collect(prev != nil)
	d := &unitDel{del: del, inRange: inRange, cols: map[int]*colDel{}}
	incremental := prev != nil && inPrev == prev.inRange
	if prev != nil && !incremental {
		fresh, inRange = fresh[:0], 0
		collect(false)
		d.inRange = inRange
	}
	slices.Sort(fresh)
	if incremental {
		d.bits = slices.Clone(prev.bits)
		d.offs = make([]uint32, 0, len(prev.offs)+len(fresh))
		d.offs = append(d.offs, prev.offs...)
		d.offs = append(d.offs, fresh...)
		slices.Sort(d.offs)
	} else {
		d.bits = make([]uint64, (len(p.ids)+63)/64)
		d.offs = fresh
	}
	for _, off := range fresh {
		d.bits[off>>6] |= 1 << (off & 63)
	}
	if incremental {
		for id, pc := range prev.cols {
			ix := u.cols[id]
			if ix == nil {
				continue
			}
			c := &colDel{docs: pc.docs, tokens: pc.tokens, df: slices.Clone(pc.df)}
			c.add(ix, fresh)
			d.cols[id] = c
		}
	}
	if remember {
		u.dels = append([]*unitDel{d}, u.dels[:min(len(u.dels), maxUnitDels-1)]...)
	}
	return d
}

// colDel returns what d's rows contributed to column colID (index ix).
func (u *textUnit) colDel(d *unitDel, colID int, ix *textindex.Index) *colDel {
	if d == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if c := d.cols[colID]; c != nil {
		return c
	}
	c := &colDel{df: make([]int32, ix.NumTerms())}
	c.add(ix, d.offs)
	d.cols[colID] = c
	return c
}

// add accounts for the rows at offs.
func (c *colDel) add(ix *textindex.Index, offs []uint32) {
	for _, off := range offs {
		n, null := ix.Len(int(off))
		if null {
			continue
		}
		c.docs++
		c.tokens += int64(n)
		for _, t := range ix.RowTerms(int(off)) {
			c.df[t]++
		}
	}
}

// lazyTextUnit is a tail batch's text unit, built on first use.
type lazyTextUnit struct {
	once sync.Once
	u    *textUnit
}

// textUnit returns the batch's text unit.
func (b *tailBatch) textUnit() *textUnit {
	b.text.once.Do(func() {
		b.text.u = &textUnit{pos: newRowPositions(b.rowIDs.Int64Values()), cols: map[int]*textindex.Index{},
			build: func(colID int) (*textindex.Index, error) {
				a := b.column(colID)
				if a == nil {
					return nil, nil
				}
				bl := textindex.NewBuilder()
				addText(bl, a)
				return bl.Build(), nil
			}}
	})
	return b.text.u
}

// addText adds the rows of a string column to an index builder (NULLs
// for any other array).
func addText(b *textindex.Builder, a arrow.Array) {
	s, ok := a.(*array.String)
	if !ok {
		b.AddNulls(a.Len())
		return
	}
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AddNull()
		} else {
			b.Add(s.Value(i))
		}
	}
}

// segText returns seg's text unit: from its .bm25 file the first time,
// rebuilt from the segment (and the file rewritten) when the file is
// missing or corrupt. def names the text columns to index on a rebuild.
func (db *DB) segText(seg *segment, def *catalog.TableDef) (*textUnit, error) {
	x := &seg.x
	x.mu.Lock()
	u := x.text
	x.mu.Unlock()
	if u != nil {
		return u, nil
	}
	x.textMu.Lock()
	defer x.textMu.Unlock()
	x.mu.Lock()
	u = x.text
	x.mu.Unlock()
	if u != nil {
		return u, nil
	}
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return nil, err
	}
	cols, err := readTextIndexFile(seg)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			db.log.Warn("rebuilding text index", "file", textIndexPath(seg.path), "err", err)
		}
		cols = map[int]*textindex.Index{}
		for _, c := range def.Columns {
			if !textColumn(c.Type) {
				continue
			}
			if _, ok := seg.columnName(c.ID); !ok {
				continue
			}
			ix, err := db.buildSegText(&files, seg, c.ID)
			if err != nil {
				return nil, err
			}
			cols[c.ID] = ix
		}
		if err := writeTextIndexFile(seg, cols); err != nil {
			db.log.Warn("writing text index", "file", textIndexPath(seg.path), "err", err)
		}
	}
	u = db.newSegTextUnit(seg, pos, cols)
	x.mu.Lock()
	x.text = u
	x.mu.Unlock()
	return u, nil
}

// newSegTextUnit makes the text unit of seg from indexes of its columns.
func (db *DB) newSegTextUnit(seg *segment, pos *rowPositions, cols map[int]*textindex.Index) *textUnit {
	return &textUnit{pos: pos, cols: cols, build: func(colID int) (*textindex.Index, error) {
		if _, ok := seg.columnName(colID); !ok {
			return nil, nil
		}
		var files segReader
		defer files.close()
		return db.buildSegText(&files, seg, colID)
	}}
}

// buildSegText indexes text column colID of seg (read through the column
// cache).
func (db *DB) buildSegText(files *segReader, seg *segment, colID int) (*textindex.Index, error) {
	groups, _, err := db.groupsOf(seg)
	if err != nil {
		return nil, err
	}
	b := textindex.NewBuilder()
	for g := range groups {
		a, err := db.column(files, seg, g, colID, arrow.BinaryTypes.String)
		if err != nil {
			return nil, err
		}
		addText(b, a)
		a.Release()
	}
	return b.Build(), nil
}

// writeTextIndexFile writes seg's text index file: magic; the segment's
// row count, first and last row ID and file size (zig-zag varints) to tie
// the file to it; the number of columns; per column its ID and index
// (textindex encoding); a CRC-32C of everything before it. The file is
// written to a temporary name, fsynced and renamed. If the segment was
// removed meanwhile, so is the file.
func writeTextIndexFile(seg *segment, cols map[int]*textindex.Index) error {
	buf := sidecarHead(textIndexMagic, seg)
	ids := make([]int, 0, len(cols))
	for id, ix := range cols {
		if ix != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	for _, id := range ids {
		buf = binary.AppendUvarint(buf, uint64(id))
		buf = cols[id].AppendBinary(buf)
	}
	return writeSidecar(textIndexPath(seg.path), seg, buf)
}

// readTextIndexFile reads seg's text index file; an error wrapping
// os.ErrNotExist when there is none.
func readTextIndexFile(seg *segment) (map[int]*textindex.Index, error) {
	path := textIndexPath(seg.path)
	body, err := readSidecar(path, "text index", textIndexMagic, seg)
	if err != nil {
		return nil, err
	}
	corrupt := func(why string) error { return fmt.Errorf("corrupt text index %s: %s", path, why) }
	n, k := binary.Uvarint(body)
	if k <= 0 || n > uint64(len(body)) {
		return nil, corrupt("bad column count")
	}
	body = body[k:]
	cols := map[int]*textindex.Index{}
	for i := uint64(0); i < n; i++ {
		id, k := binary.Uvarint(body)
		if k <= 0 || id > 1<<31 {
			return nil, corrupt("bad column ID")
		}
		ix, rest, err := textindex.Decode(body[k:])
		if err != nil {
			return nil, corrupt(err.Error())
		}
		if int64(ix.Rows()) != seg.rows {
			return nil, corrupt("row count mismatch")
		}
		cols[int(id)] = ix
		body = rest
	}
	if len(body) != 0 {
		return nil, corrupt("trailing bytes")
	}
	return cols, nil
}
