package functions

// date_trunc(field, timestamp | timestamptz [, zone] | interval):
// truncate to the start of the unit (weeks start on Monday; timestamptz
// truncates in the session time zone or the given one).

import (
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	TS, TZ, IV := types.TimestampT, types.TimestampTZT, types.IntervalT
	Register(
		fn("date_trunc", targs(tText, TS), TS, func(_ *Context, a []any) (any, error) {
			ts := int64(a[1].(types.Timestamp))
			r, err := truncWall(a[0].(string), ts, TS)
			if err != nil {
				return nil, err
			}
			return types.Timestamp(r), nil
		}),
		stable(fn("date_trunc", targs(tText, TZ), TZ, func(ctx *Context, a []any) (any, error) {
			return truncTZ(a[0].(string), int64(a[1].(types.Timestamp)), location(ctx))
		})),
		stable(fn("date_trunc", targs(tText, TZ, tText), TZ, func(_ *Context, a []any) (any, error) {
			loc := types.LoadZone(a[2].(string))
			if loc == nil {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "time zone \"%s\" not recognized", a[2].(string))
			}
			return truncTZ(a[0].(string), int64(a[1].(types.Timestamp)), loc)
		})),
		fn("date_trunc", targs(tText, IV), IV, func(_ *Context, a []any) (any, error) {
			return truncInterval(a[0].(string), a[1].(types.IntervalValue))
		}),
	)
}

// truncTZ truncates ts in loc's wall-clock time. Below a day the result
// keeps ts's UTC offset, as PostgreSQL's timestamptz_trunc does: on the
// hour a clock goes back, 01:30+01 truncates to 01:00+01, not to the later
// 01:00+00 the wall time would resolve to; from a day up the offset is
// the truncated wall time's.
func truncTZ(unit string, ts int64, loc *time.Location) (any, error) {
	if isInfTS(ts) {
		return types.Timestamp(ts), nil
	}
	wall := utcToWall(ts, loc)
	w, err := truncWall(unit, wall, types.TimestampTZT)
	if err != nil {
		return nil, err
	}
	switch unitAliases[strings.ToLower(unit)] {
	case "microseconds", "milliseconds", "second", "minute", "hour":
		return types.Timestamp(ts - (wall - w)), nil
	}
	return types.Timestamp(wallToUTC(w, loc)), nil
}

// truncWall truncates wall-clock µs to a unit.
func truncWall(unitIn string, ts int64, t types.T) (int64, error) {
	unit := strings.ToLower(unitIn)
	canon, ok := unitAliases[unit]
	if !ok {
		return 0, errUnitNotRecognized(unit, t)
	}
	if isInfTS(ts) {
		return ts, nil
	}
	days := floorDiv(ts, usecPerDay)
	tod := ts - days*usecPerDay
	// y is the astronomical year (1 BC is 0), the year PostgreSQL's
	// decade, century and millennium formulas below are written for.
	y, m, _ := types.Date(days).YMD()
	switch canon {
	case "microseconds":
		return ts, nil
	case "milliseconds":
		return days*usecPerDay + tod - tod%1000, nil
	case "second":
		return days*usecPerDay + tod - tod%usecPerSec, nil
	case "minute":
		return days*usecPerDay + tod - tod%usecPerMin, nil
	case "hour":
		return days*usecPerDay + tod - tod%usecPerHour, nil
	case "day":
		return days * usecPerDay, nil
	case "week":
		wd := weekday(days)
		if wd == 0 {
			wd = 7
		}
		return (days - int64(wd-1)) * usecPerDay, nil
	case "month":
		return int64(types.DateFromYMD(y, m, 1)) * usecPerDay, nil
	case "quarter":
		return int64(types.DateFromYMD(y, (m-1)/3*3+1, 1)) * usecPerDay, nil
	case "year":
		return int64(types.DateFromYMD(y, 1, 1)) * usecPerDay, nil
	case "decade":
		dy := y
		if dy > 0 {
			dy = dy / 10 * 10
		} else {
			dy = -((8 - (dy - 1)) / 10) * 10
		}
		return int64(types.DateFromYMD(dy, 1, 1)) * usecPerDay, nil
	case "century":
		cy := y
		if cy > 0 {
			cy = (cy+99)/100*100 - 99
		} else {
			cy = -((99-(cy-1))/100)*100 + 1
		}
		return int64(types.DateFromYMD(cy, 1, 1)) * usecPerDay, nil
	case "millennium":
		my := y
		if my > 0 {
			my = (my+999)/1000*1000 - 999
		} else {
			my = -((999-(my-1))/1000)*1000 + 1
		}
		return int64(types.DateFromYMD(my, 1, 1)) * usecPerDay, nil
	}
	return 0, errUnitNotSupported(unit, t)
}

func truncInterval(unitIn string, iv types.IntervalValue) (any, error) {
	unit := strings.ToLower(unitIn)
	canon, ok := unitAliases[unit]
	if !ok {
		return nil, errUnitNotRecognized(unit, types.IntervalT)
	}
	r := iv
	years := iv.Months / 12
	switch canon {
	case "millennium":
		r = types.IntervalValue{Months: years / 1000 * 1000 * 12}
	case "century":
		r = types.IntervalValue{Months: years / 100 * 100 * 12}
	case "decade":
		r = types.IntervalValue{Months: years / 10 * 10 * 12}
	case "year":
		r = types.IntervalValue{Months: years * 12}
	case "quarter":
		r = types.IntervalValue{Months: years*12 + iv.Months%12/3*3}
	case "month":
		r = types.IntervalValue{Months: iv.Months}
	case "day":
		r.Micros = 0
	case "hour":
		r.Micros = iv.Micros / usecPerHour * usecPerHour
	case "minute":
		r.Micros = iv.Micros / usecPerMin * usecPerMin
	case "second":
		r.Micros = iv.Micros / usecPerSec * usecPerSec
	case "milliseconds":
		r.Micros = iv.Micros / 1000 * 1000
	case "microseconds":
	case "week":
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "unit \"%s\" not supported for type interval", unit).
			WithDetail("Months usually have fractional weeks.")
	default:
		return nil, errUnitNotSupported(unit, types.IntervalT)
	}
	return r, nil
}
