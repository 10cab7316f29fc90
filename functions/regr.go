package functions

// The two-variable statistics aggregates of double precision: covar_pop,
// covar_samp, corr and the regr_* family, each called as f(Y, X). Rows
// where either argument is NULL are skipped. The sums are PostgreSQL's
// (float8_regr_accum: Youngs-Cramer), so results match it to the last
// digit.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

// regrState holds N, Sx, Sxx, Sy, Syy and Sxy of the rows so far.
type regrState struct {
	n, sx, sxx, sy, syy, sxy float64
	final                    func(s *regrState) any
}

// Step is float8_regr_accum.
func (s *regrState) Step(_ *Context, a []any) error {
	y, x := a[0].(float64), a[1].(float64)
	n := s.n + 1
	sx, sy := s.sx+x, s.sy+y
	if s.n > 0 {
		tmpX := x*n - sx
		tmpY := y*n - sy
		scale := 1.0 / (n * s.n)
		sxx := s.sxx + tmpX*tmpX*scale
		syy := s.syy + tmpY*tmpY*scale
		sxy := s.sxy + tmpX*tmpY*scale
		// Overflow: an infinite sum from finite inputs.
		if (isInf(sx) || isInf(sxx)) && !isInf(s.sx) && !isInf(x) ||
			(isInf(sy) || isInf(syy)) && !isInf(s.sy) && !isInf(y) ||
			isInf(sxy) && !isInf(s.sx) && !isInf(x) && !isInf(s.sy) && !isInf(y) {
			return errFloatOverflow()
		}
		s.sxx, s.syy, s.sxy = sxx, syy, sxy
	} else {
		if x != x || isInf(x) {
			s.sxx, s.sxy = math.NaN(), math.NaN()
		}
		if y != y || isInf(y) {
			s.syy, s.sxy = math.NaN(), math.NaN()
		}
	}
	s.n, s.sx, s.sy = n, sx, sy
	return nil
}

func (s *regrState) Result(_ *Context) (any, error) { return s.final(s), nil }

func init() {
	finals := map[string]func(s *regrState) any{
		"regr_sxx":   func(s *regrState) any { return ifRows(s, 1, s.sxx) },
		"regr_syy":   func(s *regrState) any { return ifRows(s, 1, s.syy) },
		"regr_sxy":   func(s *regrState) any { return ifRows(s, 1, s.sxy) },
		"regr_avgx":  func(s *regrState) any { return ifRows(s, 1, s.sx/s.n) },
		"regr_avgy":  func(s *regrState) any { return ifRows(s, 1, s.sy/s.n) },
		"covar_pop":  func(s *regrState) any { return ifRows(s, 1, s.sxy/s.n) },
		"covar_samp": func(s *regrState) any { return ifRows(s, 2, s.sxy/(s.n-1)) },
		"corr": func(s *regrState) any {
			if s.n < 1 || s.sxx == 0 || s.syy == 0 { // horizontal or vertical: NULL, per the standard
				return nil
			}
			return s.sxy / math.Sqrt(s.sxx*s.syy)
		},
		"regr_r2": func(s *regrState) any {
			if s.n < 1 || s.sxx == 0 {
				return nil
			}
			if s.syy == 0 {
				return 1.0
			}
			return (s.sxy * s.sxy) / (s.sxx * s.syy)
		},
		"regr_slope": func(s *regrState) any {
			if s.n < 1 || s.sxx == 0 {
				return nil
			}
			return s.sxy / s.sxx
		},
		"regr_intercept": func(s *regrState) any {
			if s.n < 1 || s.sxx == 0 {
				return nil
			}
			return (s.sy - s.sx*s.sxy/s.sxx) / s.n
		},
	}
	for name, final := range finals {
		RegisterAggregate(&Aggregate{Name: name, Args: targs(types.Float8T, types.Float8T), Result: types.Float8T,
			New: func([]types.T) AggState { return &regrState{final: final} }})
	}
	RegisterAggregate(&Aggregate{Name: "regr_count", Args: targs(types.Float8T, types.Float8T), Result: types.Int8T,
		New: func([]types.T) AggState { return &regrState{final: func(s *regrState) any { return int64(s.n) }} }})
}

// ifRows is v when s has at least min rows, else NULL.
func ifRows(s *regrState, min float64, v float64) any {
	if s.n < min {
		return nil
	}
	return v
}
