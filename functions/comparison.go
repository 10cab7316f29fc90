package functions

// Comparison operators = <> < <= > >= (!= is <>) for every comparable
// type, with batch kernels for integer, float, date/time, text and bool
// columns against a column or a constant.

import (
	"cmp"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var cmpOpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

// flip is the operator with its operands swapped (a < b == b > a).
func (o cmpOp) flip() cmpOp {
	switch o {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return o
}

// test applies the operator to a three-way comparison result.
func (o cmpOp) test(c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

func init() {
	comparable := []types.T{
		types.BoolT, types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T,
		types.NumericT, types.TextT, types.CharT, types.ByteaT, types.UUIDT, types.DateT,
		types.TimeT, types.TimestampT, types.TimestampTZT, types.IntervalT, types.JSONBT,
		types.OidT, ArgSameArray,
	}
	for op := opEq; op <= opGe; op++ {
		for _, t := range comparable {
			Register(cmpOverload(op, t, t))
		}
		// float4 against float8 compares in double precision, as
		// float48eq and friends do.
		Register(cmpOverload(op, types.Float4T, types.Float8T), cmpOverload(op, types.Float8T, types.Float4T))
	}
}

func cmpOverload(op cmpOp, left, right types.T) *Overload {
	elemT := left
	if left.Family != right.Family {
		elemT = types.Float8T
	}
	ov := &Overload{
		Name:   cmpOpNames[op],
		Args:   []types.T{left, right},
		Result: types.BoolT,
	}
	ov.Eval = func(_ *Context, args []any) (any, error) {
		t := elemT
		if t.Family == types.ArrayFamily && t.Elem.Family == types.Unknown {
			t = types.ArrayOf(types.TextT, 1)
		}
		return op.test(compareDatum(args[0], args[1], t)), nil
	}
	if left.Family == types.ArrayFamily {
		// The element type is known only at call time.
		ov.Eval = func(ctx *Context, args []any) (any, error) {
			a, b := args[0].(*types.Array), args[1].(*types.Array)
			return op.test(cmpArray(a, b, a.Elem)), nil
		}
		return ov
	}
	if left.Family == right.Family {
		if k := cmpKernelFor(op, left); k != nil {
			ov.Kernel = wrapKernel(ov, types.BoolT, k)
		}
	}
	return ov
}

// cmpKernelFor returns the batch kernel for comparing two columns of t,
// or nil where rows go through Eval.
func cmpKernelFor(op cmpOp, t types.T) func(*Context, []Arg, int) (arrow.Array, error) {
	switch t.Family {
	case types.Int2:
		return cmpFixedKernel[int16](op)
	case types.Int4, types.DateFamily:
		return cmpFixedKernel[int32](op)
	case types.Int8, types.Time, types.TimestampFamily, types.TimestampTZ:
		return cmpFixedKernel[int64](op)
	case types.Float4:
		return cmpFloatKernel[float32](op)
	case types.Float8:
		return cmpFloatKernel[float64](op)
	case types.Text:
		return cmpStringKernel(op)
	case types.Bool:
		return cmpBoolKernel(op)
	}
	return nil
}

// cmpFixedKernel compares fixed-width columns of T.
func cmpFixedKernel[T signed](op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			a, b := args[0], args[1]
			switch {
			case a.Array != nil && b.Array != nil:
				cmpColCol(op, values[T](a.Array), values[T](b.Array), out)
			case a.Array != nil:
				cmpColConst(op, values[T](a.Array), constAs[T](b.Const), out)
			default:
				cmpColConst(op.flip(), values[T](b.Array), constAs[T](a.Const), out)
			}
			return nil
		})
	}
}

// cmpFloatKernel compares float columns; NaN (equal to itself, above
// everything) takes a slower row loop only when present.
func cmpFloatKernel[T float](op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			a, b := args[0], args[1]
			var av, bv []T
			var ac, bc T
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
			if floatHasNaN(av) || floatHasNaN(bv) || ac != ac || bc != bc {
				for i := 0; i < n; i++ {
					x, y := ac, bc
					if av != nil {
						x = av[i]
					}
					if bv != nil {
						y = bv[i]
					}
					if op.test(types.CompareFloat(float64(x), float64(y))) {
						out[i>>3] |= 1 << (i & 7)
					}
				}
				return nil
			}
			switch {
			case av != nil && bv != nil:
				cmpColCol(op, av, bv, out)
			case av != nil:
				cmpColConst(op, av, bc, out)
			default:
				cmpColConst(op.flip(), bv, ac, out)
			}
			return nil
		})
	}
}

