package functions

import "github.com/cairn-db/cairn/sql/types"

// fn builds a strict, immutable overload from a row function.
func fn(name string, args []types.T, res types.T, f func(ctx *Context, a []any) (any, error)) *Overload {
	return &Overload{Name: name, Args: args, Result: res, Eval: f}
}

// fn1 builds a strict one-argument overload.
func fn1(name string, arg, res types.T, f func(a any) (any, error)) *Overload {
	return fn(name, []types.T{arg}, res, func(_ *Context, a []any) (any, error) { return f(a[0]) })
}

// targs is a shorthand for a parameter list.
func targs(ts ...types.T) []types.T { return ts }

var (
	tText = types.TextT
	tInt4 = types.Int4T
	tInt8 = types.Int8T
	tF8   = types.Float8T
	tNum  = types.NumericT
	tBool = types.BoolT
)
