package functions

// The ordered-set aggregates, called as name(direct arguments) WITHIN
// GROUP (ORDER BY value): percentile_cont(fraction) over float8 or interval
// (the value at that fraction, interpolated between the two nearest rows),
// percentile_disc(fraction) over any type (the first value whose position
// reaches the fraction), each also with an array of fractions giving an
// array, and mode() (the most frequent value, the first in sort order
// among ties). The binder passes the direct arguments, then the value,
// with the rows sorted by the ORDER BY; NULL values are skipped.

import (
	"math"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	f8, f8s := types.Float8T, types.ArrayOf(types.Float8T, 1)
	iv, ivs := types.IntervalT, types.ArrayOf(types.IntervalT, 1)
	RegisterAggregate(
		&Aggregate{Name: "percentile_cont", Args: targs(f8, f8), Result: f8, OrderedSet: true,
			New: func([]types.T) AggState { return &percentileState{cont: true, elem: f8} }},
		&Aggregate{Name: "percentile_cont", Args: targs(f8s, f8), Result: f8s, OrderedSet: true,
			New: func([]types.T) AggState { return &percentileState{cont: true, many: true, elem: f8} }},
		&Aggregate{Name: "percentile_cont", Args: targs(f8, iv), Result: iv, OrderedSet: true,
			New: func([]types.T) AggState { return &percentileState{cont: true, elem: iv} }},
		&Aggregate{Name: "percentile_cont", Args: targs(f8s, iv), Result: ivs, OrderedSet: true,
			New: func([]types.T) AggState { return &percentileState{cont: true, many: true, elem: iv} }},
		&Aggregate{Name: "percentile_disc", Args: targs(f8, ArgAny), OrderedSet: true,
			ResultFn: func(ts []types.T) types.T { return baseType(ts[1]) },
			New:      func([]types.T) AggState { return &percentileState{} }},
		&Aggregate{Name: "percentile_disc", Args: targs(f8s, ArgAny), OrderedSet: true,
			ResultFn: func(ts []types.T) types.T { return types.ArrayOf(baseType(ts[1]), 1) },
			New:      func(ts []types.T) AggState { return &percentileState{many: true, elem: baseType(ts[1])} }},
		&Aggregate{Name: "mode", Args: targs(ArgAny), OrderedSet: true,
			ResultFn: func(ts []types.T) types.T { return baseType(ts[0]) },
			New:      func(ts []types.T) AggState { return &modeState{t: baseType(ts[0])} }},
	)
}

// percentileState collects a group's sorted values and the fraction (or
// fractions, with many) of its first row.
type percentileState struct {
	cont, many bool
	elem       types.T // the value type (float8 or interval for percentile_cont)
	fractions  any
	values     []any
	size       int64
}

// Size implements SizedAggState.
func (s *percentileState) Size() int64 { return s.size }

func (s *percentileState) Step(_ *Context, a []any) error {
	if s.values == nil {
		s.fractions = a[0]
	}
	s.values = append(s.values, a[1])
	s.size += DatumSize(a[1])
	return nil
}

func (s *percentileState) Result(*Context) (any, error) {
	if len(s.values) == 0 {
		return nil, nil
	}
	if !s.many {
		return s.at(s.fractions.(float64))
	}
	arr := s.fractions.(*types.Array)
	out := &types.Array{Elem: s.elem, Dims: append([]int(nil), arr.Dims...), Elems: make([]any, len(arr.Elems))}
	for i, f := range arr.Elems {
		if f == nil {
			continue
		}
		v, err := s.at(f.(float64))
		if err != nil {
			return nil, err
		}
		out.Elems[i] = v
	}
	return out, nil
}

// at is the percentile at fraction f of the collected values.
func (s *percentileState) at(f float64) (any, error) {
	if f < 0 || f > 1 || math.IsNaN(f) {
		return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "percentile value %g is not between 0 and 1", f)
	}
	n := len(s.values)
	if !s.cont {
		row := int(math.Ceil(f * float64(n)))
		return s.values[max(row, 1)-1], nil
	}
	pos := f * float64(n-1)
	lo, hi := math.Floor(pos), math.Ceil(pos)
	if lo == hi {
		return s.values[int(lo)], nil
	}
	if first, ok := s.values[int(lo)].(types.IntervalValue); ok {
		// PostgreSQL's interval_lerp: first + (second - first) * fraction.
		diff, err := intervalAdd(s.values[int(hi)].(types.IntervalValue), negInterval(first))
		if err != nil {
			return nil, err
		}
		step, err := intervalMul(diff.(types.IntervalValue), pos-lo)
		if err != nil {
			return nil, err
		}
		return intervalAdd(step.(types.IntervalValue), first)
	}
	first, second := s.values[int(lo)].(float64), s.values[int(hi)].(float64)
	return first + (pos-lo)*(second-first), nil
}

// modeState counts runs of equal values in sort order, keeping the first
// longest.
type modeState struct {
	t               types.T
	best, cur       any
	bestRun, curRun int
}

func (s *modeState) Step(_ *Context, a []any) error {
	v := a[0]
	if s.curRun > 0 && types.Compare(s.cur, v, s.t) == 0 {
		s.curRun++
	} else {
		s.cur, s.curRun = v, 1
	}
	if s.curRun > s.bestRun {
		s.best, s.bestRun = s.cur, s.curRun
	}
	return nil
}

func (s *modeState) Result(*Context) (any, error) {
	if s.bestRun == 0 {
		return nil, nil
	}
	return s.best, nil
}
