package functions

// generate_series(start, stop [, step]): the values from start to stop by
// step (1 by default) over integers, numerics and timestamps; timestamps
// need an interval step. Dates count as timestamptz, real as numeric.

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	RegisterSetReturning(&SetReturning{Name: "generate_series", Type: seriesType, Rows: seriesRows})
}

// seriesType types start, stop and step as their common type, or start
// and stop as theirs and the step as an interval for timestamps.
func seriesType(args []types.T, unify func([]types.T) (types.T, error)) (SetSignature, bool, error) {
	if len(args) < 2 || len(args) > 3 {
		return SetSignature{}, false, nil
	}
	t, err := unify(args[:2])
	if err != nil {
		return SetSignature{}, false, err
	}
	if len(args) == 3 && t.Family != types.DateFamily && t.Family != types.TimestampFamily && t.Family != types.TimestampTZ {
		// A number's step shares the common type: (1, 3, 0.5) is numeric.
		if t, err = unify(args); err != nil {
			return SetSignature{}, false, err
		}
	}
	if t.IsInteger() && t.Family != types.Int8 {
		t = types.Int4T
	}
	if t.Family == types.Numeric || t.Family == types.Float4 {
		t = types.NumericT
	}
	if t.Family == types.DateFamily {
		t = types.TimestampTZT
	}
	params := []types.T{t, t}
	if len(args) == 3 {
		step := t
		if t.Family == types.TimestampFamily || t.Family == types.TimestampTZ {
			step = types.IntervalT
		}
		params = append(params, step)
	}
	return SetSignature{Params: params, Out: []types.Field{{Name: "generate_series", T: t}}}, true, nil
}

// seriesRows generates the series of start, stop and step of type ts[0].
func seriesRows(ctx *Context, args []any, ts []types.T) (NextRow, error) {
	t := ts[0]
	switch t.Family {
	case types.Int4, types.Int8:
		start, stop := args[0].(int64), args[1].(int64)
		step := int64(1)
		if len(args) == 3 {
			step = args[2].(int64)
		}
		if step == 0 {
			return nil, errZeroStep()
		}
		cur, done := start, false
		return func() ([]any, bool, error) {
			if done || step > 0 && cur > stop || step < 0 && cur < stop {
				return nil, false, nil
			}
			v := cur
			cur += step
			// Stepping past the type's range ends the series.
			done = (step > 0) != (cur > v)
			return []any{v}, true, nil
		}, nil
	case types.Numeric:
		start, stop := args[0].(*apd.Decimal), args[1].(*apd.Decimal)
		step := apd.New(1, 0)
		if len(args) == 3 {
			step = args[2].(*apd.Decimal)
		}
		if err := checkSeriesBounds(start, stop, step, len(args) == 3); err != nil {
			return nil, err
		}
		if step.IsZero() {
			return nil, errZeroStep()
		}
		cur := new(apd.Decimal).Set(start)
		return func() ([]any, bool, error) {
			c := cur.Cmp(stop)
			if step.Sign() > 0 && c > 0 || step.Sign() < 0 && c < 0 {
				return nil, false, nil
			}
			v := new(apd.Decimal).Set(cur)
			if _, err := apd.BaseContext.Add(cur, cur, step); err != nil {
				return nil, false, err
			}
			return []any{v}, true, nil
		}, nil
	case types.TimestampFamily, types.TimestampTZ:
		if len(args) != 3 {
			return nil, pgerr.New(pgerrcode.UndefinedFunction, "function generate_series(%s, %s) does not exist", t, t)
		}
		cur, stop := args[0], args[1]
		iv := args[2].(types.IntervalValue)
		if iv.Months == 0 && iv.Days == 0 && iv.Micros == 0 {
			return nil, errZeroStep()
		}
		forward := iv.Months > 0 || iv.Days > 0 || iv.Micros > 0
		return func() ([]any, bool, error) {
			c := types.Compare(cur, stop, t)
			if forward && c > 0 || !forward && c < 0 {
				return nil, false, nil
			}
			v := cur
			var err error
			if t.Family == types.TimestampTZ {
				cur, err = tzAddInterval(ctx, v.(types.Timestamp), iv)
			} else {
				cur, err = tsAddInterval(v.(types.Timestamp), iv)
			}
			if err != nil {
				return nil, false, err
			}
			return []any{v}, true, nil
		}, nil
	}
	return nil, pgerr.NotSupported("generate_series over %s", t)
}

// checkSeriesBounds refuses a NaN or infinite start, stop or (given) step
// as PostgreSQL does: such a series would never end, or end at once for a
// NaN that compares equal to everything.
func checkSeriesBounds(start, stop, step *apd.Decimal, hasStep bool) error {
	bounds := []*apd.Decimal{start, stop}
	if hasStep {
		bounds = append(bounds, step)
	}
	for i, d := range bounds {
		name := [...]string{"start value", "stop value", "step size"}[i]
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return pgerr.New(pgerrcode.InvalidParameterValue, "%s cannot be NaN", name)
		case apd.Infinite:
			return pgerr.New(pgerrcode.InvalidParameterValue, "%s cannot be infinity", name)
		}
	}
	return nil
}

// errZeroStep is generate_series's error for a step of zero.
func errZeroStep() error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "step size cannot equal zero")
}
