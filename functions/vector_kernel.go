package functions

// The plumbing the vector functions share: an argument value (a float4[],
// float4[][] or vector) as float32 rows, read from a datum (Eval) or
// straight from the Arrow list<float32> / list<list<float32>> buffers of a
// column (Kernel, no copies, no per-row allocation), and the two batch
// loops (one and two arguments) that every vector function's Kernel is.
// The math itself is in vector_math.go and the function files.

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/vecmath"
	"github.com/jackc/pgerrcode"
)

// vecFlavor says whose rules a vector function follows: Deeplake's for
// float4[] operands, pgvector's for vector operands.
type vecFlavor uint8

const (
	// flavorArray (float4[]): empty array or zero norm -> NULL; dimension
	// mismatch -> "vector dimensions differ: %d and %d".
	flavorArray vecFlavor = iota
	// flavorVector (pgvector's vector): zero norm -> NaN as pgvector does;
	// dimension mismatch -> pgvector's "different vector dimensions %d and
	// %d".
	flavorVector
)

// errDims is the 22000 error for operands of different dimensions.
func (f vecFlavor) errDims(a, b int) error {
	if f == flavorVector {
		return pgerr.New(pgerrcode.DataException, "different vector dimensions %d and %d", a, b)
	}
	return pgerr.New(pgerrcode.DataException, "vector dimensions differ: %d and %d", a, b)
}

// errVecNulls is the error for a NULL element (cast.go's word for it).
func errVecNulls() error {
	return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "array must not contain nulls")
}

// errVec1D is pgvector's error for a multi-dimensional array where a single
// vector is expected.
func errVec1D() error {
	return pgerr.New(pgerrcode.DataException, "array must be 1-D")
}

// errVecNDims is the error for an array of more than two dimensions.
func errVecNDims(n int) error {
	return pgerr.New(pgerrcode.DataException, "vector arrays must have 1 or 2 dimensions, not %d", n)
}

