package functions

// jsonb_each(jsonb), json_each(json) and their _text forms: the key and
// value of each member of a JSON object, values as JSON or (_text) as
// text. jsonb's members come in its order (shorter keys first, then
// bytewise); json's as its text has them, repeated keys and all.

import (
	"encoding/json"
	"sort"
	"strings"

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
				members, err := jsonMembers(f.name, args[0].(string))
				if err != nil {
					return nil, err
				}
				i := 0
				return func() ([]any, bool, error) {
					if i >= len(members) {
						return nil, false, nil
					}
					m := members[i]
					i++
					v, err := jsonSetValue(m.value, f.out)
					return []any{m.key, v}, true, err
				}, nil
			}})
	}
}

// jsonMember is one member of a JSON object.
type jsonMember struct {
	key   string
	value json.RawMessage
}

// jsonMembers parses the JSON object s, the argument of fn, and returns
// its members: for a jsonb function in jsonb's order, for a json one in
// the text's order with any repeated keys, as PostgreSQL's json
// functions walk the text.
func jsonMembers(fn, s string) ([]jsonMember, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, notObjectError(fn, tok == json.Delim('['))
	}
	notObject := pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a non-object", fn)
	var members []jsonMember
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return nil, notObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, notObject
		}
		members = append(members, jsonMember{key, v})
	}
	if strings.HasPrefix(fn, "jsonb") {
		sort.SliceStable(members, func(a, b int) bool { return jsonbKeyLess(members[a].key, members[b].key) })
	}
	return members, nil
}

// notObjectError is PostgreSQL's error for fn on a JSON array or scalar,
// which words it differently for each function.
func notObjectError(fn string, array bool) error {
	what := map[bool]string{true: "an array", false: "a scalar"}[array]
	switch {
	case strings.HasSuffix(fn, "_object_keys"):
		return pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on %s", fn, what)
	case strings.HasPrefix(fn, "jsonb"):
		return pgerr.New(pgerrcode.InvalidParameterValue, "cannot call %s on a non-object", fn)
	case array:
		return pgerr.New(pgerrcode.InvalidParameterValue, "cannot deconstruct an array as an object")
	}
	return pgerr.New(pgerrcode.InvalidParameterValue, "cannot deconstruct a scalar")
}