// cmpStringKernel compares text columns bytewise (the C collation).
func cmpStringKernel(op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			a, b := args[0], args[1]
			switch {
			case a.Array != nil && b.Array != nil:
				x, y := a.Array.(*array.String), b.Array.(*array.String)
				for i := 0; i < n; i++ {
					if op.test(cmp.Compare(x.Value(i), y.Value(i))) {
						out[i>>3] |= 1 << (i & 7)
					}
				}
			default:
				col, c, o := a.Array, b.Const, op
				if col == nil {
					col, c, o = b.Array, a.Const, op.flip()
				}
				x := col.(*array.String)
				k := c.(string)
				if o == opEq || o == opNe {
					want := o == opEq
					for i := 0; i < n; i++ {
						if (x.Value(i) == k) == want {
							out[i>>3] |= 1 << (i & 7)
						}
					}
					return nil
				}
				for i := 0; i < n; i++ {
					if o.test(cmp.Compare(x.Value(i), k)) {
						out[i>>3] |= 1 << (i & 7)
					}
				}
			}
			return nil
		})
	}
}

// cmpBoolKernel compares boolean columns (false < true).
func cmpBoolKernel(op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			get := func(a Arg, i int) bool {
				if a.Array != nil {
					return a.Array.(*array.Boolean).Value(i)
				}
				return a.Const.(bool)
			}
			for i := 0; i < n; i++ {
				if op.test(cmpBool(get(args[0], i), get(args[1], i))) {
					out[i>>3] |= 1 << (i & 7)
				}
			}
			return nil
		})
	}
}

// cmpBatch is a boolean result of n rows whose NULLs are those of the
// arguments: fill sets the bits of out (zeroed) for the rows that are
// true, and may skip the rows that valid (the arguments' combined
// validity, nil when no row is NULL) marks NULL. An error from fill is
// the kernel's.
func cmpBatch(ctx *Context, args []Arg, n int, fill func(out []byte, valid *memory.Buffer) error) (arrow.Array, error) {
	m := mem(ctx)
	valid, nulls := validity(m, args, n)
	out := newBits(m, n)
	if err := fill(out.Bytes(), valid); err != nil {
		out.Release()
		if valid != nil {
			valid.Release()
		}
		return nil, err
	}
	return finish(arrow.FixedWidthTypes.Boolean, n, valid, nulls, out), nil
}

// cmpColCol sets bit i of out when a[i] op b[i], eight rows per output
// byte. The last partial byte of out must be zeroed.
func cmpColCol[T cmp.Ordered](op cmpOp, a, b []T, out []byte) {
	b = b[:len(a)]
	n := len(a)
	full := n &^ 7
	switch op {
	case opEq:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] == y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] == b[i]) << (i & 7)
		}
	case opNe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] != y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] != b[i]) << (i & 7)
		}
	case opLt:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] < y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] < b[i]) << (i & 7)
		}
	case opLe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] <= y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] <= b[i]) << (i & 7)
		}
	case opGt:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] > y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] > b[i]) << (i & 7)
		}
	case opGe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			y := b[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] >= y[j]) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] >= b[i]) << (i & 7)
		}
	}
}

// cmpColConst sets bit i of out when a[i] op c, eight rows per output
// byte. The last partial byte of out must be zeroed.
func cmpColConst[T cmp.Ordered](op cmpOp, a []T, c T, out []byte) {
	n := len(a)
	full := n &^ 7
	switch op {
	case opEq:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] == c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] == c) << (i & 7)
		}
	case opNe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] != c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] != c) << (i & 7)
		}
	case opLt:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] < c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] < c) << (i & 7)
		}
	case opLe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] <= c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] <= c) << (i & 7)
		}
	case opGt:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] > c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] > c) << (i & 7)
		}
	case opGe:
		for i := 0; i < full; i += 8 {
			x := a[i : i+8 : i+8]
			var m byte
			for j := 0; j < 8; j++ {
				m |= b2u(x[j] >= c) << j
			}
			out[i>>3] = m
		}
		for i := full; i < n; i++ {
			out[i>>3] |= b2u(a[i] >= c) << (i & 7)
		}
	}
}

// b2u is 1 for true and 0 for false (compiled to SETcc).
func b2u(b bool) byte {
	var x byte
	if b {
		x = 1
	}
	return x
}
