// Package rowcopy copies rows between Arrow arrays: the executor's
// selections (Filter, subsets of a batch for lazy evaluation),
// permutations (Sort) and merges of rows from many batches (Join, CASE
// arms), and storage's gathering of fetched rows from many row groups.
// Each column's type is switched on once; the per-row work is a typed
// Value/Append, or a copy of buffers for fixed-width and byte columns.
package rowcopy

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Ref locates row Row of source Src; Src < 0 stands for NULL.
type Ref struct {
	Src int32
	Row int32
}

// appender copies rows of a fixed set of source arrays into a builder.
type appender interface {
	one(src, row int)
	// span copies rows [start, end) of one source.
	span(src, start, end int)
}

type valueArray[T any] interface {
	arrow.Array
	Value(int) T
}

type valueBuilder[T any] interface {
	array.Builder
	Append(T)
}

type typedAppender[T any, A valueArray[T]] struct {
	b    valueBuilder[T]
	srcs []A
}

func (a *typedAppender[T, A]) one(src, row int) {
	s := a.srcs[src]
	if s.IsNull(row) {
		a.b.AppendNull()
		return
	}
	a.b.Append(s.Value(row))
}

func (a *typedAppender[T, A]) span(src, start, end int) {
	s := a.srcs[src]
	if s.NullN() == 0 {
		for i := start; i < end; i++ {
			a.b.Append(s.Value(i))
		}
		return
	}
	for i := start; i < end; i++ {
		if s.IsNull(i) {
			a.b.AppendNull()
		} else {
			a.b.Append(s.Value(i))
		}
	}
}

func newTyped[T any, A valueArray[T]](b valueBuilder[T], srcs []arrow.Array) (appender, bool) {
	typed := make([]A, len(srcs))
	for i, s := range srcs {
		a, ok := s.(A)
		if !ok {
			return nil, false
		}
		typed[i] = a
	}
	return &typedAppender[T, A]{b: b, srcs: typed}, true
}

// float32Appender has a bulk path for embedding payloads.
type float32Appender struct {
	typedAppender[float32, *array.Float32]
	fb *array.Float32Builder
}

func (a *float32Appender) span(src, start, end int) {
	s := a.srcs[src]
	if s.NullN() == 0 {
		a.fb.AppendValues(s.Float32Values()[start:end], nil)
		return
	}
	a.typedAppender.span(src, start, end)
}

type float64Appender struct {
	typedAppender[float64, *array.Float64]
	fb *array.Float64Builder
}

func (a *float64Appender) span(src, start, end int) {
	s := a.srcs[src]
	if s.NullN() == 0 {
		a.fb.AppendValues(s.Float64Values()[start:end], nil)
		return
	}
	a.typedAppender.span(src, start, end)
}

type nullAppender struct{ b array.Builder }

func (a nullAppender) one(int, int)           { a.b.AppendNull() }
func (a nullAppender) span(_, start, end int) { a.b.AppendNulls(end - start) }

type listAppender struct {
	b     *array.ListBuilder
	srcs  []*array.List
	child appender
}

func (a *listAppender) one(src, row int) {
	s := a.srcs[src]
	if s.IsNull(row) {
		a.b.AppendNull()
		return
	}
	a.b.Append(true)
	start, end := s.ValueOffsets(row)
	if end > start {
		a.child.span(src, int(start), int(end))
	}
}

func (a *listAppender) span(src, start, end int) {
	for i := start; i < end; i++ {
		a.one(src, i)
	}
}

