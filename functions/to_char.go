package functions

// to_char(value, format): timestamps, timestamptz (in the session time
// zone), intervals and numbers as text through PostgreSQL's template
// patterns. Date/time patterns: HH HH12 HH24 MI SS MS US FF1-FF6 SSSS(S)
// AM PM A.M. P.M. (and lower case) Y,YYY YYYY YYY YY Y IYYY IYY IY I BC AD
// MONTH Month month MON Mon mon MM DAY Day day DY Dy dy DDD IDDD DD D ID
// W WW IW CC J Q RM rm TZ tz TZH TZM OF, with the FM prefix, TH/th
// suffixes and "quoted" text. Number patterns (to_char_num.go): 9 0 . D ,
// G S MI PL SG PR L V TH RN EEEE and FM, with "quoted" text.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

func init() {
	TS, TZ, IV := types.TimestampT, types.TimestampTZT, types.IntervalT
	Register(allStable(
		fn("to_char", targs(TS, tText), tText, func(_ *Context, a []any) (any, error) {
			ts := int64(a[0].(types.Timestamp))
			if isInfTS(ts) {
				return nil, nil
			}
			return formatDateTime(a[1].(string), tmFromWall(ts), false, "", 0)
		}),
		fn("to_char", targs(TZ, tText), tText, func(ctx *Context, a []any) (any, error) {
			ts := int64(a[0].(types.Timestamp))
			if isInfTS(ts) {
				return nil, nil
			}
			loc := location(ctx)
			abbr, off := time.UnixMicro(ts).In(loc).Zone()
			return formatDateTime(a[1].(string), tmFromWall(utcToWall(ts, loc)), false, abbr, off)
		}),
		fn("to_char", targs(IV, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatDateTime(a[1].(string), tmFromInterval(a[0].(types.IntervalValue)), true, "", 0)
		}),
		fn("to_char", targs(tNum, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(a[0].(*apd.Decimal), a[1].(string))
		}),
		fn("to_char", targs(tInt8, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatInt(a[0].(int64), 64, a[1].(string))
		}),
		fn("to_char", targs(tInt4, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatInt(a[0].(int64), 32, a[1].(string))
		}),
		fn("to_char", targs(tF8, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatFloat(a[0].(float64), false, a[1].(string))
		}),
		fn("to_char", targs(types.Float4T, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatFloat(a[0].(float64), true, a[1].(string))
		}),
	)...)
}

// tmFields are the broken-down fields a template reads.
type tmFields struct {
	year, month, day   int // astronomical year
	hour, min, sec     int64
	usec               int64
	days               int64 // days since 1970 (not for intervals)
	interval, negative bool
}

func tmFromWall(ts int64) tmFields {
	days := floorDiv(ts, usecPerDay)
	tod := ts - days*usecPerDay
	y, m, d := types.Date(days).YMD()
	return tmFields{year: y, month: m, day: d, days: days,
		hour: tod / usecPerHour, min: tod / usecPerMin % 60, sec: tod / usecPerSec % 60, usec: tod % usecPerSec}
}

func tmFromInterval(iv types.IntervalValue) tmFields {
	us := iv.Micros
	return tmFields{year: int(iv.Months / 12), month: int(iv.Months % 12), day: int(iv.Days), interval: true,
		hour: us / usecPerHour, min: us / usecPerMin % 60, sec: us / usecPerSec % 60, usec: us % usecPerSec}
}

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMonth = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

// dtPatterns are the date/time template patterns, longest first within
// each leading letter so that matching is greedy.
var dtPatterns = []string{
	"A.D.", "A.M.", "a.d.", "a.m.", "AD", "AM", "ad", "am",
	"B.C.", "b.c.", "BC", "bc",
	"CC",
	"DAY", "Day", "day", "DDD", "DD", "DY", "Dy", "dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6",
	"HH24", "HH12", "HH",
	"IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I",
	"J",
	"MI", "MM", "MS", "MONTH", "Month", "month", "MON", "Mon", "mon",
	"OF",
	"P.M.", "p.m.", "PM", "pm",
	"Q",
	"RM", "rm",
	"SSSSS", "SSSS", "SS",
	"TZH", "TZM", "TZ", "tz",
	"US",
	"WW", "W",
	"Y,YYY", "YYYY", "YYY", "YY", "Y",
}

