package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Segment files are plain Parquet, readable by DuckDB, pyarrow or Spark:
//
//   - one optional column per table column, named after the column when the
//     file was written (the manifest maps file columns to column IDs), plus
//     a required INT64 column __rowid; columns are ordered by name;
//   - bool BOOLEAN; int2/int4/int8 INT32/INT32/INT64 with INT(16|32|64)
//     annotations; oid INT32 UINT(32); real FLOAT; double DOUBLE; text and
//     friends BYTE_ARRAY STRING; bytea BYTE_ARRAY; uuid
//     FIXED_LEN_BYTE_ARRAY(16) UUID; date INT32 DATE; time INT64
//     TIME(MICROS); timestamp[tz] INT64 TIMESTAMP(MICROS, adjusted to UTC
//     for timestamptz);
//   - interval (Arrow month_day_nano) as FIXED_LEN_BYTE_ARRAY(16) without
//     annotation: months int32, days int32, nanoseconds int64, little
//     endian (Parquet's own INTERVAL has millisecond precision);
//   - arrays as standard 3-level LISTs with optional elements
//     (list<float> for embeddings, list<list<float>> for 2-D arrays).
//
// Files use Snappy compression (none for float lists, which barely
// compress), plain encoding and data page v2, with row groups of at most
// 65536 rows and about segmentRowGroupBytes of Arrow data.
//
// They are written with Arrow's Parquet writer (arrow-go), which takes a
// column's values straight from the Arrow buffers with its definition and
// repetition levels as whole slices; files written earlier by parquet-go
// have the same schema and read the same (segread.go reads both).

var le = binary.LittleEndian

const (
	segmentRowGroupBytes = 32 << 20
	segmentMaxGroupRows  = 65536
	segmentMinGroupRows  = 1024
	// writeChunkLevels bounds the levels computed and handed to a column
	// writer at once (rows are not split), so that they stay in cache.
	writeChunkLevels = 1 << 15
	// segmentPageBytes is the target size of a data page.
	segmentPageBytes = 1 << 20
)

// segColumnSpec describes one table column written to a segment.
type segColumnSpec struct {
	id   int
	name string
	typ  arrow.DataType
}

// segmentNode returns the Parquet schema node, named name, of a column of
// Arrow type dt.
func segmentNode(name string, rep pq.Repetition, dt arrow.DataType) (schema.Node, error) {
	leaf := func(lt schema.LogicalType, pt pq.Type, size int) (schema.Node, error) {
		return schema.NewPrimitiveNodeLogical(name, rep, lt, pt, size, -1)
	}
	none := schema.NoLogicalType{}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return leaf(none, pq.Types.Boolean, -1)
	case *arrow.Int16Type:
		return leaf(schema.NewIntLogicalType(16, true), pq.Types.Int32, -1)
	case *arrow.Int32Type:
		return leaf(schema.NewIntLogicalType(32, true), pq.Types.Int32, -1)
	case *arrow.Int64Type:
		return leaf(schema.NewIntLogicalType(64, true), pq.Types.Int64, -1)
	case *arrow.Uint32Type:
		return leaf(schema.NewIntLogicalType(32, false), pq.Types.Int32, -1)
	case *arrow.Float32Type:
		return leaf(none, pq.Types.Float, -1)
	case *arrow.Float64Type:
		return leaf(none, pq.Types.Double, -1)
	case *arrow.StringType:
		return leaf(schema.StringLogicalType{}, pq.Types.ByteArray, -1)
	case *arrow.BinaryType:
		return leaf(none, pq.Types.ByteArray, -1)
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth == 16 {
			return leaf(schema.UUIDLogicalType{}, pq.Types.FixedLenByteArray, 16)
		}
		return leaf(none, pq.Types.FixedLenByteArray, t.ByteWidth)
	case *arrow.Date32Type:
		return leaf(schema.DateLogicalType{}, pq.Types.Int32, -1)
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond {
			break
		}
		return leaf(schema.NewTimeLogicalType(true, schema.TimeUnitMicros), pq.Types.Int64, -1)
	case *arrow.TimestampType:
		if t.Unit != arrow.Microsecond {
			break
		}
		return leaf(schema.NewTimestampLogicalType(t.TimeZone != "", schema.TimeUnitMicros), pq.Types.Int64, -1)
	case *arrow.MonthDayNanoIntervalType:
		return leaf(none, pq.Types.FixedLenByteArray, 16)
	case *arrow.ListType:
		elem, err := segmentNode("element", pq.Repetitions.Optional, t.Elem())
		if err != nil {
			return nil, err
		}
		list, err := schema.NewGroupNode("list", pq.Repetitions.Repeated, schema.FieldList{elem}, -1)
		if err != nil {
			return nil, err
		}
		return schema.NewGroupNodeLogical(name, rep, schema.FieldList{list}, schema.ListLogicalType{}, -1)
	}
	return nil, fmt.Errorf("storage cannot store arrow type %s", dt)
}

