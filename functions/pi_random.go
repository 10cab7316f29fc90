package functions

// pi(), random() (volatile, uniform in [0, 1)) and setseed is not
// supported; also degrees/radians and the trigonometric functions.

import (
	"math"
	"math/rand/v2"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(
		fn("pi", nil, tF8, func(_ *Context, _ []any) (any, error) { return math.Pi, nil }),
		&Overload{Name: "random", Result: tF8, Volatility: Volatile,
			Eval: func(_ *Context, _ []any) (any, error) { return rand.Float64(), nil }},
		fn1("degrees", tF8, tF8, func(a any) (any, error) { return a.(float64) * (180 / math.Pi), nil }),
		fn1("radians", tF8, tF8, func(a any) (any, error) { return a.(float64) * (math.Pi / 180), nil }),
	)
	for name, f := range map[string]func(float64) float64{
		"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan,
	} {
		f := f
		Register(fn1(name, tF8, tF8, func(a any) (any, error) {
			x := a.(float64)
			r := f(x)
			if math.IsNaN(r) && !math.IsNaN(x) {
				return nil, errInputOutOfRange()
			}
			return r, nil
		}))
	}
	Register(fn("atan2", targs(tF8, tF8), tF8, func(_ *Context, a []any) (any, error) {
		return math.Atan2(a[0].(float64), a[1].(float64)), nil
	}))
}

func errInputOutOfRange() error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "input is out of range")
}
