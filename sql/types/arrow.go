package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// NewBuilder returns an Arrow builder for a column of type t (of Arrow
// type t.Arrow()).
func NewBuilder(mem memory.Allocator, t T) array.Builder {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return array.NewBuilder(mem, t.Arrow())
}

// ValueAt returns row i of an Arrow column of type t as a datum (nil for
// NULL). Strings and byte slices are copied, so the datum outlives the
// array. A column whose Arrow type does not match t.Arrow() gives nil.
func ValueAt(arr arrow.Array, i int, t T) any {
	if arr.IsNull(i) {
		return nil
	}
	switch t.Family {
	case Vector:
		xs := Float32List(arr, i)
		if xs == nil {
			return nil
		}
		return NewVector(xs)
	case ArrayFamily:
		elem := TextT
		if t.Elem != nil {
			elem = *t.Elem
		}
		return arrayAt(arr, i, elem)
	}
	v := scalarAt(arr, i)
	switch t.Family {
	case Numeric:
		if s, ok := v.(string); ok {
			d, err := parseNumeric(s)
			if err != nil {
				return s
			}
			return d
		}
	case Record:
		if s, ok := v.(string); ok {
			r, err := parseRecord(s)
			if err != nil {
				return s
			}
			return r
		}
	case Inet, CIDR, MacAddr, MacAddr8:
		if d, ok := netDatum(v, t); ok {
			return d
		}
	}
	return v
}

// scalarAt reads one non-list value and converts it to its datum by the
// Arrow type alone.
func scalarAt(arr arrow.Array, i int) any {
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return int64(a.Value(i))
	case *array.Uint16:
		return int64(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Uint64:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.Binary:
		return append([]byte{}, a.Value(i)...)
	case *array.LargeBinary:
		return append([]byte{}, a.Value(i)...)
	case *array.FixedSizeBinary:
		b := a.Value(i)
		if len(b) == 16 {
			var u [16]byte
			copy(u[:], b)
			return u
		}
		return append([]byte{}, b...)
	case *array.Date32:
		return Date(a.Value(i))
	case *array.Date64:
		return Date(floorDiv(int64(a.Value(i)), 86400000))
	case *array.Time64:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			v /= 1000
		}
		return TimeOfDay(v)
	case *array.Time32:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Millisecond {
			v *= 1000
		} else {
			v *= MicrosPerSecond
		}
		return TimeOfDay(v)
	case *array.Timestamp:
		v := int64(a.Value(i))
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			v *= MicrosPerSecond
		case arrow.Millisecond:
			v *= 1000
		case arrow.Nanosecond:
			v = floorDiv(v, 1000)
		}
		return Timestamp(v)
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return IntervalValue{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		bi := a.Value(i).BigInt()
		d := new(apd.Decimal)
		d.Coeff.SetMathBigInt(bi)
		if d.Coeff.Sign() < 0 {
			d.Coeff.Neg(&d.Coeff)
			d.Negative = true
		}
		d.Exponent = -dt.Scale
		return normalizeNumeric(d)
	}
	return nil
}

// listBounds gives the values and the bounds of row i of a list column.
func listBounds(arr arrow.Array, i int) (child arrow.Array, start, end int, ok bool) {
	l, isList := arr.(array.ListLike)
	if !isList {
		return nil, 0, 0, false
	}
	s, e := l.ValueOffsets(i)
	return l.ListValues(), int(s), int(e), true
}

func listDepth(dt arrow.DataType) int {
	n := 0
	for {
		switch lt := dt.(type) {
		case *arrow.ListType:
			dt = lt.Elem()
		case *arrow.LargeListType:
			dt = lt.Elem()
		case *arrow.FixedSizeListType:
			dt = lt.Elem()
		default:
			return n
		}
		n++
	}
}

