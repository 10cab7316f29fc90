package functions

// to_timestamp(epoch seconds) and to_timestamp(text, format) ->
// timestamptz, to_date(text, format) -> date: the inverse of to_char's
// date/time patterns (YYYY YY MM Mon Month RM DD DDD W WW CC, the ISO week
// date's IYYY IW ID IDDD, HH HH12 HH24 MI SS MS US FF1-6 AM PM TZH TZM;
// FM/FX, Q and day names and D are read and ignored, as in PostgreSQL).
// Separators in the format match any
// one separator in the input; fields without a zone are read in the
// session time zone.

import (
	"math"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	TZ := types.TimestampTZT
	Register(
		fn1("to_timestamp", tF8, TZ, func(a any) (any, error) {
			f := a.(float64)
			switch {
			case math.IsNaN(f):
				return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp cannot be NaN")
			case math.IsInf(f, 1):
				return types.Timestamp(tsInfinity), nil
			case math.IsInf(f, -1):
				return types.Timestamp(tsNegInfinity), nil
			}
			us := math.RoundToEven(f * 1e6)
			if us < float64(minTimestamp) || us >= math.MaxInt64 {
				return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(f, 'g', -1, 64))
			}
			return types.Timestamp(int64(us)), nil
		}),
		stable(fn("to_timestamp", targs(tText, tText), TZ, func(ctx *Context, a []any) (any, error) {
			p, err := parseDateTime(a[0].(string), a[1].(string))
			if err != nil {
				return nil, err
			}
			wall, err := p.wall(a[0].(string))
			if err != nil {
				return nil, err
			}
			if p.hasTZ {
				return types.Timestamp(wall - int64(p.tzOff)*usecPerSec), nil
			}
			return types.Timestamp(wallToUTC(wall, location(ctx))), nil
		})),
		stable(fn("to_date", targs(tText, tText), types.DateT, func(_ *Context, a []any) (any, error) {
			p, err := parseDateTime(a[0].(string), a[1].(string))
			if err != nil {
				return nil, err
			}
			wall, err := p.wall(a[0].(string))
			if err != nil {
				return nil, err
			}
			return types.Date(wallToDate(wall)), nil
		})),
	)
}

// parsedDT holds the fields read by parseDateTime.
type parsedDT struct {
	year, month, day, doy int
	hasYear, bc           bool
	// yearDigits is how many digits the year field had (YY: 2), for CC.
	yearDigits int
	// Week fields: ww is WW (Gregorian week of year) or IW (ISO week),
	// w is W (week of month), isoDay is ID (1 = Monday), iddd is IDDD
	// (day of the ISO year), cc is CC (century).
	ww, w, isoDay, iddd, cc int
	// greg and iso record which date convention the template used
	// (PostgreSQL refuses to mix them).
	greg, iso      bool
	hour, min, sec int
	usec           int64
	// ff is n of an FFn field: the result is rounded to n fractional
	// digits of a second.
	ff               int
	pm, hasAMPM, h12 bool
	hasTZ, tzNeg     bool
	tzOff            int
}

func errDTValue(val, field string) error {
	return pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", val, field).
		WithDetail("Value must be an integer.")
}

