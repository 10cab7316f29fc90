package functions

// array_length, array_upper, array_lower, array_ndims, array_dims and
// cardinality. Lower bounds are always 1 in cairn.

import (
	"fmt"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	dimFn := func(name string, f func(a *types.Array, d int) any) *Overload {
		return &Overload{Name: name, Args: []types.T{ArgAnyArray, types.Int4T}, Result: types.Int4T,
			Eval: func(_ *Context, args []any) (any, error) {
				a := args[0].(*types.Array)
				d := int(args[1].(int64))
				if d < 1 || d > len(a.Dims) {
					return nil, nil
				}
				return f(a, d-1), nil
			}}
	}
	Register(
		dimFn("array_length", func(a *types.Array, d int) any { return int64(a.Dims[d]) }),
		dimFn("array_upper", func(a *types.Array, d int) any { return int64(a.Dims[d]) }),
		dimFn("array_lower", func(a *types.Array, d int) any { return int64(1) }),
		&Overload{Name: "cardinality", Args: []types.T{ArgAnyArray}, Result: types.Int4T,
			Eval: func(_ *Context, args []any) (any, error) { return int64(len(args[0].(*types.Array).Elems)), nil }},
		&Overload{Name: "array_ndims", Args: []types.T{ArgAnyArray}, Result: types.Int4T,
			Eval: func(_ *Context, args []any) (any, error) {
				a := args[0].(*types.Array)
				if len(a.Dims) == 0 {
					return nil, nil
				}
				return int64(len(a.Dims)), nil
			}},
		&Overload{Name: "array_dims", Args: []types.T{ArgAnyArray}, Result: types.TextT,
			Eval: func(_ *Context, args []any) (any, error) {
				a := args[0].(*types.Array)
				if len(a.Dims) == 0 {
					return nil, nil
				}
				var b strings.Builder
				for _, d := range a.Dims {
					fmt.Fprintf(&b, "[1:%d]", d)
				}
				return b.String(), nil
			}},
	)
}