// arrayAt rebuilds an array datum from nested lists.
func arrayAt(arr arrow.Array, i int, elem T) any {
	depth := listDepth(arr.DataType())
	if depth == 0 {
		return nil
	}
	dims := make([]int, depth)
	var elems []any
	var walk func(a arrow.Array, row, level int)
	walk = func(a arrow.Array, row, level int) {
		child, start, end, ok := listBounds(a, row)
		if !ok {
			return
		}
		n := end - start
		if n > dims[level] {
			dims[level] = n
		}
		for j := start; j < end; j++ {
			if level+1 < depth {
				if child.IsNull(j) {
					continue
				}
				walk(child, j, level+1)
				continue
			}
			if child.IsNull(j) {
				elems = append(elems, nil)
				continue
			}
			elems = append(elems, ValueAt(child, j, elem))
		}
	}
	walk(arr, i, 0)
	total := 1
	for _, d := range dims {
		total *= d
	}
	if len(elems) == 0 || total == 0 {
		return &Array{Elem: elem}
	}
	if total != len(elems) {
		// Ragged nested lists cannot be a SQL array; keep the elements.
		dims = []int{len(elems)}
	}
	return &Array{Elem: elem, Dims: dims, Elems: elems}
}

// Float32List returns row i of a list<float32> column (vector, real[],
// embedding) as a slice of the Arrow buffer, without copying: it must not
// be modified and is valid while the array is. It is nil for a NULL row
// or a column of another type; NULL elements read as whatever the buffer
// holds (0).
func Float32List(arr arrow.Array, i int) []float32 {
	if arr.IsNull(i) {
		return nil
	}
	child, start, end, ok := listBounds(arr, i)
	if !ok {
		return nil
	}
	vals, ok := child.(*array.Float32)
	if !ok {
		return nil
	}
	return vals.Float32Values()[start:end:end]
}

// IsNullAt reports whether row i of arr is NULL. An Arrow null array (the
// column of an untyped NULL, as in SELECT NULL) has no validity bitmap, so
// its IsNull is false although every row of it is NULL.
func IsNullAt(arr arrow.Array, i int) bool {
	return arr.IsNull(i) || arr.DataType().ID() == arrow.NULL
}

// IsFloat32List reports whether arr holds embeddings that the
// AppendFloat32List* functions encode straight from the Arrow buffers: a
// 1-D real[] or a vector of SQL type t, held as an Arrow list<float32>.
func IsFloat32List(arr arrow.Array, t T) bool {
	if t.Family != Vector && !(t.Family == ArrayFamily && t.Elem != nil && t.Elem.Family == Float4 && t.Dims <= 1) {
		return false
	}
	lt, ok := arr.DataType().(*arrow.ListType)
	return ok && lt.Elem().ID() == arrow.FLOAT32
}

// AppendTextAt appends the text output of the non-NULL value at row i of
// arr, of SQL type t: embeddings straight from the Arrow buffers (a real[]
// only with extra_float_digits above 0), anything else as AppendText of
// its datum.
func AppendTextAt(dst []byte, arr arrow.Array, i int, t T, opts *TextOptions) ([]byte, error) {
	if out, ok := appendPlainAt(dst, arr, i, t, false); ok {
		return out, nil
	}
	if IsFloat32List(arr, t) && (t.Family == Vector || opts == nil || !opts.Floats.Rounded) {
		return AppendFloat32ListText(dst, arr, i, t)
	}
	return AppendText(dst, ValueAt(arr, i, t), t, opts), nil
}

// appendPlainAt appends the text (bin false) or binary format of row i
// of arr straight from the Arrow buffers, without making a datum of it,
// for the types most small queries return: integer, bigint, text and
// varchar without a domain, in their usual Arrow types. ok is false for
// anything else. Neither format of these depends on the session settings.
func appendPlainAt(dst []byte, arr arrow.Array, i int, t T, bin bool) ([]byte, bool) {
	if t.Domain != "" {
		return dst, false
	}
	switch a := arr.(type) {
	case *array.Int64:
		if t.Family != Int8 {
			return dst, false
		}
		if bin {
			return binary.BigEndian.AppendUint64(dst, uint64(a.Value(i))), true
		}
		return strconv.AppendInt(dst, a.Value(i), 10), true
	case *array.Int32:
		if t.Family != Int4 {
			return dst, false
		}
		if bin {
			return binary.BigEndian.AppendUint32(dst, uint32(a.Value(i))), true
		}
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	case *array.String:
		if t.Family != Text && t.Family != Varchar {
			return dst, false
		}
		return append(dst, a.Value(i)...), true
	}
	return dst, false
}

