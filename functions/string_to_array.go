package functions

// string_to_array(text, delimiter [, null_string]) -> text[]. A NULL
// delimiter splits into characters, an empty one yields the whole string;
// fields equal to null_string become NULL.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	f := func(_ *Context, args []any) (any, error) {
		if a := stringToArray(args); a != nil {
			return a, nil
		}
		return nil, nil
	}
	Register(
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT}, Result: textArrayT, NullCall: true, Eval: f},
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT, types.TextT}, Result: textArrayT, NullCall: true, Eval: f},
	)
}

// stringToArray is string_to_array(args...), nil when the string is NULL.
func stringToArray(args []any) *types.Array {
	if args[0] == nil {
		return nil
	}
	s := args[0].(string)
	var parts []string
	switch {
	case s == "":
		return &types.Array{Elem: types.TextT}
	case args[1] == nil:
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case args[1].(string) == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, args[1].(string))
	}
	elems := make([]any, len(parts))
	for i, p := range parts {
		if len(args) > 2 && args[2] != nil && p == args[2].(string) {
			continue
		}
		elems[i] = p
	}
	return &types.Array{Elem: types.TextT, Dims: []int{len(elems)}, Elems: elems}
}