// newAppender returns an appender from srcs (all of b's physical type)
// into b.
func newAppender(b array.Builder, srcs []arrow.Array) (appender, error) {
	var (
		ap appender
		ok bool
	)
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		ap, ok = newTyped[bool, *array.Boolean](bb, srcs)
	case *array.Int8Builder:
		ap, ok = newTyped[int8, *array.Int8](bb, srcs)
	case *array.Int16Builder:
		ap, ok = newTyped[int16, *array.Int16](bb, srcs)
	case *array.Int32Builder:
		ap, ok = newTyped[int32, *array.Int32](bb, srcs)
	case *array.Int64Builder:
		ap, ok = newTyped[int64, *array.Int64](bb, srcs)
	case *array.Uint32Builder:
		ap, ok = newTyped[uint32, *array.Uint32](bb, srcs)
	case *array.Uint64Builder:
		ap, ok = newTyped[uint64, *array.Uint64](bb, srcs)
	case *array.Float32Builder:
		var t appender
		if t, ok = newTyped[float32, *array.Float32](bb, srcs); ok {
			ap = &float32Appender{typedAppender: *t.(*typedAppender[float32, *array.Float32]), fb: bb}
		}
	case *array.Float64Builder:
		var t appender
		if t, ok = newTyped[float64, *array.Float64](bb, srcs); ok {
			ap = &float64Appender{typedAppender: *t.(*typedAppender[float64, *array.Float64]), fb: bb}
		}
	case *array.StringBuilder:
		ap, ok = newTyped[string, *array.String](bb, srcs)
	case *array.LargeStringBuilder:
		ap, ok = newTyped[string, *array.LargeString](bb, srcs)
	case *array.BinaryBuilder:
		if b.Type().ID() == arrow.LARGE_BINARY {
			ap, ok = newTyped[[]byte, *array.LargeBinary](bb, srcs)
		} else {
			ap, ok = newTyped[[]byte, *array.Binary](bb, srcs)
		}
	case *array.FixedSizeBinaryBuilder:
		ap, ok = newTyped[[]byte, *array.FixedSizeBinary](bb, srcs)
	case *array.Date32Builder:
		ap, ok = newTyped[arrow.Date32, *array.Date32](bb, srcs)
	case *array.Date64Builder:
		ap, ok = newTyped[arrow.Date64, *array.Date64](bb, srcs)
	case *array.Time32Builder:
		ap, ok = newTyped[arrow.Time32, *array.Time32](bb, srcs)
	case *array.Time64Builder:
		ap, ok = newTyped[arrow.Time64, *array.Time64](bb, srcs)
	case *array.TimestampBuilder:
		ap, ok = newTyped[arrow.Timestamp, *array.Timestamp](bb, srcs)
	case *array.MonthDayNanoIntervalBuilder:
		ap, ok = newTyped[arrow.MonthDayNanoInterval, *array.MonthDayNanoInterval](bb, srcs)
	case *array.NullBuilder:
		ap, ok = nullAppender{b: bb}, true
	case *array.ListBuilder:
		lists := make([]*array.List, len(srcs))
		children := make([]arrow.Array, len(srcs))
		ok = true
		for i, s := range srcs {
			l, isList := s.(*array.List)
			if !isList {
				ok = false
				break
			}
			lists[i] = l
			children[i] = l.ListValues()
		}
		if ok {
			child, err := newAppender(bb.ValueBuilder(), children)
			if err != nil {
				return nil, err
			}
			ap = &listAppender{b: bb, srcs: lists, child: child}
		}
	}
	if !ok {
		var got arrow.DataType
		for _, s := range srcs {
			if !arrow.TypeEqual(s.DataType(), b.Type()) {
				got = s.DataType()
				break
			}
		}
		return nil, pgerr.New(pgerrcode.InternalError, "cannot copy %v rows into a %v column", got, b.Type())
	}
	return ap, nil
}

// Gather builds an array of type dt from the rows refs points at.
func Gather(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, refs []Ref) (arrow.Array, error) {
	if out, ok := gatherFast(mem, dt, srcs, refs); ok {
		return out, nil
	}
	if id := dt.ID(); id == arrow.STRING || id == arrow.BINARY {
		if out, ok, err := gatherBytes(mem, dt, srcs, refs); ok || err != nil {
			return out, err
		}
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(len(refs))
	ap, err := newAppender(b, srcs)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if r.Src < 0 {
			b.AppendNull()
			continue
		}
		ap.one(int(r.Src), int(r.Row))
	}
	return b.NewArray(), nil
}

