package storage

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Segment files are encoded here, column chunk by column chunk, straight
// from Arrow arrays into Parquet pages: levels and values are appended in
// bulk (an embedding's 384 floats are one copy and two runs of levels),
// where parquet-go's writer takes one 24-byte parquet.Value per float and
// copies it twice more before a page is encoded (that per-value path was
// half of a bulk load's CPU). parquet-go still supplies the schema (the
// footer's schema elements and column orders are those its writer prints
// for the same schema: segmentTemplate), the level encoding and the thrift
// encoding of headers and footer.
//
// Pages are data pages v2 with PLAIN values, RLE levels and a CRC, cut at
// row boundaries once they hold segmentPageBytes. Column chunks carry
// statistics (null count; min and max for top-level scalar columns with a
// defined order); there is no page index, dictionary or bloom filter.

const segmentPageBytes = 1 << 20

// segmentTemplate returns the footer metadata parquet-go writes for an
// empty file of schema: the schema elements, column orders, version and
// creator that segment footers repeat.
func segmentTemplate(schema *parquet.Schema) (*format.FileMetaData, error) {
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema, parquet.CreatedBy("cairn", "1", ""))
	if err := w.Close(); err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	md := *pf.Metadata()
	md.RowGroups = nil
	md.NumRows = 0
	return &md, nil
}

// leafWriter encodes the pages of one leaf column of a segment: the
// current page's levels and plain values, and the row group's column
// chunk (encoded pages) with its statistics.
type leafWriter struct {
	path     []string
	typ      format.Type
	maxRep   byte
	maxDef   byte
	snappy   bool // values compressed (all but float lists)
	repEnc   rle.Encoding
	defEnc   rle.Encoding
	hasOrder bool // min and max are kept (top-level scalar with an order)

	// The page being filled.
	rep, def []byte
	vals     []byte
	nbools   int // booleans bit-packed into vals
	nvals    int
	nnulls   int
	nrows    int

	// The column chunk of the row group being written: its pages, and
	// their bytes in all.
	pages        []segPage
	chunkBytes   int64
	chunkVals    int64
	chunkNulls   int64
	uncompressed int64
	min, max     []byte // plain encoding (byte arrays without length)
	hasMinMax    bool

	scratch, levelBuf []byte
	wide              []int32 // int16 values widened
	header            *thrift.Encoder
	headerBuf         bytes.Buffer
}

func newLeafWriter(schema *parquet.Schema, path []string, spec *segColumnSpec) (*leafWriter, error) {
	leaf, ok := schema.Lookup(path...)
	if !ok {
		return nil, fmt.Errorf("segment schema lacks %v", path)
	}
	lw := &leafWriter{
		path:   path,
		typ:    format.Type(leaf.Node.Type().Kind()),
		maxRep: byte(leaf.MaxRepetitionLevel),
		maxDef: byte(leaf.MaxDefinitionLevel),
		snappy: true,
	}
	if c := leaf.Node.Compression(); c != nil && c.CompressionCodec() == format.Uncompressed {
		lw.snappy = false
	}
	lw.repEnc.BitWidth = bits.Len8(lw.maxRep)
	lw.defEnc.BitWidth = bits.Len8(lw.maxDef)
	lw.header = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&lw.headerBuf))
	if spec == nil {
		lw.hasOrder = true // __rowid
	} else if listDepth(spec.typ) == 0 {
		switch spec.typ.(type) {
		case *arrow.MonthDayNanoIntervalType, *arrow.BooleanType:
			// Intervals have no defined order; booleans' bounds are of no use.
		default:
			lw.hasOrder = true
		}
	}
	return lw, nil
}

// pageFull reports whether the current page reached segmentPageBytes.
func (lw *leafWriter) pageFull() bool {
	return len(lw.vals)+len(lw.rep)+len(lw.def) >= segmentPageBytes
}

