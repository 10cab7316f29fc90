package storage

// Equality lookups through btree and hash indexes on plain columns
// (catalog.KeyIndexes): `WHERE session_id = $1` over a table of agent
// traces reads the rows holding the value instead of scanning the column.
// Per immutable run of rows — a segment, a committed tail batch — an
// in-memory key index (storage/keyindex) maps the encoded keys of the
// index's columns to the rows' positions. A segment's is built when the
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

// keyIndexName names the key index over columns cols of types ts
// ("3:text,5:integer"): indexes of the same columns share it, and one
// built before an ALTER TABLE changed a column's type is not used after.
func keyIndexName(cols []int, ts []types.T) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
		b.WriteByte(':')
		b.WriteString(ts[i].String())
	}
	return b.String()
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

// buildKeyIndex indexes n rows whose key columns cols holds. A panic (an
// array of an unexpected layout) is a nil index: the rows are then
// checked one by one.
func buildKeyIndex(n int, ts []types.T, cols []arrow.Array) (ix *keyindex.Index) {
	defer func() {
		if r := recover(); r != nil {
			ix = nil
		}
	}()
	var b keyindex.Builder
	var buf []byte
	for i := 0; i < n; i++ {
		buf = appendIndexKey(buf[:0], ts, cols, i)
		b.Add(buf)
	}
	return b.Build()
}

// keyColumnTypes returns the types of def's columns cols, or the error of
// a plan whose columns an ALTER TABLE changed since.
func keyColumnTypes(def *catalog.TableDef, cols []int) ([]types.T, error) {
	ts := make([]types.T, len(cols))
	for i, id := range cols {
		_, c := def.ColumnByID(id)
		if c == nil {
			return nil, errAlteredMeanwhile(def)
		}
		ts[i] = c.Type
	}
	return ts, nil
}

// keyProbe is one KeySearch: the encoded leading-column values looked for.
type keyProbe struct {
	ts       []types.T // the types of the index's columns
	cols     []int     // the index's column IDs
	name     string    // keyIndexName(cols)
	width    int       // how many leading columns the values give
	prefixes [][]byte  // distinct, ascending
	set      map[string]bool
	buf      []byte
}

// matches reports whether row i of the arrays of the leading columns
// holds one of the values.
func (p *keyProbe) matches(lead []arrow.Array, i int) bool {
	p.buf = appendIndexKey(p.buf[:0], p.ts[:p.width], lead, i)
	return p.set[string(p.buf)]
}

// KeySearch returns the IDs of the rows tx sees whose leading columns of
// cols (a key index's columns, catalog.KeyIndexes) equal one row of keys:
// keys[k] holds values of column cols[k], for the first len(keys)
// columns, one value to look for per row (x IN (1, 2) is two rows). A
// NULL in keys finds the rows with NULL there (IS NULL): a caller looking
// for equal values leaves NULLs out, as they equal nothing. The IDs are in
// the order a scan returns the rows, each once.
func (tx *Tx) KeySearch(ctx context.Context, tableID uint64, cols []int, keys []arrow.Array) ([]int64, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 || len(keys) > len(cols) {
		return nil, pgerr.New(pgerrcode.InternalError, "key search of %d values on an index of %d columns", len(keys), len(cols))
	}
	p := &keyProbe{cols: cols, width: len(keys), set: map[string]bool{}}
	if p.ts, err = keyColumnTypes(def, cols); err != nil {
		return nil, err
	}
	p.name = keyIndexName(cols, p.ts)
	var buf []byte
	for i := 0; i < keys[0].Len(); i++ {
		buf = appendIndexKey(buf[:0], p.ts, keys, i)
		if !p.set[string(buf)] {
			p.set[string(buf)] = true
			p.prefixes = append(p.prefixes, slices.Clone(buf))
		}
	}
	if len(p.prefixes) == 0 {
		return nil, nil
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
			if ids, err = tx.db.keySearchSegment(ids, seg, def, p, gone); err != nil {
				return nil, err
			}
		}
		for _, b := range ts.tail {
			ids = keySearchBatch(ids, b, p, gone, b.n >= keyIndexMinRows)
		}
	}
	if tt != nil {
		ownGone := func(id int64) bool { return tt.ownDel.Contains(uint64(id)) }
		for _, seg := range tt.spilled {
			if ids, err = tx.db.keySearchSegment(ids, seg, def, p, ownGone); err != nil {
				return nil, err
			}
		}
		for _, b := range tt.inserts {
			ids = keySearchBatch(ids, b, p, ownGone, false)
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
	if len(p.prefixes) > 1 || p.width < len(p.cols) {
		slices.Sort(out) // several keys: positions from each
	}
	return out
}

// keySearchSegment appends the rows of seg that p finds: through the
// segment's key index, built now if it is missing, or row by row where
// it cannot be built.
func (db *DB) keySearchSegment(ids []int64, seg *segment, def *catalog.TableDef, p *keyProbe, gone func(int64) bool) ([]int64, error) {
	var files segReader
	defer files.close()
	pos, err := db.positionsOf(&files, seg)
	if err != nil {
		return nil, err
	}
	ix := seg.x.keys.get(p.name, func() *keyindex.Index { return db.buildSegKeyIndex(&files, seg, def, p.cols, p.ts) })
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
		lead, err := db.keyColumns(&files, seg, g, def, p.cols[:p.width], p.ts)
		if err != nil {
			return nil, err
		}
		for i := int64(0); i < groups[g]; i++ {
			if p.matches(lead, int(i)) {
				if id := pos.ids[starts[g]+i]; !gone(id) {
					ids = append(ids, id)
				}
			}
		}
		releaseAll(lead)
	}
	return ids, nil
}

