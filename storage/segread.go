package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Segment reading decodes one column chunk (of one row group) at a time
// straight from Parquet pages into Arrow buffers: the typed slices of each
// page (Page.Data) are appended in bulk, and the definition and repetition
// levels become validity bitmaps and list offsets. Dictionary-encoded pages
// and booleans go through parquet.Value, which is slower but rare (cairn
// writes neither dictionaries nor many booleans).

// segmentFile is an open segment.
type segmentFile struct {
	seg  *segment
	f    *os.File
	pf   *parquet.File
	leaf map[string]int
}

// openSegment opens a segment file; errors name the file.
func openSegment(seg *segment) (sf *segmentFile, err error) {
	if err := seg.local(seg.path); err != nil {
		return nil, fmt.Errorf("open segment: %w", err)
	}
	f, err := os.Open(seg.path)
	if err != nil {
		return nil, fmt.Errorf("open segment: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corrupt segment %s: %v", seg.path, r)
		}
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkParquetFooter(f, st.Size()); err != nil {
		return nil, fmt.Errorf("corrupt segment %s: %w", seg.path, err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true),
		parquet.ReadBufferSize(1<<20))
	if err != nil {
		return nil, fmt.Errorf("corrupt segment %s: %w", seg.path, err)
	}
	sf = &segmentFile{seg: seg, f: f, pf: pf, leaf: leafIndexes(pf.Schema())}
	if _, ok := sf.leaf[catalog.RowIDColumn]; !ok {
		return nil, fmt.Errorf("corrupt segment %s: no %s column", seg.path, catalog.RowIDColumn)
	}
	return sf, nil
}

// checkParquetFooter checks that the footer length a Parquet file ends with
// fits in the file: parquet-go allocates the footer's declared size before
// reading it, so a damaged length would allocate up to 4 GB (and take
// seconds) for a file of a few bytes.
func checkParquetFooter(f *os.File, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes is too short for a parquet file", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != magic {
		return errors.New("no parquet magic at the end of the file")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("parquet footer of %d bytes in a file of %d", n, size)
	}
	return nil
}

func (sf *segmentFile) close() { sf.f.Close() }

func (sf *segmentFile) numRowGroups() int { return len(sf.pf.RowGroups()) }

// readRowIDs decodes the row IDs of row group g.
func (sf *segmentFile) readRowIDs(g int) (*array.Int64, error) {
	a, err := sf.readLeaf(g, catalog.RowIDColumn, arrow.PrimitiveTypes.Int64)
	if err != nil {
		return nil, err
	}
	ids, ok := a.(*array.Int64)
	if !ok || ids.NullN() > 0 {
		return nil, fmt.Errorf("corrupt segment %s: bad %s column", sf.seg.path, catalog.RowIDColumn)
	}
	return ids, nil
}

// readColumn decodes table column id of row group g as Arrow type dt; a
// column the file lacks reads as NULLs.
func (sf *segmentFile) readColumn(g int, id int, dt arrow.DataType) (arrow.Array, error) {
	name, ok := sf.seg.columnName(id)
	if !ok {
		n := int(sf.pf.RowGroups()[g].NumRows())
		return array.MakeArrayOfNull(memory.DefaultAllocator, dt, n), nil
	}
	return sf.readLeaf(g, name, dt)
}

func (sf *segmentFile) readLeaf(g int, name string, dt arrow.DataType) (arr arrow.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			arr, err = nil, fmt.Errorf("corrupt segment %s: column %q: %v", sf.seg.path, name, r)
		}
	}()
	idx, ok := sf.leaf[name]
	if !ok {
		return nil, fmt.Errorf("corrupt segment %s: manifest lists column %q the file lacks", sf.seg.path, name)
	}
	rgs := sf.pf.RowGroups()
	if g >= len(rgs) {
		return nil, fmt.Errorf("corrupt segment %s: no row group %d", sf.seg.path, g)
	}
	rg := rgs[g]
	path := sf.pf.Schema().Columns()[idx]
	leaf, ok := sf.pf.Schema().Lookup(path...)
	if !ok {
		return nil, fmt.Errorf("corrupt segment %s: column %q", sf.seg.path, name)
	}
	arr, err = decodeColumnChunk(rg.ColumnChunks()[idx], leaf, dt, int(rg.NumRows()))
	if err != nil {
		return nil, fmt.Errorf("segment %s: column %q: %w", sf.seg.path, name, err)
	}
	return arr, nil
}

