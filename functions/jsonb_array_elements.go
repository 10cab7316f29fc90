package functions

// jsonb_array_elements(jsonb), json_array_elements(json) and their _text
// forms: the elements of a JSON array, one row each, as JSON or (_text)
// as text.

import (
	"bytes"
	"encoding/json"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	for _, f := range []struct {
		name    string
		in, out types.T
	}{
		{"jsonb_array_elements", types.JSONBT, types.JSONBT},
		{"json_array_elements", types.JSONT, types.JSONT},
		{"jsonb_array_elements_text", types.JSONBT, types.TextT},
		{"json_array_elements_text", types.JSONT, types.TextT},
	} {
		RegisterSetReturning(&SetReturning{Name: f.name, Type: oneArg(f.in, types.Field{Name: "value", T: f.out}),
			Rows: func(_ *Context, args []any, _ []types.T) (NextRow, error) {
				var elems []json.RawMessage
				if err := json.Unmarshal([]byte(args[0].(string)), &elems); err != nil {
					return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot extract elements from a scalar")
				}
				i := 0
				return func() ([]any, bool, error) {
					if i >= len(elems) {
						return nil, false, nil
					}
					i++
					v, err := jsonSetValue(elems[i-1], f.out)
					return []any{v}, true, err
				}, nil
			}})
	}
}

// jsonSetValue converts one element of a JSON array or object into a
// datum of type t: JSON text (normalised for jsonb), or for text (the
// _text functions) the element's text, strings unquoted and null as SQL
// NULL.
func jsonSetValue(raw json.RawMessage, t types.T) (any, error) {
	raw = bytes.TrimSpace(raw)
	if t.Family == types.Text {
		if string(raw) == "null" {
			return nil, nil
		}
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	if t.Family == types.JSONB {
		return types.NormalizeJSONB(string(raw))
	}
	return string(raw), nil
}