// Take builds an array of the given rows of arr.
func Take(mem memory.Allocator, arr arrow.Array, rows []int) (arrow.Array, error) {
	if arr.DataType().ID() == arrow.NULL {
		return array.NewNull(len(rows)), nil
	}
	if out, ok := takeFast(mem, arr, rows); ok {
		return out, nil
	}
	switch arr.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		// Into buffers sized first, where a builder grows its buffer
		// value by value (clearing and copying it at each step: a third
		// of a trigram-indexed ILIKE's time over a common word).
		refs := make([]Ref, len(rows))
		for i, r := range rows {
			refs[i] = Ref{Row: int32(r)}
		}
		out, ok, err := gatherBytes(mem, arr.DataType(), []arrow.Array{arr}, refs)
		if err != nil || ok {
			return out, err
		}
	}
	b := array.NewBuilder(mem, arr.DataType())
	defer b.Release()
	b.Reserve(len(rows))
	ap, err := newAppender(b, []arrow.Array{arr})
	if err != nil {
		return nil, err
	}
	// Copy runs of consecutive rows at once.
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		if j-i == 1 {
			ap.one(0, rows[i])
		} else {
			ap.span(0, rows[i], rows[j-1]+1)
		}
		i = j
	}
	return b.NewArray(), nil
}

// TakeRecord builds a record of the given rows of rec (schema unchanged).
func TakeRecord(mem memory.Allocator, rec arrow.Record, rows []int) (arrow.Record, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		c, err := Take(mem, rec.Column(i), rows)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecord(rec.Schema(), cols, int64(len(rows))), nil
}

// GatherRecords builds a record of schema from rows of several records
// with that schema's column types.
func GatherRecords(mem memory.Allocator, schema *arrow.Schema, srcs []arrow.Record, refs []Ref) (arrow.Record, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	arrs := make([]arrow.Array, len(srcs))
	for i := range cols {
		for j, s := range srcs {
			arrs[j] = s.Column(i)
		}
		c, err := Gather(mem, schema.Field(i).Type, arrs, refs)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	return array.NewRecord(schema, cols, int64(len(refs))), nil
}

// fixedWidth is the byte width of the Arrow types takeFixed copies
// directly (validity bitmap plus one values buffer), 0 for others.
func fixedWidth(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32:
		return 4
	case arrow.INT64, arrow.FLOAT64, arrow.TIME64, arrow.TIMESTAMP:
		return 8
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return 16
	}
	return 0
}