// levelNode accumulates the slots of one nesting level: a validity bitmap
// (nil while every slot is valid) and, for lists, offsets.
type levelNode struct {
	valid   []byte
	nulls   int
	n       int
	offsets []int32
}

func (l *levelNode) addNull() {
	if l.valid == nil {
		l.valid = make([]byte, l.n/8+1, max(l.n/4, 64))
		bitutil.SetBitsTo(l.valid, 0, int64(l.n), true)
	}
	for l.n/8 >= len(l.valid) {
		l.valid = append(l.valid, 0)
	}
	bitutil.ClearBit(l.valid, l.n)
	l.nulls++
	l.n++
}

func (l *levelNode) addValid() {
	if l.valid != nil {
		for l.n/8 >= len(l.valid) {
			l.valid = append(l.valid, 0)
		}
		bitutil.SetBit(l.valid, l.n)
	}
	l.n++
}

func (l *levelNode) add(ok bool) {
	if ok {
		l.addValid()
	} else {
		l.addNull()
	}
}

func (l *levelNode) isValid(i int) bool { return l.valid == nil || bitutil.BitIsSet(l.valid, i) }

func (l *levelNode) validityBuffer() *memory.Buffer {
	if l.nulls == 0 {
		return nil
	}
	need := int(bitutil.BytesForBits(int64(l.n)))
	for len(l.valid) < need {
		l.valid = append(l.valid, 0)
	}
	return memory.NewBufferBytes(l.valid)
}

// levelAssembler turns definition and repetition levels, page by page,
// into the validity and offsets of each nesting level: nodes[j] is the
// list at nesting j (0 = the column), leaf the innermost values.
type levelAssembler struct {
	depth int
	nodes []levelNode
	leaf  levelNode
}

func newLevelAssembler(depth, numRows int) *levelAssembler {
	a := &levelAssembler{depth: depth, nodes: make([]levelNode, depth)}
	if depth > 0 {
		a.nodes[0].offsets = make([]int32, 0, numRows+1)
	}
	return a
}

// feedScalar handles an optional scalar column (max definition level 1).
func (a *levelAssembler) feedScalar(defs []byte) {
	for _, d := range defs {
		if d == 1 {
			a.leaf.addValid()
		} else {
			a.leaf.addNull()
		}
	}
}

// presentElement is the definition level of a present element of a
// one-level list (feedLists).
var presentElement = []byte{3}

// feedLists handles a list column: definition level 2j+1 means the node at
// nesting j is not null, 2j+2 that its list has an element; repetition
// level r starts a new element of the list at nesting r-1.
func (a *levelAssembler) feedLists(defs, reps []byte) {
	if a.depth == 1 {
		n0, leaf := &a.nodes[0], &a.leaf
		for i := 0; i < len(defs); i++ {
			d := defs[i]
			if reps[i] == 0 {
				n0.offsets = append(n0.offsets, int32(leaf.n))
				n0.add(d >= 1)
				if d == 3 && leaf.valid == nil {
					// A list whose elements are all present (an
					// embedding) is a run of 3s up to the next list's
					// start: taken whole, the levels counted by
					// vectorised scans instead of one by one.
					end := len(reps)
					if k := bytes.IndexByte(reps[i+1:], 0); k >= 0 {
						end = i + 1 + k
					}
					if bytes.Count(defs[i:end], presentElement) == end-i {
						leaf.n += end - i
						i = end - 1
						continue
					}
				}
			}
			if d == 3 {
				if leaf.valid == nil {
					leaf.n++
				} else {
					leaf.addValid()
				}
			} else if d == 2 {
				leaf.addNull()
			}
		}
		return
	}
	depth := a.depth
	for i, db := range defs {
		d, r := int(db), int(reps[i])
		for j := r; j < depth; j++ {
			if d < 2*j {
				break
			}
			child := a.leaf.n
			if j+1 < depth {
				child = a.nodes[j+1].n
			}
			a.nodes[j].offsets = append(a.nodes[j].offsets, int32(child))
			a.nodes[j].add(d >= 2*j+1)
			if d < 2*j+2 {
				break
			}
		}
		if d >= 2*depth {
			a.leaf.add(d >= 2*depth+1)
		}
	}
}