// listDepth is the list nesting of dt (0 for a scalar).
func listDepth(dt arrow.DataType) int {
	d := 0
	for {
		l, ok := dt.(*arrow.ListType)
		if !ok {
			return d
		}
		d++
		dt = l.Elem()
	}
}

// leafType is the innermost element type of dt.
func leafType(dt arrow.DataType) arrow.DataType {
	for {
		l, ok := dt.(*arrow.ListType)
		if !ok {
			return dt
		}
		dt = l.Elem()
	}
}

// isFloatList reports whether dt is a list (of lists) of real: an
// embedding column.
func isFloatList(dt arrow.DataType) bool {
	return listDepth(dt) > 0 && arrow.TypeEqual(leafType(dt), arrow.PrimitiveTypes.Float32)
}

// segmentSchema builds the Parquet schema of a segment holding cols, its
// top-level fields ordered by name, and returns for each of cols (and for
// the row IDs) the index of its leaf column.
func segmentSchema(cols []segColumnSpec) (root *schema.GroupNode, leaf []int, rowIDLeaf int, err error) {
	type field struct {
		name string
		node schema.Node
		col  int // index in cols; -1 for the row IDs
	}
	fields := make([]field, 0, len(cols)+1)
	for i, c := range cols {
		n, err := segmentNode(c.name, pq.Repetitions.Optional, c.typ)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("column %q: %w", c.name, err)
		}
		fields = append(fields, field{c.name, n, i})
	}
	rid, err := schema.NewPrimitiveNodeLogical(catalog.RowIDColumn, pq.Repetitions.Required,
		schema.NewIntLogicalType(64, true), pq.Types.Int64, -1, -1)
	if err != nil {
		return nil, nil, 0, err
	}
	fields = append(fields, field{catalog.RowIDColumn, rid, -1})
	slices.SortStableFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	nodes := make(schema.FieldList, len(fields))
	leaf = make([]int, len(cols))
	for i, f := range fields {
		nodes[i] = f.node
		// Every column has a single leaf, so leaf index = field index.
		if f.col < 0 {
			rowIDLeaf = i
		} else {
			leaf[f.col] = i
		}
	}
	root, err = schema.NewGroupNode("cairn", pq.Repetitions.Required, nodes, -1)
	return root, leaf, rowIDLeaf, err
}

// segmentChunk is a batch of rows handed to a segmentWriter: one array per
// segment column (in spec order) plus row IDs.
type segmentChunk struct {
	cols   []arrow.Array
	rowIDs *array.Int64
}

// segmentWriter writes one segment file (to a temporary name; finish
// fsyncs and renames it).
type segmentWriter struct {
	path, tmp string
	f         *os.File
	w         *file.Writer
	ctx       context.Context
	cols      []segColumnSpec
	leaf      []int // leaf column index per spec
	rowIDLeaf int
	groupRows int // rows per row group (set from the first chunk)
	// pending are the rows of the next row group, gathered until it is
	// full (their arrays retained) and then written a column at a time:
	// pages go to the file as they are made, none is held in memory.
	pending     []chunkRows
	pendingRows int
	rows        int64
	minRow      int64
	maxRow      int64
	lv          levels
	// side, when set, sees every chunk written and completes the segment
	// once it is in place (text index, cache warming: segside.go).
	side *segSide
	// noSync leaves the fsync of the file to the caller (a spill's
	// commit): finish only starts its writeback.
	noSync bool
	// remote is the new segment's (segment.remote): an object home's
	// fetcher, which brings the file back once the cache evicted it.
	remote fetcher
}

