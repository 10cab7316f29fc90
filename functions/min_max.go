package functions

// min(x) and max(x) for the types PostgreSQL defines them on: numbers,
// text, char(n), date/time types, interval, oid, inet and arrays.

import "github.com/cairn-db/cairn/sql/types"

type minMaxState struct {
	t    types.T
	want int // -1 for min, 1 for max
	best any
}

func (s *minMaxState) Step(_ *Context, a []any) error {
	if s.best == nil || compareDatum(a[0], s.best, s.t)*s.want > 0 {
		s.best = a[0]
	}
	return nil
}

func (s *minMaxState) Result(_ *Context) (any, error) { return s.best, nil }

func init() {
	for _, t := range []types.T{
		types.Int2T, types.Int4T, types.Int8T, types.Float4T, types.Float8T, types.NumericT,
		types.TextT, types.CharT, types.DateT, types.TimeT, types.TimestampT, types.TimestampTZT,
		types.IntervalT, types.OidT, types.InetT, ArgSameArray,
	} {
		for _, f := range []struct {
			name string
			want int
		}{{"min", -1}, {"max", 1}} {
			f := f
			ag := &Aggregate{Name: f.name, Args: targs(t), Result: t,
				New: func(ts []types.T) AggState { return &minMaxState{t: baseType(ts[0]), want: f.want} }}
			if t.Family == types.ArrayFamily {
				ag.Result = types.T{}
				ag.ResultFn = arrayResult
			}
			RegisterAggregate(ag)
		}
	}
}
