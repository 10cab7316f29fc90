package functions

// Comparison operators = <> < <= > >= (!= is <>) for every comparable
// type, with batch kernels for integer, float, date/time, text and bool
// columns against a column or a constant.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
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
		types.OidT, types.InternalCharT, ArgSameArray,
	}
	for op := opEq; op <= opGe; op++ {
		for _, t := range comparable {
			Register(cmpOverload(op, t, t))
		}
		// float4 against float8 compares in double precision, as
		// float48eq and friends do.
		Register(cmpOverload(op, types.Float4T, types.Float8T), cmpOverload(op, types.Float8T, types.Float4T))
		Register(recordCmpOverload(op))
	}
}

// recordCmpOverload compares two record values (whole-row references) as
// PostgreSQL's record_eq, record_lt ... do: field by field, two NULL
// fields equal and a NULL after any value (unlike row constructors, where
// a NULL field makes the comparison NULL; the binder compares those
// itself). Records of different numbers of fields do not compare.
func recordCmpOverload(op cmpOp) *Overload {
	return fn(cmpOpNames[op], targs(types.RecordT, types.RecordT), types.BoolT, func(_ *Context, a []any) (any, error) {
		x, _ := a[0].([]any)
		y, _ := a[1].([]any)
		if len(x) != len(y) {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "cannot compare record types with different numbers of columns")
		}
		return op.test(compareDatum(a[0], a[1], types.RecordT)), nil
	})
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
		return cmpArrayKernel(op, compareText)
	case types.Bool:
		return cmpArrayKernel(op, compareBool)
	}
	return nil
}

// cmpFixedKernel compares fixed-width columns of T.
func cmpFixedKernel[T signed](op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			av, bv, ac, bc := fixedArgs[T](args[0], args[1])
			compareFixed(op, av, bv, ac, bc, out)
			return nil
		})
	}
}

// cmpFloatKernel compares float columns; NaN (equal to itself, above
// everything) takes a slower row loop only when present.
func cmpFloatKernel[T float](op cmpOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			av, bv, ac, bc := fixedArgs[T](args[0], args[1])
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
			compareFixed(op, av, bv, ac, bc, out)
			return nil
		})
	}
}

// cmpArrayKernel compares columns read as Arrow arrays of type C, with
// constants of type E, through their generated loops compare
// (compareText, compareBool).
func cmpArrayKernel[C arrow.Array, E any](op cmpOp, compare func(op cmpOp, a, b C, ac, bc E, n int, out []byte)) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
			var av, bv C
			var ac, bc E
			if a := args[0]; a.Array != nil {
				av = a.Array.(C)
			} else {
				ac = a.Const.(E)
			}
			if b := args[1]; b.Array != nil {
				bv = b.Array.(C)
			} else {
				bc = b.Const.(E)
			}
			compare(op, av, bv, ac, bc, n, out)
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

// b2u is 1 for true and 0 for false (compiled to SETcc).
func b2u(b bool) byte {
	var x byte
	if b {
		x = 1
	}
	return x
}
