package functions

// The batch plumbing every Kernel shares: views of Arrow columns as Go
// slices (no copies), constants converted to the element type, the
// combined validity of the arguments, and output buffers. The loops of
// the arithmetic and comparison kernels are generated, one function per
// operator and shape (column-column, column-constant, constant-column),
// from one template per loop in internal/kernelgen into kernels_gen.go;
// a call with constants only never reaches them (wrapKernel).

//go:generate go run ./internal/kernelgen

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// fixed is an element type of a fixed-width Arrow column (int16/32/64 for
// smallint/integer/bigint, date32 and timestamp/time µs; float32/64).
type fixed interface {
	~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// signed is an integer element type.
type signed interface{ ~int16 | ~int32 | ~int64 }

// float is a floating-point element type.
type float interface{ ~float32 | ~float64 }

func mem(ctx *Context) memory.Allocator {
	if ctx != nil && ctx.Mem != nil {
		return ctx.Mem
	}
	return memory.DefaultAllocator
}

// values is a fixed-width column's values as []T, aliasing the Arrow
// buffer. Slots under NULLs hold unspecified values.
func values[T fixed](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return make([]T, a.Len())
	}
	v := arrow.GetData[T](bufs[1].Bytes())
	return v[d.Offset() : d.Offset()+d.Len()]
}

// constAs converts a constant datum to the column element type T.
func constAs[T fixed](v any) T {
	switch x := v.(type) {
	case int64:
		return T(x)
	case float64:
		return T(x)
	case types.Date:
		return T(x)
	case types.Timestamp:
		return T(x)
	case types.TimeOfDay:
		return T(x)
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// fixedArgs reads the two arguments of a fixed-width binary kernel as
// the generated loops take them: a column's values (av, bv) or, where
// that is nil, the constant (ac, bc).
func fixedArgs[T fixed](a, b Arg) (av, bv []T, ac, bc T) {
	if a.Array != nil {
		av = values[T](a.Array)
	} else {
		ac = constAs[T](a.Const)
	}
	if b.Array != nil {
		bv = values[T](b.Array)
	} else {
		bc = constAs[T](b.Const)
	}
	return av, bv, ac, bc
}

// anyNullConst reports whether some argument is a NULL constant, which
// makes a strict function's whole result NULL.
func anyNullConst(args []Arg) bool {
	for _, a := range args {
		if a.Array == nil && a.Const == nil {
			return true
		}
	}
	return false
}

// allConst reports whether no argument is a column.
func allConst(args []Arg) bool {
	for _, a := range args {
		if a.Array != nil {
			return false
		}
	}
	return true
}

// validity ANDs the validity bitmaps of the column arguments into a new
// bitmap (bit offset 0) and counts the NULLs; it returns nil, 0 when no
// argument has NULLs.
func validity(m memory.Allocator, args []Arg, n int) (*memory.Buffer, int) {
	var out *memory.Buffer
	for _, a := range args {
		if a.Array == nil || a.Array.NullN() == 0 {
			continue
		}
		bm := a.Array.NullBitmapBytes()
		off := int64(a.Array.Data().Offset())
		if out == nil {
			out = memory.NewResizableBuffer(m)
			out.Resize(int(bitutil.BytesForBits(int64(n))))
			bitutil.CopyBitmap(bm, int(off), n, out.Bytes(), 0)
			continue
		}
		bitutil.BitmapAnd(out.Bytes(), bm, 0, off, out.Bytes(), 0, int64(n))
	}
	if out == nil {
		return nil, 0
	}
	return out, n - bitutil.CountSetBits(out.Bytes(), 0, n)
}

// isValid reports whether row i is non-NULL in a validity bitmap from
// validity (nil means all valid).
func isValid(valid *memory.Buffer, i int) bool {
	return valid == nil || bitutil.BitIsSet(valid.Bytes(), i)
}

// newFixed allocates an output buffer of n elements of T.
func newFixed[T fixed](m memory.Allocator, n int) (*memory.Buffer, []T) {
	var zero T
	size := n * int(sizeOf(zero))
	buf := memory.NewResizableBuffer(m)
	buf.Resize(size)
	return buf, arrow.GetData[T](buf.Bytes())[:n]
}

func sizeOf[T fixed](v T) uintptr {
	switch any(v).(type) {
	case int16:
		return 2
	case int32, float32:
		return 4
	}
	return 8
}

// newBits allocates a zeroed bitmap of n bits.
func newBits(m memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(m)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	b := buf.Bytes()
	for i := range b {
		b[i] = 0
	}
	return buf
}

// finish wraps buffers into an array of type dt and drops the local
// references to them.
func finish(dt arrow.DataType, n int, valid *memory.Buffer, nulls int, bufs ...*memory.Buffer) arrow.Array {
	all := append([]*memory.Buffer{valid}, bufs...)
	data := array.NewData(dt, n, all, nil, nulls, 0)
	arr := array.MakeFromData(data)
	data.Release()
	for _, b := range all {
		if b != nil {
			b.Release()
		}
	}
	return arr
}

// allNull is an all-NULL array of type dt.
func allNull(ctx *Context, dt arrow.DataType, n int) arrow.Array {
	return array.MakeArrayOfNull(mem(ctx), dt, n)
}

// floatHasNaN reports whether a float slice holds a NaN.
func floatHasNaN[T float](v []T) bool {
	for _, x := range v {
		if x != x {
			return true
		}
	}
	return false
}

// wrapKernel completes a kernel k of ov: a strict call with a NULL
// constant is all NULL, and a call with only constants evaluates once and
// repeats the value, so k itself always sees at least one column.
func wrapKernel(ov *Overload, res types.T, k func(*Context, []Arg, int) (arrow.Array, error)) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		if !ov.NullCall && anyNullConst(args) {
			return allNull(ctx, res.Arrow(), n), nil
		}
		if allConst(args) {
			row := make([]any, len(args))
			for i, a := range args {
				row[i] = a.Const
			}
			v, err := ov.Eval(ctx, row)
			if err != nil {
				return nil, err
			}
			return broadcast(ctx, v, res, n)
		}
		for _, a := range args {
			if a.Array != nil && !arrow.TypeEqual(a.Array.DataType(), a.Type.Arrow()) {
				// Not the layout the kernel reads (a dictionary-encoded
				// column, say): go row by row.
				return rowKernel(ctx, ov, res, args, n)
			}
		}
		return k(ctx, args, n)
	}
}

