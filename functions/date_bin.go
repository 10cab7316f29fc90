package functions

// date_bin(stride, source, origin) for timestamp and timestamptz: source
// rounded down to the start of its bin, bins being stride long and
// aligned to origin. The stride may not contain months (their length
// varies) and must be positive; an infinite source is returned as is, an
// infinite origin is an error. Time zones play no part: bins are counted
// in microseconds of absolute time for timestamptz too.

import (
	"math"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	for _, t := range []types.T{types.TimestampT, types.TimestampTZT} {
		Register(fn("date_bin", targs(types.IntervalT, t, t), t, func(_ *Context, a []any) (any, error) {
			return dateBin(a[0].(types.IntervalValue), a[1].(types.Timestamp), a[2].(types.Timestamp))
		}))
	}
}

func dateBin(stride types.IntervalValue, ts, origin types.Timestamp) (any, error) {
	if ts.IsInfinite() {
		return ts, nil
	}
	if origin.IsInfinite() {
		return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "origin out of range")
	}
	if stride.Months != 0 {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
	}
	// The stride in microseconds, refused where int64 overflows.
	const maxDays = math.MaxInt64 / usecPerDay
	days, us := int64(stride.Days), stride.Micros
	if days > maxDays || days < -maxDays {
		return nil, errIntervalRange()
	}
	step := days * usecPerDay
	if (us > 0 && step > math.MaxInt64-us) || (us < 0 && step < math.MinInt64-us) {
		return nil, errIntervalRange()
	}
	step += us
	if step <= 0 {
		return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "stride must be greater than zero")
	}
	diff := int64(ts) - int64(origin)
	if (diff < 0) != (ts < origin) { // the subtraction overflowed
		return nil, errIntervalRange()
	}
	r := int64(origin) + diff - diff%step
	if diff%step < 0 {
		// Round toward minus infinity, which may leave the range.
		if r < math.MinInt64+step {
			r = math.MinInt64
		} else {
			r -= step
		}
		if err := checkTS(r); err != nil {
			return nil, err
		}
	}
	return types.Timestamp(r), nil
}
