package functions

// age(a, b): the symbolic difference in years, months, days and time (of
// timestamps, or of timestamptz in the session time zone); age(x) is
// age(current_date at midnight, x).

import (
	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	TS, TZ, IV := types.TimestampT, types.TimestampTZT, types.IntervalT
	Register(
		fn("age", targs(TS, TS), IV, func(_ *Context, a []any) (any, error) {
			return ageWall(int64(a[0].(types.Timestamp)), int64(a[1].(types.Timestamp)))
		}),
		// Stable, though PostgreSQL's pg_proc says immutable: the fields
		// it subtracts are the session TimeZone's, and an immutable
		// result is shared between sessions (the ExprCache).
		stable(fn("age", targs(TZ, TZ), IV, func(ctx *Context, a []any) (any, error) {
			loc := location(ctx)
			return ageWall(utcToWall(int64(a[0].(types.Timestamp)), loc), utcToWall(int64(a[1].(types.Timestamp)), loc))
		})),
		stable(fn("age", targs(TS), IV, func(ctx *Context, a []any) (any, error) {
			return ageWall(todayWall(ctx), int64(a[0].(types.Timestamp)))
		})),
		stable(fn("age", targs(TZ), IV, func(ctx *Context, a []any) (any, error) {
			return ageWall(todayWall(ctx), utcToWall(int64(a[0].(types.Timestamp)), location(ctx)))
		})),
	)
}

// todayWall is midnight of the statement's date in the session time zone.
func todayWall(ctx *Context) int64 {
	return floorDiv(utcToWall(nowMicros(ctx), location(ctx)), usecPerDay) * usecPerDay
}

// ageWall is PostgreSQL's timestamp_age on wall-clock µs.
func ageWall(t1, t2 int64) (any, error) {
	if isInfTS(t1) || isInfTS(t2) {
		return nil, errIntervalRange()
	}
	split := func(ts int64) (y, m, d int, h, mi, s, us int64) {
		days := floorDiv(ts, usecPerDay)
		tod := ts - days*usecPerDay
		y, m, d = types.Date(days).YMD()
		return y, m, d, tod / usecPerHour, tod / usecPerMin % 60, tod / usecPerSec % 60, tod % usecPerSec
	}
	y1, m1, d1, h1, mi1, s1, us1 := split(t1)
	y2, m2, d2, h2, mi2, s2, us2 := split(t2)
	us := us1 - us2
	sec := s1 - s2
	mins := mi1 - mi2
	hour := h1 - h2
	day := int64(d1 - d2)
	mon := int64(m1 - m2)
	year := int64(y1 - y2)
	neg := t1 < t2
	if neg {
		us, sec, mins, hour, day, mon, year = -us, -sec, -mins, -hour, -day, -mon, -year
	}
	for us < 0 {
		us += usecPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		mins--
	}
	for mins < 0 {
		mins += 60
		hour--
	}
	for hour < 0 {
		hour += 24
		day--
	}
	for day < 0 {
		if neg {
			day += int64(daysIn(y1, timeMonth(m1)))
		} else {
			day += int64(daysIn(y2, timeMonth(m2)))
		}
		mon--
	}
	for mon < 0 {
		mon += 12
		year--
	}
	if neg {
		us, sec, mins, hour, day, mon, year = -us, -sec, -mins, -hour, -day, -mon, -year
	}
	return types.IntervalValue{
		Months: int32(year*12 + mon),
		Days:   int32(day),
		Micros: ((hour*60+mins)*60+sec)*usecPerSec + us,
	}, nil
}
