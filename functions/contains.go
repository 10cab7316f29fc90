package functions

// pg_deeplake's substring test: contains(text, text) and the operator
// text @> text, true when the second string occurs in the first.

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	for _, name := range []string{"contains", "@>"} {
		ov := &Overload{Name: name, Args: []types.T{types.TextT, types.TextT}, Result: types.BoolT,
			Eval: func(_ *Context, args []any) (any, error) {
				return strings.Contains(args[0].(string), args[1].(string)), nil
			}}
		ov.Kernel = wrapKernel(ov, types.BoolT, containsKernel)
		Register(ov)
	}
}

// containsKernel tests a text column against a constant or another
// column.
func containsKernel(ctx *Context, args []Arg, n int) (arrow.Array, error) {
	return cmpBatch(ctx, args, n, func(out []byte, _ *memory.Buffer) error {
		get := func(a Arg, i int) string {
			if a.Array == nil {
				return a.Const.(string)
			}
			return a.Array.(*array.String).Value(i)
		}
		if args[0].Array != nil && args[1].Array == nil {
			col := args[0].Array.(*array.String)
			needle := args[1].Const.(string)
			for i := 0; i < n; i++ {
				if strings.Contains(col.Value(i), needle) {
					out[i>>3] |= 1 << (i & 7)
				}
			}
			return nil
		}
		for i := 0; i < n; i++ {
			if strings.Contains(get(args[0], i), get(args[1], i)) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return nil
	})
}
