package types

import (
	"fmt"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// An interval's typmod packs the fields it keeps (interval '1' day,
// interval hour to minute) and its fractional-second precision
// (interval(3), interval second(2)) as PostgreSQL's INTERVAL_TYPMOD does:
// the range mask in the upper half, the precision in the lower.

// Interval field masks (PostgreSQL's INTERVAL_MASK of datetime.h), as the
// grammar writes them into an interval type's modifiers.
const (
	IntervalMonth  = 1 << 1
	IntervalYear   = 1 << 2
	IntervalDay    = 1 << 3
	IntervalHour   = 1 << 10
	IntervalMinute = 1 << 11
	IntervalSecond = 1 << 12
	// IntervalFullRange is the range of an interval without fields.
	IntervalFullRange = 0x7FFF
	// intervalFullPrecision is the precision of one without (p).
	intervalFullPrecision = 0xFFFF
)

// intervalRanges are the field ranges the grammar makes, with the text
// format_type shows for each.
var intervalRanges = map[int]string{
	IntervalYear: " year", IntervalMonth: " month", IntervalDay: " day", IntervalHour: " hour",
	IntervalMinute: " minute", IntervalSecond: " second",
	IntervalYear | IntervalMonth:                                 " year to month",
	IntervalDay | IntervalHour:                                   " day to hour",
	IntervalDay | IntervalHour | IntervalMinute:                  " day to minute",
	IntervalDay | IntervalHour | IntervalMinute | IntervalSecond: " day to second",
	IntervalHour | IntervalMinute:                                " hour to minute",
	IntervalHour | IntervalMinute | IntervalSecond:               " hour to second",
	IntervalMinute | IntervalSecond:                              " minute to second",
	IntervalFullRange:                                            "",
}

// IntervalTypmod is the typmod of an interval type with the given field
// range (the grammar's mask) and precision (-1: none), checked as
// PostgreSQL's intervaltypmodin checks them: an unknown range or a
// negative precision is 22023, a precision above 6 is 6.
func IntervalTypmod(rangeMask, precision int) (int32, error) {
	if _, ok := intervalRanges[rangeMask]; !ok {
		return 0, pgerr.New(pgerrcode.InvalidParameterValue, "invalid INTERVAL type modifier")
	}
	switch {
	case precision == -1:
		if rangeMask == IntervalFullRange {
			return -1, nil
		}
		precision = intervalFullPrecision
	case precision < 0:
		return 0, pgerr.New(pgerrcode.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", precision)
	case precision > 6:
		precision = 6
	}
	return int32(rangeMask<<16 | precision), nil
}

// IntervalFields is how format_type prints an interval's field range
// (" day to second"; "" for the full range); ok is false for a mask the
// grammar never makes.
func IntervalFields(rangeMask int) (text string, ok bool) {
	text, ok = intervalRanges[rangeMask]
	return text, ok
}

// IntervalPrecision is the fractional-second precision an interval typmod
// keeps: p of interval(p), or 6.
func IntervalPrecision(mod int32) int {
	if p := intervalPrecision(mod); p >= 0 {
		return p
	}
	return 6
}

// IntervalRange is the field range an interval typmod keeps
// (IntervalFullRange: all).
func IntervalRange(mod int32) int {
	if mod < 0 {
		return IntervalFullRange
	}
	return int(mod>>16) & IntervalFullRange
}

// intervalPrecision is a typmod's fractional-second precision, or -1.
func intervalPrecision(mod int32) int {
	if p := int(mod & 0xFFFF); mod >= 0 && p != intervalFullPrecision {
		return p
	}
	return -1
}

// intervalTypeName is format_type's text of an interval type.
func intervalTypeName(mod int32) string {
	var b strings.Builder
	b.WriteString("interval")
	b.WriteString(intervalRanges[IntervalRange(mod)])
	if p := intervalPrecision(mod); p >= 0 {
		fmt.Fprintf(&b, "(%d)", p)
	}
	return b.String()
}

// adjustInterval is PostgreSQL's AdjustIntervalForTypmod: the fields below
// the typmod's range are dropped (truncated toward zero) and the seconds
// rounded to its precision.
func adjustInterval(iv IntervalValue, mod int32) IntervalValue {
	if mod < 0 {
		return iv
	}
	truncate := func(unit int64) { iv.Micros = iv.Micros / unit * unit }
	switch IntervalRange(mod) {
	case IntervalYear:
		iv.Months = iv.Months / 12 * 12
		iv.Days, iv.Micros = 0, 0
	case IntervalMonth, IntervalYear | IntervalMonth:
		iv.Days, iv.Micros = 0, 0
	case IntervalDay:
		iv.Micros = 0
	case IntervalHour, IntervalDay | IntervalHour:
		truncate(MicrosPerHour)
	case IntervalMinute, IntervalDay | IntervalHour | IntervalMinute, IntervalHour | IntervalMinute:
		truncate(MicrosPerMinute)
	}
	if p := intervalPrecision(mod); p >= 0 {
		iv.Micros = roundMicros(iv.Micros, p)
	}
	return iv
}

// intervalUnitFor is the unit DecodeInterval gives a bare number in an
// interval of the given range: its rightmost field.
func intervalUnitFor(rangeMask int) int {
	switch rangeMask {
	case IntervalYear:
		return uYear
	case IntervalMonth, IntervalYear | IntervalMonth:
		return uMonth
	case IntervalDay:
		return uDay
	case IntervalHour, IntervalDay | IntervalHour:
		return uHour
	case IntervalMinute, IntervalHour | IntervalMinute, IntervalDay | IntervalHour | IntervalMinute:
		return uMinute
	}
	return uSecond
}