func newSegmentWriter(path string, cols []segColumnSpec) (*segmentWriter, error) {
	root, leaf, rowIDLeaf, err := segmentSchema(cols)
	if err != nil {
		return nil, err
	}
	opts := []pq.WriterProperty{
		pq.WithDataPageVersion(pq.DataPageV2),
		pq.WithDictionaryDefault(false),
		pq.WithCompression(compress.Codecs.Snappy),
		pq.WithDataPageSize(segmentPageBytes),
		pq.WithCreatedBy("cairn version 1"),
	}
	for _, c := range cols {
		if isFloatList(c.typ) {
			// Embeddings barely compress; storing them plain makes reads
			// and writes cheaper. (Their statistics stay on: arrow-go
			// writes a data page v2's null count from them, 0 without,
			// and parquet-go reads the page's values by that count.)
			opts = append(opts, pq.WithCompressionPath(floatListPath(c), compress.Codecs.Uncompressed))
		}
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	// Unbuffered: the writer hands the file whole page headers and pages,
	// and a buffer would copy the pages once more. Wrapped so that its
	// Close does not close the file (finish syncs it after).
	w, err := file.NewParquetWriterWithError(struct{ io.Writer }{f}, root, file.WithWriterProps(pq.NewWriterProperties(opts...)))
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return &segmentWriter{path: path, tmp: tmp, f: f, w: w, cols: cols, leaf: leaf, rowIDLeaf: rowIDLeaf,
		minRow: -1, maxRow: -1, ctx: pqarrow.NewArrowWriteContext(context.Background(), nil)}, nil
}

// floatListPath is the Parquet path of the leaf of float list column c.
func floatListPath(c segColumnSpec) pq.ColumnPath {
	p := pq.ColumnPath{c.name}
	for range listDepth(c.typ) {
		p = append(p, "list", "element")
	}
	return p
}

// rowGroupRowsFor picks the row group size from the Arrow size of a chunk.
func rowGroupRowsFor(c segmentChunk) int {
	n := c.rowIDs.Len()
	if n == 0 {
		return segmentMaxGroupRows
	}
	var bytes int64 = int64(n) * 8
	for _, a := range c.cols {
		bytes += arraySize(a.Data())
	}
	per := bytes / int64(n)
	if per <= 0 {
		per = 1
	}
	rows := int(segmentRowGroupBytes / per)
	return min(max(rows, segmentMinGroupRows), segmentMaxGroupRows)
}

// slicedSize is the bytes the rows of array data d need: for a slice of a
// larger array (a row fetched from a segment, passed through an UPDATE)
// far less than arraySize, which counts whole buffers. Types it does not
// know count as arraySize.
func slicedSize(d arrow.ArrayData) int64 {
	off, n := int64(d.Offset()), int64(d.Len())
	bufs := d.Buffers()
	size := (n + 7) / 8 // validity
	switch dt := d.DataType().(type) {
	case arrow.FixedWidthDataType:
		return size + n*int64(dt.BitWidth())/8
	case *arrow.StringType, *arrow.BinaryType:
		if len(bufs) < 3 || bufs[1] == nil {
			return arraySize(d)
		}
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
		if int64(len(offs)) <= off+n {
			return arraySize(d)
		}
		return size + 4*(n+1) + int64(offs[off+n]-offs[off])
	case *arrow.ListType:
		if len(bufs) < 2 || bufs[1] == nil || len(d.Children()) != 1 {
			return arraySize(d)
		}
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
		if int64(len(offs)) <= off+n {
			return arraySize(d)
		}
		child := d.Children()[0]
		per := slicedSize(child)
		if child.Len() > 0 {
			// The child's bytes in proportion to the values this
			// slice's lists hold.
			per = per * int64(offs[off+n]-offs[off]) / int64(child.Len())
		}
		return size + 4*(n+1) + per
	}
	return arraySize(d)
}

// arraySize estimates the bytes of array data.
func arraySize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arraySize(c)
	}
	return n
}

// chunkRows are rows [from, to) of a chunk.
type chunkRows struct {
	c        segmentChunk
	from, to int
}

