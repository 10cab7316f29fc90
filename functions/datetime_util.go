package functions

// Helpers for date/time datums shared by casts, operators and the
// date/time functions. Timestamps are µs since 1970-01-01 UTC (timestamp
// without time zone stores the wall clock as if it were UTC); dates are
// days since 1970-01-01; ±infinity are the extreme values of the type.

import (
	"fmt"
	"math"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

const (
	usecPerSec  = int64(1000000)
	usecPerMin  = 60 * usecPerSec
	usecPerHour = 60 * usecPerMin
	usecPerDay  = 24 * usecPerHour

	tsInfinity    = math.MaxInt64
	tsNegInfinity = math.MinInt64
	dateInfinity  = math.MaxInt32
	dateNegInf    = math.MinInt32
)

func isInfTS(ts int64) bool  { return ts == tsInfinity || ts == tsNegInfinity }
func isInfDate(d int32) bool { return d == dateInfinity || d == dateNegInf }
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// location is the session time zone (UTC when unset).
func location(ctx *Context) *time.Location {
	if ctx != nil && ctx.Location != nil {
		return ctx.Location
	}
	return time.UTC
}

// textOptions are the session settings a value's text form follows
// (TimeZone, DateStyle, extra_float_digits, bytea_output, IntervalStyle), for output functions and
// input conversions.
func textOptions(ctx *Context) *types.TextOptions {
	if ctx == nil {
		return nil
	}
	opts := &types.TextOptions{Location: ctx.Location, Now: ctx.Now, DateStyle: ctx.DateStyle, Floats: ctx.Floats, ByteaEscape: ctx.ByteaEscape, IntervalStyle: ctx.IntervalStyle}
	if ctx.Catalog != nil {
		opts.RegNames = ctx.Catalog // reg* values print as names
	}
	return opts
}

// wallTime turns wall-clock µs (timestamp without time zone) into a UTC
// time.Time with the same components.
func wallTime(ts int64) time.Time { return time.UnixMicro(ts).UTC() }

// utcToWall converts a timestamptz to the wall clock of loc.
func utcToWall(ts int64, loc *time.Location) int64 {
	if isInfTS(ts) {
		return ts
	}
	t := time.UnixMicro(ts).In(loc)
	_, off := t.Zone()
	return ts + int64(off)*usecPerSec
}

// wallToUTC interprets wall-clock µs in loc. A wall time that a
// transition skips (spring forward) is read with the offset before it, one
// that occurs twice (fall back) with the offset after it, as the SQL
// standard and PostgreSQL's DetermineTimeZoneOffset do.
func wallToUTC(wall int64, loc *time.Location) int64 {
	if isInfTS(wall) {
		return wall
	}
	before, after := offsetAt(loc, wall-usecPerDay), offsetAt(loc, wall+usecPerDay)
	if before == after {
		return wall - before
	}
	early, late := wall-before, wall-after
	switch earlyOK, lateOK := offsetAt(loc, early) == before, offsetAt(loc, late) == after; {
	case lateOK:
		return late
	case earlyOK:
		return early
	}
	return early
}

// offsetAt is loc's offset from UTC at the instant ts, in µs.
func offsetAt(loc *time.Location, ts int64) int64 {
	_, off := time.UnixMicro(ts).In(loc).Zone()
	return int64(off) * usecPerSec
}

// dateToWall is the midnight of a date as wall-clock µs.
func dateToWall(d int32) int64 {
	switch d {
	case dateInfinity:
		return tsInfinity
	case dateNegInf:
		return tsNegInfinity
	}
	return int64(d) * usecPerDay
}

// dateToWallChecked is dateToWall for a date that must become a timestamp
// (PostgreSQL's date2timestamp): a finite date past the last timestamp is
// "date out of range for timestamp" rather than a wrapped value.
func dateToWallChecked(d int32) (int64, error) {
	if !isInfDate(d) && int64(d) > (tsInfinity-1)/usecPerDay {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date out of range for timestamp")
	}
	return dateToWall(d), nil
}

// dateTimeToWall is date + time of day as a wall-clock timestamp
// (PostgreSQL's datetime_timestamp): an infinite date stays infinite and a
// sum past the last timestamp is "timestamp out of range".
func dateTimeToWall(d int32, t types.TimeOfDay) (int64, error) {
	w, err := dateToWallChecked(d)
	if err != nil || isInfTS(w) {
		return w, err
	}
	if w > tsInfinity-1-int64(t) {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range")
	}
	return w + int64(t), nil
}

// wallToDate is the date of a wall-clock timestamp.
func wallToDate(ts int64) int32 {
	switch ts {
	case tsInfinity:
		return dateInfinity
	case tsNegInfinity:
		return dateNegInf
	}
	return int32(floorDiv(ts, usecPerDay))
}

// dateFromYMD returns the date of a calendar day.
func dateFromYMD(y int, m time.Month, d int) int32 {
	return int32(floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400))
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// addMonthsWall adds months to a wall-clock timestamp, clamping the day
// to the end of the month as PostgreSQL does; ok is false when the year
// leaves the timestamp range.
func addMonthsWall(ts int64, months int32) (r int64, ok bool) {
	if months == 0 || isInfTS(ts) {
		return ts, true
	}
	w := wallTime(ts)
	y, m, d := w.Date()
	total := int(m) - 1 + int(months)
	y += total / 12
	total %= 12
	if total < 0 {
		total += 12
		y--
	}
	nm := time.Month(total + 1)
	if y < -4713 || y > 294276 { // 4714 BC to 294276 AD
		return 0, false
	}
	if dm := daysIn(y, nm); d > dm {
		d = dm
	}
	day := dateFromYMD(y, nm, d)
	return addDaysMicros(floorMod(ts, usecPerDay), int64(day), 0)
}

// addDaysMicros is ts + days days + micros µs; ok is false when it
// leaves int64 (days and micros come from an interval: a '2000000000
// days' wrapped around into a year-14521 answer).
func addDaysMicros(ts, days, micros int64) (r int64, ok bool) {
	if days > math.MaxInt64/usecPerDay || days < math.MinInt64/usecPerDay {
		return 0, false
	}
	r, ok = addInt64(ts, days*usecPerDay)
	if !ok {
		return 0, false
	}
	return addInt64(r, micros)
}

// addInt64 is a + b; ok is false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	r := a + b
	if (b > 0 && r < a) || (b < 0 && r > a) {
		return 0, false
	}
	return r, true
}