// AppendBinaryAt appends the binary format of the non-NULL value at row i
// of arr, of SQL type t: embeddings straight from the Arrow buffers,
// anything else as EncodeBinary of its datum.
func AppendBinaryAt(dst []byte, arr arrow.Array, i int, t T) ([]byte, error) {
	if out, ok := appendPlainAt(dst, arr, i, t, true); ok {
		return out, nil
	}
	if IsFloat32List(arr, t) {
		return AppendFloat32ListBinary(dst, arr, i, t)
	}
	return EncodeBinary(dst, ValueAt(arr, i, t), t)
}

// AppendFloat32ListBinary appends the binary wire format of row i of a
// list<float32> column of type t (vector or real[]) straight from the
// Arrow buffers. The caller writes NULL rows itself (the row must not be
// NULL). NULL elements are NULL in a real[] and an error in a vector.
func AppendFloat32ListBinary(dst []byte, arr arrow.Array, i int, t T) ([]byte, error) {
	child, start, end, ok := listBounds(arr, i)
	if !ok || arr.IsNull(i) {
		return dst, pgerr.New(pgerrcode.InternalError, "AppendFloat32ListBinary: row %d is NULL or not a list", i)
	}
	vals, ok := child.(*array.Float32)
	if !ok {
		return dst, pgerr.New(pgerrcode.InternalError, "AppendFloat32ListBinary: list of %s, not float32", child.DataType())
	}
	xs := vals.Float32Values()[start:end]
	if vals.NullN() == 0 {
		return AppendFloat32sBinary(dst, xs, t), nil
	}
	if t.Family == Vector {
		for j := start; j < end; j++ {
			if vals.IsNull(j) {
				return dst, pgerr.New(pgerrcode.DataException, "vector elements must not be NULL")
			}
		}
		return AppendFloat32sBinary(dst, xs, t), nil
	}
	hasNull := false
	for j := start; j < end; j++ {
		if vals.IsNull(j) {
			hasNull = true
			break
		}
	}
	if !hasNull {
		return AppendFloat32sBinary(dst, xs, t), nil
	}
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, Float4T.OID())
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(xs)))
	dst = binary.BigEndian.AppendUint32(dst, 1)
	for k, x := range xs {
		if vals.IsNull(start + k) {
			dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32)
			continue
		}
		dst = append(dst, 0, 0, 0, 4)
		dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst, nil
}

// AppendFloat32ListText appends the text format of row i of a
// list<float32> column of type t ([1,2] for vector, {1,2} for real[])
// straight from the Arrow buffers; see AppendFloat32ListBinary.
func AppendFloat32ListText(dst []byte, arr arrow.Array, i int, t T) ([]byte, error) {
	child, start, end, ok := listBounds(arr, i)
	if !ok || arr.IsNull(i) {
		return dst, pgerr.New(pgerrcode.InternalError, "AppendFloat32ListText: row %d is NULL or not a list", i)
	}
	vals, ok := child.(*array.Float32)
	if !ok {
		return dst, pgerr.New(pgerrcode.InternalError, "AppendFloat32ListText: list of %s, not float32", child.DataType())
	}
	xs := vals.Float32Values()[start:end]
	if vals.NullN() == 0 {
		return AppendFloat32sText(dst, xs, t), nil
	}
	if t.Family == Vector {
		for j := start; j < end; j++ {
			if vals.IsNull(j) {
				return dst, pgerr.New(pgerrcode.DataException, "vector elements must not be NULL")
			}
		}
		return AppendFloat32sText(dst, xs, t), nil
	}
	dst = append(dst, '{')
	for k, x := range xs {
		if k > 0 {
			dst = append(dst, ',')
		}
		if vals.IsNull(start + k) {
			dst = append(dst, "NULL"...)
			continue
		}
		dst = AppendFloat(dst, float64(x), 32)
	}
	return append(dst, '}'), nil
}

func errAppend(v any, t T, b array.Builder) error {
	return pgerr.New(pgerrcode.DatatypeMismatch, "cannot append Go value of type %T as %s to an Arrow %s builder", v, t, b.Type())
}

