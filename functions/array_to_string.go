package functions

// array_to_string(anyarray, delimiter [, null_string]): the elements'
// text forms joined, NULL elements skipped or replaced; a result over 1GB
// is 54000 when it gets there, and a cancel stops a long one (poller).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	f := func(ctx *Context, args []any) (any, error) {
		if args[0] == nil || args[1] == nil {
			return nil, nil
		}
		a := args[0].(*types.Array)
		var null *string
		if len(args) > 2 && args[2] != nil {
			s := args[2].(string)
			null = &s
		}
		var b strings.Builder
		first := true
		p := ctx.poller()
		for _, e := range a.Elems {
			var s string
			if e == nil {
				if null == nil {
					continue
				}
				s = *null
			} else {
				s = elemText(ctx, e, a.Elem)
			}
			sep := args[1].(string)
			if first {
				sep = ""
			}
			first = false
			if err := checkGrow(b.Len(), len(sep)+len(s)); err != nil {
				return nil, err
			}
			b.WriteString(sep)
			b.WriteString(s)
			if err := p.add(len(sep) + len(s) + itemWork); err != nil {
				return nil, err
			}
		}
		return b.String(), nil
	}
	Register(allStable(
		&Overload{Name: "array_to_string", Args: []types.T{ArgAnyArray, types.TextT}, Result: types.TextT,
			Eval: func(ctx *Context, args []any) (any, error) { return f(ctx, args) }},
		&Overload{Name: "array_to_string", Args: []types.T{ArgAnyArray, types.TextT, types.TextT}, Result: types.TextT,
			NullCall: true, Eval: func(ctx *Context, args []any) (any, error) { return f(ctx, args) }},
	)...)
}

// elemText is an array element's text form (its output function, in the
// session's settings).
func elemText(ctx *Context, v any, t types.T) string {
	if s, ok := v.(string); ok {
		return s
	}
	if t.Family == types.Unknown {
		t = inferElem(v)
	}
	return string(types.AppendText(nil, v, t, textOptions(ctx)))
}
