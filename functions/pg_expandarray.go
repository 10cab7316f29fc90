package functions

// information_schema._pg_expandarray(anyarray): each element x with its
// position n, as pgjdbc's getPrimaryKeys reads pg_index.indkey. (The file
// drops the leading underscore, which would hide it from the Go build.)

import "github.com/cairn-db/cairn/sql/types"

func init() {
	RegisterSetReturning(&SetReturning{Name: "_pg_expandarray",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			if len(args) != 1 || !args[0].IsArray() {
				return SetSignature{}, false, nil
			}
			return SetSignature{Out: []types.Field{{Name: "x", T: *args[0].Elem}, {Name: "n", T: types.Int4T}}}, true, nil
		},
		Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
			elems := args[0].(*types.Array).Elems
			i := 0
			return func() ([]any, bool, error) {
				if i >= len(elems) {
					return nil, false, nil
				}
				i++
				return []any{elems[i-1], int64(i)}, true, nil
			}, nil
		}})
}
