package functions

// Arithmetic operators + - * / % and unary - and + on smallint, integer,
// bigint (overflow is 22003, integer division truncates), real and double
// precision (overflow and underflow are 22003), numeric (exact, with
// PostgreSQL's result scales), all with division by zero as 22012. Integer
// and float columns have batch kernels.

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// arithOp is a binary arithmetic operator.
type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv
	opMod
)

var arithOpNames = [...]string{"+", "-", "*", "/", "%"}

func init() {
	for op := opAdd; op <= opMod; op++ {
		for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T} {
			Register(intArith(op, t))
		}
		if op != opMod {
			Register(floatArith(op, types.Float4T, types.Float4T, types.Float4T),
				floatArith(op, types.Float8T, types.Float8T, types.Float8T),
				floatArith(op, types.Float4T, types.Float8T, types.Float8T),
				floatArith(op, types.Float8T, types.Float4T, types.Float8T))
		}
		Register(numericArith(op))
	}
	for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT} {
		Register(negOverload(t), &Overload{Name: "+", Args: []types.T{t}, Result: t,
			Eval: func(_ *Context, args []any) (any, error) { return args[0], nil }})
	}
}

// intArith is op on two integers of type t.
func intArith(op arithOp, t types.T) *Overload {
	f := t.Family
	ov := &Overload{Name: arithOpNames[op], Args: []types.T{t, t}, Result: t}
	ov.Eval = func(_ *Context, args []any) (any, error) {
		return intArithEval(op, args[0].(int64), args[1].(int64), f)
	}
	switch f {
	case types.Int2:
		ov.Kernel = wrapKernel(ov, t, intArithKernel[int16](op, f))
	case types.Int4:
		ov.Kernel = wrapKernel(ov, t, intArithKernel[int32](op, f))
	default:
		ov.Kernel = wrapKernel(ov, t, intArithKernel[int64](op, f))
	}
	return ov
}

// intArithEval is one integer operation with the result range of f.
func intArithEval(op arithOp, x, y int64, f types.Family) (any, error) {
	_, _, name := intRange(f)
	var r int64
	switch op {
	case opAdd:
		r = x + y
		if (x^r)&(y^r) < 0 {
			return nil, errIntRange(name)
		}
	case opSub:
		r = x - y
		if (x^y)&(x^r) < 0 {
			return nil, errIntRange(name)
		}
	case opMul:
		var o bool
		r, o = mulOvf(x, y)
		if o {
			return nil, errIntRange(name)
		}
	case opDiv:
		if y == 0 {
			return nil, errDivByZero()
		}
		if y == -1 {
			if x == math.MinInt64 {
				return nil, errIntRange(name)
			}
			r = -x
		} else {
			r = x / y
		}
	case opMod:
		if y == 0 {
			return nil, errDivByZero()
		}
		if y == -1 {
			return int64(0), nil
		}
		r = x % y
	}
	return checkInt(r, f)
}

// mulOvf multiplies with overflow detection in T's width.
func mulOvf[T signed](x, y T) (T, bool) {
	r := x * y
	switch any(x).(type) {
	case int64:
		x64, y64 := int64(x), int64(y)
		hi, lo := bits.Mul64(uint64(x64), uint64(y64))
		hi -= uint64(x64>>63) & uint64(y64)
		hi -= uint64(y64>>63) & uint64(x64)
		return r, hi != uint64(int64(lo)>>63)
	}
	return r, int64(x)*int64(y) != int64(r)
}

// intArithKernel is the batch form of intArith for Go element type T.
func intArithKernel[T signed](op arithOp, f types.Family) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		m := mem(ctx)
		valid, nulls := validity(m, args, n)
		buf, out := newFixed[T](m, n)
		av, bv, ac, bc := fixedArgs[T](args[0], args[1])
		if intLoop(op, av, bv, ac, bc, out) {
			// Something overflowed or divided by zero: find the first such
			// row that is not NULL.
			for i := 0; i < n; i++ {
				if !isValid(valid, i) {
					continue
				}
				x, y := ac, bc
				if av != nil {
					x = av[i]
				}
				if bv != nil {
					y = bv[i]
				}
				if _, err := intArithEval(op, int64(x), int64(y), f); err != nil {
					buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
			}
		}
		return finish(f2arrow(f), n, valid, nulls, buf), nil
	}
}

