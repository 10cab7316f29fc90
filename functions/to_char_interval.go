package functions

// The patterns of to_char(interval, text) that read an interval
// differently from a timestamp, as PostgreSQL's DCH_to_char does with
// is_interval: the fields are the interval's own signed ones (years,
// months, days, hours ...), the day of the year is its approximate span in
// days ((years * 12 + months) * 30 + days), the calendar patterns compute
// on those fields as if they were a date (J, IW, IDDD, IYYY), and the
// patterns a span has no value for (month and day names, D, ID, AD/BC,
// time zones) are an error.

import (
	"fmt"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// intervalPattern formats pattern p of an interval's fields tm (fm: the
// FM prefix, no padding). ok is false for the patterns formatDateTime
// handles alike for intervals and timestamps; n is the value a TH suffix
// reads (-1: none).
func intervalPattern(p string, tm tmFields, fm bool) (out string, n int64, ok bool, err error) {
	// pad is C's "%0*d": a minus sign counts in the width.
	pad := func(v int64, width int) string {
		if fm {
			width = 0
		}
		return fmt.Sprintf("%0*d", width, v)
	}
	// signed is the width PostgreSQL widens by one for a negative value.
	signed := func(v int64, width int) int {
		if v < 0 {
			return width + 1
		}
		return width
	}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	year, month, day := int64(tm.year), int64(tm.month), int64(tm.day)
	yday := (year*12+month)*30 + day
	var v int64
	switch p {
	case "HH", "HH12":
		v = tm.hour % 12
		if v == 0 {
			v = 12
		}
		out = pad(v, signed(tm.hour, 2))
	case "HH24":
		v = tm.hour
		out = pad(v, signed(v, 2))
	case "MI":
		v = tm.min
		out = pad(v, signed(v, 2))
	case "SS":
		v = tm.sec
		out = pad(v, signed(v, 2))
	case "MS":
		v = tm.usec / 1000
		out = fmt.Sprintf("%03d", v)
	case "US":
		v = tm.usec
		out = fmt.Sprintf("%06d", v)
	case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
		d := int(p[2] - '0')
		v = tm.usec
		for k := d; k < 6; k++ {
			v /= 10
		}
		out = fmt.Sprintf("%0*d", d, v)
	case "MM":
		v = month
		out = pad(v, signed(v, 2))
	case "DDD":
		v = yday
		out = pad(v, 3)
	case "IDDD":
		_, isoYear := isoWeekYear(year, month, day)
		v = types.Date2J(year, month, day) - isoweek2j(isoYear, 1) + 1
		out = pad(v, 3)
	case "DD":
		v = day
		out = pad(v, 2)
	case "WW":
		v = (yday-1)/7 + 1
		out = pad(v, 2)
	case "IW":
		v, _ = isoWeekYear(year, month, day)
		out = pad(v, 2)
	case "W":
		v = (day-1)/7 + 1
		out = fmt.Sprint(v)
	case "J":
		v = types.Date2J(year, month, day)
		out = fmt.Sprint(v)
	case "Q":
		if month == 0 {
			return "", -1, true, nil
		}
		v = (month-1)/3 + 1
		out = fmt.Sprint(v)
	case "CC":
		v = year / 100
		if v >= -99 && v <= 99 {
			out = pad(v, signed(v, 2))
		} else {
			out = fmt.Sprint(v)
		}
	case "Y,YYY":
		v = year
		out = fmt.Sprintf("%d,%03d", year/1000, year-year/1000*1000)
	case "YYYY", "YYY", "YY", "Y", "IYYY", "IYY", "IY", "I":
		v = year
		if p[0] == 'I' {
			_, v = isoWeekYear(year, month, day)
		}
		digits := len(p)
		mod := map[int]int64{4: 1 << 62, 3: 1000, 2: 100, 1: 10}[digits]
		v %= mod
		if digits == 1 {
			out = fmt.Sprint(v)
		} else {
			out = pad(v, signed(year, digits)) // the width follows the year, not an ISO year
		}
	case "RM", "rm":
		if month == 0 && year == 0 {
			return "", -1, true, nil
		}
		// Month 0 of whole years is XII (I when negative); -1 is XII,
		// -2 XI ...
		m := month
		switch {
		case month == 0 && year >= 0:
			m = 12
		case month == 0:
			m = 1
		case month < 0:
			m = 13 + month
		}
		r := romanMonth[m-1]
		if p == "rm" {
			r = strings.ToLower(r)
		}
		if !fm {
			r = fmt.Sprintf("%-4s", r)
		}
		return r, -1, true, nil
	case "TZ", "tz", "TZH", "TZM", "OF", "AD", "BC", "ad", "bc", "A.D.", "B.C.", "a.d.", "b.c.",
		"MONTH", "Month", "month", "MON", "Mon", "mon", "DAY", "Day", "day", "DY", "Dy", "dy", "D", "ID":
		return "", -1, true, pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid format specification for an interval value").
			WithHint("Intervals are not tied to specific calendar dates.")
	default:
		return "", -1, false, nil
	}
	return out, abs(v), true, nil
}

// j2day is the day of the week (0 = Sunday) of Julian day j.
func j2day(j int64) int64 {
	d := (j + 1) % 7
	if d < 0 {
		d += 7
	}
	return d
}

// isoweek2j is the Julian day of the Monday of ISO week week of year.
func isoweek2j(year, week int64) int64 {
	day4 := types.Date2J(year, 1, 4)
	return (week-1)*7 + day4 - j2day(day4-1)
}

// isoWeekYear is PostgreSQL's date2isoweek and date2isoyear in one: the
// ISO week of a date and the ISO year it belongs to.
func isoWeekYear(year, month, day int64) (week, isoYear int64) {
	dayn := types.Date2J(year, month, day)
	day4 := types.Date2J(year, 1, 4)
	day0 := j2day(day4 - 1)
	isoYear = year
	if dayn < day4-day0 {
		day4 = types.Date2J(year-1, 1, 4)
		day0 = j2day(day4 - 1)
		isoYear--
	}
	week = (dayn-(day4-day0))/7 + 1
	if week >= 52 {
		day4 = types.Date2J(isoYear+1, 1, 4)
		day0 = j2day(day4 - 1)
		if dayn >= day4-day0 {
			week = (dayn-(day4-day0))/7 + 1
			isoYear++
		}
	}
	return week, isoYear
}