// cutPage encodes the current page into the column chunk.
func (lw *leafWriter) cutPage() error {
	if lw.nvals == 0 {
		return nil
	}
	var repLen, defLen int
	var err error
	lw.levelBuf = lw.levelBuf[:0]
	if lw.maxRep > 0 {
		if lw.levelBuf, err = lw.repEnc.EncodeLevels(lw.levelBuf, lw.rep); err != nil {
			return err
		}
		repLen = len(lw.levelBuf)
	}
	if lw.maxDef > 0 {
		var d []byte
		if d, err = lw.defEnc.EncodeLevels(lw.scratch[:0], lw.def); err != nil {
			return err
		}
		defLen = len(d)
		lw.levelBuf = append(lw.levelBuf, d...)
		lw.scratch = d
	}
	// The page keeps its values buffer (or their compressed copy) until
	// the row group is written.
	body := lw.vals
	if lw.snappy {
		need := s2.MaxEncodedLen(len(lw.vals))
		if need < 0 {
			return fmt.Errorf("page of %d bytes too large to compress", len(lw.vals))
		}
		buf := pageBuf(need)
		body = s2.EncodeSnappy(buf[:need], lw.vals)
	}
	crc := crc32.Update(crc32.ChecksumIEEE(lw.levelBuf), crc32.IEEETable, body)
	h := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(len(lw.levelBuf) + len(lw.vals)),
		CompressedPageSize:   int32(len(lw.levelBuf) + len(body)),
		CRC:                  int32(crc),
		DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues:                  int32(lw.nvals),
			NumNulls:                   int32(lw.nnulls),
			NumRows:                    int32(lw.nrows),
			Encoding:                   format.Plain,
			DefinitionLevelsByteLength: int32(defLen),
			RepetitionLevelsByteLength: int32(repLen),
			IsCompressed:               thrift.New(lw.snappy),
			Statistics:                 format.Statistics{NullCount: int64(lw.nnulls)},
		}),
	}
	if lw.snappy {
		lw.vals = lw.vals[:0]
	} else {
		// The page took the buffer; the next page likely holds as much.
		// (A page is cut when its values and levels reach
		// segmentPageBytes, so the values of a full one are less: each
		// page of an embedding column grew its buffer from nothing, in
		// fresh memory, and those buffers were too small to be reused.)
		lw.vals = pageBuf(len(body))
	}
	lw.headerBuf.Reset()
	if err := lw.header.Encode(&h); err != nil {
		return err
	}
	head := append(append(make([]byte, 0, lw.headerBuf.Len()+len(lw.levelBuf)), lw.headerBuf.Bytes()...), lw.levelBuf...)
	lw.pages = append(lw.pages, segPage{head: head, body: body})
	lw.chunkBytes += int64(len(head) + len(body))
	lw.uncompressed += int64(lw.headerBuf.Len()) + int64(h.UncompressedPageSize)
	lw.chunkVals += int64(lw.nvals)
	lw.chunkNulls += int64(lw.nnulls)
	lw.rep, lw.def = lw.rep[:0], lw.def[:0]
	lw.nbools, lw.nvals, lw.nnulls, lw.nrows = 0, 0, 0, 0
	return nil
}

// segPage is an encoded page: header and levels, then values.
type segPage struct{ head, body []byte }

// pageBufs holds page-sized buffers (pooledPageCap) for values and their
// compressed copies, reused from one row group (and file) to the next.
// Smaller pages (the last of a chunk, narrow columns) get buffers of their
// size: a wide table's small flush does not take a page buffer per column.
var pageBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, pooledPageCap)
	return &b
}}

const pooledPageCap = segmentPageBytes * 3 / 2

// pageBuf returns an empty buffer with room for n bytes.
func pageBuf(n int) []byte {
	if n < segmentPageBytes/2 || n > pooledPageCap {
		return make([]byte, 0, n)
	}
	return (*pageBufs.Get().(*[]byte))[:0]
}

// putPageBuf gives b back to the pool if it is a page buffer.
func putPageBuf(b []byte) {
	if cap(b) >= pooledPageCap {
		pageBufs.Put(&b)
	}
}

// writePages writes the column chunk's pages with put, gives their
// buffers back, and returns the chunk's metadata (offset: where the chunk
// starts).
func (lw *leafWriter) writePages(offset int64, put func([]byte) error) (format.ColumnChunk, error) {
	for i, p := range lw.pages {
		if err := put(p.head); err != nil {
			return format.ColumnChunk{}, err
		}
		if err := put(p.body); err != nil {
			return format.ColumnChunk{}, err
		}
		putPageBuf(p.body)
		lw.pages[i] = segPage{}
	}
	return lw.columnChunk(offset), nil
}

// release gives back the leaf's buffers (the file is complete or
// abandoned).
func (lw *leafWriter) release() {
	for _, p := range lw.pages {
		putPageBuf(p.body)
	}
	lw.pages = nil
	putPageBuf(lw.vals)
	lw.vals = nil
}

