package functions

// sum(x): smallint and integer sum into bigint, bigint and numeric into
// numeric, real into real, double precision into double precision,
// interval into interval. No rows (or only NULLs) give NULL.

import (
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

// sumIntState sums integers in an int64, moving to numeric if it
// overflows (bigint input) or failing (smallint/integer input, whose
// bigint result cannot overflow in practice).
type sumIntState struct {
	n       int64
	big     *apd.Decimal
	any     bool
	numeric bool // result is numeric (bigint input)
}

func (s *sumIntState) Step(_ *Context, a []any) error {
	x := a[0].(int64)
	s.any = true
	if s.big != nil {
		_, err := exact.Add(s.big, s.big, newDec(x))
		return err
	}
	r := s.n + x
	if (s.n^r)&(x^r) < 0 {
		if !s.numeric {
			return errIntRange("bigint")
		}
		s.big = newDec(s.n)
		_, err := exact.Add(s.big, s.big, newDec(x))
		return err
	}
	s.n = r
	return nil
}

func (s *sumIntState) Result(_ *Context) (any, error) {
	switch {
	case !s.any:
		return nil, nil
	case s.big != nil:
		return normDec(s.big), nil
	case s.numeric:
		return newDec(s.n), nil
	}
	return s.n, nil
}

type sumFloatState struct {
	sum float64
	f4  bool
	any bool
}

func (s *sumFloatState) Step(_ *Context, a []any) error {
	var err error
	var r any
	r, err = floatArithEval(opAdd, s.sum, a[0].(float64), s.f4)
	if err != nil {
		return err
	}
	s.sum, s.any = r.(float64), true
	return nil
}

func (s *sumFloatState) Result(_ *Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	return s.sum, nil
}

type sumNumericState struct{ sum *apd.Decimal }

func (s *sumNumericState) Step(_ *Context, a []any) error {
	if s.sum == nil {
		s.sum = newDec(0)
		s.sum.Set(a[0].(*apd.Decimal))
		return nil
	}
	r, err := numericOp(opAdd, s.sum, a[0].(*apd.Decimal))
	if err != nil {
		return err
	}
	s.sum = r
	return nil
}

func (s *sumNumericState) Result(_ *Context) (any, error) {
	if s.sum == nil {
		return nil, nil
	}
	return s.sum, nil
}

type sumIntervalState struct {
	sum types.IntervalValue
	any bool
}

func (s *sumIntervalState) Step(_ *Context, a []any) error {
	r, err := intervalAdd(s.sum, a[0].(types.IntervalValue))
	if err != nil {
		return err
	}
	s.sum, s.any = r.(types.IntervalValue), true
	return nil
}

func (s *sumIntervalState) Result(_ *Context) (any, error) {
	if !s.any {
		return nil, nil
	}
	return s.sum, nil
}

func init() {
	RegisterAggregate(
		&Aggregate{Name: "sum", Args: targs(types.Int2T), Result: types.Int8T, New: func([]types.T) AggState { return &sumIntState{} }},
		&Aggregate{Name: "sum", Args: targs(types.Int4T), Result: types.Int8T, New: func([]types.T) AggState { return &sumIntState{} }},
		&Aggregate{Name: "sum", Args: targs(types.Int8T), Result: types.NumericT, New: func([]types.T) AggState { return &sumIntState{numeric: true} }},
		&Aggregate{Name: "sum", Args: targs(types.NumericT), Result: types.NumericT, New: func([]types.T) AggState { return &sumNumericState{} }},
		&Aggregate{Name: "sum", Args: targs(types.Float4T), Result: types.Float4T, New: func([]types.T) AggState { return &sumFloatState{f4: true} }},
		&Aggregate{Name: "sum", Args: targs(types.Float8T), Result: types.Float8T, New: func([]types.T) AggState { return &sumFloatState{} }},
		&Aggregate{Name: "sum", Args: targs(types.IntervalT), Result: types.IntervalT, New: func([]types.T) AggState { return &sumIntervalState{} }},
	)
}
