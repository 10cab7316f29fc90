package functions

// Date/time arithmetic operators: date ± integer, date - date,
// date/timestamp/timestamptz/time ± interval, timestamp - timestamp,
// date + time, interval ± interval, unary -, interval * / float.

import (
	"math"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	D, I, TS, TZ, TM, IV, F := types.DateT, types.Int4T, types.TimestampT, types.TimestampTZT, types.TimeT, types.IntervalT, types.Float8T
	op := func(name string, l, r, res types.T, f func(ctx *Context, a, b any) (any, error)) *Overload {
		return &Overload{Name: name, Args: []types.T{l, r}, Result: res,
			Eval: func(ctx *Context, args []any) (any, error) { return f(ctx, args[0], args[1]) }}
	}
	Register(
		op("+", D, I, D, func(_ *Context, a, b any) (any, error) { return dateAddDays(a.(types.Date), b.(int64)) }),
		op("+", I, D, D, func(_ *Context, a, b any) (any, error) { return dateAddDays(b.(types.Date), a.(int64)) }),
		op("-", D, I, D, func(_ *Context, a, b any) (any, error) { return dateAddDays(a.(types.Date), -b.(int64)) }),
		op("-", D, D, I, func(_ *Context, a, b any) (any, error) {
			x, y := a.(types.Date), b.(types.Date)
			if isInfDate(int32(x)) || isInfDate(int32(y)) {
				return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "cannot subtract infinite dates")
			}
			return int64(x) - int64(y), nil
		}),
		op("+", D, IV, TS, func(_ *Context, a, b any) (any, error) {
			w, err := dateToWallChecked(int32(a.(types.Date)))
			if err != nil {
				return nil, err
			}
			return tsAddInterval(types.Timestamp(w), b.(types.IntervalValue))
		}),
		op("+", IV, D, TS, func(_ *Context, a, b any) (any, error) {
			w, err := dateToWallChecked(int32(b.(types.Date)))
			if err != nil {
				return nil, err
			}
			return tsAddInterval(types.Timestamp(w), a.(types.IntervalValue))
		}),
		op("-", D, IV, TS, func(_ *Context, a, b any) (any, error) {
			w, err := dateToWallChecked(int32(a.(types.Date)))
			if err != nil {
				return nil, err
			}
			return tsAddInterval(types.Timestamp(w), negInterval(b.(types.IntervalValue)))
		}),
		op("+", D, TM, TS, func(_ *Context, a, b any) (any, error) {
			w, err := dateTimeToWall(int32(a.(types.Date)), b.(types.TimeOfDay))
			return types.Timestamp(w), err
		}),
		op("+", TM, D, TS, func(_ *Context, a, b any) (any, error) {
			w, err := dateTimeToWall(int32(b.(types.Date)), a.(types.TimeOfDay))
			return types.Timestamp(w), err
		}),
		op("+", TS, IV, TS, func(_ *Context, a, b any) (any, error) {
			return tsAddInterval(a.(types.Timestamp), b.(types.IntervalValue))
		}),
		op("+", IV, TS, TS, func(_ *Context, a, b any) (any, error) {
			return tsAddInterval(b.(types.Timestamp), a.(types.IntervalValue))
		}),
		op("-", TS, IV, TS, func(_ *Context, a, b any) (any, error) {
			return tsAddInterval(a.(types.Timestamp), negInterval(b.(types.IntervalValue)))
		}),
		stable(op("+", TZ, IV, TZ, func(ctx *Context, a, b any) (any, error) {
			return tzAddInterval(ctx, a.(types.Timestamp), b.(types.IntervalValue))
		})),
		stable(op("+", IV, TZ, TZ, func(ctx *Context, a, b any) (any, error) {
			return tzAddInterval(ctx, b.(types.Timestamp), a.(types.IntervalValue))
		})),
		stable(op("-", TZ, IV, TZ, func(ctx *Context, a, b any) (any, error) {
			return tzAddInterval(ctx, a.(types.Timestamp), negInterval(b.(types.IntervalValue)))
		})),
		op("-", TS, TS, IV, func(_ *Context, a, b any) (any, error) { return tsDiff(a.(types.Timestamp), b.(types.Timestamp)) }),
		op("-", TZ, TZ, IV, func(_ *Context, a, b any) (any, error) { return tsDiff(a.(types.Timestamp), b.(types.Timestamp)) }),
		op("+", TM, IV, TM, func(_ *Context, a, b any) (any, error) {
			return types.TimeOfDay(floorMod(int64(a.(types.TimeOfDay))+b.(types.IntervalValue).Micros, usecPerDay)), nil
		}),
		op("+", IV, TM, TM, func(_ *Context, a, b any) (any, error) {
			return types.TimeOfDay(floorMod(int64(b.(types.TimeOfDay))+a.(types.IntervalValue).Micros, usecPerDay)), nil
		}),
		op("-", TM, IV, TM, func(_ *Context, a, b any) (any, error) {
			return types.TimeOfDay(floorMod(int64(a.(types.TimeOfDay))-b.(types.IntervalValue).Micros, usecPerDay)), nil
		}),
		op("-", TM, TM, IV, func(_ *Context, a, b any) (any, error) {
			return types.IntervalValue{Micros: int64(a.(types.TimeOfDay)) - int64(b.(types.TimeOfDay))}, nil
		}),
		op("+", IV, IV, IV, func(_ *Context, a, b any) (any, error) {
			return intervalAdd(a.(types.IntervalValue), b.(types.IntervalValue))
		}),
		op("-", IV, IV, IV, func(_ *Context, a, b any) (any, error) {
			return intervalAdd(a.(types.IntervalValue), negInterval(b.(types.IntervalValue)))
		}),
		op("*", IV, F, IV, func(_ *Context, a, b any) (any, error) { return intervalMul(a.(types.IntervalValue), b.(float64)) }),
		op("*", F, IV, IV, func(_ *Context, a, b any) (any, error) { return intervalMul(b.(types.IntervalValue), a.(float64)) }),
		op("/", IV, F, IV, func(_ *Context, a, b any) (any, error) { return intervalDiv(a.(types.IntervalValue), b.(float64)) }),
		&Overload{Name: "-", Args: []types.T{IV}, Result: IV, Eval: func(_ *Context, args []any) (any, error) {
			iv := args[0].(types.IntervalValue)
			if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
				return nil, errIntervalRange()
			}
			return negInterval(iv), nil
		}},
	)
}

