package storage

// Equality lookups through btree and hash indexes (catalog.KeyIndexes):
// `WHERE session_id = $1` over a table of agent traces, or
// `WHERE metadata ->> 'ref_doc_id' = $1` with an index on that
// expression, reads the rows holding the value instead of scanning. Per
// immutable run of rows — a segment, a committed tail batch — an
// in-memory key index (storage/keyindex) maps the encoded keys of the
// index (its columns' values, or its expressions' computed by
// ComputeIndexKey) to the rows' positions. A segment's is built when the
// segment is written (flush, compaction) or when CREATE INDEX runs, and
// on the first lookup that finds it missing (after a restart: nothing is
// kept on disk, the index depends only on the segment's rows); a tail
// batch's on the first lookup, once the batch is large enough for the
// index to pay. Smaller batches and the transaction's own inserts are
// checked row by row. Deleted rows are dropped through the bitmaps scans
// use, so a lookup returns exactly the rows the snapshot holds with the
// key; the caller still rechecks its whole condition.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/keyindex"
)

// keyIndexMinRows is the size from which a tail batch gets a key index
// of its own; smaller ones are checked row by row (as cheap as building
// an index for them).
const keyIndexMinRows = 512

// keyIndexes holds the key indexes of one run of rows by index columns
// (keyIndexName); a nil entry: it could not be built.
type keyIndexes struct {
	mu sync.Mutex // serialises building them
	m  map[string]*keyindex.Index
}

// get returns the index over columns name, built by build the first time.
func (c *keyIndexes) get(name string, build func() *keyindex.Index) *keyindex.Index {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix, ok := c.m[name]; ok {
		return ix
	}
	ix := build()
	if c.m == nil {
		c.m = map[string]*keyindex.Index{}
	}
	c.m[name] = ix
	return ix
}

// bytes is the memory the indexes take.
func (c *keyIndexes) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, ix := range c.m {
		if ix != nil {
			n += ix.Bytes()
		}
	}
	return n
}

// keep drops the indexes whose columns are not among names.
func (c *keyIndexes) keep(names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.m {
		if !slices.Contains(names, name) {
			delete(c.m, name)
		}
	}
}

// keySource is where a key index's keys come from: the values of its
// columns, or its expressions computed over the columns they read.
type keySource struct {
	cat  *catalog.Catalog
	def  *catalog.TableDef
	ki   catalog.KeyIndex
	ts   []types.T // the keys' types, in key order
	name string    // the index's name in keyIndexes
}

// newKeySource returns the key source of ki on def; an error when an
// ALTER TABLE changed the columns since the caller's plan, or the index's
// key types are unknown.
func newKeySource(cat *catalog.Catalog, def *catalog.TableDef, ki catalog.KeyIndex) (*keySource, error) {
	for _, id := range ki.Columns {
		if _, c := def.ColumnByID(id); c == nil {
			return nil, errAlteredMeanwhile(def)
		}
	}
	ts := ki.KeyTypes(def)
	if ts == nil {
		return nil, pgerr.NotSupported("index %q has keys of unrecorded types", ki.Name)
	}
	s := &keySource{cat: cat, def: def, ki: ki, ts: ts}
	// The name: indexes of the same columns share it; one whose keys an
	// ALTER TABLE changed the type of is not used after.
	var b strings.Builder
	if ki.Computed() {
		b.WriteString("x:" + ki.Name + ":" + ki.Def.Expr)
		for _, k := range ki.Def.Keys {
			b.WriteString("|" + strconv.Itoa(k.Column) + ":" + k.Expr)
		}
		b.WriteByte('/')
	}
	for i, c := range ki.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
	}
	for _, t := range ts {
		b.WriteString(":" + t.String())
	}
	s.name = b.String()
	return s, nil
}

