package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/parquet-go/parquet-go"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Segment files are plain Parquet, readable by DuckDB, pyarrow or Spark:
//
//   - one optional column per table column, named after the column when the
//     file was written (the manifest maps file columns to column IDs), plus
//     a required INT64 column __rowid;
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
// compress) and data page v2, with row groups of at
// most 65536 rows and about segmentRowGroupBytes of Arrow data.

var le = binary.LittleEndian

const (
	segmentRowGroupBytes = 32 << 20
	segmentMaxGroupRows  = 65536
	segmentMinGroupRows  = 1024
	// writeChunkRows is how many rows' values are handed to a column
	// writer at once, at most; writeChunkValues bounds the values so that
	// the buffer stays in cache.
	writeChunkRows   = 4096
	writeChunkValues = 8192
)

// segColumnSpec describes one table column written to a segment.
type segColumnSpec struct {
	id   int
	name string
	typ  arrow.DataType
}

// parquetNode returns the Parquet schema node of a column of Arrow type dt
// (without the outer optional).
func parquetNode(dt arrow.DataType) (parquet.Node, error) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return parquet.Leaf(parquet.BooleanType), nil
	case *arrow.Int16Type:
		return parquet.Int(16), nil
	case *arrow.Int32Type:
		return parquet.Int(32), nil
	case *arrow.Int64Type:
		return parquet.Int(64), nil
	case *arrow.Uint32Type:
		return parquet.Uint(32), nil
	case *arrow.Float32Type:
		return parquet.Leaf(parquet.FloatType), nil
	case *arrow.Float64Type:
		return parquet.Leaf(parquet.DoubleType), nil
	case *arrow.StringType:
		return parquet.String(), nil
	case *arrow.BinaryType:
		return parquet.Leaf(parquet.ByteArrayType), nil
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth == 16 {
			return parquet.UUID(), nil
		}
		return parquet.Leaf(parquet.FixedLenByteArrayType(t.ByteWidth)), nil
	case *arrow.Date32Type:
		return parquet.Date(), nil
	case *arrow.Time64Type:
		if t.Unit != arrow.Microsecond {
			break
		}
		return parquet.Time(parquet.Microsecond), nil
	case *arrow.TimestampType:
		if t.Unit != arrow.Microsecond {
			break
		}
		return parquet.TimestampAdjusted(parquet.Microsecond, t.TimeZone != ""), nil
	case *arrow.MonthDayNanoIntervalType:
		return parquet.Leaf(parquet.FixedLenByteArrayType(16)), nil
	case *arrow.ListType:
		elem, err := parquetNode(t.Elem())
		if err != nil {
			return nil, err
		}
		if _, ok := t.Elem().(*arrow.Float32Type); ok {
			// Embeddings barely compress; storing them plain makes reads
			// and writes cheaper.
			elem = parquet.Compressed(elem, &parquet.Uncompressed)
		}
		return parquet.List(parquet.Optional(elem)), nil
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

// segmentSchema builds the Parquet schema of a segment holding cols.
func segmentSchema(cols []segColumnSpec) (*parquet.Schema, error) {
	g := parquet.Group{}
	for _, c := range cols {
		n, err := parquetNode(c.typ)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.name, err)
		}
		g[c.name] = parquet.Optional(n)
	}
	g[catalog.RowIDColumn] = parquet.Required(parquet.Int(64))
	return parquet.NewSchema("cairn", g), nil
}

