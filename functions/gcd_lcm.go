package functions

// gcd(a, b) and lcm(a, b) for integer, bigint and numeric. Results are
// never negative; gcd(0, 0) and lcm(x, 0) are 0; a result the type cannot
// hold is 22003. On numeric the inputs need not be integers: the result
// is their greatest common divisor (least common multiple) in steps of
// the larger display scale, which is also the result's scale; NaN and
// infinity give NaN.

import (
	"math/big"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

func init() {
	for _, t := range []types.T{tInt4, tInt8} {
		f := t.Family
		Register(
			fn("gcd", targs(t, t), t, func(_ *Context, a []any) (any, error) {
				g := new(big.Int).GCD(nil, nil, big.NewInt(a[0].(int64)), big.NewInt(a[1].(int64)))
				return bigToInt(g, f)
			}),
			fn("lcm", targs(t, t), t, func(_ *Context, a []any) (any, error) {
				return bigToInt(lcmBig(big.NewInt(a[0].(int64)), big.NewInt(a[1].(int64))), f)
			}),
		)
	}
	Register(
		fn("gcd", targs(tNum, tNum), tNum, func(_ *Context, a []any) (any, error) {
			return numericGcdLcm(a[0].(*apd.Decimal), a[1].(*apd.Decimal), func(x, y *big.Int) *big.Int {
				return new(big.Int).GCD(nil, nil, x, y)
			}), nil
		}),
		fn("lcm", targs(tNum, tNum), tNum, func(_ *Context, a []any) (any, error) {
			return numericGcdLcm(a[0].(*apd.Decimal), a[1].(*apd.Decimal), lcmBig), nil
		}),
	)
}

// lcmBig is |x / gcd(x, y) * y|, 0 when either is 0. (big.Int's GCD
// takes the absolute values itself.)
func lcmBig(x, y *big.Int) *big.Int {
	if x.Sign() == 0 || y.Sign() == 0 {
		return new(big.Int)
	}
	g := new(big.Int).GCD(nil, nil, x, y)
	r := new(big.Int).Quo(x, g)
	r.Mul(r, y)
	return r.Abs(r)
}

// bigToInt converts a result to an integer type's datum, range-checked.
func bigToInt(b *big.Int, f types.Family) (any, error) {
	if !b.IsInt64() {
		_, _, name := intRange(f)
		return nil, errIntRange(name)
	}
	return checkInt(b.Int64(), f)
}

// numericGcdLcm applies op to x and y scaled to integers by their larger
// display scale and scales the result back.
func numericGcdLcm(x, y *apd.Decimal, op func(x, y *big.Int) *big.Int) *apd.Decimal {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return &apd.Decimal{Form: apd.NaN}
	}
	s := max(decScale(x), decScale(y))
	scaled := func(d *apd.Decimal) *big.Int {
		b := d.Coeff.MathBigInt()
		b.Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)+int64(d.Exponent)), nil))
		if d.Negative {
			b.Neg(b)
		}
		return b
	}
	r := new(apd.Decimal)
	r.Coeff.SetMathBigInt(op(scaled(x), scaled(y)))
	r.Exponent = -s
	return r
}
