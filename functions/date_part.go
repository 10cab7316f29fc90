package functions

// extract(field FROM x) and date_part(field, x) for timestamp,
// timestamptz, date, time and interval. The parser turns EXTRACT into
// extract('field', x), which returns numeric (PostgreSQL 14+); date_part
// returns double precision.

import (
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// unitAliases maps the spellings PostgreSQL accepts to canonical units.
var unitAliases = map[string]string{}

func init() {
	for canon, names := range map[string]string{
		"microseconds": "microsecond microseconds us usec usecs useconds",
		"milliseconds": "millisecond milliseconds ms msec msecs mseconds",
		"second":       "second seconds s sec secs",
		"minute":       "minute minutes m min mins",
		"hour":         "hour hours h hr hrs",
		"day":          "day days d",
		"week":         "week weeks w",
		"month":        "month months mon mons",
		"quarter":      "quarter qtr",
		"year":         "year years y yr yrs",
		"decade":       "decade decades dec decs",
		"century":      "century centuries c cent",
		"millennium":   "millennium millennia mil mils",
		"epoch":        "epoch",
		"dow":          "dow",
		"doy":          "doy",
		"isodow":       "isodow",
		"isoyear":      "isoyear",
		"julian":       "julian j",
		"timezone":     "timezone",
		"timezone_h":   "timezone_h timezone_hour",
		"timezone_m":   "timezone_m timezone_minute",
	} {
		for _, n := range strings.Fields(names) {
			unitAliases[n] = canon
		}
	}
	D, TS, TZ, TM, IV := types.DateT, types.TimestampT, types.TimestampTZT, types.TimeT, types.IntervalT
	for _, t := range []types.T{TS, TZ, D, TM, IV} {
		t := t
		ovs := []*Overload{
			fn("extract", targs(tText, t), tNum, func(ctx *Context, a []any) (any, error) {
				d, err := extractField(ctx, a[0].(string), a[1], t)
				if d == nil || err != nil {
					return nil, err
				}
				return d, nil
			}),
			fn("date_part", targs(tText, t), tF8, func(ctx *Context, a []any) (any, error) {
				v, vt := a[1], t
				if t.Family == types.DateFamily {
					// PostgreSQL's date_part(text, date) is
					// date_part($1, $2::timestamp): timestamp's units
					// and range apply.
					w, err := dateToWallChecked(int32(v.(types.Date)))
					if err != nil {
						return nil, err
					}
					v, vt = types.Timestamp(w), TS
				}
				d, err := extractField(ctx, a[0].(string), v, vt)
				if d == nil || err != nil {
					return nil, err
				}
				f, _ := decToFloat(d)
				return f, nil
			}),
		}
		if t.Family == types.TimestampTZ {
			// A timestamptz's fields are those of its local time in the
			// session's TimeZone.
			ovs = allStable(ovs...)
		}
		Register(ovs...)
	}
}

func errUnitNotRecognized(unit string, t types.T) error {
	return pgerr.New(pgerrcode.InvalidParameterValue, "unit \"%s\" not recognized for type %s", unit, typeName(t))
}

func errUnitNotSupported(unit string, t types.T) error {
	return pgerr.New(pgerrcode.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, typeName(t))
}

// decScaled is v * 10^-scale as a numeric.
func decScaled(v int64, scale int32) *apd.Decimal { return apd.New(v, -scale) }

// extractField computes extract(unit from v) for a value of type t.
func extractField(ctx *Context, unitIn string, v any, t types.T) (*apd.Decimal, error) {
	unit := strings.ToLower(strings.TrimSpace(unitIn))
	canon, ok := unitAliases[unit]
	if !ok {
		return nil, errUnitNotRecognized(unit, t)
	}
	switch t.Family {
	case types.Interval:
		return extractInterval(canon, unit, v.(types.IntervalValue), t)
	case types.Time:
		us := int64(v.(types.TimeOfDay))
		switch canon {
		case "microseconds":
			return newDec(us % usecPerMin), nil
		case "milliseconds":
			return decScaled(us%usecPerMin, 3), nil
		case "second":
			return decScaled(us%usecPerMin, 6), nil
		case "minute":
			return newDec(us / usecPerMin % 60), nil
		case "hour":
			return newDec(us / usecPerHour), nil
		case "epoch":
			return decScaled(us, 6), nil
		}
		return nil, errUnitNotSupported(unit, t)
	case types.DateFamily:
		d := int32(v.(types.Date))
		if isInfDate(d) {
			return infExtract(canon, unit, d == dateInfinity, t)
		}
		switch canon {
		case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_h", "timezone_m":
			return nil, errUnitNotSupported(unit, t)
		case "epoch":
			return newDec(int64(d) * 86400), nil
		case "julian":
			return newDec(int64(d) + 2440588), nil
		}
		return extractDayTime(canon, unit, int64(d), 0, 0, types.TimestampT)
	}
	ts := int64(v.(types.Timestamp))
	if isInfTS(ts) {
		return infExtract(canon, unit, ts == tsInfinity, t)
	}
	if t.Family == types.TimestampTZ {
		loc := location(ctx)
		off := tzOffsetAt(ts, loc)
		switch canon {
		case "epoch":
			return decScaled(ts, 6), nil
		case "timezone":
			return newDec(int64(off)), nil
		case "timezone_h":
			return newDec(int64(off / 3600)), nil
		case "timezone_m":
			return newDec(int64(off / 60 % 60)), nil
		}
		return extractTimestamp(canon, unit, utcToWall(ts, loc), off, t)
	}
	switch canon {
	case "timezone", "timezone_h", "timezone_m":
		return nil, errUnitNotSupported(unit, t)
	}
	return extractTimestamp(canon, unit, ts, 0, t)
}

// infExtract is extract from ±infinity: ±Infinity for the monotonic
// units, NULL (a nil result) for the others.
func infExtract(canon, unit string, pos bool, t types.T) (*apd.Decimal, error) {
	switch canon {
	case "epoch", "julian", "year", "decade", "century", "millennium", "isoyear":
		return &apd.Decimal{Form: apd.Infinite, Negative: !pos}, nil
	}
	return nil, nil
}

// pgYear is PostgreSQL's year from an astronomical one (no year 0).
func pgYear(y int) int {
	if y <= 0 {
		return y - 1
	}
	return y
}

// extractTimestamp extracts from wall-clock µs.
func extractTimestamp(canon, unit string, wall int64, off int, t types.T) (*apd.Decimal, error) {
	days := floorDiv(wall, usecPerDay)
	return extractDayTime(canon, unit, days, wall-days*usecPerDay, off, t)
}

// extractDayTime is extractTimestamp given the wall clock as days since
// 1970 and µs into the day, so that extract from a date needs no
// timestamp (a date may lie past the last timestamp).
func extractDayTime(canon, unit string, days, tod int64, off int, t types.T) (*apd.Decimal, error) {
	y, mo, d := types.Date(days).YMD()
	year := pgYear(y)
	switch canon {
	case "microseconds":
		return newDec(tod % usecPerMin), nil
	case "milliseconds":
		return decScaled(tod%usecPerMin, 3), nil
	case "second":
		return decScaled(tod%usecPerMin, 6), nil
	case "minute":
		return newDec(tod / usecPerMin % 60), nil
	case "hour":
		return newDec(tod / usecPerHour), nil
	case "day":
		return newDec(int64(d)), nil
	case "month":
		return newDec(int64(mo)), nil
	case "quarter":
		return newDec(int64((mo-1)/3 + 1)), nil
	case "year":
		return newDec(int64(year)), nil
	// PostgreSQL's decade, century and millennium are computed from the
	// astronomical year y (1 BC is 0), not the year it prints.
	case "decade":
		if y >= 0 {
			return newDec(int64(y / 10)), nil
		}
		return newDec(int64(-((8 - (y - 1)) / 10))), nil
	case "century":
		if y > 0 {
			return newDec(int64((y + 99) / 100)), nil
		}
		return newDec(int64(-((99 - (y - 1)) / 100))), nil
	case "millennium":
		if y > 0 {
			return newDec(int64((y + 999) / 1000)), nil
		}
		return newDec(int64(-((999 - (y - 1)) / 1000))), nil
	case "week":
		_, w := isoWeek(days)
		return newDec(int64(w)), nil
	case "isoyear":
		iy, _ := isoWeek(days)
		return newDec(int64(pgYear(iy))), nil
	case "dow":
		return newDec(int64(weekday(days))), nil
	case "isodow":
		wd := weekday(days)
		if wd == 0 {
			wd = 7
		}
		return newDec(int64(wd)), nil
	case "doy":
		return newDec(int64(days - int64(types.DateFromYMD(y, 1, 1)) + 1)), nil
	case "epoch":
		return decScaled(days*usecPerDay+tod-int64(off)*usecPerSec, 6), nil
	case "julian":
		j := newDec(days + 2440588)
		frac, err := numericOp(opDiv, newDec(tod), newDec(usecPerDay))
		if err != nil {
			return nil, err
		}
		return numericOp(opAdd, j, frac)
	}
	return nil, errUnitNotSupported(unit, t)
}

// weekday is 0 for Sunday .. 6 for Saturday.
func weekday(days int64) int {
	// 1970-01-01 was a Thursday.
	return int(floorMod(days+4, 7))
}

// isoWeek returns the ISO 8601 year and week of a day.
func isoWeek(days int64) (year, week int) {
	y, m, d := types.Date(days).YMD()
	if y >= 1 && y <= 9999 {
		year, week = time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).ISOWeek()
		return year, week
	}
	// Outside time.Time's comfortable range: compute from the Thursday of
	// the week.
	wd := weekday(days)
	if wd == 0 {
		wd = 7
	}
	thu := days - int64(wd) + 4
	ty, _, _ := types.Date(thu).YMD()
	jan1 := int64(types.DateFromYMD(ty, 1, 1))
	return ty, int((thu-jan1)/7) + 1
}