func errDateRange() error { return pgerr.New(pgerrcode.DatetimeFieldOverflow, "date out of range") }

func errIntervalRange() error {
	return pgerr.New(pgerrcode.DatetimeFieldOverflow, "interval out of range")
}

// Dates must lie between 4714-11-24 BC and 5874897-12-31.
const (
	minDateDays = -2440588
	endDateDays = 2147483494 - 2440588
)

func dateAddDays(d types.Date, n int64) (any, error) {
	if isInfDate(int32(d)) {
		return d, nil
	}
	r := int64(d) + n
	if r < minDateDays || r >= endDateDays {
		return nil, errDateRange()
	}
	return types.Date(r), nil
}

func tsAddInterval(ts types.Timestamp, iv types.IntervalValue) (any, error) {
	r, err := addIntervalWall(int64(ts), iv)
	if err != nil {
		return nil, err
	}
	return types.Timestamp(r), nil
}

func tzAddInterval(ctx *Context, ts types.Timestamp, iv types.IntervalValue) (any, error) {
	r, err := addIntervalTZ(int64(ts), iv, location(ctx))
	if err != nil {
		return nil, err
	}
	return types.Timestamp(r), nil
}

// tsDiff is timestamp - timestamp: the µs difference, with whole days
// moved into the day field (justify_hours).
func tsDiff(a, b types.Timestamp) (any, error) {
	if isInfTS(int64(a)) || isInfTS(int64(b)) {
		return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := int64(a) - int64(b)
	if (int64(a) >= 0) != (int64(b) >= 0) && (d >= 0) != (int64(a) >= 0) {
		return nil, errIntervalRange()
	}
	return justifyHours(types.IntervalValue{Micros: d})
}

// justifyHours moves whole 24-hour periods of the time field into days;
// days beyond int32 are 22008, as PostgreSQL (they used to wrap).
func justifyHours(iv types.IntervalValue) (any, error) {
	iv, err := wholeDays(iv)
	if err != nil {
		return nil, err
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usecPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usecPerDay
		iv.Days++
	}
	return iv, nil
}

// wholeDays moves whole 24-hour periods of the time field into days,
// 22008 if the days leave int32.
func wholeDays(iv types.IntervalValue) (types.IntervalValue, error) {
	days := iv.Micros / usecPerDay
	iv.Micros -= days * usecPerDay
	d := int64(iv.Days) + days
	if d != int64(int32(d)) {
		return iv, errIntervalRange()
	}
	iv.Days = int32(d)
	return iv, nil
}

func intervalAdd(a, b types.IntervalValue) (any, error) {
	m := int64(a.Months) + int64(b.Months)
	d := int64(a.Days) + int64(b.Days)
	us := a.Micros + b.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) || (a.Micros^us)&(b.Micros^us) < 0 {
		return nil, errIntervalRange()
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// tsRound rounds to microsecond precision (PostgreSQL's TSROUND).
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

func fitsInt32(f float64) bool {
	return !math.IsNaN(f) && f >= math.MinInt32 && f < -float64(math.MinInt32)
}

// intervalMul is PostgreSQL's interval_mul: fractional months cascade
// into days (30 per month) and fractional days into seconds.
func intervalMul(iv types.IntervalValue, f float64) (any, error) {
	rm := float64(iv.Months) * f
	rd := float64(iv.Days) * f
	if !fitsInt32(rm) || !fitsInt32(rd) {
		return nil, errIntervalRange()
	}
	res := types.IntervalValue{Months: int32(rm), Days: int32(rd)}
	monthRem := tsRound((float64(iv.Months)*f - float64(res.Months)) * 30)
	secRem := tsRound((float64(iv.Days)*f - float64(res.Days) + monthRem - math.Trunc(monthRem)) * 86400)
	return finishIntervalScale(res, monthRem, secRem, float64(iv.Micros)*f)
}

// intervalDiv is PostgreSQL's interval_div.
func intervalDiv(iv types.IntervalValue, f float64) (any, error) {
	if f == 0 {
		return nil, errDivByZero()
	}
	rm := float64(iv.Months) / f
	rd := float64(iv.Days) / f
	if !fitsInt32(rm) || !fitsInt32(rd) {
		return nil, errIntervalRange()
	}
	res := types.IntervalValue{Months: int32(rm), Days: int32(rd)}
	monthRem := tsRound((float64(iv.Months)/f - float64(res.Months)) * 30)
	secRem := tsRound((float64(iv.Days)/f - float64(res.Days) + monthRem - math.Trunc(monthRem)) * 86400)
	return finishIntervalScale(res, monthRem, secRem, float64(iv.Micros)/f)
}

func finishIntervalScale(res types.IntervalValue, monthRem, secRem, micros float64) (any, error) {
	if math.Abs(secRem) >= 86400 {
		days := math.Trunc(secRem / 86400)
		res.Days += int32(days)
		secRem -= days * 86400
	}
	res.Days += int32(monthRem)
	t := math.RoundToEven(micros + secRem*1e6)
	if math.IsNaN(t) || t < math.MinInt64 || t >= -math.MinInt64 {
		return nil, errIntervalRange()
	}
	res.Micros = int64(t)
	return res, nil
}