// keyColumns returns row group g of seg's columns cols (nil for a column
// the segment predates), each holding a reference the caller releases.
func (db *DB) keyColumns(files *segReader, seg *segment, g int, def *catalog.TableDef, cols []int, ts []types.T) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(cols))
	for k, id := range cols {
		if _, ok := seg.columnName(id); !ok {
			continue
		}
		a, err := db.column(files, seg, g, id, ts[k].Arrow())
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out[k] = a
	}
	return out, nil
}

// buildSegKeyIndex builds seg's key index over columns cols; nil when the
// segment cannot be read or its rows are not what its footer says.
func (db *DB) buildSegKeyIndex(files *segReader, seg *segment, def *catalog.TableDef, cols []int, ts []types.T) *keyindex.Index {
	groups, _, err := db.groupsOf(seg)
	if err != nil {
		db.log.Warn("building key index", "file", seg.path, "err", err)
		return nil
	}
	var b keyindex.Builder
	var buf []byte
	for g := range groups {
		arrays, err := db.keyColumns(files, seg, g, def, cols, ts)
		if err != nil {
			db.log.Warn("building key index", "file", seg.path, "err", err)
			return nil
		}
		ok := addKeyRows(&b, &buf, int(groups[g]), ts, arrays)
		releaseAll(arrays)
		if !ok {
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

// addKeyRows adds n rows of the key columns cols to b; false when a
// column's array is not of the layout its type has (a panic encoding it).
func addKeyRows(b *keyindex.Builder, buf *[]byte, n int, ts []types.T, cols []arrow.Array) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	for _, a := range cols {
		if a != nil && a.Len() < n {
			return false
		}
	}
	for i := 0; i < n; i++ {
		*buf = appendIndexKey((*buf)[:0], ts, cols, i)
		b.Add(*buf)
	}
	return true
}

// keySearchBatch appends the rows of b that p finds: through the batch's
// key index when indexed (built on first use), else row by row.
func keySearchBatch(ids []int64, b *tailBatch, p *keyProbe, gone func(int64) bool, indexed bool) []int64 {
	rowIDs := b.rowIDs.Int64Values()
	if indexed {
		ix := b.keys.get(p.name, func() *keyindex.Index {
			cols := make([]arrow.Array, len(p.cols))
			for k, id := range p.cols {
				cols[k] = b.column(id)
			}
			return buildKeyIndex(b.n, p.ts, cols)
		})
		if ix != nil {
			for _, at := range p.lookup(ix) {
				if id := rowIDs[at]; !gone(id) {
					ids = append(ids, id)
				}
			}
			return ids
		}
	}
	lead := make([]arrow.Array, p.width)
	for k, id := range p.cols[:p.width] {
		lead[k] = b.column(id)
	}
	for i := 0; i < b.n; i++ {
		if p.matches(lead, i) && !gone(rowIDs[i]) {
			ids = append(ids, rowIDs[i])
		}
	}
	return ids
}

// BuildKeyIndexes builds the key index of every segment of table tableID
// over each key index's columns (catalog.KeyIndexes) that it lacks: CREATE
// INDEX calls it once the index is committed, so that the first lookup
// does not pay for it. It stops early when ctx ends (a lookup builds what
// is left).
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
		ts, err := keyColumnTypes(def, ki.Columns)
		if err != nil {
			continue
		}
		seg.x.keys.get(keyIndexName(ki.Columns, ts), func() *keyindex.Index {
			return db.buildSegKeyIndex(&files, seg, def, ki.Columns, ts)
		})
	}
}

// dropUnusedKeyIndexes drops the in-memory key indexes over columns no
// key index of after covers any more (a DDL commit: DROP INDEX, ALTER
// TABLE ... DROP CONSTRAINT).
func (db *DB) dropUnusedKeyIndexes(before, after *catalog.Catalog) {
	for id := range before.Tables {
		if len(before.KeyIndexes(id)) == 0 {
			continue
		}
		var keep []string
		if def := after.Tables[id]; def != nil {
			for _, ki := range after.KeyIndexes(id) {
				if ts, err := keyColumnTypes(def, ki.Columns); err == nil {
					keep = append(keep, keyIndexName(ki.Columns, ts))
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
