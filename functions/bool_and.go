package functions

// bool_and / every (true when all non-NULL inputs are true) and bool_or
// (true when any is).

import "github.com/cairn-db/cairn/sql/types"

type boolAggState struct {
	and, val, any bool
}

func (s *boolAggState) Step(_ *Context, a []any) error {
	b := a[0].(bool)
	switch {
	case !s.any:
		s.val = b
	case s.and:
		s.val = s.val && b
	default:
		s.val = s.val || b
	}
	s.any = true
	return nil
}

func (s *boolAggState) Result(_ *Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	return s.val, nil
}

func init() {
	and := func([]types.T) AggState { return &boolAggState{and: true} }
	RegisterAggregate(
		&Aggregate{Name: "bool_and", Args: targs(tBool), Result: tBool, New: and},
		&Aggregate{Name: "every", Args: targs(tBool), Result: tBool, New: and},
		&Aggregate{Name: "bool_or", Args: targs(tBool), Result: tBool, New: func([]types.T) AggState { return &boolAggState{} }},
	)
}
