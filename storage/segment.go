package storage

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

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
// compress) and data page v2 (segwrite.go), with row groups of at
// most 65536 rows and about segmentRowGroupBytes of Arrow data.

var le = binary.LittleEndian

const (
	segmentRowGroupBytes = 32 << 20
	segmentMaxGroupRows  = 65536
	segmentMinGroupRows  = 1024
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
// fsyncs and renames it). Its pages are encoded by leafWriters
// (segwrite.go); a row group's column chunks are written when it is
// complete, and the footer by finish.
type segmentWriter struct {
	path, tmp string
	f         *os.File
	off       int64 // bytes written to f
	meta      *format.FileMetaData
	cols      []segColumnSpec
	leaves    []*leafWriter // per spec
	rowID     *leafWriter
	order     []*leafWriter // in the file's column order
	groupRows int           // rows per row group (set from the first chunk)
	inGroup   int
	rows      int64
	minRow    int64
	maxRow    int64
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
	meta, err := segmentTemplate(schema)
	if err != nil {
		return nil, err
	}
	sw := &segmentWriter{path: path, tmp: path + ".tmp", meta: meta, cols: cols, minRow: -1, maxRow: -1}
	sw.leaves = make([]*leafWriter, len(cols))
	for _, p := range schema.Columns() {
		var spec *segColumnSpec
		for i := range cols {
			if cols[i].name == p[0] {
				spec = &cols[i]
			}
		}
		lw, err := newLeafWriter(schema, p, spec)
		if err != nil {
			return nil, err
		}
		sw.order = append(sw.order, lw)
		for i := range cols {
			if &cols[i] == spec {
				sw.leaves[i] = lw
			}
		}
		if p[0] == catalog.RowIDColumn {
			sw.rowID = lw
		}
	}
	f, err := os.OpenFile(sw.tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	sw.f = f
	if err := sw.put([]byte("PAR1")); err != nil {
		sw.abort()
		return nil, err
	}
	return sw, nil
}

// put appends b to the file.
func (sw *segmentWriter) put(b []byte) error {
	n, err := sw.f.Write(b)
	sw.off += int64(n)
	return err
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

// evenGroups sets the row group size of a file that will hold rows rows,
// c the first of them: rowGroupRowsFor's size, evened out so that the
// file's groups hold about as many rows each. A spill's file of a little
// more than one group's rows would otherwise end in a group of a few rows,
// and compaction keeps a spilled file's groups as they are (segcopy.go).
func (sw *segmentWriter) evenGroups(c segmentChunk, rows int) {
	per := rowGroupRowsFor(c)
	groups := max(1, (rows+per/2)/per, (rows+segmentMaxGroupRows-1)/segmentMaxGroupRows)
	sw.groupRows = max(1, (rows+groups-1)/groups)
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
			if err := sw.flushGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (sw *segmentWriter) writeRows(c segmentChunk, from, to int) error {
	for i, arr := range c.cols {
		lw := sw.leaves[i]
		var err error
		if depth := listDepth(sw.cols[i].typ); depth > 0 {
			err = lw.writeLists(arr, from, to, depth)
		} else {
			err = lw.writeScalars(arr, from, to)
		}
		if err != nil {
			return fmt.Errorf("column %q: %w", sw.cols[i].name, err)
		}
	}
	if err := sw.rowID.writeScalars(c.rowIDs, from, to); err != nil {
		return err
	}
	for _, v := range c.rowIDs.Int64Values()[from:to] {
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

// flushGroup writes the row group being filled: each leaf's last page,
// then the column chunks in the file's column order.
func (sw *segmentWriter) flushGroup() error {
	if sw.inGroup == 0 {
		return nil
	}
	rg := format.RowGroup{NumRows: int64(sw.inGroup), FileOffset: sw.off, Ordinal: int16(len(sw.meta.RowGroups))}
	for _, lw := range sw.order {
		if err := lw.cutPage(); err != nil {
			return err
		}
		cc, err := lw.writePages(sw.off, sw.put)
		if err != nil {
			return err
		}
		rg.TotalByteSize += cc.MetaData.TotalUncompressedSize
		rg.TotalCompressedSize += cc.MetaData.TotalCompressedSize
		rg.Columns = append(rg.Columns, cc)
	}
	sw.meta.RowGroups = append(sw.meta.RowGroups, rg)
	sw.meta.NumRows += rg.NumRows
	sw.inGroup = 0
	return nil
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
	if err := sw.writeFooter(); err != nil {
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

// writeFooter writes the last row group and the file's footer.
func (sw *segmentWriter) writeFooter() error {
	if err := sw.flushGroup(); err != nil {
		return err
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), sw.meta)
	if err != nil {
		return err
	}
	footer = le.AppendUint32(footer, uint32(len(footer)))
	if err := sw.put(append(footer, "PAR1"...)); err != nil {
		return err
	}
	for _, lw := range sw.order {
		lw.release()
	}
	return nil
}

// abort discards the file being written.
func (sw *segmentWriter) abort() {
	for _, lw := range sw.order {
		lw.release()
	}
	sw.f.Close()
	os.Remove(sw.tmp)
	if sw.side != nil {
		sw.side.discard()
		sw.side = nil
	}
}
