package functions

// make_interval(years, months, weeks, days, hours, mins, secs) with any
// number of leading arguments (the rest default to 0; named arguments are
// the binder's to reorder), and justify_days, justify_hours,
// justify_interval.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	params := []types.T{tInt4, tInt4, tInt4, tInt4, tInt4, tInt4, tF8}
	for n := 0; n <= len(params); n++ {
		Register(fn("make_interval", params[:n], types.IntervalT, func(_ *Context, a []any) (any, error) {
			var f [7]float64
			for i, v := range a {
				switch x := v.(type) {
				case int64:
					f[i] = float64(x)
				case float64:
					f[i] = x
				}
			}
			months := f[0]*12 + f[1]
			days := f[2]*7 + f[3]
			us := math.RoundToEven((f[4]*3600+f[5]*60)*1e6 + f[6]*1e6)
			if !fitsInt32(months) || !fitsInt32(days) || math.IsNaN(us) || math.Abs(us) >= math.MaxInt64 {
				return nil, errIntervalRange()
			}
			return types.IntervalValue{Months: int32(months), Days: int32(days), Micros: int64(us)}, nil
		}))
	}
	IV := types.IntervalT
	Register(
		fn1("justify_hours", IV, IV, func(a any) (any, error) { return justifyHours(a.(types.IntervalValue)), nil }),
		fn1("justify_days", IV, IV, func(a any) (any, error) { return justifyDays(a.(types.IntervalValue)), nil }),
		fn1("justify_interval", IV, IV, func(a any) (any, error) {
			iv := a.(types.IntervalValue)
			days := iv.Micros / usecPerDay
			iv.Micros -= days * usecPerDay
			iv.Days += int32(days)
			iv = justifyDays(iv)
			if iv.Months > 0 && (iv.Days < 0 || (iv.Days == 0 && iv.Micros < 0)) {
				iv.Days += 30
				iv.Months--
			} else if iv.Months < 0 && (iv.Days > 0 || (iv.Days == 0 && iv.Micros > 0)) {
				iv.Days -= 30
				iv.Months++
			}
			if iv.Days > 0 && iv.Micros < 0 {
				iv.Micros += usecPerDay
				iv.Days--
			} else if iv.Days < 0 && iv.Micros > 0 {
				iv.Micros -= usecPerDay
				iv.Days++
			}
			return iv, nil
		}),
	)
}

// justifyDays moves whole 30-day periods of the day field into months.
func justifyDays(iv types.IntervalValue) types.IntervalValue {
	m := iv.Days / 30
	iv.Days -= m * 30
	iv.Months += m
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += 30
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= 30
		iv.Months++
	}
	return iv
}
