package functions

// The current time: now(), current_timestamp, transaction_timestamp()
// (the statement's Context.Now), statement_timestamp() (its
// Context.StatementNow), clock_timestamp()
// (the wall clock, volatile), current_date, localtimestamp and localtime
// (in the session time zone), timeofday().

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// nowMicros is the statement time as µs since 1970.
func nowMicros(ctx *Context) int64 {
	if ctx == nil || ctx.Now.IsZero() {
		return time.Now().UnixMicro()
	}
	return ctx.Now.UnixMicro()
}

// timeMonth converts a month number.
func timeMonth(m int) time.Month { return time.Month(m) }

// roundPrecision rounds µs to p fractional digits of a second (0..6).
func roundPrecision(us int64, p int64) int64 {
	if p >= 6 || p < 0 {
		return us
	}
	unit := int64(1)
	for i := p; i < 6; i++ {
		unit *= 10
	}
	r := floorMod(us, unit)
	us -= r
	if r*2 >= unit {
		us += unit
	}
	return us
}

func init() {
	TZ := types.TimestampTZT
	now := func(ctx *Context, _ []any) (any, error) { return types.Timestamp(nowMicros(ctx)), nil }
	nowP := func(ctx *Context, a []any) (any, error) {
		return types.Timestamp(roundPrecision(nowMicros(ctx), a[0].(int64))), nil
	}
	for _, name := range []string{"now", "current_timestamp", "transaction_timestamp"} {
		// Stable, not volatile: one value per statement (Context.Now).
		Register(stable(fn(name, nil, TZ, now)))
	}
	// statement_timestamp() is the statement's start, later than now()
	// in a transaction block after its first statement.
	Register(stable(fn("statement_timestamp", nil, TZ, func(ctx *Context, _ []any) (any, error) {
		if ctx != nil && !ctx.StatementNow.IsZero() {
			return types.Timestamp(ctx.StatementNow.UnixMicro()), nil
		}
		return types.Timestamp(nowMicros(ctx)), nil
	})))
	Register(
		stable(fn("current_timestamp", targs(tInt4), TZ, nowP)),
		&Overload{Name: "clock_timestamp", Result: TZ, Volatility: Volatile,
			Eval: func(_ *Context, _ []any) (any, error) { return types.Timestamp(time.Now().UnixMicro()), nil }},
		&Overload{Name: "timeofday", Result: tText, Volatility: Volatile,
			Eval: func(ctx *Context, _ []any) (any, error) {
				return time.Now().In(location(ctx)).Format("Mon Jan 02 15:04:05.000000 2006 MST"), nil
			}},
		stable(fn("current_date", nil, types.DateT, func(ctx *Context, _ []any) (any, error) {
			return types.Date(wallToDate(utcToWall(nowMicros(ctx), location(ctx)))), nil
		})),
		stable(fn("localtimestamp", nil, types.TimestampT, func(ctx *Context, _ []any) (any, error) {
			return types.Timestamp(utcToWall(nowMicros(ctx), location(ctx))), nil
		})),
		stable(fn("localtimestamp", targs(tInt4), types.TimestampT, func(ctx *Context, a []any) (any, error) {
			return types.Timestamp(roundPrecision(utcToWall(nowMicros(ctx), location(ctx)), a[0].(int64))), nil
		})),
		stable(fn("localtime", nil, types.TimeT, func(ctx *Context, _ []any) (any, error) {
			return types.TimeOfDay(floorMod(utcToWall(nowMicros(ctx), location(ctx)), usecPerDay)), nil
		})),
	)
}
