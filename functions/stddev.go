package functions

// stddev / stddev_samp, stddev_pop, variance / var_samp and var_pop:
// integers and numeric computed exactly in numeric (PostgreSQL's scales),
// real and double precision in double precision (Youngs-Cramer).

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
)

type numericMoments struct {
	n           int64
	sumX, sumX2 *apd.Decimal
	sample, sd  bool
}

func (s *numericMoments) Step(_ *Context, a []any) error {
	var x *apd.Decimal
	switch v := a[0].(type) {
	case int64:
		x = newDec(v)
	case *apd.Decimal:
		x = v
	}
	if s.sumX == nil {
		s.sumX, s.sumX2 = newDec(0), newDec(0)
	}
	if x.Form == apd.NaN {
		s.sumX = &apd.Decimal{Form: apd.NaN}
	}
	var sq apd.Decimal
	if _, err := exact.Mul(&sq, x, x); err != nil {
		return numericOverflow()
	}
	var err error
	if s.sumX, err = numericOp(opAdd, s.sumX, x); err != nil {
		return err
	}
	if s.sumX2, err = numericOp(opAdd, s.sumX2, &sq); err != nil {
		return err
	}
	s.n++
	return nil
}

// Result is PostgreSQL's numeric_stddev_internal.
func (s *numericMoments) Result(_ *Context) (any, error) {
	if s.n == 0 || (s.sample && s.n == 1) {
		return nil, nil
	}
	if s.sumX.Form == apd.NaN {
		return s.sumX, nil
	}
	n := newDec(s.n)
	rscale := decScale(s.sumX) * 2
	var sx2, nsx2, num apd.Decimal
	if _, err := exact.Mul(&sx2, s.sumX, s.sumX); err != nil {
		return nil, numericOverflow()
	}
	if _, err := exact.Mul(&nsx2, n, s.sumX2); err != nil {
		return nil, numericOverflow()
	}
	if _, err := exact.Sub(&num, &nsx2, &sx2); err != nil {
		return nil, numericOverflow()
	}
	numer := roundDec(&num, rscale)
	if numer.Sign() <= 0 {
		return newDec(0), nil
	}
	var den *apd.Decimal
	if s.sample {
		den = newDec(s.n * (s.n - 1))
	} else {
		den = newDec(s.n * s.n)
	}
	ds := divScale(numer, den)
	v, err := quoDec(numer, den, ds)
	if err != nil {
		return nil, err
	}
	if !s.sd {
		return v, nil
	}
	r := new(apd.Decimal)
	if _, err := decCtx(uint32(int64(ds)+v.NumDigits()+int64(v.Exponent)+10)).Sqrt(r, v); err != nil {
		return nil, numericOverflow()
	}
	return roundDec(r, ds), nil
}

type floatVarState struct {
	m          floatMoments
	sample, sd bool
}

func (s *floatVarState) Step(_ *Context, a []any) error { return s.m.add(a[0].(float64)) }

func (s *floatVarState) Result(_ *Context) (any, error) {
	if s.m.n == 0 || (s.sample && s.m.n == 1) {
		return nil, nil
	}
	d := s.m.n
	if s.sample {
		d--
	}
	v := s.m.sxx / d
	if s.sd {
		return math.Sqrt(v), nil
	}
	return v, nil
}

func init() {
	for _, f := range []struct {
		name       string
		sample, sd bool
	}{
		{"stddev", true, true}, {"stddev_samp", true, true}, {"stddev_pop", false, true},
		{"variance", true, false}, {"var_samp", true, false}, {"var_pop", false, false},
	} {
		f := f
		num := func([]types.T) AggState { return &numericMoments{sample: f.sample, sd: f.sd} }
		flt := func([]types.T) AggState { return &floatVarState{sample: f.sample, sd: f.sd} }
		for _, t := range []types.T{types.Int2T, types.Int4T, types.Int8T, types.NumericT} {
			RegisterAggregate(&Aggregate{Name: f.name, Args: targs(t), Result: types.NumericT, New: num})
		}
		for _, t := range []types.T{types.Float4T, types.Float8T} {
			RegisterAggregate(&Aggregate{Name: f.name, Args: targs(t), Result: types.Float8T, New: flt})
		}
	}
}