func f2arrow(f types.Family) arrow.DataType { return types.T{Family: f, Mod: -1}.Arrow() }

// floatArith is op on floats; left and right may differ (real with double
// precision computes in double precision).
func floatArith(op arithOp, left, right, res types.T) *Overload {
	ov := &Overload{Name: arithOpNames[op], Args: []types.T{left, right}, Result: res}
	f4 := res.Family == types.Float4
	ov.Eval = func(_ *Context, args []any) (any, error) {
		return floatArithEval(op, args[0].(float64), args[1].(float64), f4)
	}
	if left.Family == right.Family {
		if f4 {
			ov.Kernel = wrapKernel(ov, res, floatArithKernel[float32](op))
		} else {
			ov.Kernel = wrapKernel(ov, res, floatArithKernel[float64](op))
		}
	}
	return ov
}

func errFloatOverflow() error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "value out of range: overflow")
}

func errFloatUnderflow() error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "value out of range: underflow")
}

// floatArithEval is one float operation, in single precision when f4.
func floatArithEval(op arithOp, x, y float64, f4 bool) (any, error) {
	if f4 {
		r, err := floatOp(op, float32(x), float32(y))
		return float64(r), err
	}
	return floatOp(op, x, y)
}

// floatOp applies op with PostgreSQL's float checks.
func floatOp[T float](op arithOp, x, y T) (T, error) {
	var r T
	switch op {
	case opAdd:
		r = x + y
	case opSub:
		r = x - y
	case opMul:
		r = x * y
		if r == 0 && x != 0 && y != 0 {
			return 0, errFloatUnderflow()
		}
	case opDiv:
		if y == 0 {
			return 0, errDivByZero()
		}
		r = x / y
		if r == 0 && x != 0 && !isInf(y) {
			return 0, errFloatUnderflow()
		}
	}
	if isInf(r) && !isInf(x) && !isInf(y) {
		return 0, errFloatOverflow()
	}
	return r, nil
}

func isInf[T float](x T) bool { return x-x != 0 && x == x }

