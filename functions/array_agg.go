package functions

// array_agg(x): the inputs, NULLs included, as an array; array inputs
// make an array of one more dimension (they must all have the same
// dimensions and not be NULL or empty).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

type arrayAggState struct {
	elem types.T
	// unboxed holds the inputs while they are all of its Go type (or
	// NULL); elems once one is not, or for types it does not take.
	unboxed elemStore
	elems   []any
	n       int
	size    int64
}

func newArrayAggState(elem types.T) *arrayAggState {
	s := &arrayAggState{elem: elem}
	switch elem.Family {
	case types.Int2, types.Int4, types.Int8:
		s.unboxed = &unboxedElems[int64]{}
	case types.Float4, types.Float8:
		s.unboxed = &unboxedElems[float64]{}
	}
	return s
}

func (s *arrayAggState) Step(_ *Context, a []any) error {
	if s.n == maxArrayItems {
		return errArrayTooLarge()
	}
	s.n++
	if s.unboxed != nil {
		if s.unboxed.add(a[0]) {
			s.size += 8
			return nil
		}
		s.elems, s.unboxed = s.unboxed.boxed(), nil
		s.size = DatumSize(s.elems)
	}
	s.elems = append(s.elems, a[0])
	s.size += DatumSize(a[0])
	return nil
}

// Size implements SizedAggState.
func (s *arrayAggState) Size() int64 { return s.size }

func (s *arrayAggState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	elems := s.elems
	if s.unboxed != nil {
		elems = s.unboxed.boxed()
	}
	return &types.Array{Elem: s.elem, Dims: []int{s.n}, Elems: elems}, nil
}

// elemStore keeps array_agg's inputs of one Go type unboxed.
type elemStore interface {
	// add appends v, reporting false (nothing added) when v is neither
	// NULL nor of the store's type.
	add(v any) bool
	// boxed returns the inputs added, as datums.
	boxed() []any
}

// unboxedElems is an elemStore of T, int64 for the integer types and
// float64 for real and double precision: a slice without pointers, which
// the garbage collector does not scan on each of its cycles as it does
// a []any of millions of boxed numbers (most of a large array_agg's
// time).
type unboxedElems[T int64 | float64] struct {
	vals  []T
	nulls []int // the indexes in vals of the NULL inputs
}

func (u *unboxedElems[T]) add(v any) bool {
	if v == nil {
		u.nulls = append(u.nulls, len(u.vals))
		u.vals = append(u.vals, 0)
		return true
	}
	x, ok := v.(T)
	if ok {
		u.vals = append(u.vals, x)
	}
	return ok
}

func (u *unboxedElems[T]) boxed() []any {
	elems := make([]any, len(u.vals))
	for i, x := range u.vals {
		elems[i] = x
	}
	for _, i := range u.nulls {
		elems[i] = nil
	}
	return elems
}

type arrayAggArrayState struct {
	elem  types.T
	elems []any
	dims  []int
	n     int
	size  int64
}

// Size implements SizedAggState.
func (s *arrayAggArrayState) Size() int64 { return s.size }

func (s *arrayAggArrayState) Step(_ *Context, a []any) error {
	if a[0] == nil {
		return pgerr.New(pgerrcode.NullValueNotAllowedDataException, "cannot accumulate null arrays")
	}
	arr := a[0].(*types.Array)
	if len(arr.Dims) == 0 {
		return pgerr.New(pgerrcode.ArraySubscriptError, "cannot accumulate empty arrays")
	}
	if s.n == 0 {
		s.dims = append([]int(nil), arr.Dims...)
	} else if !sameInts(s.dims, arr.Dims) {
		return pgerr.New(pgerrcode.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
	}
	if len(s.elems)+len(arr.Elems) > maxArrayItems {
		return errArrayTooLarge()
	}
	s.elems = append(s.elems, arr.Elems...)
	s.n++
	s.size += DatumSize(arr)
	return nil
}

func (s *arrayAggArrayState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	return &types.Array{Elem: s.elem, Dims: append([]int{s.n}, s.dims...), Elems: s.elems}, nil
}

// AccumulateArrays stacks arrays of one shape into an array one dimension
// deeper, as ARRAY(SELECT ...) over a column of arrays does: with array_agg's
// errors for a NULL, an empty or a differently shaped array, and an empty
// array (not NULL) when there are none.
func AccumulateArrays(elem types.T, vals []any) (*types.Array, error) {
	s := &arrayAggArrayState{elem: elem}
	for _, v := range vals {
		if err := s.Step(nil, []any{v}); err != nil {
			return nil, err
		}
	}
	if s.n == 0 {
		return &types.Array{Elem: elem}, nil
	}
	r, err := s.Result(nil)
	return r.(*types.Array), err
}

func init() {
	RegisterAggregate(
		&Aggregate{Name: "array_agg", Args: targs(ArgAnyNonArray), NullCall: true, ResultFn: arrayResult,
			New: func(ts []types.T) AggState { return newArrayAggState(baseType(ts[0])) }},
		&Aggregate{Name: "array_agg", Args: targs(ArgAnyArray), NullCall: true,
			ResultFn: func(ts []types.T) types.T { return types.ArrayOf(baseType(*ts[0].Elem), ts[0].Dims+1) },
			New:      func(ts []types.T) AggState { return &arrayAggArrayState{elem: baseType(*ts[0].Elem)} }},
	)
}
