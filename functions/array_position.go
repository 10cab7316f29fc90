package functions

// array_position(anyarray, anyelement [, start]): the 1-based subscript
// of the first element not distinct from the value (NULL finds NULL), or
// NULL; array_positions returns all of them.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	find := func(args []any, all bool) (any, error) {
		if args[0] == nil {
			return nil, nil
		}
		a := args[0].(*types.Array)
		if len(a.Dims) > 1 {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
		}
		start := 0
		if len(args) > 2 {
			if args[2] == nil {
				return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "initial position must not be null")
			}
			start = int(args[2].(int64)) - 1
			if start < 0 {
				start = 0
			}
		}
		var found []any
		for i := start; i < len(a.Elems); i++ {
			e := a.Elems[i]
			if (e == nil && args[1] == nil) || (e != nil && args[1] != nil && compareDatum(e, args[1], a.Elem) == 0) {
				if !all {
					return int64(i + 1), nil
				}
				found = append(found, int64(i+1))
			}
		}
		if !all {
			return nil, nil
		}
		if len(found) == 0 {
			return &types.Array{Elem: types.Int4T}, nil
		}
		return &types.Array{Elem: types.Int4T, Dims: []int{len(found)}, Elems: found}, nil
	}
	Register(
		&Overload{Name: "array_position", Args: []types.T{ArgAnyArray, ArgAny}, Result: types.Int4T, NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) { return find(args, false) }},
		&Overload{Name: "array_position", Args: []types.T{ArgAnyArray, ArgAny, types.Int4T}, Result: types.Int4T, NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) { return find(args, false) }},
		&Overload{Name: "array_positions", Args: []types.T{ArgAnyArray, ArgAny}, Result: types.ArrayOf(types.Int4T, 1), NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) { return find(args, true) }},
	)
}