// columnChunk returns the metadata of the column chunk just written at
// offset and resets the chunk.
func (lw *leafWriter) columnChunk(offset int64) format.ColumnChunk {
	md := format.ColumnMetaData{
		Type:                  lw.typ,
		PathInSchema:          lw.path,
		Codec:                 format.Uncompressed,
		NumValues:             lw.chunkVals,
		TotalUncompressedSize: lw.uncompressed,
		TotalCompressedSize:   lw.chunkBytes,
		DataPageOffset:        offset,
		Statistics:            format.Statistics{NullCount: lw.chunkNulls},
		EncodingStats:         []format.PageEncodingStats{{PageType: format.DataPageV2, Encoding: format.Plain, Count: int32(len(lw.pages))}},
	}
	if lw.snappy {
		md.Codec = format.Snappy
	}
	md.Encoding = []format.Encoding{format.Plain}
	if lw.maxDef > 0 || lw.maxRep > 0 {
		md.Encoding = append(md.Encoding, format.RLE)
	}
	if lw.hasMinMax {
		md.Statistics.MinValue = bytes.Clone(lw.min)
		md.Statistics.MaxValue = bytes.Clone(lw.max)
	}
	lw.pages = lw.pages[:0]
	lw.chunkVals, lw.chunkNulls, lw.uncompressed, lw.chunkBytes = 0, 0, 0, 0
	lw.hasMinMax = false
	return format.ColumnChunk{MetaData: md}
}

// null appends the levels of a value absent at the leaf (a NULL or an
// empty list).
func (lw *leafWriter) null(rep, def byte) {
	if lw.maxRep > 0 {
		lw.rep = append(lw.rep, rep)
	}
	lw.def = append(lw.def, def)
	lw.nvals++
	lw.nnulls++
}

// present appends the levels of one leaf value.
func (lw *leafWriter) present(rep byte) {
	if lw.maxRep > 0 {
		lw.rep = append(lw.rep, rep)
	}
	if lw.maxDef > 0 {
		lw.def = append(lw.def, lw.maxDef)
	}
	lw.nvals++
}