// keys returns the keys of the n rows whose columns cols are (the
// index's Columns, nil for a column the rows predate: NULL), each array
// holding a reference the caller releases.
func (s *keySource) keys(cols []arrow.Array, n int) ([]arrow.Array, error) {
	if !s.ki.Computed() {
		out := make([]arrow.Array, len(cols))
		for i, a := range cols {
			if a != nil {
				a.Retain()
				out[i] = a
			}
		}
		return out, nil
	}
	if ComputeIndexKey == nil {
		return nil, pgerr.NotSupported("index %q on expressions without an expression evaluator", s.ki.Name)
	}
	full := make([]arrow.Array, len(cols))
	for i, a := range cols {
		if a == nil {
			_, c := s.def.ColumnByID(s.ki.Columns[i])
			a = nullColumn(c.Type.Arrow(), n)
			defer a.Release()
		}
		full[i] = a
	}
	return ComputeIndexKey(s.cat, s.def, s.ki.Def, s.ki.Columns, full)
}

// appendIndexKey encodes row i of the key columns cols (nil where the rows
// predate the column: NULL) as the key indexes hold it: each value as
// appendKeyValue encodes unique keys, a NULL as a zero byte, which starts
// no value's encoding, so that it matches nothing and a prefix of the
// encoding is the encoding of the leading columns.
func appendIndexKey(buf []byte, ts []types.T, cols []arrow.Array, i int) []byte {
	for k, a := range cols {
		if a == nil || a.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		buf = appendKeyValue(buf, ts[k], a, i)
	}
	return buf
}

// keyProbe is one KeySearch: the encoded leading-key values looked for.
type keyProbe struct {
	src      *keySource
	width    int      // how many leading keys the values give
	prefixes [][]byte // distinct, ascending
	set      map[string]bool
	buf      []byte
}