// parseDateTime reads s by the template f.
func parseDateTime(s, f string) (*parsedDT, error) {
	p := &parsedDT{month: 1, day: 1}
	monthSet := false
	si := 0
	isSep := func(c byte) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}
	skipSpaces := func() {
		for si < len(s) && s[si] == ' ' {
			si++
		}
	}
	readInt := func(field string, width int, signed bool) (int, error) {
		skipSpaces()
		start := si
		if signed && si < len(s) && (s[si] == '-' || s[si] == '+') {
			si++
		}
		digits := si
		for si < len(s) && s[si] >= '0' && s[si] <= '9' && (width <= 0 || si-digits < width) {
			si++
		}
		txt := s[start:si]
		if txt == "" || txt == "-" || txt == "+" {
			rest := s[start:]
			if len(rest) > width && width > 0 {
				rest = rest[:width]
			}
			return 0, errDTValue(rest, field)
		}
		v, err := strconv.Atoi(txt)
		if err != nil {
			return 0, errDTValue(txt, field)
		}
		return v, nil
	}
	readName := func(field string, names []string, abbrev bool) (int, error) {
		skipSpaces()
		rest := strings.ToLower(s[si:])
		for i, n := range names {
			cand := strings.ToLower(n)
			if abbrev {
				cand = cand[:3]
			}
			if strings.HasPrefix(rest, cand) {
				si += len(cand)
				return i, nil
			}
		}
		w := rest
		if len(w) > 3 {
			w = w[:3]
		}
		return 0, pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", w, field).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	// readRoman reads a month in Roman numerals (RM), the longest that
	// matches.
	readRoman := func(field string) (int, error) {
		skipSpaces()
		rest := strings.ToUpper(s[si:])
		for _, m := range []int{8, 3, 7, 12, 4, 2, 6, 9, 11, 1, 5, 10} {
			if r := romanMonth[m-1]; strings.HasPrefix(rest, r) {
				si += len(r)
				return m, nil
			}
		}
		return 0, pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", s[si:min(si+4, len(s))], field).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	for fi := 0; fi < len(f); {
		for strings.HasPrefix(f[fi:], "FM") || strings.HasPrefix(f[fi:], "FX") || strings.HasPrefix(f[fi:], "fm") || strings.HasPrefix(f[fi:], "fx") {
			fi += 2
		}
		if fi >= len(f) {
			break
		}
		if f[fi] == '"' {
			fi++
			for fi < len(f) && f[fi] != '"' {
				fi++
				if si < len(s) {
					si++
				}
			}
			fi++
			continue
		}
		pat := matchPattern(f[fi:])
		if pat == "" {
			// A separator matches any one separator (or none).
			if isSep(f[fi]) {
				if f[fi] == ' ' {
					skipSpaces()
				} else if si < len(s) && isSep(s[si]) {
					si++
				}
			} else if si < len(s) {
				si++
			}
			fi++
			continue
		}
		fi += len(pat)
		if strings.HasPrefix(f[fi:], "TH") || strings.HasPrefix(f[fi:], "th") {
			fi += 2
		}
		// A field followed directly by another digit field reads a fixed
		// width; otherwise it reads as many digits as there are.
		fixedNext := fi < len(f) && matchPattern(f[fi:]) != ""
		width := func(w int) int {
			if fixedNext {
				return w
			}
			return 0
		}
		// setMonth sets the month, which an earlier field may have set
		// to another value (PostgreSQL's from_char_set_int).
		setMonth := func(m int) error {
			if monthSet && p.month != m {
				return pgerr.New(pgerrcode.InvalidDatetimeFormat, "conflicting values for \"%s\" field in formatting string", pat).
					WithDetail("This value contradicts a previous setting for the same field type.")
			}
			p.month, monthSet = m, true
			return nil
		}
		var err error
		switch pat {
		case "IYYY", "IYY", "IY", "I", "IW", "ID", "IDDD":
			p.iso = true
		case "YYYY", "Y,YYY", "YYY", "YY", "Y", "MM", "MONTH", "Month", "month", "MON", "Mon", "mon",
			"DD", "DDD", "D", "W", "WW", "RM", "rm", "CC":
			p.greg = true
		}
		switch pat {
		case "YYYY", "IYYY":
			p.year, err = readInt(pat, width(4), true)
			p.hasYear, p.yearDigits = true, 4
		case "Y,YYY":
			var th, rest int
			if th, err = readInt(pat, 0, false); err == nil {
				if si < len(s) && s[si] == ',' {
					si++
				}
				rest, err = readInt(pat, 3, false)
				p.year = th*1000 + rest
				p.hasYear, p.yearDigits = true, 4
			}
		case "YYY", "IYY":
			var y int
			y, err = readInt(pat, width(3), false)
			if y < 100 {
				y += 2000
			} else if y < 1000 {
				y += 1000
			}
			p.year, p.hasYear, p.yearDigits = y, true, 3
		case "YY", "IY":
			var y int
			y, err = readInt(pat, width(2), false)
			if y < 70 {
				y += 2000
			} else if y < 100 {
				y += 1900
			}
			p.year, p.hasYear, p.yearDigits = y, true, 2
		case "Y", "I":
			var y int
			y, err = readInt(pat, width(1), false)
			p.year, p.hasYear, p.yearDigits = y+2000, true, 1
		case "MM":
			var m int
			if m, err = readInt(pat, width(2), false); err == nil {
				err = setMonth(m)
			}
		case "MONTH", "Month", "month":
			var m int
			if m, err = readName(pat, monthNames, false); err == nil {
				err = setMonth(m + 1)
			}
		case "MON", "Mon", "mon":
			var m int
			if m, err = readName(pat, monthNames, true); err == nil {
				err = setMonth(m + 1)
			}
		case "DAY", "Day", "day":
			_, err = readName(pat, dayNames, false)
		case "DY", "Dy", "dy":
			_, err = readName(pat, dayNames, true)
		case "DD":
			p.day, err = readInt(pat, width(2), false)
		case "DDD":
			p.doy, err = readInt(pat, width(3), false)
		case "IDDD":
			p.iddd, err = readInt(pat, width(3), false)
		case "D":
			// Accepted and ignored, as in PostgreSQL.
			_, err = readInt(pat, width(1), false)
		case "ID":
			p.isoDay, err = readInt(pat, width(1), false)
		case "WW", "IW":
			p.ww, err = readInt(pat, width(2), false)
		case "W":
			p.w, err = readInt(pat, width(1), false)
		case "CC":
			p.cc, err = readInt(pat, width(2), false)
		case "RM", "rm":
			var m int
			if m, err = readRoman(pat); err == nil {
				err = setMonth(m)
			}
		case "HH", "HH12":
			p.hour, err = readInt(pat, width(2), false)
			p.h12 = true
		case "HH24":
			p.hour, err = readInt(pat, width(2), false)
		case "MI":
			p.min, err = readInt(pat, width(2), false)
		case "SS":
			p.sec, err = readInt(pat, width(2), false)
		case "SSSS", "SSSSS":
			var v int
			v, err = readInt(pat, 0, false)
			p.hour, p.min, p.sec = v/3600, v/60%60, v%60
		case "MS", "US", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
			skipSpaces()
			start := si
			for si < len(s) && s[si] >= '0' && s[si] <= '9' {
				si++
			}
			digits := s[start:si]
			if digits == "" {
				return nil, errDTValue(s[start:], pat)
			}
			// As PostgreSQL: fewer digits than the field's are its leading
			// ones (25 ms is .25 s); more make a larger value, which the
			// range check of wall refuses; one past an int is refused here,
			// as PostgreSQL's strtol-based read does (so the scaling below
			// cannot overflow).
			significant := strings.TrimLeft(digits, "0")
			var v int64
			if significant != "" {
				var perr error
				if v, perr = strconv.ParseInt(significant, 10, 32); perr != nil {
					return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "value for \"%s\" in source string is out of range", pat)
				}
			}
			scale := 3
			if pat != "MS" {
				scale = 6
			}
			for k := len(digits); k < scale; k++ {
				v *= 10
			}
			if pat == "MS" {
				v *= 1000
			}
			if strings.HasPrefix(pat, "FF") {
				p.ff = int(pat[2] - '0')
			}
			p.usec += v
		case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
			skipSpaces()
			rest := strings.ToUpper(s[si:])
			switch {
			case strings.HasPrefix(rest, "A.M."), strings.HasPrefix(rest, "P.M."):
				p.pm = rest[0] == 'P'
				si += 4
			case strings.HasPrefix(rest, "AM"), strings.HasPrefix(rest, "PM"):
				p.pm = rest[0] == 'P'
				si += 2
			default:
				return nil, pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", rest, pat).
					WithDetail("The given value did not match any of the allowed values for this field.")
			}
			p.hasAMPM = true
		case "BC", "AD", "bc", "ad", "B.C.", "A.D.", "b.c.", "a.d.":
			skipSpaces()
			rest := strings.ToUpper(s[si:])
			if strings.HasPrefix(rest, "BC") || strings.HasPrefix(rest, "B.C.") {
				p.bc = true
			}
			for si < len(s) && !isSep(s[si]) || (si < len(s) && s[si] == '.') {
				si++
			}
		case "TZH":
			skipSpaces()
			neg := si < len(s) && s[si] == '-'
			var h int
			h, err = readInt(pat, 2, true)
			if h < 0 {
				h = -h
			}
			p.tzOff = h * 3600
			p.tzNeg = neg
			if neg {
				p.tzOff = -p.tzOff
			}
			p.hasTZ = true
		case "TZM":
			var m int
			m, err = readInt(pat, 2, false)
			if p.tzNeg {
				p.tzOff -= m * 60
			} else {
				p.tzOff += m * 60
			}
			p.hasTZ = true
		case "J":
			var j int
			j, err = readInt(pat, 0, false)
			y, m, d := types.Date(j - 2440588).YMD()
			p.year, p.month, p.day, p.hasYear = y, m, d, true
		case "Q", "TZ", "tz", "OF":
			// Accepted and ignored, as PostgreSQL ignores most of them.
			skipSpaces()
			for si < len(s) && !isSep(s[si]) {
				si++
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if p.greg && p.iso {
		return nil, pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid combination of date conventions").
			WithHint("Do not mix Gregorian and ISO week date conventions in a formatting template.")
	}
	return p, nil
}

// isoWeek1Monday is the Monday that starts week 1 of ISO year y (the week
// holding January 4th), as days since the epoch.
func isoWeek1Monday(y int) int64 {
	jan4 := int64(types.DateFromYMD(y, 1, 4))
	// The epoch, 1970-01-01, was a Thursday: ISO weekday (days+3)%7+1.
	isoDow := ((jan4+3)%7+7)%7 + 1
	return jan4 - (isoDow - 1)
}

// wall builds the wall-clock µs, validating the fields.
func (p *parsedDT) wall(input string) (int64, error) {
	y := p.year
	if !p.hasYear {
		y = 1
		if p.doy == 0 {
			y = 0 // 0001 BC, as PostgreSQL's default
		}
	}
	if p.bc && y > 0 {
		y = 1 - y
	} else if !p.hasYear {
		y = 0
	}
	if p.hasYear && !p.bc && y < 0 {
		y++ // years are astronomical inside; year 0 is 1 BC, as -1 is
	}
	if p.h12 || p.hasAMPM {
		if p.hour < 1 || p.hour > 12 {
			return 0, pgerr.New(pgerrcode.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", p.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if p.pm && p.hour < 12 {
			p.hour += 12
		} else if !p.pm && p.hour == 12 {
			p.hour = 0
		}
	}
	if p.cc > 0 && (!p.hasYear || p.yearDigits <= 2) {
		// CC alone is the century's first year; with YY, YY's last
		// two digits within the century.
		switch yy := p.year % 100; {
		case !p.hasYear:
			y = (p.cc-1)*100 + 1
		case yy == 0:
			y = p.cc * 100
		default:
			y = (p.cc-1)*100 + yy
		}
	}
	var days int64
	switch {
	case p.iso && p.ww > 0:
		// ISO week ww of ISO year y, on day ID (Monday without one).
		days = isoWeek1Monday(y) + int64(p.ww-1)*7 + int64(max(p.isoDay, 1)-1)
	case p.iso && p.iddd > 0:
		days = isoWeek1Monday(y) + int64(p.iddd-1)
	default:
		if p.ww > 0 && p.doy == 0 {
			p.doy = (p.ww-1)*7 + 1
		}
		if p.w > 0 {
			p.day = (p.w-1)*7 + 1
		}
		if p.doy > 0 {
			if p.doy > 365 && !(p.doy == 366 && daysIn(y, timeMonth(2)) == 29) {
				return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
			}
			days = int64(types.DateFromYMD(y, 1, 1)) + int64(p.doy-1)
			break
		}
		if p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysIn(y, timeMonth(p.month)) {
			return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
		}
		days = int64(types.DateFromYMD(y, p.month, p.day))
	}
	if p.hour > 23 || p.min > 59 || p.sec > 59 || p.usec >= usecPerSec {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
	}
	wall := days*usecPerDay + int64(p.hour)*usecPerHour + int64(p.min)*usecPerMin + int64(p.sec)*usecPerSec + p.usec
	if p.ff > 0 {
		// Rounded to FFn's n digits, half away from zero, as a
		// timestamp(n) typmod rounds.
		unit := int64(math.Pow10(6 - p.ff))
		if wall >= 0 {
			wall = (wall + unit/2) / unit * unit
		} else {
			wall = -((-wall + unit/2) / unit * unit)
		}
	}
	return wall, nil
}