// errVecRagged is the error for a float4[][] column row whose sub-arrays
// differ in length (a SQL array is rectangular; Arrow lists need not be).
func errVecRagged() error {
	return pgerr.New(pgerrcode.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
}

// vecVal is one argument value: rows vectors of dim elements each, row
// major in data. A float4[] or vector is one row (nd 1); a float4[][] has
// nd 2 and any number of rows (a document's token vectors for MaxSim).
// data aliases the Arrow buffer or a constant's slice: never modify it.
type vecVal struct {
	data      []float32
	rows, dim int
	nd        int
	// norms are the rows' squared norms when already known: a constant's,
	// computed once per batch. nil otherwise.
	norms []float64
	// next is the data of the row a scan of selected rows reads after
	// the next one, for the sums to prefetch (see vecmath.DotNorm); nil in a
	// sequential scan.
	next []float32
}

// empty reports whether v has no elements (NULL for the float4[] rules).
func (v *vecVal) empty() bool { return len(v.data) == 0 }

// row is the i-th vector of v.
func (v *vecVal) row(i int) []float32 {
	return v.data[i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
}

// vecOfDatum reads a float4[], float4[][] or vector datum. Its data is a
// fresh slice (Eval and constants only: once per call or batch).
func vecOfDatum(d any) (vecVal, error) {
	a, ok := d.(*types.Array)
	if !ok {
		return vecVal{}, pgerr.New(pgerrcode.InternalError, "vector function got %T, not an array", d)
	}
	xs, ok := a.Float32s()
	if !ok {
		return vecVal{}, errVecNulls()
	}
	switch len(a.Dims) {
	case 0:
		return vecVal{nd: 1}, nil
	case 1:
		return vecVal{data: xs, rows: 1, dim: len(xs), nd: 1}, nil
	case 2:
		if a.Dims[0]*a.Dims[1] == 0 {
			return vecVal{nd: 2}, nil
		}
		return vecVal{data: xs, rows: a.Dims[0], dim: a.Dims[1], nd: 2}, nil
	}
	return vecVal{}, errVecNDims(len(a.Dims))
}

// withNorms sets v.norms (a constant's, computed once per batch).
func (v *vecVal) withNorms() {
	v.norms = make([]float64, v.rows)
	for i := range v.norms {
		v.norms[i] = vecmath.SqNorm(v.row(i))
	}
}

// listIndex gives the bounds of the items of a list column: straight from
// the int32 offsets buffer of an Arrow list, or through ValueOffsets for
// the other list layouts (large, fixed-size).
type listIndex struct {
	offs []int32 // already shifted by the array's offset; nil: use ll
	ll   array.ListLike
}

func newListIndex(a array.ListLike) listIndex {
	if l, ok := a.(*array.List); ok && l.Offsets() != nil {
		off := l.Data().Offset()
		return listIndex{offs: l.Offsets()[off : off+l.Len()+1]}
	}
	return listIndex{ll: a}
}

// at returns the bounds [s, e) of list i's items in the child array.
func (x *listIndex) at(i int) (s, e int) {
	if x.offs != nil {
		return int(x.offs[i]), int(x.offs[i+1])
	}
	s64, e64 := x.ll.ValueOffsets(i)
	return int(s64), int(e64)
}

// vecCol reads the rows of a float4[], float4[][] or vector column as
// vecVals aliasing its buffers.
type vecCol struct {
	outer listIndex
	// 2-D columns: the sub-array list and its index; mid is nil for 1-D.
	mid   arrow.Array
	inner listIndex
	vals  []float32
	// elemBits is the validity bitmap of the float32 values when some
	// are NULL (nil otherwise); elemOff its bit offset.
	elemBits []byte
	elemOff  int
	cur      vecVal
}

// newVecCol prepares to read a list<float32> or list<list<float32>>
// column.
func newVecCol(arr arrow.Array) (*vecCol, error) {
	outer, ok := arr.(array.ListLike)
	if !ok {
		return nil, pgerr.New(pgerrcode.InternalError, "vector function got a column of %s", arr.DataType())
	}
	c := &vecCol{outer: newListIndex(outer), cur: vecVal{nd: 1}}
	child := outer.ListValues()
	if mid, ok := child.(array.ListLike); ok {
		c.mid, c.inner, c.cur.nd = mid, newListIndex(mid), 2
		child = mid.ListValues()
	}
	f, ok := child.(*array.Float32)
	if !ok {
		if _, deeper := child.(array.ListLike); deeper {
			return nil, errVecNDims(3)
		}
		return nil, pgerr.New(pgerrcode.InternalError, "vector function got a column of %s", arr.DataType())
	}
	c.vals = f.Float32Values()
	if f.NullN() > 0 {
		c.elemBits, c.elemOff = f.NullBitmapBytes(), f.Data().Offset()
	}
	return c, nil
}

// at returns row i (which must not be NULL). The value is valid until the
// next call.
func (c *vecCol) at(i int) (*vecVal, error) {
	v := &c.cur
	s, e := c.outer.at(i)
	if c.mid != nil {
		if s == e {
			v.data, v.rows, v.dim = nil, 0, 0
			return v, nil
		}
		if c.mid.NullN() > 0 {
			for j := s; j < e; j++ {
				if c.mid.IsNull(j) {
					return nil, errVecNulls()
				}
			}
		}
		first, firstEnd := c.inner.at(s)
		dim := firstEnd - first
		end := firstEnd
		for j := s + 1; j < e; j++ {
			js, je := c.inner.at(j)
			if je-js != dim || js != end {
				return nil, errVecRagged()
			}
			end = je
		}
		v.rows, v.dim = e-s, dim
		s, e = first, end
		if dim == 0 {
			v.rows = 0
		}
	} else {
		v.rows, v.dim = 1, e-s
	}
	if c.elemBits != nil && bitutil.CountSetBits(c.elemBits, c.elemOff+s, e-s) != e-s {
		return nil, errVecNulls()
	}
	v.data = c.vals[s:e:e]
	return v, nil
}

// vecSource is one argument of a vector Kernel: a column or a constant.
type vecSource struct {
	col *vecCol
	con vecVal
}

// newVecSource prepares an argument; a constant is converted once, and
// its norms computed when norms is set.
func newVecSource(a Arg, norms bool) (vecSource, error) {
	if a.Array != nil {
		c, err := newVecCol(a.Array)
		return vecSource{col: c}, err
	}
	v, err := vecOfDatum(a.Const)
	if err != nil {
		return vecSource{}, err
	}
	if norms && !v.empty() {
		v.withNorms()
	}
	return vecSource{con: v}, nil
}

// at returns row i of the argument.
func (s *vecSource) at(i int) (*vecVal, error) {
	if s.col != nil {
		return s.col.at(i)
	}
	return &s.con, nil
}

// selAhead is how many selected rows ahead of the one being computed a
// scan of selected rows prefetches: far enough for the memory's latency
// (a 384-d row takes about as long to compute as to fetch).
const selAhead = 2

// atSel returns row sel[i] of the argument, with the data of row
// sel[i+selAhead] as its next (a 1-D column's; nil otherwise).
func (s *vecSource) atSel(sel []int32, i int) (*vecVal, error) {
	v, err := s.at(int(sel[i]))
	if err != nil || s.col == nil {
		return v, err
	}
	v.next = nil
	if j := i + selAhead; j < len(sel) && s.col.mid == nil {
		st, e := s.col.outer.at(int(sel[j]))
		v.next = s.col.vals[st:e:e]
	}
	return v, nil
}

// vecScratch is per-batch scratch space a vector function may reuse from
// row to row (the rows' norms in MaxSim).
type vecScratch struct {
	norms [2][]float64
}

// floats returns the i-th scratch slice with room for n values.
func (s *vecScratch) floats(i, n int) []float64 {
	if cap(s.norms[i]) < n {
		s.norms[i] = make([]float64, n)
	}
	return s.norms[i][:n]
}

// vecBinaryFn is the math of a two-argument vector function on one row:
// ok false means a NULL result.
type vecBinaryFn func(s *vecScratch, a, b *vecVal) (r float64, ok bool, err error)

// vecUnaryFn is the math of a one-argument vector function on one row.
type vecUnaryFn func(a *vecVal) (r float64, ok bool, err error)

// vecResult is the Go type of a vector function's result column: real,
// double precision or integer.
type vecResult interface{ ~float32 | ~float64 | ~int32 }

// vecOut is a result column being filled: values and, once a row turns
// out NULL, a validity bitmap.
type vecOut[R vecResult] struct {
	m     memory.Allocator
	n     int
	buf   *memory.Buffer
	vals  []R
	valid *memory.Buffer
	nulls int
}

// newVecOut prepares a result of n rows; with a selection, NULL inputs are
// marked row by row instead of from the arguments' validity bitmaps.
func newVecOut[R vecResult](ctx *Context, args []Arg, n int, sel []int32) *vecOut[R] {
	o := &vecOut[R]{m: mem(ctx), n: n}
	o.buf = memory.NewResizableBuffer(o.m)
	o.buf.Resize(n * int(arrowSize[R]()))
	o.vals = arrow.GetData[R](o.buf.Bytes())[:n]
	if sel == nil {
		o.valid, o.nulls = validity(o.m, args, n)
	}
	return o
}

// argSel is the row selection of a kernel call (see Arg.Sel), or nil.
func argSel(args []Arg) []int32 {
	for _, a := range args {
		if a.Array != nil && a.Sel != nil {
			return a.Sel
		}
	}
	return nil
}

// argNullAt reports whether a column argument is NULL at row.
func argNullAt(args []Arg, row int) bool {
	for _, a := range args {
		if a.Array != nil && a.Array.IsNull(row) {
			return true
		}
	}
	return false
}

func arrowSize[R vecResult]() uintptr {
	var z R
	switch any(z).(type) {
	case float64:
		return 8
	}
	return 4
}

// null makes row i NULL.
func (o *vecOut[R]) null(i int) {
	if o.valid == nil {
		o.valid = memory.NewResizableBuffer(o.m)
		o.valid.Resize(int(bitutil.BytesForBits(int64(o.n))))
		b := o.valid.Bytes()
		for j := range b {
			b[j] = 0xff
		}
	}
	bitutil.ClearBit(o.valid.Bytes(), i)
	o.nulls++
}

// release frees the buffers after an error.
func (o *vecOut[R]) release() {
	o.buf.Release()
	if o.valid != nil {
		o.valid.Release()
	}
}

// array finishes the column as an Arrow array of type t.
func (o *vecOut[R]) array(t types.T) arrow.Array {
	return finish(t.Arrow(), o.n, o.valid, o.nulls, o.buf)
}

// vecBinaryKernel is the Kernel of a two-argument vector function of
// result type res (real, double precision): f over the rows, each argument
// a column read in place or a constant converted once (with its norms when
// norms is set, so f need not recompute them per row).
func vecBinaryKernel[R vecResult](res types.T, norms, nullNonFinite bool, f vecBinaryFn) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		a, err := newVecSource(args[0], norms)
		if err != nil {
			return nil, err
		}
		b, err := newVecSource(args[1], norms)
		if err != nil {
			return nil, err
		}
		k := vecBinaryRows[R]{args: args, a: &a, b: &b, f: f, nullNonFinite: nullNonFinite, sel: argSel(args)}
		if k.sel != nil {
			n = len(k.sel)
		}
		o := newVecOut[R](ctx, args, n, k.sel)
		if k.sel == nil && n >= vecStreamMinRows {
			if err := k.run(o, vecStreams); err == nil {
				return o.array(res), nil
			}
			// The first error in row order is the one to report (see run).
			o.release()
			o = newVecOut[R](ctx, args, n, nil)
		}
		if err := k.run(o, 1); err != nil {
			o.release()
			return nil, err
		}
		return o.array(res), nil
	}
}

