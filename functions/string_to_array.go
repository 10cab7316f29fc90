package functions

// string_to_array(text, delimiter [, null_string]) -> text[]. A NULL
// delimiter splits into characters, an empty one yields the whole string;
// fields equal to null_string become NULL.

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	f := func(args []any) (any, error) {
		if args[0] == nil {
			return nil, nil
		}
		s := args[0].(string)
		var parts []string
		switch {
		case s == "":
			return &types.Array{Elem: types.TextT}, nil
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
		return &types.Array{Elem: types.TextT, Dims: []int{len(elems)}, Elems: elems}, nil
	}
	Register(
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT}, Result: textArrayT,
			NullCall: true, Eval: func(_ *Context, args []any) (any, error) { return f(args) }},
		&Overload{Name: "string_to_array", Args: []types.T{types.TextT, types.TextT, types.TextT}, Result: textArrayT,
			NullCall: true, Eval: func(_ *Context, args []any) (any, error) { return f(args) }},
	)
}
