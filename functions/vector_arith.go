package functions

// pgvector's arithmetic on vectors: the elementwise operators + - * and
// the concatenation ||, l2_normalize(v) and subvector(v, start, count),
// and the aggregates sum(vector) and avg(vector). Errors are pgvector's:
// 22000 "different vector dimensions %d and %d" for operands (or rows)
// of different sizes, 22003 for a float4 overflow or underflow, 22000
// "vector must have at least 1 dimension" for an empty subvector and
// 54000 beyond 16000 dimensions. pgvector has none of them on real[]
// (neither implicit casts from it), nor has cairn.

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// vecMaxDim is pgvector's VECTOR_MAX_DIM.
const vecMaxDim = 16000

// vecMapFn computes one row's result vector into dst (reused from row
// to row: the result is copied out before the next call).
type vecMapFn func(dst []float32, a, b *vecVal) ([]float32, error)

// vecMapKernel is the Kernel of a vector function of one or two vector
// arguments with a vector result: f over the rows, the arguments read in
// place from their Arrow buffers (or converted once, constants), the
// results appended to one list<float32> column.
func vecMapKernel(nargs int, f vecMapFn) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		srcs := make([]vecSource, nargs)
		for i := range srcs {
			var err error
			if srcs[i], err = newVecSource(args[i], false); err != nil {
				return nil, err
			}
		}
		lb := array.NewBuilder(mem(ctx), tVec.Arrow()).(*array.ListBuilder)
		defer lb.Release()
		vb := lb.ValueBuilder().(*array.Float32Builder)
		var dst []float32
		vals := make([]*vecVal, 2)
		for i := 0; i < n; i++ {
			if argNullAt(args, i) {
				lb.AppendNull()
				continue
			}
			for j := range srcs {
				v, err := srcs[j].at(i)
				if err != nil {
					return nil, err
				}
				vals[j] = v
			}
			var err error
			if dst, err = f(dst[:0], vals[0], vals[1]); err != nil {
				return nil, err
			}
			lb.Append(true)
			vb.AppendValues(dst, nil)
		}
		return lb.NewArray(), nil
	}
}

// vecMap builds a strict overload name(args) -> vector whose Eval and
// Kernel both run f (args: one or two vectors).
func vecMap(name string, args []types.T, f vecMapFn) *Overload {
	ov := &Overload{Name: name, Args: args, Result: tVec,
		Eval: func(_ *Context, row []any) (any, error) {
			vals := make([]*vecVal, 2)
			for i := range row {
				v, err := vecOfDatum(row[i])
				if err != nil {
					return nil, err
				}
				vals[i] = &v
			}
			r, err := f(nil, vals[0], vals[1])
			if err != nil {
				return nil, err
			}
			return types.NewVector(r), nil
		}}
	ov.Kernel = wrapKernel(ov, tVec, vecMapKernel(len(args), f))
	return ov
}

// vecElementwise is the math of + - *: op over the elements of two
// vectors of one size, in float4 with pgvector's overflow (and, for *,
// underflow) checks.
func vecElementwise(op byte) vecMapFn {
	return func(dst []float32, av, bv *vecVal) ([]float32, error) {
		a, b := av.data, bv.data
		if len(a) != len(b) {
			return nil, flavorVector.errDims(len(a), len(b))
		}
		dst = growFloats(dst, len(a))
		switch op {
		case '+':
			for i := range a {
				dst[i] = a[i] + b[i]
			}
		case '-':
			for i := range a {
				dst[i] = a[i] - b[i]
			}
		case '*':
			for i := range a {
				dst[i] = a[i] * b[i]
			}
		}
		for i, r := range dst {
			if isInf(r) {
				return nil, errFloatOverflow()
			}
			if op == '*' && r == 0 && a[i] != 0 && b[i] != 0 {
				return nil, errFloatUnderflow()
			}
		}
		return dst, nil
	}
}

// growFloats returns dst resized to n elements.
func growFloats(dst []float32, n int) []float32 {
	if cap(dst) < n {
		return make([]float32, n)
	}
	return dst[:n]
}

// errVecTooBig is pgvector's error for a result of more than vecMaxDim
// dimensions.
func errVecTooBig() error {
	return pgerr.New(pgerrcode.ProgramLimitExceeded, "vector cannot have more than %d dimensions", vecMaxDim)
}

