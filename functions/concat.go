package functions

// concat(any...) and concat_ws(separator, any...): text forms joined,
// NULL arguments skipped (a NULL separator gives NULL).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(allStable(
		withTypes(&Overload{Name: "concat", Args: targs(ArgAnyType), Variadic: true, Result: tText, NullCall: true},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				var b strings.Builder
				for i, v := range a {
					if v != nil {
						t := outputText(ctx, v, argType(ts, i, v))
						if err := checkGrow(b.Len(), len(t)); err != nil {
							return nil, err
						}
						b.WriteString(t)
					}
				}
				return b.String(), nil
			}),
		withTypes(&Overload{Name: "concat_ws", Args: targs(tText, ArgAnyType), Variadic: true, Result: tText, NullCall: true},
			func(ctx *Context, a []any, ts []types.T) (any, error) {
				if a[0] == nil {
					return nil, nil
				}
				sep := a[0].(string)
				var b strings.Builder
				first := true
				for i, v := range a[1:] {
					if v == nil {
						continue
					}
					t := outputText(ctx, v, argType(ts, i+1, v))
					if !first {
						t = sep + t
					}
					first = false
					if err := checkGrow(b.Len(), len(t)); err != nil {
						return nil, err
					}
					b.WriteString(t)
				}
				return b.String(), nil
			}),
	)...)
}
