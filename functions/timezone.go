package functions

// timezone(zone, ts), which x AT TIME ZONE zone is: a timestamptz becomes
// the wall-clock time it shows in zone, a timestamp is read as a wall-clock
// time in zone. zone is a name or abbreviation (types.ZoneAt), or an
// interval of hours east of UTC without months or days.

import (
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	TS, TZ, IV := types.TimestampT, types.TimestampTZT, types.IntervalT
	Register(
		fn("timezone", targs(tText, TZ), TS, func(_ *Context, a []any) (any, error) {
			loc, err := zoneNamed(a[0].(string))
			if err != nil {
				return nil, err
			}
			return shiftChecked(int64(a[1].(types.Timestamp)), func(ts int64) int64 { return utcToWall(ts, loc) })
		}),
		fn("timezone", targs(tText, TS), TZ, func(_ *Context, a []any) (any, error) {
			loc, err := zoneNamed(a[0].(string))
			if err != nil {
				return nil, err
			}
			return shiftChecked(int64(a[1].(types.Timestamp)), func(ts int64) int64 { return wallToUTC(ts, loc) })
		}),
		fn("timezone", targs(IV, TZ), TS, func(_ *Context, a []any) (any, error) {
			east, err := zoneInterval(a[0].(types.IntervalValue))
			if err != nil {
				return nil, err
			}
			return shiftChecked(int64(a[1].(types.Timestamp)), func(ts int64) int64 { return ts + east })
		}),
		fn("timezone", targs(IV, TS), TZ, func(_ *Context, a []any) (any, error) {
			east, err := zoneInterval(a[0].(types.IntervalValue))
			if err != nil {
				return nil, err
			}
			return shiftChecked(int64(a[1].(types.Timestamp)), func(ts int64) int64 { return ts - east })
		}),
	)
}

// zoneNamed is the zone AT TIME ZONE names: 22023 if there is none.
func zoneNamed(name string) (*time.Location, error) {
	loc := types.ZoneAt(name)
	if loc == nil {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	return loc, nil
}

// zoneInterval is an interval zone's offset east of UTC in µs.
func zoneInterval(iv types.IntervalValue) (int64, error) {
	if iv.Months != 0 || iv.Days != 0 {
		return 0, pgerr.New(pgerrcode.InvalidParameterValue, "interval time zone \"%s\" must not include months or days", types.FormatText(iv, types.IntervalT))
	}
	return iv.Micros, nil
}

// shiftChecked applies shift to a finite timestamp (infinities stay) and
// checks that the result is a timestamp.
func shiftChecked(ts int64, shift func(int64) int64) (any, error) {
	if isInfTS(ts) {
		return types.Timestamp(ts), nil
	}
	r := shift(ts)
	if err := checkTS(r); err != nil {
		return nil, err
	}
	return types.Timestamp(r), nil
}
