package functions

// The || operator on strings: text || text, and text || any non-array
// value (either side), which concatenates the value's text form. The
// array forms live in array_append.go, jsonb || jsonb in jsonb_ops.go.

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	textcat := &Overload{Name: "||", Args: []types.T{types.TextT, types.TextT}, Result: types.TextT,
		Eval: func(_ *Context, args []any) (any, error) { return catText(args[0].(string), args[1].(string)) }}
	textcat.Kernel = wrapKernel(textcat, types.TextT, textcatKernel)
	Register(textcat,
		stable(withTypes(&Overload{Name: "||", Args: []types.T{types.TextT, ArgAnyNonArray}, Result: types.TextT},
			func(ctx *Context, args []any, ts []types.T) (any, error) {
				return catText(args[0].(string), toText(ctx, args[1], argType(ts, 1, args[1])))
			})),
		stable(withTypes(&Overload{Name: "||", Args: []types.T{ArgAnyNonArray, types.TextT}, Result: types.TextT},
			func(ctx *Context, args []any, ts []types.T) (any, error) {
				return catText(toText(ctx, args[0], argType(ts, 0, args[0])), args[1].(string))
			})),
		&Overload{Name: "||", Args: []types.T{types.ByteaT, types.ByteaT}, Result: types.ByteaT,
			Eval: func(_ *Context, args []any) (any, error) {
				a, b := args[0].([]byte), args[1].([]byte)
				if err := checkGrow(len(a), len(b)); err != nil {
					return nil, err
				}
				return append(append(make([]byte, 0, len(a)+len(b)), a...), b...), nil
			}},
	)
}

// catText is text || text within the 1GB limit of a value.
func catText(a, b string) (any, error) {
	if err := checkGrow(len(a), len(b)); err != nil {
		return nil, err
	}
	return a + b, nil
}

// textcatKernel concatenates text columns and constants.
func textcatKernel(ctx *Context, args []Arg, n int) (arrow.Array, error) {
	b := array.NewStringBuilder(mem(ctx))
	defer b.Release()
	b.Reserve(n)
	buf := make([]byte, 0, 64)
	for i := 0; i < n; i++ {
		x, ok1 := textAt(args[0], i)
		y, ok2 := textAt(args[1], i)
		if !ok1 || !ok2 {
			b.AppendNull()
			continue
		}
		if err := checkGrow(len(x), len(y)); err != nil {
			return nil, err
		}
		buf = append(append(buf[:0], x...), y...)
		if err := types.CheckBatchBytes(b.DataLen(), len(buf)); err != nil {
			return nil, err
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray(), nil
}