// decodeColumnChunk decodes a column chunk of numRows rows as Arrow type dt.
func decodeColumnChunk(cc parquet.ColumnChunk, leaf parquet.LeafColumn, dt arrow.DataType, numRows int) (arrow.Array, error) {
	depth := listDepth(dt)
	maxDef, maxRep := leaf.MaxDefinitionLevel, leaf.MaxRepetitionLevel
	required := maxDef == 0 && maxRep == 0 && depth == 0
	if !required && (maxRep != depth || maxDef != 2*depth+1) {
		return nil, fmt.Errorf("unexpected parquet layout (max repetition %d, max definition %d) for %s", maxRep, maxDef, dt)
	}
	lt := leafType(dt)
	sink, err := newLeafSink(lt, leaf.Node.Type())
	if err != nil {
		return nil, err
	}
	nv := int(cc.NumValues())
	sink.reserve(nv)
	asm := newLevelAssembler(depth, numRows)
	pages := cc.Pages()
	defer pages.Close()
	var vbuf []parquet.Value
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch {
		case required:
			asm.leaf.n += int(p.NumValues())
		case depth == 0:
			asm.feedScalar(p.DefinitionLevels())
		default:
			defs, reps := p.DefinitionLevels(), p.RepetitionLevels()
			if len(defs) != len(reps) {
				parquet.Release(p)
				return nil, fmt.Errorf("corrupt levels: %d repetition, %d definition", len(reps), len(defs))
			}
			asm.feedLists(defs, reps)
		}
		if p.Dictionary() != nil || sink.slow() {
			if vbuf == nil {
				vbuf = make([]parquet.Value, 1024)
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(vbuf)
				for _, v := range vbuf[:n] {
					if v.DefinitionLevel() == maxDef {
						sink.appendValue(v)
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					parquet.Release(p)
					return nil, err
				}
				if n == 0 {
					break
				}
			}
		} else if err := sink.appendData(p.Data()); err != nil {
			parquet.Release(p)
			return nil, err
		}
		parquet.Release(p)
	}
	leafN, nodes := &asm.leaf, asm.nodes
	if leafN.n-leafN.nulls != sink.count() {
		return nil, fmt.Errorf("corrupt column chunk: %d values for %d non-null slots", sink.count(), leafN.n-leafN.nulls)
	}
	data, err := sink.build(lt, leafN)
	if err != nil {
		return nil, err
	}
	// Wrap the leaf in its lists, innermost first.
	types := make([]arrow.DataType, depth)
	t := dt
	for j := 0; j < depth; j++ {
		types[j] = t
		t = t.(*arrow.ListType).Elem()
	}
	for j := depth - 1; j >= 0; j-- {
		child := leafN.n
		if j+1 < depth {
			child = nodes[j+1].n
		}
		nodes[j].offsets = append(nodes[j].offsets, int32(child))
		d := array.NewData(types[j], nodes[j].n,
			[]*memory.Buffer{nodes[j].validityBuffer(), memory.NewBufferBytes(sliceBytes(nodes[j].offsets))},
			[]arrow.ArrayData{data}, nodes[j].nulls, 0)
		data.Release()
		data = d
	}
	if data.Len() != numRows {
		data.Release()
		return nil, fmt.Errorf("corrupt column chunk: %d rows, row group has %d", data.Len(), numRows)
	}
	arr := array.MakeFromData(data)
	data.Release()
	return arr, nil
}

// sliceBytes views a slice of fixed-size values as bytes.
func sliceBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// leafSink collects the non-null leaf values of a column chunk.
type leafSink interface {
	// appendData appends a page's values in bulk.
	appendData(v encoding.Values) error
	// appendValue appends one value (dictionary pages, booleans).
	appendValue(v parquet.Value)
	count() int
	slow() bool
	// reserve makes room for about n values.
	reserve(n int)
	// build returns the leaf array with slots as its validity.
	build(dt arrow.DataType, slots *levelNode) (arrow.ArrayData, error)
}

