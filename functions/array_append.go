package functions

// array_append, array_prepend and array_cat, and the array forms of ||
// (anyarray || anyarray, anyarray || anyelement, anyelement || anyarray).
// None is strict: a NULL array acts as an empty one.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	// elemOf is the element type the call was resolved with.
	elemOf := func(ts []types.T, e any) types.T {
		for _, t := range ts {
			if t.Family == types.ArrayFamily {
				return baseType(*t.Elem)
			}
		}
		return inferElem(e)
	}
	app := func(name string) *Overload {
		return withTypes(&Overload{Name: name, Args: []types.T{ArgAnyArray, ArgAny}, ResultFn: arrayResult, NullCall: true},
			func(_ *Context, a []any, ts []types.T) (any, error) { return arrayAppend(a[0], a[1], elemOf(ts, a[1])) })
	}
	pre := func(name string) *Overload {
		return withTypes(&Overload{Name: name, Args: []types.T{ArgAny, ArgAnyArray}, ResultFn: arrayResult, NullCall: true},
			func(_ *Context, a []any, ts []types.T) (any, error) {
				return arrayPrepend(a[0], a[1], elemOf(ts, a[0]))
			})
	}
	cat := func(name string) *Overload {
		return &Overload{Name: name, Args: []types.T{ArgAnyArray, ArgAnyArray}, ResultFn: catResult, NullCall: true,
			Eval: func(_ *Context, args []any) (any, error) { return arrayCat(args[0], args[1]) }}
	}
	Register(app("array_append"), pre("array_prepend"), cat("array_cat"), app("||"), pre("||"), cat("||"))
}

// catResult is array_cat's result type: the operand with more dimensions,
// since an N-1-dimensional array joins an N-dimensional one as one more
// element of its first dimension (array[1] || array[[2]] is {{1},{2}}).
func catResult(args []types.T) types.T {
	r := arrayResult(args)
	for _, a := range args {
		if a.Family == types.ArrayFamily && a.Dims > r.Dims {
			r = baseType(a)
		}
	}
	return r
}

// inferElem guesses an element type from a datum (types.TypeOfValue),
// for values whose argument types are not known (an Eval called without
// Resolve).
func inferElem(v any) types.T { return types.TypeOfValue(v) }

func errOneDim() error {
	return pgerr.New(pgerrcode.DataException, "argument must be empty or one-dimensional array")
}

func arrayAppend(a, e any, elem types.T) (any, error) {
	if a == nil {
		return &types.Array{Elem: elem, Dims: []int{1}, Elems: []any{e}}, nil
	}
	arr := a.(*types.Array)
	if len(arr.Dims) > 1 {
		return nil, errOneDim()
	}
	if len(arr.Elems)+1 > maxArrayItems {
		return nil, errArrayTooLarge()
	}
	elems := append(append(make([]any, 0, len(arr.Elems)+1), arr.Elems...), e)
	return &types.Array{Elem: arr.Elem, Dims: []int{len(elems)}, Elems: elems}, nil
}

func arrayPrepend(e, a any, elem types.T) (any, error) {
	if a == nil {
		return &types.Array{Elem: elem, Dims: []int{1}, Elems: []any{e}}, nil
	}
	arr := a.(*types.Array)
	if len(arr.Dims) > 1 {
		return nil, errOneDim()
	}
	if len(arr.Elems)+1 > maxArrayItems {
		return nil, errArrayTooLarge()
	}
	elems := append([]any{e}, arr.Elems...)
	return &types.Array{Elem: arr.Elem, Dims: []int{len(elems)}, Elems: elems}, nil
}

func errConcat(detail string, args ...any) error {
	return pgerr.New(pgerrcode.ArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail(detail, args...)
}

func arrayCat(a, b any) (any, error) {
	switch {
	case a == nil && b == nil:
		return nil, nil
	case a == nil:
		return b, nil
	case b == nil:
		return a, nil
	}
	x, y := a.(*types.Array), b.(*types.Array)
	if len(x.Elems) == 0 && len(x.Dims) == 0 {
		return y, nil
	}
	if len(y.Elems) == 0 && len(y.Dims) == 0 {
		return x, nil
	}
	nx, ny := len(x.Dims), len(y.Dims)
	if len(x.Elems)+len(y.Elems) > maxArrayItems {
		// PostgreSQL's limit, checked before the result is built.
		return nil, errArrayTooLarge()
	}
	elems := append(append(make([]any, 0, len(x.Elems)+len(y.Elems)), x.Elems...), y.Elems...)
	var dims []int
	switch {
	case nx == ny:
		for i := 1; i < nx; i++ {
			if x.Dims[i] != y.Dims[i] {
				return nil, errConcat("Arrays with differing element dimensions are not compatible for concatenation.")
			}
		}
		dims = append([]int{x.Dims[0] + y.Dims[0]}, x.Dims[1:]...)
	case nx == ny+1:
		if !sameInts(x.Dims[1:], y.Dims) {
			return nil, errConcat("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims = append([]int{x.Dims[0] + 1}, x.Dims[1:]...)
	case ny == nx+1:
		if !sameInts(y.Dims[1:], x.Dims) {
			return nil, errConcat("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims = append([]int{y.Dims[0] + 1}, y.Dims[1:]...)
	default:
		return nil, errConcat("Arrays of %d and %d dimensions are not compatible for concatenation.", nx, ny)
	}
	return &types.Array{Elem: x.Elem, Dims: dims, Elems: elems}, nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