// vecStreams is how many runs of a batch's rows a vector kernel without a
// selection reads side by side: one core's hardware prefetcher keeps too
// few cache lines in flight for a single sequential stream, and four
// streams read a column of 384-d rows about 15% faster (vecmath's
// BenchmarkMemoryPass times both ways); vecStreamMinRows is the batch size
// from which it pays.
const (
	vecStreams       = 4
	vecStreamMinRows = 1024
)

// vecBinaryRows computes a two-argument vector function over a batch.
type vecBinaryRows[R vecResult] struct {
	args          []Arg
	a, b          *vecSource
	f             vecBinaryFn
	nullNonFinite bool
	sel           []int32
	scratch       vecScratch
}

// run fills o, visiting the rows in streams interleaved runs (rows 0, q,
// 2q, .., then 1, q+1, ..., q the runs' length); each row's value does not
// depend on the order, but an error is that of the first failing row
// visited, which is the first in row order only with one stream.
func (k *vecBinaryRows[R]) run(o *vecOut[R], streams int) error {
	n := o.n
	stride := (n + streams - 1) / streams
	for j := 0; j < stride*streams; j++ {
		i := j%streams*stride + j/streams
		if i >= n {
			continue
		}
		var av, bv *vecVal
		var err error
		if k.sel != nil {
			if argNullAt(k.args, int(k.sel[i])) {
				o.null(i)
				continue
			}
			av, err = k.a.atSel(k.sel, i)
			if err == nil {
				bv, err = k.b.atSel(k.sel, i)
			}
		} else {
			if !isValid(o.valid, i) {
				continue
			}
			av, err = k.a.at(i)
			if err == nil {
				bv, err = k.b.at(i)
			}
		}
		if err != nil {
			return err
		}
		r, ok, err := k.f(&k.scratch, av, bv)
		if err != nil {
			return err
		}
		if !ok || k.nullNonFinite && !finite(r) {
			o.null(i)
			continue
		}
		o.vals[i] = R(r)
	}
	return nil
}

