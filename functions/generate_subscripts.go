package functions

// generate_subscripts(anyarray, dim int): the subscripts of the array's
// dimension dim, none when it has no such dimension. Subscripts start at
// 1 in cairn's arrays and at 0 in int2vector and oidvector, as in
// PostgreSQL (schema tools list pg_index.indkey's keys with
// generate_subscripts(indkey, 1) and index indoption by them).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	RegisterSetReturning(&SetReturning{Name: "generate_subscripts",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			if len(args) != 2 || !args[0].IsArray() {
				return SetSignature{}, false, nil
			}
			return SetSignature{Params: []types.T{types.UnknownT, types.Int4T},
				Out: []types.Field{{Name: "generate_subscripts", T: types.Int4T}}}, true, nil
		},
		Rows: func(_ *Context, args []any, argTypes []types.T) (NextRow, error) {
			arr, dim := args[0].(*types.Array), args[1].(int64)
			n := int64(0)
			if dim >= 1 && int(dim) <= len(arr.Dims) {
				n = int64(arr.Dims[dim-1])
			}
			i := int64(0)
			if argTypes[0].IsCatalogVector() {
				i, n = -1, n-1
			}
			return func() ([]any, bool, error) {
				if i >= n {
					return nil, false, nil
				}
				i++
				return []any{i}, true, nil
			}, nil
		}})
}