func newLeafSink(dt arrow.DataType, pt parquet.Type) (leafSink, error) {
	kind := pt.Kind()
	want := func(k parquet.Kind) error {
		if kind != k {
			return fmt.Errorf("parquet type %s cannot be read as %s", pt, dt)
		}
		return nil
	}
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return &boolSink{}, want(parquet.Boolean)
	case *arrow.Int16Type:
		return &fixedSink[int16]{
			bulk: func(v encoding.Values, out []int16) []int16 {
				for _, x := range v.Int32() {
					out = append(out, int16(x))
				}
				return out
			},
			one: func(v parquet.Value) int16 { return int16(v.Int32()) },
		}, want(parquet.Int32)
	case *arrow.Int32Type, *arrow.Uint32Type, *arrow.Date32Type:
		return &fixedSink[int32]{
			bulk: func(v encoding.Values, out []int32) []int32 { return append(out, v.Int32()...) },
			one:  func(v parquet.Value) int32 { return v.Int32() },
		}, want(parquet.Int32)
	case *arrow.Int64Type, *arrow.Time64Type, *arrow.TimestampType:
		return &fixedSink[int64]{
			bulk: func(v encoding.Values, out []int64) []int64 { return append(out, v.Int64()...) },
			one:  func(v parquet.Value) int64 { return v.Int64() },
		}, want(parquet.Int64)
	case *arrow.Float32Type:
		return &fixedSink[float32]{
			bulk: func(v encoding.Values, out []float32) []float32 { return append(out, v.Float()...) },
			one:  func(v parquet.Value) float32 { return v.Float() },
		}, want(parquet.Float)
	case *arrow.Float64Type:
		return &fixedSink[float64]{
			bulk: func(v encoding.Values, out []float64) []float64 { return append(out, v.Double()...) },
			one:  func(v parquet.Value) float64 { return v.Double() },
		}, want(parquet.Double)
	case *arrow.StringType, *arrow.BinaryType:
		return &bytesSink{}, want(parquet.ByteArray)
	case *arrow.FixedSizeBinaryType:
		if err := want(parquet.FixedLenByteArray); err != nil {
			return nil, err
		}
		if pt.Length() != t.ByteWidth {
			return nil, fmt.Errorf("parquet type %s cannot be read as %s", pt, dt)
		}
		return &flbaSink{size: t.ByteWidth}, nil
	case *arrow.MonthDayNanoIntervalType:
		if err := want(parquet.FixedLenByteArray); err != nil {
			return nil, err
		}
		if pt.Length() != 16 {
			return nil, fmt.Errorf("parquet type %s cannot be read as %s", pt, dt)
		}
		return &flbaSink{size: 16}, nil
	}
	return nil, fmt.Errorf("storage cannot read arrow type %s", dt)
}

// fixedSink collects fixed-width values.
type fixedSink[T int16 | int32 | int64 | float32 | float64] struct {
	vals []T
	bulk func(encoding.Values, []T) []T
	one  func(parquet.Value) T
}

func (s *fixedSink[T]) appendData(v encoding.Values) error {
	s.vals = s.bulk(v, s.vals)
	return nil
}
func (s *fixedSink[T]) appendValue(v parquet.Value) { s.vals = append(s.vals, s.one(v)) }
func (s *fixedSink[T]) count() int                  { return len(s.vals) }
func (s *fixedSink[T]) slow() bool                  { return false }
func (s *fixedSink[T]) reserve(n int)               { s.vals = slices.Grow(s.vals, n) }

func (s *fixedSink[T]) build(dt arrow.DataType, slots *levelNode) (arrow.ArrayData, error) {
	vals := s.vals
	if slots.nulls > 0 {
		full := make([]T, slots.n)
		j := 0
		for i := 0; i < slots.n; i++ {
			if slots.isValid(i) {
				full[i] = vals[j]
				j++
			}
		}
		vals = full
	}
	return array.NewData(dt, slots.n, []*memory.Buffer{slots.validityBuffer(), memory.NewBufferBytes(sliceBytes(vals))},
		nil, slots.nulls, 0), nil
}

// boolSink collects booleans.
type boolSink struct{ vals []bool }