// matching appends to ids the IDs (rowIDs(i) of row i) of the n rows
// whose columns are cols that hold one of the values, unless gone says
// they were deleted: row by row, computing the keys of them all.
func (p *keyProbe) matching(ids []int64, cols []arrow.Array, n int, rowID func(i int) int64, gone func(int64) bool) ([]int64, error) {
	keys, err := p.src.keys(cols, n)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	lead := keys[:p.width]
	for i := 0; i < n; i++ {
		p.buf = appendIndexKey(p.buf[:0], p.src.ts[:p.width], lead, i)
		if p.set[string(p.buf)] {
			if id := rowID(i); !gone(id) {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// KeySearch returns the IDs of the rows tx sees whose leading keys of the
// key index ki (catalog.KeyIndexes) equal one row of keys: keys[k] holds
// values of key k, for the first len(keys) keys, one value to look for
// per row (x IN (1, 2) is two rows). A NULL in keys finds the rows whose
// key is NULL there (IS NULL): a caller looking for equal values leaves
// NULLs out, as they equal nothing. The IDs are in the order a scan
// returns the rows, each once.
func (tx *Tx) KeySearch(ctx context.Context, tableID uint64, ki catalog.KeyIndex, keys []arrow.Array) ([]int64, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	src, err := newKeySource(tx.cat, def, ki)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 || len(keys) > len(src.ts) {
		return nil, pgerr.New(pgerrcode.InternalError, "key search of %d values on an index of %d keys", len(keys), len(src.ts))
	}
	p := &keyProbe{src: src, width: len(keys), set: map[string]bool{}}
	var buf []byte
	for i := 0; i < keys[0].Len(); i++ {
		buf = appendIndexKey(buf[:0], src.ts, keys, i)
		if !p.set[string(buf)] {
			p.set[string(buf)] = true
			p.prefixes = append(p.prefixes, slices.Clone(buf))
		}
	}
	slices.SortFunc(p.prefixes, func(a, b []byte) int { return strings.Compare(string(a), string(b)) })
	var ids []int64
	if ts != nil {
		gone := func(id int64) bool {
			return ts.deleted.Contains(uint64(id)) || tt != nil && tt.deletes.Contains(uint64(id))
		}
		for _, seg := range ts.segments {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if ids, err = tx.db.keySearchSegment(ids, seg, p, gone); err != nil {
				return nil, err
			}
		}
		for _, b := range ts.tail {
			if ids, err = keySearchBatch(ids, b, p, gone, b.n >= keyIndexMinRows); err != nil {
				return nil, err
			}
		}
	}
	if tt != nil {
		ownGone := func(id int64) bool { return tt.ownDel.Contains(uint64(id)) }
		for _, seg := range tt.spilled {
			if ids, err = tx.db.keySearchSegment(ids, seg, p, ownGone); err != nil {
				return nil, err
			}
		}
		for _, b := range tt.inserts {
			if ids, err = keySearchBatch(ids, b, p, ownGone, false); err != nil {
				return nil, err
			}
		}
	}
	return ids, nil
}

// lookup appends the positions in ix of the rows holding one of p's
// values, ascending.
func (p *keyProbe) lookup(ix *keyindex.Index) []uint32 {
	var out []uint32
	for _, prefix := range p.prefixes {
		ix.Prefixed(prefix, func(pos []uint32) { out = append(out, pos...) })
	}
	if len(p.prefixes) > 1 || p.width < len(p.src.ts) {
		slices.Sort(out) // several keys: positions from each
	}
	return out
}

// keySearchSegment appends the rows of seg that p finds: through the
// segment's key index, built now if it is missing, or row by row where
// it cannot be built.
func (db *DB) keySearchSegment(ids []int64, seg *segment, p *keyProbe, gone func(int64) bool) ([]int64, error) {
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return nil, err
	}
	ix := seg.x.keys.get(p.src.name, func() *keyindex.Index { return db.buildSegKeyIndex(&files, seg, p.src) })
	if ix != nil {
		for _, at := range p.lookup(ix) {
			if id := pos.ids[at]; !gone(id) {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	groups, starts, err := db.groupsOf(seg)
	if err != nil {
		return nil, err
	}
	for g := range groups {
		cols, err := db.keyColumns(&files, seg, g, p.src)
		if err != nil {
			return nil, err
		}
		start := starts[g]
		ids, err = p.matching(ids, cols, int(groups[g]), func(i int) int64 { return pos.ids[start+int64(i)] }, gone)
		releaseAll(cols)
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// keyColumns returns row group g of seg's columns that src's keys come
// from (nil for a column the segment predates), each holding a
// reference the caller releases.
func (db *DB) keyColumns(files *segReader, seg *segment, g int, src *keySource) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(src.ki.Columns))
	for k, id := range src.ki.Columns {
		if _, ok := seg.columnName(id); !ok {
			continue
		}
		_, c := src.def.ColumnByID(id)
		a, err := db.column(files, seg, g, id, c.Type.Arrow())
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[k] = a
	}
	return out, nil
}

// buildSegKeyIndex builds seg's key index of src; nil when the segment
// cannot be read, its keys cannot be computed or its rows are not what
// its footer says.
func (db *DB) buildSegKeyIndex(files *segReader, seg *segment, src *keySource) *keyindex.Index {
	groups, _, err := db.groupsOf(seg)
	if err != nil {
		db.log.Warn("building key index", "file", seg.path, "err", err)
		return nil
	}
	var b keyindex.Builder
	for g := range groups {
		cols, err := db.keyColumns(files, seg, g, src)
		if err == nil {
			err = addKeyRows(&b, src, cols, int(groups[g]))
			releaseAll(cols)
		}
		if err != nil {
			db.log.Warn("building key index", "file", seg.path, "err", err)
			return nil
		}
	}
	ix := b.Build()
	if ix.Rows() != int(seg.rows) {
		db.log.Warn("building key index", "file", seg.path, "rows", ix.Rows(), "want", seg.rows)
		return nil
	}
	db.counters.keyIndexBuilds.Add(1)
	return ix
}

// addKeyRows adds to b the keys of the n rows whose columns are cols. A
// panic (an array of a layout its type does not have) is its error.
func addKeyRows(b *keyindex.Builder, src *keySource, cols []arrow.Array, n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("encoding keys: %v", r)
		}
	}()
	keys, err := src.keys(cols, n)
	if err != nil {
		return err
	}
	defer releaseAll(keys)
	for _, a := range keys {
		if a != nil && a.Len() < n {
			return fmt.Errorf("%d keys for %d rows", a.Len(), n)
		}
	}
	var buf []byte
	for i := 0; i < n; i++ {
		buf = appendIndexKey(buf[:0], src.ts, keys, i)
		b.Add(buf)
	}
	return nil
}

// keySearchBatch appends the rows of b that p finds: through the batch's
// key index when indexed (built on first use), else row by row.
func keySearchBatch(ids []int64, b *tailBatch, p *keyProbe, gone func(int64) bool, indexed bool) ([]int64, error) {
	rowIDs := b.rowIDs.Int64Values()
	cols := make([]arrow.Array, len(p.src.ki.Columns))
	for k, id := range p.src.ki.Columns {
		cols[k] = b.column(id)
	}
	if indexed {
		ix := b.keys.get(p.src.name, func() *keyindex.Index {
			var kb keyindex.Builder
			if addKeyRows(&kb, p.src, cols, b.n) != nil {
				return nil
			}
			return kb.Build()
		})
		if ix != nil {
			for _, at := range p.lookup(ix) {
				if id := rowIDs[at]; !gone(id) {
					ids = append(ids, id)
				}
			}
			return ids, nil
		}
	}
	return p.matching(ids, cols, b.n, func(i int) int64 { return rowIDs[i] }, gone)
}

// BuildKeyIndexes builds the key index of every segment of table tableID
// for each key index (catalog.KeyIndexes) that it lacks: CREATE INDEX
// calls it once the index is committed, so that the first lookup does not
// pay for it. It stops early when ctx ends (a lookup builds what is left).
func (db *DB) BuildKeyIndexes(ctx context.Context, tableID uint64) error {
	cat := db.Catalog()
	def := cat.TableByID(tableID)
	ts := db.published.Load().tables[tableID]
	if def == nil || ts == nil {
		return nil
	}
	for _, seg := range ts.segments {
		if err := ctx.Err(); err != nil {
			return err
		}
		db.buildSegKeyIndexes(seg, def, cat)
	}
	return nil
}

// warmKeyIndexes builds, in the background after Open, the key indexes of
// the segments of every table with a key index, so that the first lookups
// after a restart do not each pay for a segment's. It stops at Close. Not
// on object storage, where it would download every segment at start.
func (db *DB) warmKeyIndexes() {
	defer db.wg.Done()
	cat := db.Catalog()
	for id, ts := range db.published.Load().tables {
		def := cat.Tables[id]
		if def == nil || len(cat.KeyIndexes(id)) == 0 {
			continue
		}
		for _, seg := range ts.segments {
			select {
			case <-db.quit:
				return
			default:
			}
			db.backgroundStep("key index build", id, func() error {
				db.buildSegKeyIndexes(seg, def, cat)
				return nil
			})
		}
	}
}

// buildSegKeyIndexes builds seg's key indexes for the key indexes cat has
// on def's table (a segment just written, or CREATE INDEX).
func (db *DB) buildSegKeyIndexes(seg *segment, def *catalog.TableDef, cat *catalog.Catalog) {
	var files segReader
	defer files.close()
	for _, ki := range cat.KeyIndexes(def.ID) {
		src, err := newKeySource(cat, def, ki)
		if err != nil {
			continue
		}
		seg.x.keys.get(src.name, func() *keyindex.Index { return db.buildSegKeyIndex(&files, seg, src) })
	}
}

// dropUnusedKeyIndexes drops the in-memory key indexes no key index of
// after has any more (a DDL commit: DROP INDEX, ALTER TABLE ... DROP
// CONSTRAINT, a column's new type).
func (db *DB) dropUnusedKeyIndexes(before, after *catalog.Catalog) {
	for id := range before.Tables {
		if len(before.KeyIndexes(id)) == 0 {
			continue
		}
		var keep []string
		if def := after.Tables[id]; def != nil {
			for _, ki := range after.KeyIndexes(id) {
				if src, err := newKeySource(after, def, ki); err == nil {
					keep = append(keep, src.name)
				}
			}
		}
		ts := db.published.Load().tables[id]
		if ts == nil {
			continue
		}
		for _, seg := range ts.segments {
			seg.x.keys.keep(keep)
		}
	}
}