// write appends the rows of c.
func (sw *segmentWriter) write(c segmentChunk) error {
	n := c.rowIDs.Len()
	if n == 0 {
		return nil
	}
	if sw.groupRows == 0 {
		sw.groupRows = rowGroupRowsFor(c)
	}
	if sw.side != nil {
		sw.side.add(c)
	}
	for off := 0; off < n; {
		take := min(n-off, sw.groupRows-sw.pendingRows)
		for _, a := range c.cols {
			a.Retain()
		}
		c.rowIDs.Retain()
		sw.pending = append(sw.pending, chunkRows{c, off, off + take})
		sw.pendingRows += take
		off += take
		if sw.pendingRows >= sw.groupRows {
			if err := sw.writeGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeGroup writes the pending rows as a row group.
func (sw *segmentWriter) writeGroup() error {
	if sw.pendingRows == 0 {
		return nil
	}
	defer sw.dropPending()
	rg, err := sw.w.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for leaf := range len(sw.cols) + 1 {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		if leaf == sw.rowIDLeaf {
			if err := sw.writeRowIDs(cw.(*file.Int64ColumnChunkWriter)); err != nil {
				return err
			}
			continue
		}
		i := slices.Index(sw.leaf, leaf)
		for _, p := range sw.pending {
			if err := sw.writeColumn(cw, p.c.cols[i], p.from, p.to); err != nil {
				return fmt.Errorf("column %q: %w", sw.cols[i].name, err)
			}
		}
	}
	return rg.Close()
}

// dropPending releases the pending rows.
func (sw *segmentWriter) dropPending() {
	for _, p := range sw.pending {
		for _, a := range p.c.cols {
			a.Release()
		}
		p.c.rowIDs.Release()
	}
	clear(sw.pending)
	sw.pending, sw.pendingRows = sw.pending[:0], 0
}

// writeRowIDs writes the pending rows' IDs.
func (sw *segmentWriter) writeRowIDs(cw *file.Int64ColumnChunkWriter) error {
	for _, p := range sw.pending {
		rid := p.c.rowIDs.Int64Values()[p.from:p.to]
		if _, err := cw.WriteBatch(rid, nil, nil); err != nil {
			return err
		}
		for _, v := range rid {
			if sw.rows == 0 || v < sw.minRow {
				sw.minRow = v
			}
			if v > sw.maxRow {
				sw.maxRow = v
			}
			sw.rows++
		}
	}
	return nil
}

// writeColumn writes rows [from, to) of arr to cw: its levels, and its
// leaf values as the Arrow array they are in (pqarrow converts the
// physical type and skips null slots by the validity bitmap).
func (sw *segmentWriter) writeColumn(cw file.ColumnChunkWriter, arr arrow.Array, from, to int) error {
	if iv, ok := arr.(*array.MonthDayNanoInterval); ok {
		// The segment encoding of an interval is Arrow's own layout.
		d := iv.Data()
		fsb := array.NewData(&arrow.FixedSizeBinaryType{ByteWidth: 16}, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		defer fsb.Release()
		arr = array.MakeFromData(fsb)
		defer arr.Release()
	}
	depth := listDepth(arr.DataType())
	if depth == 0 {
		for lo := from; lo < to; lo += writeChunkLevels {
			hi := min(lo+writeChunkLevels, to)
			vals := array.NewSlice(arr, int64(lo), int64(hi))
			err := pqarrow.WriteArrowToColumn(sw.ctx, cw, vals, sw.lv.scalar(arr, lo, hi), nil, true)
			vals.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	for lo := from; lo < to; {
		hi, leaf := sw.lv.lists(arr, depth, lo, to, writeChunkLevels)
		err := pqarrow.WriteArrowToColumn(sw.ctx, cw, leaf, sw.lv.def, sw.lv.rep, true)
		leaf.Release()
		if err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// levels builds the definition and repetition levels of a column's rows
// (reused from one call to the next).
type levels struct {
	def, rep []int16
	// leaves are the ranges of leaf values the rows reference, when they
	// are not one run (a NULL list whose offsets span values).
	leaves [][2]int
}

// scalar returns the definition levels of rows [lo, hi) of a scalar
// column: 1 for a value, 0 for NULL.
func (l *levels) scalar(arr arrow.Array, lo, hi int) []int16 {
	def := slices.Grow(l.def[:0], hi-lo)[:hi-lo]
	if arr.NullN() == 0 {
		fillLevels(def, 1)
	} else {
		for i := range def {
			def[i] = 0
			if arr.IsValid(lo + i) {
				def[i] = 1
			}
		}
	}
	l.def = def
	return def
}

// lists sets l.def and l.rep to the levels of rows [lo, hi) of a list
// column of the given depth, hi being the last row before to that keeps
// them within max levels (at least one row), and returns hi and the leaf
// values those levels reference (the caller releases it).
//
// A list at nesting j (0 = the column) that is NULL has definition level
// 2j, an empty one 2j+1; an element of a non-empty list has 2j+2 or more,
// a leaf 2*depth+1 when it holds a value. The first value of a row has
// repetition level 0; the first value of any other element of a list at
// nesting j has j+1.
func (l *levels) lists(arr arrow.Array, depth, lo, to, max int) (int, arrow.Array) {
	l.def, l.rep, l.leaves = l.def[:0], l.rep[:0], l.leaves[:0]
	hi := lo
	for hi < to && (hi == lo || len(l.def) < max) {
		l.list(arr, hi, 0, 0, depth)
		hi++
	}
	child := arr
	for range depth {
		child = child.(*array.List).ListValues()
	}
	if len(l.leaves) == 0 {
		return hi, array.NewSlice(child, 0, 0)
	}
	if len(l.leaves) == 1 {
		return hi, array.NewSlice(child, int64(l.leaves[0][0]), int64(l.leaves[0][1]))
	}
	parts := make([]arrow.Array, len(l.leaves))
	for i, r := range l.leaves {
		parts[i] = array.NewSlice(child, int64(r[0]), int64(r[1]))
	}
	leaf, err := array.Concatenate(parts, memory.DefaultAllocator)
	for _, p := range parts {
		p.Release()
	}
	if err != nil {
		panic(err) // slices of one array always concatenate
	}
	return hi, leaf
}

// list appends the levels of element i of arr, a list at nesting j whose
// first value has repetition level rep.
func (l *levels) list(arr arrow.Array, i, j int, rep int16, depth int) {
	if arr.IsNull(i) {
		l.def, l.rep = append(l.def, int16(2*j)), append(l.rep, rep)
		return
	}
	la := arr.(*array.List)
	start, end := la.ValueOffsets(i)
	if start == end {
		l.def, l.rep = append(l.def, int16(2*j+1)), append(l.rep, rep)
		return
	}
	child := la.ListValues()
	if j+1 < depth {
		for k := start; k < end; k++ {
			l.list(child, int(k), j+1, rep, depth)
			rep = int16(j + 1)
		}
		return
	}
	// The leaves: extend the current run of referenced values.
	if n := len(l.leaves); n > 0 && l.leaves[n-1][1] == int(start) {
		l.leaves[n-1][1] = int(end)
	} else {
		l.leaves = append(l.leaves, [2]int{int(start), int(end)})
	}
	n := int(end - start)
	d0, r0 := len(l.def), len(l.rep)
	l.def = slices.Grow(l.def, n)[:d0+n]
	l.rep = slices.Grow(l.rep, n)[:r0+n]
	def, reps := l.def[d0:], l.rep[r0:]
	leafDef := int16(2*depth + 1)
	if child.NullN() == 0 {
		fillLevels(def, leafDef)
	} else {
		for k := range def {
			def[k] = leafDef
			if child.IsNull(int(start) + k) {
				def[k] = leafDef - 1
			}
		}
	}
	reps[0] = rep
	fillLevels(reps[1:], int16(depth))
}

// fillLevels sets every level of s to v (by doubling copies: memmove is
// vectorised, a loop of stores is not).
func fillLevels(s []int16, v int16) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// encodeInterval is the 16-byte segment encoding of an interval.
func encodeInterval(v arrow.MonthDayNanoInterval) [16]byte {
	var b [16]byte
	le.PutUint32(b[0:], uint32(v.Months))
	le.PutUint32(b[4:], uint32(v.Days))
	le.PutUint64(b[8:], uint64(v.Nanoseconds))
	return b
}

// finish closes the file, fsyncs it (unless noSync) and renames it into
// place (the directory fsync is left to the manifest write that follows).
func (sw *segmentWriter) finish() (*segment, error) {
	err := sw.writeGroup()
	if err == nil {
		err = sw.w.Close()
	}
	if err != nil {
		sw.abort()
		return nil, err
	}
	if sw.noSync {
		startWriteback(sw.f)
	} else if err := sw.f.Sync(); err != nil {
		sw.abort()
		return nil, err
	}
	st, err := sw.f.Stat()
	if err != nil {
		sw.abort()
		return nil, err
	}
	if err := sw.f.Close(); err != nil {
		os.Remove(sw.tmp)
		return nil, err
	}
	if err := os.Rename(sw.tmp, sw.path); err != nil {
		os.Remove(sw.tmp)
		return nil, err
	}
	s := &segment{name: filepath.Base(sw.path), path: sw.path, rows: sw.rows, minRow: sw.minRow, maxRow: sw.maxRow, bytes: st.Size(), remote: sw.remote}
	for _, c := range sw.cols {
		s.columns = append(s.columns, segColumn{Name: c.name, ID: c.id})
	}
	if sw.side != nil {
		sw.side.finish(s)
		sw.side = nil
	}
	return s, nil
}

// abort discards the file being written.
func (sw *segmentWriter) abort() {
	sw.dropPending()
	sw.f.Close()
	os.Remove(sw.tmp)
	if sw.side != nil {
		sw.side.discard()
		sw.side = nil
	}
}
