package functions

// trim_array(array, n): the array without its last n elements (of the
// first dimension: rows of a multidimensional array); n must be between 0
// and the array's length.

import (
	"slices"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(&Overload{Name: "trim_array", Args: targs(ArgAnyArray, tInt4), ResultFn: arrayResult,
		Eval: func(_ *Context, a []any) (any, error) {
			arr, n := a[0].(*types.Array), a[1].(int64)
			length := 0
			if len(arr.Dims) > 0 {
				length = arr.Dims[0]
			}
			if n < 0 || n > int64(length) {
				return nil, pgerr.New(pgerrcode.ArraySubscriptError, "number of elements to trim must be between 0 and %d", length)
			}
			keep := length - int(n)
			if keep == 0 {
				return &types.Array{Elem: arr.Elem}, nil
			}
			dims := append([]int{keep}, arr.Dims[1:]...)
			return &types.Array{Elem: arr.Elem, Dims: dims, Elems: slices.Clone(arr.Elems[:len(arr.Elems)/length*keep])}, nil
		}})
}
