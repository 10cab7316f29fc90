package functions

// make_date, make_time, make_timestamp and make_timestamptz from fields
// (a negative year is BC; seconds may have a fraction).

import (
	"math"
	"strconv"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	TS, TZ := types.TimestampT, types.TimestampTZT
	Register(
		fn("make_date", targs(tInt4, tInt4, tInt4), types.DateT, func(_ *Context, a []any) (any, error) {
			d, err := makeDate(a[0].(int64), a[1].(int64), a[2].(int64))
			if err != nil {
				return nil, err
			}
			return types.Date(d), nil
		}),
		fn("make_time", targs(tInt4, tInt4, tF8), types.TimeT, func(_ *Context, a []any) (any, error) {
			us, err := makeTimeOfDay(a[0].(int64), a[1].(int64), a[2].(float64))
			if err != nil {
				return nil, err
			}
			return types.TimeOfDay(us), nil
		}),
		fn("make_timestamp", targs(tInt4, tInt4, tInt4, tInt4, tInt4, tF8), TS, func(_ *Context, a []any) (any, error) {
			w, err := makeWall(a)
			if err != nil {
				return nil, err
			}
			return types.Timestamp(w), nil
		}),
		stable(fn("make_timestamptz", targs(tInt4, tInt4, tInt4, tInt4, tInt4, tF8), TZ, func(ctx *Context, a []any) (any, error) {
			w, err := makeWall(a)
			if err != nil {
				return nil, err
			}
			return types.Timestamp(wallToUTC(w, location(ctx))), nil
		})),
		stable(fn("make_timestamptz", targs(tInt4, tInt4, tInt4, tInt4, tInt4, tF8, tText), TZ, func(_ *Context, a []any) (any, error) {
			w, err := makeWall(a)
			if err != nil {
				return nil, err
			}
			loc := types.LoadZone(a[6].(string))
			if loc == nil {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "time zone \"%s\" not recognized", a[6].(string))
			}
			return types.Timestamp(wallToUTC(w, loc)), nil
		})),
	)
}

// makeDate returns the days since 1970 of y-m-d (y < 0 is BC).
func makeDate(y, m, d int64) (int64, error) {
	bad := func() error {
		return pgerr.New(pgerrcode.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if y == 0 || m < 1 || m > 12 || d < 1 {
		return 0, bad()
	}
	ay := int(y)
	if ay < 0 {
		ay++
	}
	if d > int64(daysIn(ay, timeMonth(int(m)))) || ay < -4713 || ay > 5874897 {
		return 0, bad()
	}
	return int64(types.DateFromYMD(ay, int(m), int(d))), nil
}

func makeTimeOfDay(h, m int64, sec float64) (int64, error) {
	us := int64(math.RoundToEven(sec * 1e6))
	total := h*usecPerHour + m*usecPerMin + us
	if h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || total > usecPerDay {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, m, fmtSeconds(sec))
	}
	return total, nil
}

func fmtSeconds(sec float64) string {
	s := strconv.FormatFloat(sec, 'f', -1, 64)
	if sec < 10 {
		s = "0" + s
	}
	return s
}

func makeWall(a []any) (int64, error) {
	d, err := makeDate(a[0].(int64), a[1].(int64), a[2].(int64))
	if err != nil {
		return 0, err
	}
	us, err := makeTimeOfDay(a[3].(int64), a[4].(int64), a[5].(float64))
	if err != nil {
		return 0, err
	}
	if d > (tsInfinity-1-us)/usecPerDay {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%02g",
			a[0].(int64), a[1].(int64), a[2].(int64), a[3].(int64), a[4].(int64), a[5].(float64))
	}
	return d*usecPerDay + us, nil
}
