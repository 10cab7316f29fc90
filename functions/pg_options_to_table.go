package functions

// pg_options_to_table(options text[]): the name=value entries of a
// reloptions, attoptions or *fdwoptions array as rows (option_name,
// option_value), split at the first '=' (a value without one is NULL).
// pg_dump and psql read storage and foreign-data options through it.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	RegisterSetReturning(&SetReturning{Name: "pg_options_to_table",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			if len(args) != 1 || !args[0].IsArray() || !args[0].Elem.IsString() {
				return SetSignature{}, false, nil
			}
			return SetSignature{Out: []types.Field{{Name: "option_name", T: types.TextT}, {Name: "option_value", T: types.TextT}}}, true, nil
		},
		Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
			var elems []any
			if a, ok := args[0].(*types.Array); ok {
				elems = a.Elems
			}
			i := 0
			return func() ([]any, bool, error) {
				for i < len(elems) {
					i++
					s, ok := elems[i-1].(string)
					if !ok {
						continue
					}
					name, value, found := strings.Cut(s, "=")
					if !found {
						return []any{name, nil}, true, nil
					}
					return []any{name, value}, true, nil
				}
				return nil, false, nil
			}, nil
		}})
}
