package functions

// jsonb_object_keys(jsonb) and json_object_keys(json): the keys of a
// JSON object, jsonb's in its order (shorter first, then bytewise),
// json's as its text has them, repeated keys and all.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	for name, in := range map[string]types.T{"jsonb_object_keys": types.JSONBT, "json_object_keys": types.JSONT} {
		RegisterSetReturning(&SetReturning{Name: name, Type: oneArg(in, types.Field{Name: name, T: types.TextT}),
			Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
				members, err := jsonMembers(name, args[0].(string))
				if err != nil {
					return nil, err
				}
				keys := make([]string, len(members))
				for i, m := range members {
					keys[i] = m.key
				}
				return valueRows(keys), nil
			}})
	}
}
