package functions

// jsonb_each(jsonb), json_each(json) and their _text forms: the key and
// value of each member of a JSON object, keys in jsonb's order (shorter
// first, then bytewise), values as JSON or (_text) as text.

import (
	"encoding/json"
	"sort"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	for _, f := range []struct {
		name    string
		in, out types.T
	}{
		{"jsonb_each", types.JSONBT, types.JSONBT},
		{"json_each", types.JSONT, types.JSONT},
		{"jsonb_each_text", types.JSONBT, types.TextT},
		{"json_each_text", types.JSONT, types.TextT},
	} {
		RegisterSetReturning(&SetReturning{Name: f.name,
			Type: oneArg(f.in, types.Field{Name: "key", T: types.TextT}, types.Field{Name: "value", T: f.out}),
			Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
				obj, keys, err := jsonMembers(f.name, args[0].(string))
				if err != nil {
					return nil, err
				}
				i := 0
				return func() ([]any, bool, error) {
					if i >= len(keys) {
						return nil, false, nil
					}
					k := keys[i]
					i++
					v, err := jsonSetValue(obj[k], f.out)
					return []any{k, v}, true, err
				}, nil
			}})
	}
}

// jsonMembers parses the JSON object s, the argument of fn, and returns
// its members and their keys in jsonb's order.
func jsonMembers(fn, s string) (map[string]json.RawMessage, []string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return nil, nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a non-object", fn)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return jsonbKeyLess(keys[a], keys[b]) })
	return obj, keys, nil
}
