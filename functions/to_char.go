package functions

// to_char(value, format): timestamps, timestamptz (in the session time
// zone), intervals and numbers as text through PostgreSQL's template
// patterns. Date/time patterns: HH HH12 HH24 MI SS MS US FF1-FF6 SSSS(S)
// AM PM A.M. P.M. (and lower case) Y,YYY YYYY YYY YY Y IYYY IYY IY I BC AD
// MONTH Month month MON Mon mon MM DAY Day day DY Dy dy DDD IDDD DD D ID
// W WW IW CC J Q RM rm TZ tz TZH TZM OF, with the FM prefix, TH/th
// suffixes and "quoted" text. Number patterns: 9 0 . D , G S MI PL SG PR EEEE
// and FM.

import (
	"fmt"
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
			return formatDateTime(a[1].(string), tmFromWall(ts), false, "", 0), nil
		}),
		fn("to_char", targs(TZ, tText), tText, func(ctx *Context, a []any) (any, error) {
			ts := int64(a[0].(types.Timestamp))
			if isInfTS(ts) {
				return nil, nil
			}
			loc := location(ctx)
			abbr, off := time.UnixMicro(ts).In(loc).Zone()
			return formatDateTime(a[1].(string), tmFromWall(utcToWall(ts, loc)), false, abbr, off), nil
		}),
		fn("to_char", targs(IV, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatDateTime(a[1].(string), tmFromInterval(a[0].(types.IntervalValue)), true, "", 0), nil
		}),
		fn("to_char", targs(tNum, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(a[0].(*apd.Decimal), a[1].(string))
		}),
		fn("to_char", targs(tInt8, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(newDec(a[0].(int64)), a[1].(string))
		}),
		fn("to_char", targs(tInt4, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(newDec(a[0].(int64)), a[1].(string))
		}),
		fn("to_char", targs(tF8, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(decFromFloat(a[0].(float64), false), a[1].(string))
		}),
		fn("to_char", targs(types.Float4T, tText), tText, func(_ *Context, a []any) (any, error) {
			return formatNumber(decFromFloat(a[0].(float64), true), a[1].(string))
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

// formatDateTime applies a date/time template.
func formatDateTime(f string, tm tmFields, isInterval bool, zone string, off int) string {
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
		fm := false
		if strings.HasPrefix(f[i:], "FM") || strings.HasPrefix(f[i:], "fm") {
			fm = true
			i += 2
		}
		for strings.HasPrefix(f[i:], "FX") || strings.HasPrefix(f[i:], "TM") || strings.HasPrefix(f[i:], "fx") || strings.HasPrefix(f[i:], "tm") {
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
		if c == '\\' && i+1 < len(f) {
			b.WriteByte(f[i+1])
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
			switch p {
			case "MONTH", "MON":
				name = strings.ToUpper(name)
			case "month", "mon":
				name = strings.ToLower(name)
			}
			if len(p) == 5 {
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
			switch p {
			case "DAY", "DY":
				name = strings.ToUpper(name)
			case "day", "dy":
				name = strings.ToLower(name)
			}
			if len(p) == 3 && strings.ToUpper(p) == "DAY" {
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
	return b.String()
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

// formatNumber applies a numeric template (a subset of PostgreSQL's:
// digits 9 and 0, decimal point . or D, group separator , or G, sign
// S MI PL SG PR, fill mode FM, scientific notation EEEE, Roman numerals
// RN, the shift V, the ordinal suffix TH or th); digits that do not fit
// print as #.
func formatNumber(d *apd.Decimal, f string) (string, error) {
	up := strings.ToUpper(f)
	if at := strings.Index(up, "EEEE"); at >= 0 {
		return formatScientific(d, f, at)
	}
	if at := strings.Index(up, "RN"); at >= 0 {
		return formatRoman(d, f[at] == 'r', strings.Contains(up, "FM")), nil
	}
	return formatFixed(d, f), nil
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

// formatScientific is formatNumber of a template with EEEE at at, which
// only digit and decimal point patterns may come with, all before it (as
// PostgreSQL's NUMDesc_prepare requires): a sign (space or -), the
// mantissa with as many decimals as the template has, e, and the signed
// exponent of at least two digits. The exponent is the value's own, the
// mantissa rounded after it (so 9.999 with two decimals is 10.00e+00, as
// PostgreSQL's numeric_out_sci writes it).
func formatScientific(d *apd.Decimal, f string, at int) (string, error) {
	head, rest := strings.ToUpper(f[:at]), strings.TrimLeft(strings.ToUpper(f[at+4:]), "E")
	if strings.ContainsAny(rest, "90.DSMPLGRV,") {
		return "", pgerr.New(pgerrcode.SyntaxError, "\"EEEE\" must be the last pattern used")
	}
	fracDigits, seenPoint := 0, false
	for i := 0; i < len(head); i++ {
		switch c := head[i]; {
		case c == '9' || c == '0':
			if seenPoint {
				fracDigits++
			}
		case c == '.' || c == 'D':
			seenPoint = true
		case c == ',' || c == 'G' || c == ' ':
		default:
			return "", pgerr.New(pgerrcode.SyntaxError, "\"EEEE\" is incompatible with other formats").
				WithDetail("\"EEEE\" may only be used together with digit and decimal point patterns.")
		}
	}
	if d.Form != apd.Finite {
		if fracDigits == 0 {
			return " #####", nil
		}
		return " #." + strings.Repeat("#", fracDigits+4), nil
	}
	exp := int64(0)
	if !d.IsZero() {
		exp = d.NumDigits() - 1 + int64(d.Exponent)
	}
	var mant apd.Decimal
	mant.Set(d)
	mant.Exponent -= int32(exp)
	mant.Negative = false
	txt := roundDec(&mant, int32(fracDigits)).Text('f')
	sign := " "
	if d.Negative && !d.IsZero() {
		sign = "-"
	}
	expSign := "+"
	if exp < 0 {
		expSign, exp = "-", -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, txt, expSign, exp), nil
}

// formatFixed is formatNumber of a template without EEEE.
func formatFixed(d *apd.Decimal, f string) string {
	fm := false
	var intDigits, fracDigits int
	seenPoint := false
	signPos := "" // "S" at start/end, "MI", "PL", "SG", "PR"
	signAtEnd := false
	shift := 0 // digits after V: the value is multiplied by 10^shift
	seenV := false
	th := "" // "th" or "TH": the ordinal suffix
	for i := 0; i < len(f); i++ {
		up := strings.ToUpper(f[i:])
		switch {
		case strings.HasPrefix(up, "FM"):
			fm = true
			i++
		case strings.HasPrefix(up, "TH"):
			th = f[i : i+2]
			i++
		case f[i] == 'V' || f[i] == 'v':
			seenV = true
		case f[i] == '9' || f[i] == '0':
			if seenV {
				shift++
			}
			if seenPoint {
				fracDigits++
			} else {
				intDigits++
			}
		case f[i] == '.' || f[i] == 'D' || f[i] == 'd':
			seenPoint = true
		case strings.HasPrefix(up, "MI"), strings.HasPrefix(up, "PL"), strings.HasPrefix(up, "SG"), strings.HasPrefix(up, "PR"):
			signPos = up[:2]
			signAtEnd = intDigits+fracDigits > 0
			i++
		case f[i] == 'S' || f[i] == 's':
			signPos = "S"
			signAtEnd = intDigits+fracDigits > 0
		}
	}
	neg := d.Negative && !d.IsZero()
	if shift > 0 && d.Form == apd.Finite {
		var s apd.Decimal
		s.Set(d)
		s.Exponent += int32(shift)
		d = &s
	}
	var digits string
	var overflow bool
	var whole int64 // the rounded value, for TH
	if d.Form != apd.Finite {
		overflow = true
	} else {
		r := roundDec(d, int32(fracDigits))
		var abs apd.Decimal
		abs.Abs(r)
		txt := abs.Text('f')
		ip, fp, _ := strings.Cut(txt, ".")
		for len(fp) < fracDigits {
			fp += "0"
		}
		if ip == "0" {
			ip = ""
		}
		if len(ip) > intDigits {
			overflow = true
		}
		digits = ip + "." + fp
		neg = r.Negative && !r.IsZero()
		whole, _ = roundDec(r, 0).Int64()
	}
	ip, fp, _ := strings.Cut(digits, ".")
	// Fill the template right to left for the integer part.
	var b strings.Builder
	signStr := func() string {
		switch signPos {
		case "MI":
			if neg {
				return "-"
			}
			if fm {
				return ""
			}
			return " "
		case "PL":
			if !neg {
				return "+"
			}
			if fm {
				return ""
			}
			return " "
		case "SG", "S":
			if neg {
				return "-"
			}
			return "+"
		}
		return ""
	}
	// Integer part: template digit positions.
	type slot struct {
		c     byte
		digit bool
	}
	var intSlots, fracSlots []slot
	seenPoint = false
	pointChar := byte(0)
	for i := 0; i < len(f); i++ {
		up := strings.ToUpper(f[i:])
		switch {
		case strings.HasPrefix(up, "FM"), strings.HasPrefix(up, "MI"), strings.HasPrefix(up, "PL"), strings.HasPrefix(up, "SG"), strings.HasPrefix(up, "PR"), strings.HasPrefix(up, "TH"):
			i++
		case f[i] == 'S' || f[i] == 's', f[i] == 'V' || f[i] == 'v':
		case f[i] == '9' || f[i] == '0':
			if seenPoint {
				fracSlots = append(fracSlots, slot{f[i], true})
			} else {
				intSlots = append(intSlots, slot{f[i], true})
			}
		case f[i] == '.' || f[i] == 'D' || f[i] == 'd':
			seenPoint = true
			pointChar = '.'
		case f[i] == ',' || f[i] == 'G' || f[i] == 'g':
			if seenPoint {
				fracSlots = append(fracSlots, slot{',', false})
			} else {
				intSlots = append(intSlots, slot{',', false})
			}
		default:
			if seenPoint {
				fracSlots = append(fracSlots, slot{f[i], false})
			} else {
				intSlots = append(intSlots, slot{f[i], false})
			}
		}
	}
	if ip == "" && pointChar == 0 && !overflow {
		// A value that rounds to zero shows its units digit when the
		// template has no decimal point (to_char(0, '99') is '  0').
		ip = "0"
	}
	out := make([]byte, len(intSlots))
	di := len(ip) - 1
	started := true // whether a significant digit is still to the left
	firstZero := -1
	for k, s := range intSlots {
		if s.digit && s.c == '0' {
			firstZero = k
			break
		}
	}
	for k := len(intSlots) - 1; k >= 0; k-- {
		s := intSlots[k]
		if overflow {
			if s.digit {
				out[k] = '#'
			} else {
				out[k] = s.c
			}
			continue
		}
		if s.digit {
			switch {
			case di >= 0:
				out[k] = ip[di]
				di--
			case s.c == '0' || (firstZero >= 0 && k >= firstZero):
				out[k] = '0'
			default:
				out[k] = ' '
				started = false
			}
			continue
		}
		if s.c == ',' {
			if di >= 0 || (firstZero >= 0 && k > firstZero) {
				out[k] = ','
			} else {
				out[k] = ' '
			}
			continue
		}
		out[k] = s.c
	}
	_ = started
	intStr := string(out)
	// A plain template gets the sign (or a space) just before the first
	// digit.
	// PL adds a + (a blank for a negative value) where it stands to the
	// sign a plain template has.
	if signPos == "" || signPos == "PL" || ((signPos == "S" || signPos == "SG") && !signAtEnd) {
		sign := signStr()
		if signPos == "" || signPos == "PL" {
			sign = " "
			if neg {
				sign = "-"
			}
		}
		trimmed := strings.TrimLeft(intStr, " ")
		lead := len(intStr) - len(trimmed)
		if signPos == "" || signPos == "S" || signPos == "PL" {
			intStr = intStr[:lead] + sign + trimmed
		} else {
			intStr = sign + intStr
		}
		if signPos == "PL" && !signAtEnd {
			if fm {
				intStr = strings.TrimLeft(intStr, " ")
			}
			intStr = signStr() + intStr
		}
	} else if (signPos == "MI") && !signAtEnd {
		intStr = signStr() + intStr
	}
	b.WriteString(intStr)
	if pointChar != 0 {
		b.WriteByte(pointChar)
		fi := 0
		for _, s := range fracSlots {
			if !s.digit {
				b.WriteByte(s.c)
				continue
			}
			if overflow {
				b.WriteByte('#')
				continue
			}
			if fi < len(fp) {
				b.WriteByte(fp[fi])
			} else {
				b.WriteByte('0')
			}
			fi++
		}
	}
	res := b.String()
	if th != "" && !neg && fracDigits == 0 && !overflow {
		// The ordinal suffix of the value, for non-negative integers.
		suffix := ordinal(whole)
		if th == "TH" {
			suffix = strings.ToUpper(suffix)
		}
		res += suffix
	}
	if signAtEnd && signPos != "" && signPos != "PR" {
		res += signStr()
	}
	if signPos == "PR" {
		if neg {
			res = "<" + strings.TrimLeft(res, " ") + ">"
			if !fm {
				res = " " + res
			}
		} else if !fm {
			res = " " + res + " "
		}
	}
	if fm {
		res = strings.TrimLeft(res, " ")
		if pointChar != 0 {
			// FM drops trailing zeros of 9 positions after the point.
			for strings.HasSuffix(res, "0") && len(fracSlots) > 0 && fracSlots[len(fracSlots)-1].c == '9' {
				res = res[:len(res)-1]
				fracSlots = fracSlots[:len(fracSlots)-1]
			}
		}
	}
	return res
}