// floatArithKernel is the batch form of floatArith for element type T.
func floatArithKernel[T float](op arithOp) func(*Context, []Arg, int) (arrow.Array, error) {
	return func(ctx *Context, args []Arg, n int) (arrow.Array, error) {
		m := mem(ctx)
		valid, nulls := validity(m, args, n)
		buf, out := newFixed[T](m, n)
		av, bv, ac, bc := fixedArgs[T](args[0], args[1])
		if floatLoop(op, av, bv, ac, bc, out) {
			for i := 0; i < n; i++ {
				if !isValid(valid, i) {
					continue
				}
				x, y := ac, bc
				if av != nil {
					x = av[i]
				}
				if bv != nil {
					y = bv[i]
				}
				if _, err := floatOp(op, x, y); err != nil {
					buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
			}
		}
		var dt arrow.DataType = arrow.PrimitiveTypes.Float64
		if _, ok := any(ac).(float32); ok {
			dt = arrow.PrimitiveTypes.Float32
		}
		return finish(dt, n, valid, nulls, buf), nil
	}
}

// floatLoop computes out = a op b and reports whether some row may need
// an error: an infinite or NaN result (overflow), a zero result of a
// multiplication or division (underflow), a zero divisor.
func floatLoop[T float](op arithOp, a, b []T, ac, bc T, out []T) bool {
	floatMap(op, a, b, ac, bc, out)
	// r - r is NaN exactly when r is infinite or NaN.
	var acc T
	for _, r := range out {
		acc += r - r
	}
	if acc != 0 || acc != acc {
		return true
	}
	if op == opMul || op == opDiv {
		// A zero result is an underflow unless the dividend or a factor is
		// zero (or the divisor infinite, already flagged above).
		for i, r := range out {
			if r != 0 {
				continue
			}
			x, y := ac, bc
			if a != nil {
				x = a[i]
			}
			if b != nil {
				y = b[i]
			}
			if x != 0 && (op == opDiv || y != 0) {
				return true
			}
		}
	}
	return false
}

// numericArith is op on numerics.
func numericArith(op arithOp) *Overload {
	return &Overload{Name: arithOpNames[op], Args: []types.T{types.NumericT, types.NumericT}, Result: types.NumericT,
		Eval: func(_ *Context, args []any) (any, error) {
			return numericOp(op, args[0].(*apd.Decimal), args[1].(*apd.Decimal))
		}}
}

// numericOp is one numeric operation with PostgreSQL's special values:
// NaN in, NaN out; Infinity - Infinity and Infinity * 0 are NaN.
func numericOp(op arithOp, x, y *apd.Decimal) (*apd.Decimal, error) {
	nan := &apd.Decimal{Form: apd.NaN}
	if op == opDiv || op == opMod {
		if y.Form == apd.Finite && y.IsZero() {
			if x.Form == apd.NaN {
				return nan, nil
			}
			return nil, errDivByZero()
		}
	}
	if x.Form == apd.NaN || y.Form == apd.NaN {
		return nan, nil
	}
	d := new(apd.Decimal)
	switch op {
	case opAdd, opSub:
		if x.Form == apd.Infinite || y.Form == apd.Infinite {
			yn := y.Negative != (op == opSub)
			switch {
			case x.Form == apd.Infinite && y.Form == apd.Infinite:
				if x.Negative != yn {
					return nan, nil
				}
				return x, nil
			case x.Form == apd.Infinite:
				return x, nil
			}
			return &apd.Decimal{Form: apd.Infinite, Negative: yn}, nil
		}
		var err error
		if op == opAdd {
			_, err = exact.Add(d, x, y)
		} else {
			_, err = exact.Sub(d, x, y)
		}
		if err != nil {
			return nil, numericOverflow()
		}
	case opMul:
		if x.Form == apd.Infinite || y.Form == apd.Infinite {
			if x.IsZero() || y.IsZero() {
				return nan, nil
			}
			return &apd.Decimal{Form: apd.Infinite, Negative: x.Negative != y.Negative}, nil
		}
		if _, err := exact.Mul(d, x, y); err != nil {
			return nil, numericOverflow()
		}
		// The exact product's scale is the sum of the inputs'; PostgreSQL
		// stores at most numericMaxDScale decimals and rounds the rest.
		if decScale(d) > numericMaxDScale {
			return roundDec(d, numericMaxDScale), nil
		}
	case opDiv:
		return quoDec(x, y, divScale(x, y))
	case opMod:
		if x.Form == apd.Infinite {
			return nan, nil
		}
		if y.Form == apd.Infinite {
			return x, nil
		}
		q, err := truncQuo(x, y)
		if err != nil {
			return nil, err
		}
		var p apd.Decimal
		if _, err := exact.Mul(&p, y, q); err != nil {
			return nil, numericOverflow()
		}
		if _, err := exact.Sub(d, x, &p); err != nil {
			return nil, numericOverflow()
		}
	}
	return normDec(d), nil
}

// truncQuo is x / y truncated toward zero to an integer (div, mod).
func truncQuo(x, y *apd.Decimal) (*apd.Decimal, error) {
	d := new(apd.Decimal)
	prec := x.NumDigits() + int64(x.Exponent) - y.NumDigits() - int64(y.Exponent) + 4
	if prec < 4 {
		prec = 4
	}
	c := decCtx(uint32(prec))
	c.Rounding = apd.RoundDown
	if _, err := c.QuoInteger(d, x, y); err != nil {
		return nil, numericOverflow()
	}
	return d, nil
}

// negOverload is unary minus on t.
func negOverload(t types.T) *Overload {
	f := t.Family
	ov := &Overload{Name: "-", Args: []types.T{t}, Result: t}
	ov.Eval = func(_ *Context, args []any) (any, error) {
		switch v := args[0].(type) {
		case int64:
			if v == math.MinInt64 {
				return nil, errIntRange("bigint")
			}
			return checkInt(-v, f)
		case float64:
			return -v, nil
		case *apd.Decimal:
			d := new(apd.Decimal)
			d.Neg(v)
			return normDec(d), nil
		}
		return nil, pgerr.New(pgerrcode.InternalError, "unexpected datum %T", args[0])
	}
	return ov
}