// addIntervalWall adds an interval to a timestamp without time zone.
func addIntervalWall(ts int64, iv types.IntervalValue) (int64, error) {
	if isInfTS(ts) {
		return ts, nil
	}
	ts, ok := addMonthsWall(ts, iv.Months)
	if ok {
		ts, ok = addDaysMicros(ts, int64(iv.Days), iv.Micros)
	}
	if !ok {
		return 0, errTSRange()
	}
	if err := checkTS(ts); err != nil {
		return 0, err
	}
	return ts, nil
}

// addIntervalTZ adds an interval to a timestamptz: months and days in the
// session time zone, the time part as elapsed µs.
func addIntervalTZ(ts int64, iv types.IntervalValue, loc *time.Location) (int64, error) {
	if isInfTS(ts) {
		return ts, nil
	}
	ok := true
	if iv.Months != 0 || iv.Days != 0 {
		w := utcToWall(ts, loc)
		if w, ok = addMonthsWall(w, iv.Months); ok {
			w, ok = addDaysMicros(w, int64(iv.Days), 0)
		}
		if ok {
			ts = wallToUTC(w, loc)
		}
	}
	if ok {
		ts, ok = addInt64(ts, iv.Micros)
	}
	if !ok {
		return 0, errTSRange()
	}
	if err := checkTS(ts); err != nil {
		return 0, err
	}
	return ts, nil
}

// Timestamps must not lie before 4714-11-24 BC (PostgreSQL's upper limit,
// 294277 AD, is beyond int64 µs since 1970; the largest value is
// 'infinity' itself).
const minTimestamp = int64(-211813488000000000 + 946684800000000)

func checkTS(ts int64) error {
	if ts < minTimestamp || ts == tsInfinity {
		return errTSRange()
	}
	return nil
}

func errTSRange() error {
	return pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range")
}

func negInterval(iv types.IntervalValue) types.IntervalValue {
	return types.IntervalValue{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
}

// intervalMicros is an interval as µs with 30-day months and 24-hour days
// (PostgreSQL's interval comparison key).
func intervalMicros(iv types.IntervalValue) float64 {
	return float64(iv.Months)*30*float64(usecPerDay) + float64(iv.Days)*float64(usecPerDay) + float64(iv.Micros)
}

// cmpInterval compares intervals as PostgreSQL does (by their span with
// 30-day months), exactly in 128 bits.
func cmpInterval(a, b types.IntervalValue) int {
	ka := intervalKey(a)
	kb := intervalKey(b)
	switch {
	case ka[0] != kb[0]:
		if ka[0] < kb[0] {
			return -1
		}
		return 1
	case ka[1] != kb[1]:
		if ka[1] < kb[1] {
			return -1
		}
		return 1
	}
	return 0
}

// intervalKey is the interval's span as (days, µs within day), normalised.
func intervalKey(iv types.IntervalValue) [2]int64 {
	days := int64(iv.Months)*30 + int64(iv.Days) + floorDiv(iv.Micros, usecPerDay)
	return [2]int64{days, floorMod(iv.Micros, usecPerDay)}
}

// formatTZOffset formats a UTC offset as PostgreSQL prints it: +00,
// +05:30, -03:30:15.
func formatTZOffset(off int) string {
	sign := '+'
	if off < 0 {
		sign = '-'
		off = -off
	}
	h, m, s := off/3600, off/60%60, off%60
	switch {
	case s != 0:
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, h, m, s)
	case m != 0:
		return fmt.Sprintf("%c%02d:%02d", sign, h, m)
	}
	return fmt.Sprintf("%c%02d", sign, h)
}

// tzOffsetAt is loc's UTC offset in seconds at the instant ts.
func tzOffsetAt(ts int64, loc *time.Location) int {
	if isInfTS(ts) {
		return 0
	}
	_, off := time.UnixMicro(ts).In(loc).Zone()
	return off
}