// matchPattern finds the template pattern at the start of s: exact case
// first, then case-insensitively for the numeric ones (PostgreSQL accepts
// yyyy, hh24...).
func matchPattern(s string) string {
	for _, p := range dtPatterns {
		if strings.HasPrefix(s, p) {
			return p
		}
	}
	for _, p := range dtPatterns {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			switch strings.ToUpper(p) {
			case "DAY", "DY", "MONTH", "MON", "AM", "PM", "A.M.", "P.M.", "AD", "BC", "A.D.", "B.C.", "RM", "TZ":
				continue // the case of these selects the output's case
			}
			return strings.ToUpper(p)
		}
	}
	return ""
}

// ordinal is the English ordinal suffix of n.
func ordinal(n int64) string {
	if n < 0 {
		n = -n
	}
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// formatDateTime applies a date/time template; isInterval reads tm as an
// interval's fields (intervalPattern), where some patterns are an error.
func formatDateTime(f string, tm tmFields, isInterval bool, zone string, off int) (string, error) {
	var b strings.Builder
	pgy := pgYear(tm.year)
	if isInterval {
		pgy = tm.year
	}
	absYear := pgy
	if absYear < 0 {
		absYear = -absYear
	}
	for i := 0; i < len(f); {
		// One prefix, as PostgreSQL reads them: FM (fill mode), or TM
		// (translation mode: the names of months and days in lc_time's
		// language, C's English, unpadded). A prefix before no pattern is
		// dropped ("FMTMMonth" is T, MM, onth).
		fm, tmMode := false, false
		switch {
		case strings.HasPrefix(f[i:], "FM") || strings.HasPrefix(f[i:], "fm"):
			fm = true
			i += 2
		case strings.HasPrefix(f[i:], "TM") || strings.HasPrefix(f[i:], "tm"):
			tmMode = true
			i += 2
		}
		for strings.HasPrefix(f[i:], "FX") || strings.HasPrefix(f[i:], "fx") {
			i += 2
		}
		if i >= len(f) {
			break
		}
		c := f[i]
		if c == '"' {
			i++
			for i < len(f) && f[i] != '"' {
				if f[i] == '\\' && i+1 < len(f) {
					i++
				}
				b.WriteByte(f[i])
				i++
			}
			i++
			continue
		}
		if c == '\\' && i+1 < len(f) && f[i+1] == '"' {
			// Outside quotes a backslash escapes only a double quote.
			b.WriteByte('"')
			i += 2
			continue
		}
		p := matchPattern(f[i:])
		if p == "" {
			b.WriteByte(c)
			i++
			continue
		}
		i += len(p)
		num := func(v int64, width int) (string, int64) {
			if fm {
				return strconv.FormatInt(v, 10), v
			}
			neg := v < 0
			if neg {
				v = -v
			}
			s := fmt.Sprintf("%0*d", width, v)
			if neg {
				s = "-" + s
			}
			return s, v
		}
		pad := func(s string, width int) string {
			if fm || len(s) >= width {
				return s
			}
			return s + strings.Repeat(" ", width-len(s))
		}
		var out string
		var n int64 = -1 // value for TH
		handled := false
		if isInterval {
			var err error
			if out, n, handled, err = intervalPattern(p, tm, fm); err != nil {
				return "", err
			}
		}
		if !handled {
			switch p {
			case "HH24":
				out, n = num(tm.hour, 2)
			case "HH", "HH12":
				h := tm.hour % 12
				if h == 0 {
					h = 12
				}
				out, n = num(h, 2)
			case "MI":
				out, n = num(tm.min, 2)
			case "SS":
				out, n = num(tm.sec, 2)
			case "MS":
				out, n = num(tm.usec/1000, 3)
			case "US":
				out, n = num(tm.usec, 6)
			case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
				d := int(p[2] - '0')
				v := tm.usec
				for k := d; k < 6; k++ {
					v /= 10
				}
				out, n = num(v, d)
			case "SSSS", "SSSSS":
				out, n = num(tm.hour*3600+tm.min*60+tm.sec, 0)
			case "AM", "PM":
				out = map[bool]string{true: "PM", false: "AM"}[tm.hour%24 >= 12]
			case "am", "pm":
				out = map[bool]string{true: "pm", false: "am"}[tm.hour%24 >= 12]
			case "A.M.", "P.M.":
				out = map[bool]string{true: "P.M.", false: "A.M."}[tm.hour%24 >= 12]
			case "a.m.", "p.m.":
				out = map[bool]string{true: "p.m.", false: "a.m."}[tm.hour%24 >= 12]
			case "Y,YYY":
				out = fmt.Sprintf("%d,%03d", absYear/1000, absYear%1000)
			case "YYYY":
				out, n = num(int64(absYear), 4)
			case "YYY":
				out, n = num(int64(absYear%1000), 3)
			case "YY":
				out, n = num(int64(absYear%100), 2)
			case "Y":
				out, n = num(int64(absYear%10), 1)
			case "IYYY", "IYY", "IY", "I":
				iy, _ := isoWeek(tm.days)
				iy = pgYear(iy)
				if iy < 0 {
					iy = -iy
				}
				w := len(p)
				mod := int64(1)
				for k := 0; k < w; k++ {
					mod *= 10
				}
				if w == 4 {
					mod = 1 << 62
				}
				out, n = num(int64(iy)%mod, w)
			case "BC", "AD":
				out = map[bool]string{true: "BC", false: "AD"}[pgy < 0]
			case "bc", "ad":
				out = map[bool]string{true: "bc", false: "ad"}[pgy < 0]
			case "B.C.", "A.D.":
				out = map[bool]string{true: "B.C.", false: "A.D."}[pgy < 0]
			case "b.c.", "a.d.":
				out = map[bool]string{true: "b.c.", false: "a.d."}[pgy < 0]
			case "MONTH", "Month", "month", "MON", "Mon", "mon":
				if tm.month < 1 {
					break
				}
				name := monthNames[tm.month-1]
				if strings.ToUpper(p) == "MON" {
					name = name[:3]
				}
				name = casedLike(name, p)
				if len(p) == 5 && !tmMode {
					name = pad(name, 9)
				}
				out = name
			case "MM":
				out, n = num(int64(tm.month), 2)
			case "DAY", "Day", "day", "DY", "Dy", "dy":
				name := dayNames[weekday(tm.days)]
				if strings.ToUpper(p) == "DY" {
					name = name[:3]
				}
				name = casedLike(name, p)
				if len(p) == 3 && strings.ToUpper(p) == "DAY" && !tmMode {
					name = pad(name, 9)
				}
				out = name
			case "DDD":
				doy := tm.days - int64(types.DateFromYMD(tm.year, 1, 1)) + 1
				if isInterval {
					doy = int64(tm.day)
				}
				out, n = num(doy, 3)
			case "IDDD":
				iy, _ := isoWeek(tm.days)
				out, n = num(tm.days-isoYearStart(iy)+1, 3)
			case "DD":
				out, n = num(int64(tm.day), 2)
			case "D":
				out, n = num(int64(weekday(tm.days)+1), 1)
			case "ID":
				wd := weekday(tm.days)
				if wd == 0 {
					wd = 7
				}
				out, n = num(int64(wd), 1)
			case "W":
				out, n = num(int64((tm.day-1)/7+1), 1)
			case "WW":
				doy := tm.days - int64(types.DateFromYMD(tm.year, 1, 1))
				out, n = num(doy/7+1, 2)
			case "IW":
				_, w := isoWeek(tm.days)
				out, n = num(int64(w), 2)
			case "CC":
				cc := int64((absYear + 99) / 100)
				if isInterval {
					cc = int64(pgy / 100)
				} else if pgy < 0 {
					cc = -cc
				}
				out, n = num(cc, 2)
			case "J":
				out, n = num(tm.days+2440588, 0)
			case "Q":
				if tm.month >= 1 {
					out, n = num(int64((tm.month-1)/3+1), 0)
				}
			case "RM", "rm":
				if tm.month >= 1 {
					r := romanMonth[tm.month-1]
					if p == "rm" {
						r = strings.ToLower(r)
					}
					out = pad(r, 4)
				}
			case "TZ":
				out = strings.ToUpper(zone)
			case "tz":
				out = strings.ToLower(zone)
			case "OF":
				out = formatTZOffset(off)
			case "TZH":
				sign := "+"
				if off < 0 {
					sign = "-"
				}
				h := off / 3600
				if h < 0 {
					h = -h
				}
				out = fmt.Sprintf("%s%02d", sign, h)
			case "TZM":
				m := off / 60 % 60
				if m < 0 {
					m = -m
				}
				out = fmt.Sprintf("%02d", m)
			}
		}
		b.WriteString(out)
		if strings.HasPrefix(f[i:], "TH") || strings.HasPrefix(f[i:], "th") {
			if n >= 0 {
				suf := ordinal(n)
				if f[i] == 'T' {
					suf = strings.ToUpper(suf)
				}
				b.WriteString(suf)
			}
			i += 2
		}
	}
	return b.String(), nil
}

// isoYearStart is the day (since 1970) of the Monday starting ISO year y.
func isoYearStart(y int) int64 {
	jan4 := int64(types.DateFromYMD(y, 1, 4))
	wd := weekday(jan4)
	if wd == 0 {
		wd = 7
	}
	return jan4 - int64(wd-1)
}

// formatNumber applies a numeric template to a numeric value
// (to_char_num.go; RN and EEEE here).
func formatNumber(d *apd.Decimal, f string) (string, error) {
	t, err := parseNumTemplate(f)
	if err != nil {
		return "", err
	}
	switch {
	case t.desc.eeee:
		return formatScientific(d, t.desc.pre, t.desc.post), nil
	case t.desc.roman:
		// The value rounded to an int4, as PostgreSQL's numeric_int4.
		switch {
		case d.Form == apd.Infinite:
			return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot convert infinity to integer")
		case d.Form != apd.Finite:
			return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot convert NaN to integer")
		}
		if n, err := roundDec(d, 0).Int64(); err != nil || n != int64(int32(n)) {
			return "", pgerr.New(pgerrcode.NumericValueOutOfRange, "integer out of range")
		}
		return t.romanText(d), nil
	}
	return t.toCharDecimal(d), nil
}

// formatInt applies a numeric template to an int4 (bits 32) or int8
// value.
func formatInt(v int64, bits int, f string) (string, error) {
	t, err := parseNumTemplate(f)
	if err != nil {
		return "", err
	}
	switch {
	case t.desc.eeee:
		return formatScientific(newDec(v), t.desc.pre, t.desc.post), nil
	case t.desc.roman:
		return t.romanText(newDec(v)), nil
	}
	return t.toCharInt(v, bits)
}

// formatFloat applies a numeric template to a float8 value, or to a
// float4 one (float4 set).
func formatFloat(v float64, float4 bool, f string) (string, error) {
	t, err := parseNumTemplate(f)
	if err != nil {
		return "", err
	}
	switch {
	case t.desc.eeee:
		return formatScientificFloat(v, t.desc.pre, t.desc.post), nil
	case t.desc.roman:
		return t.romanText(decFromFloat(v, float4)), nil
	}
	digits := 15 // DBL_DIG
	if float4 {
		digits = 6 // FLT_DIG
	}
	return t.toCharFloat(v, digits), nil
}

// romanText lays out a template with RN: the numeral where RN (or rn)
// stands, the literal text as it is, a blank for L, and for a group
// separator, MI or PL (nothing with FM); the value has no sign here, so SG writes
// C's NUL, which ends the text.
func (t *numTemplate) romanText(d *apd.Decimal) string {
	var b strings.Builder
	for _, n := range t.nodes {
		switch n.key {
		case nkNone:
			b.WriteString(n.lit)
		case nkRN, nkRNLower:
			b.WriteString(formatRoman(d, n.key == nkRNLower, t.desc.fillMode))
		case nkComma, nkG, nkMI, nkPL:
			if !t.desc.fillMode {
				b.WriteByte(' ')
			}
		case nkL:
			b.WriteByte(' ')
		case nkSG:
			return b.String()
		}
	}
	return b.String()
}

// formatRoman is to_char's RN: the value rounded to an integer in Roman
// numerals, right-aligned in 15 characters (FM: not padded), lower case
// for rn; 15 #s outside 1 to 3999.
func formatRoman(d *apd.Decimal, lower, fm bool) string {
	n := int64(0)
	if d.Form == apd.Finite {
		r := roundDec(d, 0)
		if v, err := r.Int64(); err == nil {
			n = v
		}
	}
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	var b strings.Builder
	for _, p := range []struct {
		v int64
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= p.v {
			b.WriteString(p.s)
			n -= p.v
		}
	}
	s := b.String()
	if lower {
		s = strings.ToLower(s)
	}
	if fm {
		return s
	}
	return fmt.Sprintf("%15s", s)
}

// formatScientific is to_char of a numeric through a template with EEEE,
// PostgreSQL's numeric_out_sci with the template's decimals: a sign
// (space or -), the mantissa, e, and the signed exponent of at least two
// digits. The exponent is the value's own, the mantissa rounded after it
// (so 9.999 with two decimals is 10.00e+00). NaN and the infinities are
// #s (sciHashes).
func formatScientific(d *apd.Decimal, pre, post int) string {
	if d.Form != apd.Finite {
		return sciHashes(pre, post)
	}
	exp := int64(0)
	if !d.IsZero() {
		exp = d.NumDigits() - 1 + int64(d.Exponent)
	}
	var mant apd.Decimal
	mant.Set(d)
	mant.Exponent -= int32(exp)
	mant.Negative = false
	txt := roundDec(&mant, int32(post)).Text('f')
	sign := " "
	if d.Negative && !d.IsZero() {
		sign = "-"
	}
	expSign := "+"
	if exp < 0 {
		expSign, exp = "-", -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, txt, expSign, exp)
}

// formatScientificFloat is formatScientific of a float8 or float4 value,
// which PostgreSQL writes with C's printf("%+.*e"), a space for the +.
func formatScientificFloat(v float64, pre, post int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return sciHashes(pre, post)
	}
	s := strconv.FormatFloat(v, 'e', post, 64)
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return s
}

// sciHashes is EEEE's text for NaN and the infinities: a space, then #s
// for the digits, the point, e, the exponent's sign and two digits.
func sciHashes(pre, post int) string {
	b := []byte(strings.Repeat("#", pre+post+6))
	b[0], b[pre+1] = ' ', '.'
	return string(b)
}

// casedLike is a month or day name in the case of its pattern: upper
// case for MONTH, lower for month, as written (Month) otherwise.
func casedLike(name, pattern string) string {
	switch pattern {
	case strings.ToUpper(pattern):
		return strings.ToUpper(name)
	case strings.ToLower(pattern):
		return strings.ToLower(name)
	}
	return name
}
