package functions

// jsonb_extract_path(_text) and json_extract_path(_text)(from, path...):
// the function forms of #> and #>>.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	for _, jt := range []types.T{types.JSONBT, types.JSONT} {
		jt := jt
		prefix := "jsonb"
		if jt.Family == types.JSON {
			prefix = "json"
		}
		follow := func(a []any) (*jnode, error) {
			j, err := parseJSON(a[0].(string))
			if err != nil {
				return nil, err
			}
			path := types.NewArray(types.TextT, a[1:]...)
			return jsonPath(j, path), nil
		}
		Register(
			&Overload{Name: prefix + "_extract_path", Args: targs(jt, tText), Variadic: true, Result: jt,
				Eval: func(_ *Context, a []any) (any, error) {
					j, err := follow(a)
					if j == nil || err != nil {
						return nil, err
					}
					if jt.Family == types.JSONB {
						return jsonbText(j), nil
					}
					return jsonRaw(j), nil
				}},
			&Overload{Name: prefix + "_extract_path_text", Args: targs(jt, tText), Variadic: true, Result: tText,
				Eval: func(_ *Context, a []any) (any, error) {
					j, err := follow(a)
					if j == nil || err != nil {
						return nil, err
					}
					switch j.kind {
					case jsonNull:
						return nil, nil
					case jsonString:
						return j.str, nil
					}
					if jt.Family == types.JSONB {
						return jsonbText(j), nil
					}
					return jsonRaw(j), nil
				}},
		)
	}
}
