package functions

// array_remove(anyarray, anyelement) drops every element not distinct
// from the value; array_replace(anyarray, from, to) replaces them.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(
		&Overload{Name: "array_remove", Args: []types.T{ArgAnyArray, ArgAny}, ResultFn: arrayResult, NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) {
				if args[0] == nil {
					return nil, nil
				}
				a := args[0].(*types.Array)
				if len(a.Dims) > 1 {
					return nil, pgerr.New(pgerrcode.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
				}
				var out []any
				for _, e := range a.Elems {
					if !notDistinct(e, args[1], a.Elem) {
						out = append(out, e)
					}
				}
				if len(out) == 0 {
					return &types.Array{Elem: a.Elem}, nil
				}
				return &types.Array{Elem: a.Elem, Dims: []int{len(out)}, Elems: out}, nil
			}},
		&Overload{Name: "array_replace", Args: []types.T{ArgAnyArray, ArgAny, ArgAny}, ResultFn: arrayResult, NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) {
				if args[0] == nil {
					return nil, nil
				}
				a := args[0].(*types.Array)
				out := &types.Array{Elem: a.Elem, Dims: a.Dims, Elems: make([]any, len(a.Elems))}
				for i, e := range a.Elems {
					if notDistinct(e, args[1], a.Elem) {
						out.Elems[i] = args[2]
					} else {
						out.Elems[i] = e
					}
				}
				return out, nil
			}},
	)
}

// notDistinct is IS NOT DISTINCT FROM on datums of type t.
func notDistinct(a, b any, t types.T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return compareDatum(a, b, t) == 0
}
