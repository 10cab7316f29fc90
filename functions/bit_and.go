package functions

// bit_and(x): the bitwise AND of all non-NULL smallint, integer or bigint
// inputs, in the input's type; no rows (or only NULLs) give NULL. Its
// state, bitAggState, also serves bit_or and bit_xor.

import "github.com/cairn-db/cairn/sql/types"

// bitAggState folds the non-NULL inputs of a group with combine.
type bitAggState struct {
	combine func(acc, x int64) int64
	acc     int64
	any     bool
}

func (s *bitAggState) Step(_ *Context, a []any) error {
	x := a[0].(int64)
	if s.any {
		x = s.combine(s.acc, x)
	}
	s.acc, s.any = x, true
	return nil
}

func (s *bitAggState) Result(_ *Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	return s.acc, nil
}

// registerBitAggregate registers name for smallint, integer and bigint,
// each giving its input's type, as PostgreSQL does.
func registerBitAggregate(name string, combine func(acc, x int64) int64) {
	newState := func([]types.T) AggState { return &bitAggState{combine: combine} }
	for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T} {
		RegisterAggregate(&Aggregate{Name: name, Args: targs(t), Result: t, New: newState})
	}
}

func init() {
	registerBitAggregate("bit_and", func(acc, x int64) int64 { return acc & x })
}