// rowKernel evaluates ov row by row over a batch through Eval, reading and
// building Arrow values with package types.
func rowKernel(ctx *Context, ov *Overload, res types.T, args []Arg, n int) (arrow.Array, error) {
	b := types.NewBuilder(mem(ctx), res)
	defer b.Release()
	row := make([]any, len(args))
	for i := 0; i < n; i++ {
		null := false
		for j, a := range args {
			switch {
			case a.Array == nil:
				row[j] = a.Const
			case a.Array.IsNull(i):
				row[j] = nil
			default:
				row[j] = datumAt(a.Array, i, a.Type)
			}
			null = null || row[j] == nil
		}
		if null && !ov.NullCall {
			b.AppendNull()
			continue
		}
		v, err := ov.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			b.AppendNull()
		} else if err := types.AppendValue(b, v, res); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// broadcast is an array of n copies of the datum v of type t, for the
// types kernels produce.
func broadcast(ctx *Context, v any, t types.T, n int) (arrow.Array, error) {
	dt := t.Arrow()
	if v == nil {
		return allNull(ctx, dt, n), nil
	}
	m := mem(ctx)
	switch t.Family {
	case types.Bool:
		out := newBits(m, n)
		if v.(bool) {
			b := out.Bytes()
			for i := range b {
				b[i] = 0xff
			}
		}
		return finish(dt, n, nil, 0, out), nil
	case types.Int2:
		return fillFixed[int16](m, dt, n, constAs[int16](v)), nil
	case types.Int4, types.DateFamily:
		return fillFixed[int32](m, dt, n, constAs[int32](v)), nil
	case types.Int8, types.Time, types.TimestampFamily, types.TimestampTZ:
		return fillFixed[int64](m, dt, n, constAs[int64](v)), nil
	case types.Float4:
		return fillFixed[float32](m, dt, n, constAs[float32](v)), nil
	case types.Float8:
		return fillFixed[float64](m, dt, n, constAs[float64](v)), nil
	case types.Text, types.Varchar, types.Char, types.Name, types.InternalChar, types.JSON, types.JSONB, types.JSONPath, types.TSVector, types.TSQuery:
		b := array.NewStringBuilder(m)
		defer b.Release()
		s := v.(string)
		if err := types.CheckBatchBytes(0, n*len(s)); err != nil {
			return nil, err
		}
		b.Reserve(n)
		b.ReserveData(n * len(s))
		for i := 0; i < n; i++ {
			b.Append(s)
		}
		return b.NewArray(), nil
	}
	return nil, pgerr.New(pgerrcode.InternalError, "cannot broadcast a constant of type %s", t.String())
}

func fillFixed[T fixed](m memory.Allocator, dt arrow.DataType, n int, v T) arrow.Array {
	buf, out := newFixed[T](m, n)
	for i := range out {
		out[i] = v
	}
	return finish(dt, n, nil, 0, buf)
}

// datumAt is row i of a column as a datum, looking through dictionary
// encoding.
func datumAt(a arrow.Array, i int, t types.T) any {
	if d, ok := a.(*array.Dictionary); ok {
		return types.ValueAt(d.Dictionary(), d.GetValueIndex(i), t)
	}
	return types.ValueAt(a, i, t)
}

// textAt is row i of a text-like argument (text, json, jsonb: an Arrow
// string column, or a constant string); ok is false for NULL.
func textAt(a Arg, i int) (s string, ok bool) {
	if a.Array == nil {
		return a.Const.(string), true
	}
	if a.Array.IsNull(i) {
		return "", false
	}
	return a.Array.(*array.String).Value(i), true
}