// vecUnaryKernel is the Kernel of a one-argument vector function.
func vecUnaryKernel[R vecResult](res types.T, f vecUnaryFn) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		a, err := newVecSource(args[0], false)
		if err != nil {
			return nil, err
		}
		o := newVecOut[R](ctx, args, n, nil)
		for i := 0; i < n; i++ {
			if !isValid(o.valid, i) {
				continue
			}
			av, err := a.at(i)
			if err != nil {
				o.release()
				return nil, err
			}
			r, ok, err := f(av)
			if err != nil {
				o.release()
				return nil, err
			}
			if !ok {
				o.null(i)
				continue
			}
			o.vals[i] = R(r)
		}
		return o.array(res), nil
	}
}

// vecResultDatum converts a result to the datum of type res: float4
// results are rounded to float32 first, as the Kernel stores them.
func vecResultDatum(r float64, res types.T) any {
	switch res.Family {
	case types.Float4:
		return float64(float32(r))
	case types.Int4:
		return int64(r)
	}
	return r
}

// vecBinary builds a strict overload name(a, b) -> res whose Eval and
// Kernel both run f. Over float4[] operands a non-finite result, which
// only an operand with a NaN or infinite element gives (float32 elements
// cannot overflow f's float64 sums), is NULL: such a vector has no
// distance or similarity, as a vector index leaves it out
// (storage/vecindex.Build), so that an exact scan, an index search and a
// hybrid search's softmax all rank the same rows, and one bad row cannot
// turn every hybrid score into NaN. pgvector's vector rejects NaN and
// infinite elements on input, and keeps its own NaN results (the cosine
// distance of a zero vector).
func vecBinary[R vecResult](name string, a, b, res types.T, norms bool, f vecBinaryFn) *Overload {
	nullNonFinite := a.Equal(tF4Arr) || b.Equal(tF4Arr)
	ov := &Overload{Name: name, Args: []types.T{a, b}, Result: res,
		Eval: func(_ *Context, args []any) (any, error) {
			av, err := vecOfDatum(args[0])
			if err != nil {
				return nil, err
			}
			bv, err := vecOfDatum(args[1])
			if err != nil {
				return nil, err
			}
			var s vecScratch
			r, ok, err := f(&s, &av, &bv)
			if err != nil || !ok || nullNonFinite && !finite(r) {
				return nil, err
			}
			return vecResultDatum(r, res), nil
		}}
	ov.Kernel = wrapKernel(ov, res, vecBinaryKernel[R](res, norms, nullNonFinite, f))
	ov.SelKernel = true
	return ov
}