// CheckBatchBytes reports whether more bytes still fit in an Arrow string
// or binary column that holds have bytes: its offsets are 32-bit, so one
// batch of a column holds at most 2 GB of values (more would wrap the
// offsets around). Past that the statement fails with 54000, as
// PostgreSQL fails a value past its own limit, instead of building a
// column whose offsets are wrong.
func CheckBatchBytes(have, more int) error {
	if have+more > math.MaxInt32 {
		return pgerr.New(pgerrcode.ProgramLimitExceeded, "out of memory").
			WithDetail("One batch of rows would hold %d bytes of text or bytea values in a column and %d more; the most is 2 GB.", have, more).
			WithHint("Select fewer large values per statement, or smaller ones.")
	}
	return nil
}

// AppendValue appends datum v (nil for NULL) of type t to b, a builder of
// t.Arrow() (see NewBuilder). An interval's microseconds become Arrow
// nanoseconds.
func AppendValue(b array.Builder, v any, t T) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.NullBuilder:
		bb.AppendNull()
		return nil
	case *array.BooleanBuilder:
		if x, ok := v.(bool); ok {
			bb.Append(x)
			return nil
		}
	case *array.Int16Builder:
		if x, ok := toInt64(v); ok {
			if x < math.MinInt16 || x > math.MaxInt16 {
				return pgerr.New(pgerrcode.NumericValueOutOfRange, "smallint out of range")
			}
			bb.Append(int16(x))
			return nil
		}
	case *array.Int32Builder:
		if x, ok := toInt64(v); ok {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return pgerr.New(pgerrcode.NumericValueOutOfRange, "integer out of range")
			}
			bb.Append(int32(x))
			return nil
		}
	case *array.Int64Builder:
		if x, ok := toInt64(v); ok {
			bb.Append(x)
			return nil
		}
	case *array.Uint32Builder:
		if x, ok := toInt64(v); ok {
			if x < 0 || x > math.MaxUint32 {
				return pgerr.New(pgerrcode.NumericValueOutOfRange, "OID out of range")
			}
			bb.Append(uint32(x))
			return nil
		}
	case *array.Float32Builder:
		if x, ok := toFloat(v); ok {
			bb.Append(float32(x))
			return nil
		}
	case *array.Float64Builder:
		if x, ok := toFloat(v); ok {
			bb.Append(x)
			return nil
		}
	case *array.StringBuilder:
		if isNetFamily(t.Family) {
			// Stored as canonical text, whatever form the value came in.
			text, ok := appendNetText(nil, v, t)
			if !ok {
				break
			}
			if err := CheckBatchBytes(bb.DataLen(), len(text)); err != nil {
				return err
			}
			bb.BinaryBuilder.Append(text)
			return nil
		}
		switch x := v.(type) {
		case string:
			if err := CheckBatchBytes(bb.DataLen(), len(x)); err != nil {
				return err
			}
			if t.Enum != nil {
				// The last guard of an enum column: whatever path the
				// value came by (INSERT, COPY, the HTTP API), it is a label.
				if err := CheckEnumLabel(t.Enum, x); err != nil {
					return err
				}
			}
			bb.Append(x)
			return nil
		case []byte:
			if err := CheckBatchBytes(bb.DataLen(), len(x)); err != nil {
				return err
			}
			if t.Enum != nil {
				if err := CheckEnumLabel(t.Enum, string(x)); err != nil {
					return err
				}
			}
			bb.BinaryBuilder.Append(x)
			return nil
		}
		switch t.Family {
		case Numeric:
			if d, ok := toDecimal(v); ok {
				bb.BinaryBuilder.Append(appendNumeric(nil, d))
				return nil
			}
		case Record:
			if r, ok := v.([]any); ok {
				bb.BinaryBuilder.Append(appendRecordText(nil, r, defaultTextOptions))
				return nil
			}
		}
	case *array.BinaryBuilder:
		switch x := v.(type) {
		case []byte:
			if err := CheckBatchBytes(bb.DataLen(), len(x)); err != nil {
				return err
			}
			bb.Append(x)
			return nil
		case string:
			if err := CheckBatchBytes(bb.DataLen(), len(x)); err != nil {
				return err
			}
			bb.AppendString(x)
			return nil
		}
	case *array.FixedSizeBinaryBuilder:
		if u, ok := toUUID(v); ok {
			bb.Append(u[:])
			return nil
		}
	case *array.Date32Builder:
		if d, ok := toDate(v); ok {
			bb.Append(arrow.Date32(d))
			return nil
		}
	case *array.Time64Builder:
		if x, ok := toTimeOfDay(v); ok {
			bb.Append(arrow.Time64(x))
			return nil
		}
	case *array.TimestampBuilder:
		if x, ok := toTimestamp(v); ok {
			bb.Append(arrow.Timestamp(x))
			return nil
		}
	case *array.MonthDayNanoIntervalBuilder:
		if x, ok := toInterval(v); ok {
			if x.Micros > math.MaxInt64/1000 || x.Micros < math.MinInt64/1000 {
				return pgerr.New(pgerrcode.DatetimeFieldOverflow, "interval out of range")
			}
			bb.Append(arrow.MonthDayNanoInterval{Months: x.Months, Days: x.Days, Nanoseconds: x.Micros * 1000})
			return nil
		}
	case *array.ListBuilder:
		return appendList(bb, v, t)
	}
	return errAppend(v, t, b)
}

