package storage

// Lookups through btree and hash indexes (catalog.KeyIndexes):
// `WHERE session_id = $1` over a table of agent traces, or
// `WHERE metadata ->> 'ref_doc_id' = $1` with an index on that
// expression, reads the rows holding the value instead of scanning, and
// `WHERE created_at >= $1` the rows in the range of a btree index's
// first key (KeyRange). Per
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
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// keyIndexes holds the key indexes of one run of rows by keySource.name;
// a nil entry: it could not be built.
type keyIndexes struct {
	mu sync.Mutex // serialises building them
	m  map[string]*keyindex.Index
}

// get returns the index called name, built by build the first time.
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
// appendIndexValue encodes it, a NULL as a zero byte, which starts no
// value's encoding, so that it matches nothing and a prefix of the
// encoding is the encoding of the leading columns.
func appendIndexKey(buf []byte, ts []types.T, cols []arrow.Array, i int) []byte {
	for k, a := range cols {
		if a == nil || a.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		buf = appendIndexValue(buf, ts[k], a, i)
	}
	return buf
}

// The tags that start an orderable value's encoding (appendIndexValue).
const (
	orderedIntTag   = 'i'
	orderedFloatTag = 'f'
)

// appendIndexValue encodes a non-null value as appendKeyValue does (values
// equal in SQL encode equally), except that integers (of any width, and
// dates, times and timestamps) and floats encode so that their bytes
// order as the values do: the tag, then eight big-endian bytes of the
// value with its sign bit flipped (a float's other bits too when it is
// negative; -0 is 0, NaN one value above +Infinity, as PostgreSQL orders
// them). A range of such a first key is then a range of the index's
// keys (KeyRange).
func appendIndexValue(b []byte, t types.T, arr arrow.Array, i int) []byte {
	if v, ok := orderedInt(arr, i); ok {
		b = append(b, orderedIntTag)
		return binary.BigEndian.AppendUint64(b, uint64(v)^1<<63)
	}
	var f float64
	switch a := arr.(type) {
	case *array.Float32:
		f = float64(a.Value(i))
	case *array.Float64:
		f = a.Value(i)
	default:
		return appendKeyValue(b, t, arr, i)
	}
	switch {
	case f == 0:
		f = 0
	case math.IsNaN(f):
		f = math.NaN()
	}
	bits := math.Float64bits(f)
	if bits>>63 == 1 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	b = append(b, orderedFloatTag)
	return binary.BigEndian.AppendUint64(b, bits)
}

// orderedInt returns row i of an integer-like array as an int64.
func orderedInt(arr arrow.Array, i int) (int64, bool) {
	switch a := arr.(type) {
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Uint32:
		return int64(a.Value(i)), true
	case *array.Date32:
		return int64(a.Value(i)), true
	case *array.Time64:
		return int64(a.Value(i)), true
	case *array.Timestamp:
		return int64(a.Value(i)), true
	}
	return 0, false
}

// keyProbe is one KeySearch or KeyRange: the encoded leading-key values
// looked for, or the range of first keys.
type keyProbe struct {
	src      *keySource
	width    int      // how many leading keys the values give (1 for a range)
	prefixes [][]byte // distinct, ascending
	set      map[string]bool
	// ranged: the rows whose first key's encoding lies in [start, stop).
	ranged      bool
	start, stop []byte
	buf         []byte
}

