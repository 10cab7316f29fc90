package functions

// regexp_split_to_array(string, pattern [, flags]) -> text[]: the pieces
// of string between the matches of pattern, as regexp_split_to_table
// returns them (see regexpSplit).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	f := func(ctx *Context, a []any) (any, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].(string)
		}
		parts, err := regexpSplit(ctx, "regexp_split_to_array", a[0].(string), a[1].(string), flags)
		if err != nil {
			return nil, err
		}
		elems := make([]any, len(parts))
		for i, p := range parts {
			elems[i] = p
		}
		return types.NewArray(types.TextT, elems...), nil
	}
	Register(
		fn("regexp_split_to_array", targs(tText, tText), textArrayT, f),
		fn("regexp_split_to_array", targs(tText, tText, tText), textArrayT, f),
	)
}