func extractInterval(canon, unit string, iv types.IntervalValue, t types.T) (*apd.Decimal, error) {
	us := iv.Micros
	switch canon {
	case "microseconds":
		return newDec(us % usecPerMin), nil
	case "milliseconds":
		return decScaled(us%usecPerMin, 3), nil
	case "second":
		return decScaled(us%usecPerMin, 6), nil
	case "minute":
		return newDec(us / usecPerMin % 60), nil
	case "hour":
		return newDec(us / usecPerHour), nil
	case "day":
		return newDec(int64(iv.Days)), nil
	case "month":
		return newDec(int64(iv.Months % 12)), nil
	case "quarter":
		return newDec(int64(iv.Months%12/3 + 1)), nil
	case "year":
		return newDec(int64(iv.Months / 12)), nil
	case "decade":
		return newDec(int64(iv.Months / 12 / 10)), nil
	case "century":
		return newDec(int64(iv.Months / 12 / 100)), nil
	case "millennium":
		return newDec(int64(iv.Months / 12 / 1000)), nil
	case "epoch":
		secs := (1461*int64(iv.Months/12) + 120*int64(iv.Months%12) + 4*int64(iv.Days)) * 86400 / 4
		d := decScaled(us, 6)
		r, err := numericOp(opAdd, d, newDec(secs))
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, errUnitNotSupported(unit, t)
}