// holds reports whether the encoded leading keys k are looked for.
func (p *keyProbe) holds(k []byte) bool {
	if p.ranged {
		return bytes.Compare(k, p.start) >= 0 && bytes.Compare(k, p.stop) < 0
	}
	return p.set[string(k)]
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
		if p.holds(p.buf) {
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
// returns the rows, each once. ok is false when there are more than
// limit (0: no limit): the caller, who would read most of the table, had
// better scan it.
func (tx *Tx) KeySearch(ctx context.Context, tableID uint64, ki catalog.KeyIndex, keys []arrow.Array, limit int) (ids []int64, ok bool, err error) {
	src, ts, tt, err := tx.keyView(tableID, ki)
	if err != nil {
		return nil, false, err
	}
	if len(keys) == 0 || len(keys) > len(src.ts) {
		return nil, false, pgerr.New(pgerrcode.InternalError, "key search of %d values on an index of %d keys", len(keys), len(src.ts))
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
	return tx.probe(ctx, ts, tt, p, limit)
}

// keyView is tableView for a lookup through the key index ki: its key
// source in place of the table's definition.
func (tx *Tx) keyView(tableID uint64, ki catalog.KeyIndex) (*keySource, *tableState, *txTable, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, nil, nil, err
	}
	src, err := newKeySource(tx.cat, def, ki)
	return src, ts, tt, err
}

// KeyRange returns the IDs of the rows tx sees whose first key of the key
// index ki lies between lo and hi (one-row arrays, not NULL; nil: no bound
// on that side), each bound included where loIncl or hiIncl says, in the
// order a scan returns them; ok is false past limit rows, as KeySearch's.
// The first key must be one appendIndexValue orders (an integer, date,
// time, timestamp or float).
func (tx *Tx) KeyRange(ctx context.Context, tableID uint64, ki catalog.KeyIndex, lo, hi arrow.Array, loIncl, hiIncl bool, limit int) (ids []int64, ok bool, err error) {
	src, ts, tt, err := tx.keyView(tableID, ki)
	if err != nil {
		return nil, false, err
	}
	p := &keyProbe{src: src, width: 1, ranged: true}
	bound := func(a arrow.Array, after bool) ([]byte, error) {
		if a.Len() != 1 || a.IsNull(0) {
			return nil, pgerr.New(pgerrcode.InternalError, "key range bound of %d rows or NULL", a.Len())
		}
		b := appendIndexValue(nil, src.ts[0], a, 0)
		if b[0] != orderedIntTag && b[0] != orderedFloatTag {
			return nil, pgerr.New(pgerrcode.InternalError, "key range over %s", src.ts[0])
		}
		if after { // the first encoding past every one b starts
			for i := len(b) - 1; i >= 0; i-- {
				if b[i]++; b[i] != 0 {
					break
				}
			}
		}
		return b, nil
	}
	if lo == nil && hi == nil {
		return nil, false, pgerr.New(pgerrcode.InternalError, "key range without bounds")
	}
	if lo != nil {
		if p.start, err = bound(lo, !loIncl); err != nil {
			return nil, false, err
		}
	}
	if hi != nil {
		if p.stop, err = bound(hi, hiIncl); err != nil {
			return nil, false, err
		}
	}
	// An open side ends where the values of the bound's tag do: NULLs
	// (0) and other tags are never in a range.
	if lo == nil {
		p.start = []byte{p.stop[0]}
	}
	if hi == nil {
		p.stop = []byte{p.start[0] + 1}
	}
	if bytes.Compare(p.start, p.stop) >= 0 {
		return nil, true, nil
	}
	return tx.probe(ctx, ts, tt, p, limit)
}

// probe returns the IDs of the rows of the table (its committed state ts
// and tx's own changes tt) that p finds; ok is false when there are more
// than limit (0: no limit), found so far.
func (tx *Tx) probe(ctx context.Context, ts *tableState, tt *txTable, p *keyProbe, limit int) ([]int64, bool, error) {
	ids, err := tx.probeRows(ctx, ts, tt, p, limit)
	if errors.Is(err, errTooManyRows) {
		return nil, false, nil
	}
	return ids, err == nil, err
}

// errTooManyRows ends a probe that found more rows than its limit.
var errTooManyRows = errors.New("more rows than the lookup's limit")

// probeRows is probe, failing with errTooManyRows past limit rows.
func (tx *Tx) probeRows(ctx context.Context, ts *tableState, tt *txTable, p *keyProbe, limit int) ([]int64, error) {
	var err error
	var ids []int64
	over := func() bool { return limit > 0 && len(ids) > limit }
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
			if over() {
				return nil, errTooManyRows
			}
		}
		for _, b := range ts.tail {
			if ids, err = keySearchBatch(ids, b, p, gone, b.n >= keyIndexMinRows); err != nil {
				return nil, err
			}
			if over() {
				return nil, errTooManyRows
			}
		}
	}
	if tt != nil {
		ownGone := func(id int64) bool { return tt.ownDel.Contains(uint64(id)) }
		for _, seg := range tt.spilled {
			if ids, err = tx.db.keySearchSegment(ids, seg, p, ownGone); err != nil {
				return nil, err
			}
			if over() {
				return nil, errTooManyRows
			}
		}
		for _, b := range tt.inserts {
			if ids, err = keySearchBatch(ids, b, p, ownGone, false); err != nil {
				return nil, err
			}
			if over() {
				return nil, errTooManyRows
			}
		}
	}
	return ids, nil
}

// lookup appends the positions in ix of the rows holding one of p's
// values, ascending.
func (p *keyProbe) lookup(ix *keyindex.Index) []uint32 {
	var out []uint32
	if p.ranged {
		ix.Range(p.start, p.stop, func(pos []uint32) { out = append(out, pos...) })
		slices.Sort(out)
		return out
	}
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