// vecUnary builds a strict overload name(a) -> res whose Eval and Kernel
// both run f.
func vecUnary[R vecResult](name string, a, res types.T, f vecUnaryFn) *Overload {
	ov := &Overload{Name: name, Args: []types.T{a}, Result: res,
		Eval: func(_ *Context, args []any) (any, error) {
			av, err := vecOfDatum(args[0])
			if err != nil {
				return nil, err
			}
			r, ok, err := f(&av)
			if err != nil || !ok {
				return nil, err
			}
			return vecResultDatum(r, res), nil
		}}
	ov.Kernel = wrapKernel(ov, res, vecUnaryKernel[R](res, f))
	return ov
}

// pairCheck applies the rules every single-vector (pgvector-style) binary
// function shares: NULL for an empty operand, an error for a 2-D operand
// or a dimension mismatch. ok false means the result is NULL.
func (f vecFlavor) pairCheck(a, b *vecVal) (ok bool, err error) {
	if a.nd > 1 || b.nd > 1 {
		return false, errVec1D()
	}
	if a.empty() || b.empty() {
		return false, nil
	}
	if a.dim != b.dim {
		return false, f.errDims(a.dim, b.dim)
	}
	return true, nil
}

// Argument types of the vector functions.
var (
	tF4Arr = types.Float4ArrayT
	tVec   = types.VectorOf(0)
	tF4    = types.Float4T
)

// finite reports whether a vector function's result is a number: neither
// NaN nor infinite (see vecBinary).
func finite(r float64) bool { return !math.IsNaN(r) && !math.IsInf(r, 0) }
