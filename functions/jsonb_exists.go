package functions

// jsonb_exists(jsonb, text): the function behind the ? operator, whether
// the text is a top-level key, an array's string element or the string
// itself (see jsonHasKey).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(fn("jsonb_exists", targs(types.JSONBT, tText), tBool, func(_ *Context, a []any) (any, error) {
		j, err := parseJSON(a[0].(string))
		if err != nil {
			return nil, err
		}
		return jsonHasKey(j, a[1].(string)), nil
	}))
}
