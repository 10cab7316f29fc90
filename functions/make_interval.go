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
		fn1("justify_hours", IV, IV, func(a any) (any, error) { return justifyHours(a.(types.IntervalValue)) }),
		fn1("justify_days", IV, IV, func(a any) (any, error) {
			iv, err := wholeMonths(a.(types.IntervalValue))
			if err != nil {
				return nil, err
			}
			if iv.Months > 0 && iv.Days < 0 {
				iv.Days += 30
				iv.Months--
			} else if iv.Months < 0 && iv.Days > 0 {
				iv.Days -= 30
				iv.Months++
			}
			return iv, nil
		}),
		fn1("justify_interval", IV, IV, func(a any) (any, error) {
			iv, err := wholeDays(a.(types.IntervalValue))
			if err != nil {
				return nil, err
			}
			if iv, err = wholeMonths(iv); err != nil {
				return nil, err
			}
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

// wholeMonths moves whole 30-day periods of the day field into months,
// 22008 if the months leave int32, as PostgreSQL (they used to wrap).
func wholeMonths(iv types.IntervalValue) (types.IntervalValue, error) {
	m := iv.Days / 30
	iv.Days -= m * 30
	months := int64(iv.Months) + int64(m)
	if months != int64(int32(months)) {
		return iv, errIntervalRange()
	}
	iv.Months = int32(months)
	return iv, nil
}