// domainCheckViolation is the error of a value pg_deeplake's EMBEDDING
// (real[] CHECK 1-D) or EMBEDDING_2D (real[][] CHECK 2-D) domain refuses
// for its number of dimensions: the domain's CHECK fails, as in
// PostgreSQL, where the constraint of an unnamed domain check is named
// <domain>_check.
func domainCheckViolation(t T) error {
	name := strings.ToLower(t.Domain)
	return pgerr.New(pgerrcode.CheckViolation, "value for domain %s violates check constraint \"%s_check\"", name, name)
}

func appendList(lb *array.ListBuilder, v any, t T) error {
	depth := listDepth(lb.Type())
	switch x := v.(type) {
	case []float32:
		vb, ok := lb.ValueBuilder().(*array.Float32Builder)
		if depth != 1 || !ok {
			// The general path's checks and conversions.
			return appendList(lb, NewVector(x), t)
		}
		lb.Append(true)
		vb.AppendValues(x, nil)
		return nil
	case *Array:
		elem := x.Elem
		if t.Family == ArrayFamily && t.Elem != nil {
			elem = *t.Elem
		} else if t.Family == Vector {
			elem = Float4T
		}
		if len(x.Elems) == 0 {
			lb.Append(true)
			return nil
		}
		if len(x.Dims) != depth {
			if t.Domain == "EMBEDDING" || t.Domain == "EMBEDDING_2D" {
				return domainCheckViolation(t)
			}
			return pgerr.New(pgerrcode.ArraySubscriptError,
				"array has %d dimensions but the column holds %d", len(x.Dims), depth)
		}
		n := 1
		for _, d := range x.Dims {
			n *= d
		}
		if n != len(x.Elems) {
			return pgerr.New(pgerrcode.InternalError, "array dimensions %v do not match its %d elements", x.Dims, len(x.Elems))
		}
		if t.Family == Vector {
			for _, e := range x.Elems {
				if e == nil {
					return pgerr.New(pgerrcode.DataException, "vector elements must not be NULL")
				}
			}
		}
		idx := 0
		var rec func(b *array.ListBuilder, level int) error
		rec = func(b *array.ListBuilder, level int) error {
			b.Append(true)
			if level+1 < depth {
				inner := b.ValueBuilder().(*array.ListBuilder)
				for k := 0; k < x.Dims[level]; k++ {
					if err := rec(inner, level+1); err != nil {
						return err
					}
				}
				return nil
			}
			vb := b.ValueBuilder()
			if fb, ok := vb.(*array.Float32Builder); ok {
				for k := 0; k < x.Dims[level]; k++ {
					e := x.Elems[idx]
					idx++
					if e == nil {
						fb.AppendNull()
						continue
					}
					f, ok := toFloat(e)
					if !ok {
						return errAppend(e, elem, fb)
					}
					fb.Append(float32(f))
				}
				return nil
			}
			for k := 0; k < x.Dims[level]; k++ {
				e := x.Elems[idx]
				idx++
				if err := AppendValue(vb, e, elem); err != nil {
					return err
				}
			}
			return nil
		}
		return rec(lb, 0)
	}
	return errAppend(v, t, lb)
}