// takeFixed copies the given rows of a fixed-width column straight
// between buffers.
func takeFixed[T int16 | int32 | int64 | arrow.MonthDayNanoInterval](mem memory.Allocator, arr arrow.Array, rows []int) arrow.Array {
	d := arr.Data()
	var zero T
	width := int(unsafeSizeof(zero))
	src := arrow.GetData[T](d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(len(rows) * width)
	dst := arrow.GetData[T](vals.Bytes())
	for j, r := range rows {
		dst[j] = src[r]
	}
	validity, nulls := takeValidity(mem, arr, rows)
	out := array.NewData(arr.DataType(), len(rows), []*memory.Buffer{validity, vals}, nil, nulls, 0)
	vals.Release()
	if validity != nil {
		validity.Release()
	}
	defer out.Release()
	return array.MakeFromData(out)
}

// takeValidity is the validity bitmap of rows of arr, nil when arr has no
// NULLs, and how many of rows are NULL.
func takeValidity(mem memory.Allocator, arr arrow.Array, rows []int) (*memory.Buffer, int) {
	if arr.NullN() == 0 {
		return nil, 0
	}
	validity := memory.NewResizableBuffer(mem)
	validity.Resize(int(bitutil.BytesForBits(int64(len(rows)))))
	bits := validity.Bytes()
	clear(bits)
	nulls := 0
	for j, r := range rows {
		if arr.IsValid(r) {
			bitutil.SetBit(bits, j)
		} else {
			nulls++
		}
	}
	return validity, nulls
}

func unsafeSizeof[T any](v T) uintptr { return unsafe.Sizeof(v) }

// takeFast copies rows of fixed-width columns without a builder; ok is
// false for other types.
func takeFast(mem memory.Allocator, arr arrow.Array, rows []int) (arrow.Array, bool) {
	if len(arr.Data().Buffers()) < 2 || arr.Data().Buffers()[1] == nil {
		return nil, false
	}
	switch fixedWidth(arr.DataType()) {
	case 2:
		return takeFixed[int16](mem, arr, rows), true
	case 4:
		return takeFixed[int32](mem, arr, rows), true
	case 8:
		return takeFixed[int64](mem, arr, rows), true
	case 16:
		return takeFixed[arrow.MonthDayNanoInterval](mem, arr, rows), true
	}
	return nil, false
}

// gatherFixed is Gather for fixed-width columns.
func gatherFixed[T int16 | int32 | int64 | arrow.MonthDayNanoInterval](mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, refs []Ref) arrow.Array {
	var zero T
	width := int(unsafeSizeof(zero))
	vals := make([][]T, len(srcs))
	for i, s := range srcs {
		d := s.Data()
		vals[i] = arrow.GetData[T](d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(refs) * width)
	dst := arrow.GetData[T](buf.Bytes())
	validity := memory.NewResizableBuffer(mem)
	validity.Resize(int(bitutil.BytesForBits(int64(len(refs)))))
	bits := validity.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls := 0
	for j, r := range refs {
		if r.Src < 0 || srcs[r.Src].IsNull(int(r.Row)) {
			dst[j] = zero
			nulls++
			continue
		}
		dst[j] = vals[r.Src][r.Row]
		bitutil.SetBit(bits, j)
	}
	out := array.NewData(dt, len(refs), []*memory.Buffer{validity, buf}, nil, nulls, 0)
	buf.Release()
	validity.Release()
	defer out.Release()
	return array.MakeFromData(out)
}

// gatherFast is Gather without a builder for fixed-width columns; ok
// is false for other types.
func gatherFast(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, refs []Ref) (arrow.Array, bool) {
	w := fixedWidth(dt)
	if w == 0 {
		return nil, false
	}
	for _, s := range srcs {
		bufs := s.Data().Buffers()
		if fixedWidth(s.DataType()) != w || len(bufs) < 2 || bufs[1] == nil {
			return nil, false
		}
	}
	switch w {
	case 2:
		return gatherFixed[int16](mem, dt, srcs, refs), true
	case 4:
		return gatherFixed[int32](mem, dt, srcs, refs), true
	case 8:
		return gatherFixed[int64](mem, dt, srcs, refs), true
	case 16:
		return gatherFixed[arrow.MonthDayNanoInterval](mem, dt, srcs, refs), true
	}
	return nil, false
}

// gatherBytes is Gather for string and binary columns: offsets and
// data are written straight into new buffers. Rows over the 2 GB a
// column of a batch holds are an error (types.CheckBatchBytes).
func gatherBytes(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, refs []Ref) (arrow.Array, bool, error) {
	type byteArray interface {
		arrow.Array
		ValueOffsets() []int32
		ValueBytes() []byte
	}
	typed := make([]byteArray, len(srcs))
	offsets := make([][]int32, len(srcs))
	values := make([][]byte, len(srcs))
	for i, s := range srcs {
		a, ok := s.(byteArray)
		if !ok || s.DataType().ID() != dt.ID() {
			return nil, false, nil
		}
		typed[i], offsets[i], values[i] = a, a.ValueOffsets(), a.ValueBytes()
	}
	total := 0
	for _, r := range refs {
		if r.Src >= 0 {
			offs := offsets[r.Src]
			total += int(offs[r.Row+1] - offs[r.Row])
		}
	}
	if err := types.CheckBatchBytes(0, total); err != nil {
		return nil, false, err
	}
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((len(refs) + 1) * 4)
	outOffs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	validity := memory.NewResizableBuffer(mem)
	validity.Resize(int(bitutil.BytesForBits(int64(len(refs)))))
	bits := validity.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls, pos := 0, 0
	for j, r := range refs {
		outOffs[j] = int32(pos)
		if r.Src < 0 || typed[r.Src].IsNull(int(r.Row)) {
			nulls++
			continue
		}
		offs := offsets[r.Src]
		base := offs[0] // ValueBytes starts at the first value's offset
		pos += copy(data[pos:], values[r.Src][offs[r.Row]-base:offs[r.Row+1]-base])
		bitutil.SetBit(bits, j)
	}
	outOffs[len(refs)] = int32(pos)
	out := array.NewData(dt, len(refs), []*memory.Buffer{validity, offBuf, dataBuf}, nil, nulls, 0)
	offBuf.Release()
	dataBuf.Release()
	validity.Release()
	defer out.Release()
	return array.MakeFromData(out), true, nil
}