// vecConcat is ||: a's elements then b's.
func vecConcat(dst []float32, av, bv *vecVal) ([]float32, error) {
	a, b := av.data, bv.data
	if len(a)+len(b) > vecMaxDim {
		return nil, errVecTooBig()
	}
	return append(append(dst, a...), b...), nil
}

// vecL2Normalize is l2_normalize: v divided by its Euclidean norm; a zero
// vector stays zero.
func vecL2Normalize(dst []float32, av, _ *vecVal) ([]float32, error) {
	a := av.data
	dst = growFloats(dst, len(a))
	norm := l2Norm(a)
	if norm == 0 {
		clear(dst)
		return dst, nil
	}
	for i, x := range a {
		dst[i] = float32(float64(x) / norm)
		if isInf(dst[i]) {
			return nil, errFloatOverflow()
		}
	}
	return dst, nil
}

// errVecEmpty is pgvector's error for a vector of no dimensions.
func errVecEmpty() error {
	return pgerr.New(pgerrcode.DataException, "vector must have at least 1 dimension")
}

// subvector(v, start, count): count elements of v from the 1-based start,
// clipped to v as pgvector clips them.
func subvector(_ *Context, args []any) (any, error) {
	v, err := vecOfDatum(args[0])
	if err != nil {
		return nil, err
	}
	a := v.data
	start, count := args[1].(int64), args[2].(int64)
	if count < 1 {
		return nil, errVecEmpty()
	}
	end := start + count // int32 arguments: no overflow in int64
	if start < 1 {
		start = 1
	} else if start > int64(len(a)) {
		return nil, errVecEmpty()
	}
	end = min(end, int64(len(a))+1)
	if end <= start {
		return nil, errVecEmpty()
	}
	return types.NewVector(a[start-1 : end-1]), nil
}

// vecSumState is sum(vector): the rows added in float4, as pgvector's
// vector_add does, with its overflow check.
type vecSumState struct {
	sum []float32
	n   int64
}

func (s *vecSumState) Step(_ *Context, args []any) error {
	v, err := vecOfDatum(args[0])
	if err != nil {
		return err
	}
	a := v.data
	if s.n == 0 {
		s.sum = append(s.sum[:0], a...)
		s.n++
		return nil
	}
	if len(a) != len(s.sum) {
		return flavorVector.errDims(len(s.sum), len(a))
	}
	for i, x := range a {
		s.sum[i] += x
		if isInf(s.sum[i]) {
			return errFloatOverflow()
		}
	}
	s.n++
	return nil
}

func (s *vecSumState) Result(*Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	return types.NewVector(s.sum), nil
}

func (s *vecSumState) Size() int64 { return int64(len(s.sum)) * 4 }

// vecAvgState is avg(vector): sums in float8 (pgvector's vector_accum),
// the mean rounded to float4 with an overflow check.
type vecAvgState struct {
	sum []float64
	n   int64
}

func (s *vecAvgState) Step(_ *Context, args []any) error {
	v, err := vecOfDatum(args[0])
	if err != nil {
		return err
	}
	a := v.data
	if s.n == 0 {
		s.sum = make([]float64, len(a))
	} else if len(a) != len(s.sum) {
		return pgerr.New(pgerrcode.DataException, "expected %d dimensions, not %d", len(s.sum), len(a))
	}
	for i, x := range a {
		s.sum[i] += float64(x)
	}
	s.n++
	return nil
}

func (s *vecAvgState) Result(*Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	out := make([]float32, len(s.sum))
	for i, x := range s.sum {
		out[i] = float32(x / float64(s.n))
		if isInf(out[i]) && !math.IsInf(x, 0) {
			return nil, errFloatOverflow()
		}
	}
	return types.NewVector(out), nil
}

func (s *vecAvgState) Size() int64 { return int64(len(s.sum)) * 8 }

func init() {
	two := []types.T{tVec, tVec}
	Register(
		vecMap("+", two, vecElementwise('+')),
		vecMap("-", two, vecElementwise('-')),
		vecMap("*", two, vecElementwise('*')),
		vecMap("||", two, vecConcat),
		vecMap("l2_normalize", []types.T{tVec}, vecL2Normalize),
		fn("subvector", targs(tVec, types.Int4T, types.Int4T), tVec, subvector),
	)
	RegisterAggregate(
		&Aggregate{Name: "sum", Args: targs(tVec), Result: tVec, New: func([]types.T) AggState { return &vecSumState{} }},
		&Aggregate{Name: "avg", Args: targs(tVec), Result: tVec, New: func([]types.T) AggState { return &vecAvgState{} }},
	)
}