// leafIndexes maps each top-level field of schema to its (single) leaf
// column index.
func leafIndexes(schema *parquet.Schema) map[string]int {
	out := map[string]int{}
	for i, path := range schema.Columns() {
		if _, ok := out[path[0]]; !ok {
			out[path[0]] = i
		}
	}
	return out
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
	w         *parquet.Writer
	cols      []segColumnSpec
	leaf      []int // leaf column index per spec
	rowIDLeaf int
	groupRows int // rows per row group (set from the first chunk)
	inGroup   int
	rows      int64
	minRow    int64
	maxRow    int64
	vals      []parquet.Value
	templates map[floatTemplateKey][]parquet.Value
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
	schema, err := segmentSchema(cols)
	if err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	opts := []parquet.WriterOption{schema,
		parquet.Compression(&parquet.Snappy),
		parquet.PageBufferSize(1 << 20),
		parquet.WriteBufferSize(1 << 20),
		parquet.CreatedBy("cairn", "1", ""),
	}
	// Float lists (embeddings) get no page statistics or column index
	// bounds: nothing prunes by an embedding's smallest element, and
	// computing them twice per page was a tenth of a load's Parquet time.
	for _, path := range schema.Columns() {
		for _, c := range cols {
			if c.name == path[0] && listDepth(c.typ) > 0 && arrow.TypeEqual(leafType(c.typ), arrow.PrimitiveTypes.Float32) {
				opts = append(opts, parquet.SkipPageStatistics(path...), parquet.SkipPageBounds(path...))
			}
		}
	}
	w := parquet.NewWriter(f, opts...)
	sw := &segmentWriter{path: path, tmp: tmp, f: f, w: w, cols: cols, minRow: -1, maxRow: -1}
	idx := leafIndexes(schema)
	for _, c := range cols {
		sw.leaf = append(sw.leaf, idx[c.name])
	}
	sw.rowIDLeaf = idx[catalog.RowIDColumn]
	return sw, nil
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
		take := min(n-off, sw.groupRows-sw.inGroup)
		if err := sw.writeRows(c, off, off+take); err != nil {
			return err
		}
		off += take
		sw.inGroup += take
		if sw.inGroup >= sw.groupRows {
			if err := sw.w.Flush(); err != nil {
				return err
			}
			sw.inGroup = 0
		}
	}
	return nil
}