func (s *boolSink) appendData(encoding.Values) error {
	return errors.New("boolean pages are read by value")
}
func (s *boolSink) appendValue(v parquet.Value) { s.vals = append(s.vals, v.Boolean()) }
func (s *boolSink) count() int                  { return len(s.vals) }
func (s *boolSink) slow() bool                  { return true }
func (s *boolSink) reserve(n int)               { s.vals = slices.Grow(s.vals, n) }

func (s *boolSink) build(dt arrow.DataType, slots *levelNode) (arrow.ArrayData, error) {
	bits := make([]byte, bitutil.BytesForBits(int64(slots.n)))
	j := 0
	for i := 0; i < slots.n; i++ {
		if slots.isValid(i) {
			if s.vals[j] {
				bitutil.SetBit(bits, i)
			}
			j++
		}
	}
	return array.NewData(dt, slots.n, []*memory.Buffer{slots.validityBuffer(), memory.NewBufferBytes(bits)},
		nil, slots.nulls, 0), nil
}

// bytesSink collects variable-length byte strings.
type bytesSink struct {
	data []byte
	ends []int64
}

func (s *bytesSink) appendData(v encoding.Values) error {
	data, offs := v.ByteArray()
	if len(offs) == 0 {
		return nil
	}
	base := int64(len(s.data)) - int64(offs[0])
	if int(offs[len(offs)-1]) > len(data) || offs[0] > offs[len(offs)-1] {
		return errors.New("corrupt byte array page")
	}
	s.data = append(s.data, data[offs[0]:offs[len(offs)-1]]...)
	for _, o := range offs[1:] {
		s.ends = append(s.ends, base+int64(o))
	}
	return nil
}

func (s *bytesSink) appendValue(v parquet.Value) {
	s.data = append(s.data, v.ByteArray()...)
	s.ends = append(s.ends, int64(len(s.data)))
}
func (s *bytesSink) count() int    { return len(s.ends) }
func (s *bytesSink) slow() bool    { return false }
func (s *bytesSink) reserve(n int) { s.ends = slices.Grow(s.ends, n) }

func (s *bytesSink) build(dt arrow.DataType, slots *levelNode) (arrow.ArrayData, error) {
	if len(s.data) > 1<<31-1 {
		return nil, errors.New("column chunk holds more than 2 GiB of strings")
	}
	offs := make([]int32, slots.n+1)
	j := 0
	var cur int32
	for i := 0; i < slots.n; i++ {
		if slots.isValid(i) {
			cur = int32(s.ends[j])
			j++
		}
		offs[i+1] = cur
	}
	return array.NewData(dt, slots.n, []*memory.Buffer{slots.validityBuffer(),
		memory.NewBufferBytes(sliceBytes(offs)), memory.NewBufferBytes(s.data)}, nil, slots.nulls, 0), nil
}

// flbaSink collects fixed-length byte arrays (uuid, interval).
type flbaSink struct {
	size int
	data []byte
}

func (s *flbaSink) appendData(v encoding.Values) error {
	data, size := v.FixedLenByteArray()
	if size != s.size {
		return fmt.Errorf("fixed length %d, want %d", size, s.size)
	}
	s.data = append(s.data, data...)
	return nil
}

func (s *flbaSink) appendValue(v parquet.Value) { s.data = append(s.data, v.ByteArray()...) }
func (s *flbaSink) count() int                  { return len(s.data) / s.size }
func (s *flbaSink) slow() bool                  { return false }
func (s *flbaSink) reserve(n int)               { s.data = slices.Grow(s.data, n*s.size) }

func (s *flbaSink) build(dt arrow.DataType, slots *levelNode) (arrow.ArrayData, error) {
	data := s.data
	if slots.nulls > 0 {
		full := make([]byte, slots.n*s.size)
		j := 0
		for i := 0; i < slots.n; i++ {
			if slots.isValid(i) {
				copy(full[i*s.size:], data[j*s.size:(j+1)*s.size])
				j++
			}
		}
		data = full
	}
	return array.NewData(dt, slots.n, []*memory.Buffer{slots.validityBuffer(), memory.NewBufferBytes(data)},
		nil, slots.nulls, 0), nil
}
