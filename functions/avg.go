package functions

// avg(x): integers and numeric give numeric (PostgreSQL's division
// scale), real and double precision give double precision, interval gives
// interval.

import (
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

// avgNumericState averages integers or numerics exactly.
type avgNumericState struct {
	sum *apd.Decimal
	n   int64
}

func (s *avgNumericState) Step(_ *Context, a []any) error {
	var x *apd.Decimal
	switch v := a[0].(type) {
	case int64:
		x = newDec(v)
	case *apd.Decimal:
		x = v
	}
	s.n++
	if s.sum == nil {
		s.sum = new(apd.Decimal).Set(x)
		return nil
	}
	r, err := numericOp(opAdd, s.sum, x)
	if err != nil {
		return err
	}
	s.sum = r
	return nil
}

func (s *avgNumericState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	return numericOp(opDiv, s.sum, newDec(s.n))
}

// floatMoments is PostgreSQL's float8 aggregate transition state
// (Youngs-Cramer): count, sum and sum of squared deviations.
type floatMoments struct {
	n, sx, sxx float64
}

func (m *floatMoments) add(x float64) error {
	n := m.n + 1
	sx := m.sx + x
	if m.n > 0 {
		tmp := x*n - sx
		m.sxx += tmp * tmp / (n * m.n)
		if isInf(m.sxx) && !isInf(x) && !isInf(sx) {
			return errFloatOverflow()
		}
	} else if isInf(x) || x != x {
		m.sxx = x - x // NaN, as PostgreSQL
	}
	m.n, m.sx = n, sx
	return nil
}

type avgFloatState struct{ m floatMoments }

func (s *avgFloatState) Step(_ *Context, a []any) error { return s.m.add(a[0].(float64)) }

func (s *avgFloatState) Result(_ *Context) (any, error) {
	if s.m.n == 0 {
		return nil, nil
	}
	return s.m.sx / s.m.n, nil
}

type avgIntervalState struct {
	sum types.IntervalValue
	n   int64
}

func (s *avgIntervalState) Step(_ *Context, a []any) error {
	r, err := intervalAdd(s.sum, a[0].(types.IntervalValue))
	if err != nil {
		return err
	}
	s.sum = r.(types.IntervalValue)
	s.n++
	return nil
}

func (s *avgIntervalState) Result(_ *Context) (any, error) {
	if s.n == 0 {
		return nil, nil
	}
	return intervalDiv(s.sum, float64(s.n))
}

func init() {
	num := func([]types.T) AggState { return &avgNumericState{} }
	flt := func([]types.T) AggState { return &avgFloatState{} }
	RegisterAggregate(
		&Aggregate{Name: "avg", Args: targs(types.Int2T), Result: types.NumericT, New: num},
		&Aggregate{Name: "avg", Args: targs(types.Int4T), Result: types.NumericT, New: num},
		&Aggregate{Name: "avg", Args: targs(types.Int8T), Result: types.NumericT, New: num},
		&Aggregate{Name: "avg", Args: targs(types.NumericT), Result: types.NumericT, New: num},
		&Aggregate{Name: "avg", Args: targs(types.Float4T), Result: types.Float8T, New: flt},
		&Aggregate{Name: "avg", Args: targs(types.Float8T), Result: types.Float8T, New: flt},
		&Aggregate{Name: "avg", Args: targs(types.IntervalT), Result: types.IntervalT,
			New: func([]types.T) AggState { return &avgIntervalState{} }},
	)
}
