package functions

// unnest(anyarray): the array's elements, one row each, in storage order
// (a multidimensional array's elements flattened).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	RegisterSetReturning(&SetReturning{Name: "unnest",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			if len(args) != 1 || !args[0].IsArray() {
				return SetSignature{}, false, nil
			}
			return SetSignature{Out: []types.Field{{Name: "unnest", T: *args[0].Elem}}}, true, nil
		},
		Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
			return valueRows(args[0].(*types.Array).Elems), nil
		}})
}
