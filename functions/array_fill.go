package functions

// array_fill(value, dimensions int[] [, lower_bounds int[]]): an array of
// the given dimensions with every element value (NULL allowed). cairn's
// arrays all start at 1, so lower bounds other than 1 are 0A000, and as a
// result column's type fixes its number of dimensions before the
// dimensions argument is known, array_fill makes one-dimensional arrays
// only: more dimensions are 0A000 too (after PostgreSQL's own checks).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// PostgreSQL's array limits: MAXDIM and MaxArraySize (a variable so
// that tests can lower it).
const maxArrayDims = 6

var maxArrayItems = 134217727

// errArrayTooLarge is PostgreSQL's error for an array of more than
// maxArrayItems elements.
func errArrayTooLarge() error {
	return pgerr.New(pgerrcode.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayItems)
}

// maxSplitItems bounds the elements string_to_array, string_to_table and
// the regexp splits build from one string: each costs cairn ~100 bytes
// before the result exists (the piece, its boxing, the match list), so
// PostgreSQL's maxArrayItems would let one call take ~13 GB. A variable
// so that tests can lower it.
var maxSplitItems = 1 << 24

// checkSplitItems fails a split of n pieces by fn that passes
// maxArrayItems (PostgreSQL's error) or maxSplitItems.
func checkSplitItems(fn string, n int) error {
	if n > maxArrayItems {
		return errArrayTooLarge()
	}
	if n > maxSplitItems {
		return pgerr.New(pgerrcode.ProgramLimitExceeded, "%s would make %d elements; one call makes at most %d", fn, n, maxSplitItems)
	}
	return nil
}

func init() {
	int4Array := types.ArrayOf(tInt4, 1)
	result := func(args []types.T) types.T { return types.ArrayOf(baseType(args[0]), 1) }
	f := func(ctx *Context, a []any, ts []types.T) (any, error) {
		var lbs any
		if len(a) > 2 {
			lbs = a[2]
		}
		return arrayFill(ctx, a[0], baseType(argType(ts, 0, a[0])), a[1], lbs, len(a) > 2)
	}
	Register(
		withTypes(&Overload{Name: "array_fill", Args: targs(ArgAny, int4Array), ResultFn: result, NullCall: true}, f),
		withTypes(&Overload{Name: "array_fill", Args: targs(ArgAny, int4Array, int4Array), ResultFn: result, NullCall: true}, f),
	)
}

// arrayFill builds the array of elem values v, checking dims (and lbs
// when hasLbs) as PostgreSQL's array_fill_internal does; a cancel stops
// the filling of a long one (inPieces).
func arrayFill(ctx *Context, v any, elem types.T, dimsArg, lbsArg any, hasLbs bool) (any, error) {
	if dimsArg == nil || (hasLbs && lbsArg == nil) {
		return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "dimension array or low bound array cannot be null")
	}
	dims, err := dimensionValues(dimsArg.(*types.Array))
	if err != nil {
		return nil, err
	}
	if len(dims) > maxArrayDims {
		return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(dims), maxArrayDims)
	}
	var lbs []int64
	if hasLbs {
		if lbs, err = dimensionValues(lbsArg.(*types.Array)); err != nil {
			return nil, err
		}
		if len(lbs) != len(dims) {
			return nil, pgerr.New(pgerrcode.ArraySubscriptError, "wrong number of array subscripts").
				WithDetail("Low bound array has different size than dimensions array.")
		}
	}
	n := int64(1)
	for _, d := range dims {
		if n *= d; d < 0 || n > int64(maxArrayItems) {
			return nil, errArrayTooLarge()
		}
	}
	if len(dims) == 0 || n == 0 {
		return &types.Array{Elem: elem}, nil
	}
	for _, lb := range lbs {
		if lb != 1 {
			return nil, pgerr.NotSupported("array_fill with lower bounds other than 1")
		}
	}
	if len(dims) > 1 {
		return nil, pgerr.NotSupported("array_fill with more than one dimension")
	}
	out := &types.Array{Elem: elem, Dims: []int{int(n)}, Elems: make([]any, n)}
	err = ctx.inPieces(int(n), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.Elems[i] = v
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dimensionValues reads a dimensions or lower bounds argument: a
// one-dimensional int[] without NULLs.
func dimensionValues(a *types.Array) ([]int64, error) {
	if len(a.Dims) > 1 {
		return nil, pgerr.New(pgerrcode.ArraySubscriptError, "wrong number of array subscripts").
			WithDetail("Dimension array must be one dimensional.")
	}
	out := make([]int64, len(a.Elems))
	for i, e := range a.Elems {
		if e == nil {
			return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "dimension values cannot be null")
		}
		out[i] = e.(int64)
	}
	return out, nil
}
