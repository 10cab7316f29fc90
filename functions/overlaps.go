package functions

// (start1, end1) OVERLAPS (start2, end2): whether two periods overlap, each
// the half-open start <= t < end (a single instant when start = end), an
// end given as a time or as a length (interval). A period's ends may come
// in either order. NULLs give NULL unless the answer is known without
// them, as in PostgreSQL's overlaps_timestamp.

import (
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	IV := types.IntervalT
	type addFn func(ctx *Context, start any, length types.IntervalValue) (any, error)
	// register adds overlaps over points of type t (as int64 µs) and,
	// when add is not nil, the forms with an interval for either end,
	// of volatility addVol (Stable where add follows the session's
	// TimeZone, as PostgreSQL's are).
	register := func(t types.T, micros func(v any) int64, add addFn, addVol Volatility) {
		point := func(v any) *int64 {
			if v == nil {
				return nil
			}
			m := micros(v)
			return &m
		}
		Register(&Overload{Name: "overlaps", Args: targs(t, t, t, t), Result: tBool, NullCall: true,
			Eval: func(_ *Context, a []any) (any, error) {
				return overlaps(point(a[0]), point(a[1]), point(a[2]), point(a[3])), nil
			}})
		if add == nil {
			return
		}
		// end returns start + length (NULL when either is).
		end := func(ctx *Context, start, length any) (*int64, error) {
			if start == nil || length == nil {
				return nil, nil
			}
			e, err := add(ctx, start, length.(types.IntervalValue))
			if err != nil {
				return nil, err
			}
			return point(e), nil
		}
		for _, form := range [][2]bool{{true, true}, {false, true}, {true, false}} {
			args := targs(t, t, t, t)
			if form[0] {
				args[1] = IV
			}
			if form[1] {
				args[3] = IV
			}
			Register(&Overload{Name: "overlaps", Args: args, Result: tBool, NullCall: true, Volatility: addVol,
				Eval: func(ctx *Context, a []any) (any, error) {
					var e1, e2 *int64
					var err error
					if form[0] {
						e1, err = end(ctx, a[0], a[1])
					} else {
						e1 = point(a[1])
					}
					if err != nil {
						return nil, err
					}
					if form[1] {
						e2, err = end(ctx, a[2], a[3])
					} else {
						e2 = point(a[3])
					}
					if err != nil {
						return nil, err
					}
					return overlaps(point(a[0]), e1, point(a[2]), e2), nil
				}})
		}
	}
	tsMicros := func(v any) int64 { return int64(v.(types.Timestamp)) }
	register(types.TimestampT, tsMicros, func(_ *Context, s any, iv types.IntervalValue) (any, error) {
		return tsAddInterval(s.(types.Timestamp), iv)
	}, Immutable)
	register(types.TimestampTZT, tsMicros, func(ctx *Context, s any, iv types.IntervalValue) (any, error) {
		return tzAddInterval(ctx, s.(types.Timestamp), iv)
	}, Stable)
	register(types.TimeT, func(v any) int64 { return int64(v.(types.TimeOfDay)) }, nil, Immutable)
}

// overlaps decides (s1, e1) OVERLAPS (s2, e2) over points that may be
// NULL (nil); the result is nil for NULL.
func overlaps(s1, e1, s2, e2 *int64) any {
	// Each period: a NULL start takes the end's place; otherwise the
	// ends are put in order.
	order := func(s, e *int64) (*int64, *int64) {
		if s == nil {
			return e, nil
		}
		if e != nil && *s > *e {
			return e, s
		}
		return s, e
	}
	s1, e1 = order(s1, e1)
	s2, e2 = order(s2, e2)
	if s1 == nil || s2 == nil {
		return nil
	}
	switch {
	case *s1 > *s2:
		// s1 < e2 OR e1 < e2, which with NULLs is not redundant.
		if e2 == nil {
			return nil
		}
		if *s1 < *e2 {
			return true
		}
		if e1 == nil {
			return nil
		}
		return false
	case *s1 < *s2:
		if e1 == nil {
			return nil
		}
		if *s2 < *e1 {
			return true
		}
		if e2 == nil {
			return nil
		}
		return false
	}
	// Equal starts: true when both ends are known.
	if e1 == nil || e2 == nil {
		return nil
	}
	return true
}