// writeScalars appends rows [from, to) of a top-level scalar column, page
// by page.
func (lw *leafWriter) writeScalars(arr arrow.Array, from, to int) error {
	const batch = 256
	for lo := from; lo < to; lo += batch {
		hi := min(lo+batch, to)
		lw.appendScalars(arr, lo, hi)
		lw.nrows += hi - lo
		if lw.pageFull() {
			if err := lw.cutPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendScalars appends the levels and values of rows [lo, hi) of a
// top-level scalar column (definition level 1 when present).
func (lw *leafWriter) appendScalars(arr arrow.Array, lo, hi int) {
	n := hi - lo
	nulls := arr.NullN() > 0
	if lw.maxDef > 0 {
		d := len(lw.def)
		lw.def = growBytes(lw.def, n)
		if !nulls {
			fill(lw.def[d:], lw.maxDef)
		} else {
			for i := lo; i < hi; i++ {
				if arr.IsValid(i) {
					lw.def[d+i-lo] = lw.maxDef
				} else {
					lw.def[d+i-lo] = 0
					lw.nnulls++
				}
			}
		}
	}
	lw.nvals += n
	switch a := arr.(type) {
	case *array.Int64:
		appendFixed(lw, a.Int64Values()[lo:hi], a, lo, nulls, cmp.Compare[int64])
	case *array.Int32:
		appendFixed(lw, a.Int32Values()[lo:hi], a, lo, nulls, cmp.Compare[int32])
	case *array.Uint32:
		appendFixed(lw, a.Uint32Values()[lo:hi], a, lo, nulls, cmp.Compare[uint32])
	case *array.Date32:
		appendFixed(lw, a.Date32Values()[lo:hi], a, lo, nulls, cmp.Compare[arrow.Date32])
	case *array.Time64:
		appendFixed(lw, a.Time64Values()[lo:hi], a, lo, nulls, cmp.Compare[arrow.Time64])
	case *array.Timestamp:
		appendFixed(lw, a.TimestampValues()[lo:hi], a, lo, nulls, cmp.Compare[arrow.Timestamp])
	case *array.Float32:
		appendFixed(lw, a.Float32Values()[lo:hi], a, lo, nulls, cmp.Compare[float32])
	case *array.Float64:
		appendFixed(lw, a.Float64Values()[lo:hi], a, lo, nulls, cmp.Compare[float64])
	case *array.Int16:
		// Stored as INT32.
		lw.wide = lw.wide[:0]
		for _, v := range a.Int16Values()[lo:hi] {
			lw.wide = append(lw.wide, int32(v))
		}
		appendFixed(lw, lw.wide, a, lo, nulls, cmp.Compare[int32])
	default:
		for i := lo; i < hi; i++ {
			if !nulls || arr.IsValid(i) {
				lw.appendLeaf(arr, i)
			}
		}
	}
}

// appendFixed appends the plain values of a fixed-width column (vals are
// rows lo.. of a) and keeps their bounds.
func appendFixed[T int32 | uint32 | int64 | float32 | float64 | arrow.Date32 | arrow.Time64 | arrow.Timestamp](lw *leafWriter, vals []T, a arrow.Array, lo int, nulls bool, cmp func(x, y T) int) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	lo0, hi0, have := zero, zero, false
	keep := func(v T) {
		if isNaN(v) {
			return
		}
		if !have {
			lo0, hi0, have = v, v, true
			return
		}
		if cmp(v, lo0) < 0 {
			lo0 = v
		}
		if cmp(v, hi0) > 0 {
			hi0 = v
		}
	}
	if !nulls {
		lw.vals = append(lw.vals, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*size)...)
		if lw.hasOrder {
			for _, v := range vals {
				keep(v)
			}
		}
	} else {
		for k, v := range vals {
			if a.IsValid(lo + k) {
				lw.vals = append(lw.vals, unsafe.Slice((*byte)(unsafe.Pointer(&v)), size)...)
				if lw.hasOrder {
					keep(v)
				}
			}
		}
	}
	if !have || !lw.hasOrder {
		return
	}
	// Zeros: the minimum is written as -0 and the maximum as +0.
	if lo0 == 0 {
		lo0 = negZero(lo0)
	}
	if hi0 == 0 {
		hi0 = 0
	}
	enc := func(v T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&v)), size) }
	dec := func(b []byte) (v T) {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), size), b)
		return v
	}
	if !lw.hasMinMax {
		lw.min, lw.max, lw.hasMinMax = append(lw.min[:0], enc(lo0)...), append(lw.max[:0], enc(hi0)...), true
		return
	}
	if cmp(lo0, dec(lw.min)) < 0 {
		lw.min = append(lw.min[:0], enc(lo0)...)
	}
	if cmp(hi0, dec(lw.max)) > 0 {
		lw.max = append(lw.max[:0], enc(hi0)...)
	}
}

