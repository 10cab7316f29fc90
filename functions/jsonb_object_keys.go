package functions

// jsonb_object_keys(jsonb) and json_object_keys: the keys of a JSON
// object, in jsonb's order (shorter first, then bytewise).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	for _, name := range []string{"jsonb_object_keys", "json_object_keys"} {
		RegisterSetReturning(&SetReturning{Name: name, Type: oneArg(types.JSONBT, types.Field{Name: name, T: types.TextT}),
			Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
				_, keys, err := jsonMembers(name, args[0].(string))
				if err != nil {
					return nil, err
				}
				return valueRows(keys), nil
			}})
	}
}
