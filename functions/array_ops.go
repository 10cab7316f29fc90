package functions

// Array containment and overlap operators: @> (contains), <@ (is
// contained by), && (overlap). Elements compare with the element type's
// equality, NULL elements never match, dimensions are ignored.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	op := func(name string, f func(a, b *types.Array) bool) *Overload {
		return &Overload{Name: name, Args: []types.T{ArgSameArray, ArgSameArray}, Result: types.BoolT,
			Eval: func(_ *Context, args []any) (any, error) {
				return f(args[0].(*types.Array), args[1].(*types.Array)), nil
			}}
	}
	Register(
		op("@>", func(a, b *types.Array) bool { return arrayContains(a, b) }),
		op("<@", func(a, b *types.Array) bool { return arrayContains(b, a) }),
		op("&&", arrayOverlap),
	)
}

// arrayContains reports whether every element of b equals some element
// of a (a NULL in b is never contained).
func arrayContains(a, b *types.Array) bool {
	for _, y := range b.Elems {
		if y == nil {
			return false
		}
		found := false
		for _, x := range a.Elems {
			if x != nil && compareDatum(x, y, a.Elem) == 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// arrayOverlap reports whether a and b share a non-NULL element.
func arrayOverlap(a, b *types.Array) bool {
	for _, y := range b.Elems {
		if y == nil {
			continue
		}
		for _, x := range a.Elems {
			if x != nil && compareDatum(x, y, a.Elem) == 0 {
				return true
			}
		}
	}
	return false
}