func isNaN[T any](v T) bool {
	switch x := any(v).(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}

func negZero[T any](v T) T {
	switch any(v).(type) {
	case float32:
		return any(float32(math.Copysign(0, -1))).(T)
	case float64:
		return any(math.Copysign(0, -1)).(T)
	}
	return v
}

// bound widens the chunk's bounds by the plain-encoded value v (byte
// arrays without their length).
func (lw *leafWriter) bound(v []byte, cmp func(x, y []byte) int) {
	if !lw.hasOrder {
		return
	}
	if !lw.hasMinMax {
		lw.min, lw.max, lw.hasMinMax = append(lw.min[:0], v...), append(lw.max[:0], v...), true
		return
	}
	if cmp(v, lw.min) < 0 {
		lw.min = append(lw.min[:0], v...)
	}
	if cmp(v, lw.max) > 0 {
		lw.max = append(lw.max[:0], v...)
	}
}

// appendLeaf appends the plain value of non-null element i of arr (the
// general path: byte arrays, booleans, intervals, list elements).
func (lw *leafWriter) appendLeaf(arr arrow.Array, i int) {
	switch a := arr.(type) {
	case *array.Boolean:
		if lw.nbools%8 == 0 {
			lw.vals = append(lw.vals, 0)
		}
		if a.Value(i) {
			lw.vals[len(lw.vals)-1] |= 1 << (lw.nbools % 8)
		}
		lw.nbools++
	case *array.Int16:
		lw.vals = le.AppendUint32(lw.vals, uint32(int32(a.Value(i))))
	case *array.Int32:
		lw.vals = le.AppendUint32(lw.vals, uint32(a.Value(i)))
	case *array.Int64:
		lw.vals = le.AppendUint64(lw.vals, uint64(a.Value(i)))
	case *array.Uint32:
		lw.vals = le.AppendUint32(lw.vals, a.Value(i))
	case *array.Float32:
		lw.vals = le.AppendUint32(lw.vals, math.Float32bits(a.Value(i)))
	case *array.Float64:
		lw.vals = le.AppendUint64(lw.vals, math.Float64bits(a.Value(i)))
	case *array.String:
		s := a.Value(i)
		lw.vals = le.AppendUint32(lw.vals, uint32(len(s)))
		lw.vals = append(lw.vals, s...)
		lw.bound(unsafe.Slice(unsafe.StringData(s), len(s)), bytes.Compare)
	case *array.Binary:
		b := a.Value(i)
		lw.vals = le.AppendUint32(lw.vals, uint32(len(b)))
		lw.vals = append(lw.vals, b...)
		lw.bound(b, bytes.Compare)
	case *array.FixedSizeBinary:
		b := a.Value(i)
		lw.vals = append(lw.vals, b...)
		lw.bound(b, bytes.Compare)
	case *array.Date32:
		lw.vals = le.AppendUint32(lw.vals, uint32(a.Value(i)))
	case *array.Time64:
		lw.vals = le.AppendUint64(lw.vals, uint64(a.Value(i)))
	case *array.Timestamp:
		lw.vals = le.AppendUint64(lw.vals, uint64(a.Value(i)))
	case *array.MonthDayNanoInterval:
		b := encodeInterval(a.Value(i))
		lw.vals = append(lw.vals, b[:]...)
	default:
		panic(fmt.Sprintf("storage: unsupported arrow array %T", arr))
	}
}

// writeLists appends rows [from, to) of a list column (nesting depth
// levels of lists), checking the page size after each row.
func (lw *leafWriter) writeLists(arr arrow.Array, from, to, depth int) error {
	for r := from; r < to; r++ {
		lw.appendNested(arr, r, 0, 1, depth)
		lw.nrows++
		if lw.pageFull() {
			if err := lw.cutPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendNested appends the levels and values of element i of arr, a node
// whose definition level when present is def and whose first leaf value
// carries repetition level rep; remaining is the list depth below it.
func (lw *leafWriter) appendNested(arr arrow.Array, i int, rep, def byte, remaining int) {
	if arr.IsNull(i) {
		lw.null(rep, def-1)
		return
	}
	if remaining == 0 {
		lw.present(rep)
		lw.appendLeaf(arr, i)
		return
	}
	l := arr.(*array.List)
	start, end := l.ValueOffsets(i)
	if start == end {
		lw.null(rep, def)
		return
	}
	child := l.ListValues()
	// The repetition level of this list's elements after the first: the
	// list sits at nesting (def-1)/2, its elements one deeper.
	listRep := byte((int(def) + 1) / 2)
	if f, ok := child.(*array.Float32); ok && remaining == 1 && !hasNulls(f, int(start), int(end)) {
		// An embedding: one copy of the floats, runs of levels.
		n := int(end - start)
		if lw.maxRep > 0 {
			k := len(lw.rep)
			lw.rep = growBytes(lw.rep, n)
			lw.rep[k] = rep
			fill(lw.rep[k+1:], listRep)
		}
		k := len(lw.def)
		lw.def = growBytes(lw.def, n)
		fill(lw.def[k:], def+2)
		vals := f.Float32Values()[start:end]
		lw.vals = append(lw.vals, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 4*n)...)
		lw.nvals += n
		return
	}
	for k := start; k < end; k++ {
		r := listRep
		if k == start {
			r = rep
		}
		lw.appendNested(child, int(k), r, def+2, remaining-1)
	}
}

// hasNulls reports whether a has a NULL in [from, to).
func hasNulls(a arrow.Array, from, to int) bool {
	if a.NullN() == 0 {
		return false
	}
	for i := from; i < to; i++ {
		if a.IsNull(i) {
			return true
		}
	}
	return false
}

// growBytes extends b by n bytes (contents unset).
func growBytes(b []byte, n int) []byte {
	l := len(b)
	return slices.Grow(b, n)[:l+n]
}

// fill sets every byte of b to v, eight at a time.
func fill(b []byte, v byte) {
	w := uint64(v) * 0x0101010101010101
	for len(b) >= 8 {
		le.PutUint64(b, w)
		b = b[8:]
	}
	for i := range b {
		b[i] = v
	}
}