func (sw *segmentWriter) writeRows(c segmentChunk, from, to int) error {
	writers := sw.w.ColumnWriters()
	for i, arr := range c.cols {
		cw := writers[sw.leaf[i]]
		depth := listDepth(sw.cols[i].typ)
		leaf := sw.leaf[i]
		for r := from; r < to; {
			sw.vals = sw.vals[:0]
			for hi := min(r+writeChunkRows, to); r < hi && len(sw.vals) < writeChunkValues; r++ {
				sw.vals = sw.emit(arr, r, 0, 1, depth, leaf, sw.vals)
			}
			if _, err := cw.WriteRowValues(sw.vals); err != nil {
				return fmt.Errorf("column %q: %w", sw.cols[i].name, err)
			}
		}
	}
	rid := c.rowIDs.Int64Values()[from:to]
	cw := writers[sw.rowIDLeaf]
	for lo := 0; lo < len(rid); lo += writeChunkRows {
		hi := min(lo+writeChunkRows, len(rid))
		sw.vals = sw.vals[:0]
		for _, v := range rid[lo:hi] {
			sw.vals = append(sw.vals, parquet.Int64Value(v).Level(0, 0, sw.rowIDLeaf))
		}
		if _, err := cw.WriteRowValues(sw.vals); err != nil {
			return err
		}
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
	return nil
}

// emit appends the Parquet values of element i of arr, a node at nesting
// depth (0 = the column itself) whose definition level when present is def
// and whose first value carries repetition level rep. remaining is the list
// depth below this node.
func (sw *segmentWriter) emit(arr arrow.Array, i int, rep, def byte, remaining, col int, out []parquet.Value) []parquet.Value {
	if arr.IsNull(i) {
		return append(out, parquet.NullValue().Level(int(rep), int(def-1), col))
	}
	if remaining > 0 {
		l := arr.(*array.List)
		start, end := l.ValueOffsets(i)
		if start == end {
			return append(out, parquet.NullValue().Level(int(rep), int(def), col))
		}
		child := l.ListValues()
		// The repetition level of this list's elements after the first: the
		// list sits at nesting (def-1)/2, its elements one deeper.
		listRep := byte((int(def) + 1) / 2)
		// Fast path: a list of non-null float32 leaves (embeddings).
		if remaining == 1 {
			if f, ok := child.(*array.Float32); ok && f.NullN() == 0 {
				vals := f.Float32Values()[start:end]
				leafDef := int(def + 2)
				if !floatFastOK {
					out = append(out, parquet.FloatValue(vals[0]).Level(int(rep), leafDef, col))
					for _, v := range vals[1:] {
						out = append(out, parquet.FloatValue(v).Level(int(listRep), leafDef, col))
					}
					return out
				}
				// Copy a template row of values with the right levels in
				// bulk, then set the float bits (plain stores: no write
				// barriers, unlike storing whole Values).
				n := len(out)
				out = append(out, sw.floatTemplate(rep, listRep, byte(leafDef), col, len(vals))...)
				setFloats(out[n:], vals)
				return out
			}
		}
		for k := start; k < end; k++ {
			r := listRep
			if k == start {
				r = rep
			}
			out = sw.emit(child, int(k), r, def+2, remaining-1, col, out)
		}
		return out
	}
	return append(out, sw.leafValue(arr, i).Level(int(rep), int(def), col))
}

// The embedding fast path below writes the float bits of parquet.Value
// directly (its second word): floatFastOK checks that layout at start-up,
// and the plain constructor path is used if it ever changes.

// setFloats stores vals into the FLOAT values dst (same length).
func setFloats(dst []parquet.Value, vals []float32) {
	const size = unsafe.Sizeof(parquet.Value{})
	base := unsafe.Pointer(unsafe.SliceData(dst))
	off := unsafe.Sizeof(uintptr(0))
	for i, v := range vals[:len(dst)] {
		*(*uint64)(unsafe.Add(base, uintptr(i)*size+off)) = uint64(math.Float32bits(v))
	}
}

// floatTemplate returns n FLOAT values levelled as one list: the first
// with repetition level rep, the others listRep.
func (sw *segmentWriter) floatTemplate(rep, listRep, def byte, col, n int) []parquet.Value {
	key := floatTemplateKey{rep, listRep, def, col}
	t := sw.templates[key]
	if len(t) < n {
		t = make([]parquet.Value, max(n, 2*len(t)))
		t[0] = parquet.FloatValue(0).Level(int(rep), int(def), col)
		rest := parquet.FloatValue(0).Level(int(listRep), int(def), col)
		for i := 1; i < len(t); i++ {
			t[i] = rest
		}
		if sw.templates == nil {
			sw.templates = map[floatTemplateKey][]parquet.Value{}
		}
		sw.templates[key] = t
	}
	return t[:n]
}

type floatTemplateKey struct {
	rep, listRep, def byte
	col               int
}

var floatFastOK = func() bool {
	if unsafe.Sizeof(parquet.Value{}) != 2*unsafe.Sizeof(uintptr(0))+8 {
		return false
	}
	for _, f := range []float32{1.5, -2, float32(math.Inf(1)), 0, 3.25e-20} {
		got := []parquet.Value{parquet.FloatValue(7).Level(1, 3, 5)}
		setFloats(got, []float32{f})
		want := parquet.FloatValue(f).Level(1, 3, 5)
		if got := got[0]; got.Kind() != parquet.Float || got.Float() != f || got.RepetitionLevel() != 1 ||
			got.DefinitionLevel() != 3 || got.Column() != 5 || !parquet.Equal(got, want) {
			return false
		}
	}
	return true
}()

// leafValue converts a non-null scalar to a Parquet value.
func (sw *segmentWriter) leafValue(arr arrow.Array, i int) parquet.Value {
	switch a := arr.(type) {
	case *array.Boolean:
		return parquet.BooleanValue(a.Value(i))
	case *array.Int16:
		return parquet.Int32Value(int32(a.Value(i)))
	case *array.Int32:
		return parquet.Int32Value(a.Value(i))
	case *array.Int64:
		return parquet.Int64Value(a.Value(i))
	case *array.Uint32:
		return parquet.Int32Value(int32(a.Value(i)))
	case *array.Float32:
		return parquet.FloatValue(a.Value(i))
	case *array.Float64:
		return parquet.DoubleValue(a.Value(i))
	case *array.String:
		s := a.Value(i)
		return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
	case *array.Binary:
		return parquet.ByteArrayValue(a.Value(i))
	case *array.FixedSizeBinary:
		return parquet.FixedLenByteArrayValue(a.Value(i))
	case *array.Date32:
		return parquet.Int32Value(int32(a.Value(i)))
	case *array.Time64:
		return parquet.Int64Value(int64(a.Value(i)))
	case *array.Timestamp:
		return parquet.Int64Value(int64(a.Value(i)))
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		b := encodeInterval(v)
		return parquet.FixedLenByteArrayValue(b[:])
	}
	panic(fmt.Sprintf("storage: unsupported arrow array %T", arr))
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
	if err := sw.w.Close(); err != nil {
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
	sw.f.Close()
	os.Remove(sw.tmp)
	if sw.side != nil {
		sw.side.discard()
		sw.side = nil
	}
}
