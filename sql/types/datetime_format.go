package types

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// appendZeroPad appends v in decimal with at least width digits.
func appendZeroPad(dst []byte, v int64, width int) []byte {
	var buf [24]byte
	i := len(buf)
	u := uint64(v)
	if v < 0 {
		u = uint64(-v)
	}
	for u > 0 || len(buf)-i < width {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	if v < 0 {
		dst = append(dst, '-')
	}
	return append(dst, buf[i:]...)
}

// appendYear appends a year as EncodeDateOnly and EncodeDateTime do: at
// least four digits, BC years as positive years (the caller appends
// " BC").
func appendYear(dst []byte, y int) []byte {
	if y <= 0 {
		y = -(y - 1)
	}
	return appendZeroPad(dst, int64(y), 4)
}

// appendDateFields appends the date part of a date or timestamp in
// DateStyle ds: EncodeDateOnly's forms (ISO 2024-01-02, SQL 01/02/2024,
// German 02.01.2024, Postgres 01-02-2024), day before month in SQL and
// Postgres under DMY.
func appendDateFields(dst []byte, y, m, d int, ds DateStyle) []byte {
	two := func(dst []byte, v int) []byte { return appendZeroPad(dst, int64(v), 2) }
	switch ds.Output {
	case DateOutputSQL, DateOutputPostgres:
		sep := byte('/')
		if ds.Output == DateOutputPostgres {
			sep = '-'
		}
		if ds.Order == DateOrderDMY {
			dst = append(two(dst, d), sep)
			dst = append(two(dst, m), sep)
		} else {
			dst = append(two(dst, m), sep)
			dst = append(two(dst, d), sep)
		}
		return appendYear(dst, y)
	case DateOutputGerman:
		dst = append(two(dst, d), '.')
		dst = append(two(dst, m), '.')
		return appendYear(dst, y)
	}
	dst = append(appendYear(dst, y), '-')
	dst = append(two(dst, m), '-')
	return two(dst, d)
}

// appendDate appends date_out's form in DateStyle ds.
func appendDate(dst []byte, d Date, ds DateStyle) []byte {
	switch d {
	case DateInfinity:
		return append(dst, "infinity"...)
	case DateNegInfinity:
		return append(dst, "-infinity"...)
	}
	y, m, day := d.YMD()
	dst = appendDateFields(dst, y, m, day, ds)
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendFraction appends ".ffffff" without trailing zeros (nothing for 0).
func appendFraction(dst []byte, us int64) []byte {
	if us == 0 {
		return dst
	}
	if us < 0 {
		us = -us
	}
	var buf [7]byte
	buf[0] = '.'
	for i := 6; i >= 1; i-- {
		buf[i] = byte('0' + us%10)
		us /= 10
	}
	n := 7
	for buf[n-1] == '0' {
		n--
	}
	return append(dst, buf[:n]...)
}

// appendClock appends HH:MM:SS[.ffffff] of a time of day in microseconds.
func appendClock(dst []byte, us int64) []byte {
	h := us / MicrosPerHour
	us -= h * MicrosPerHour
	m := us / MicrosPerMinute
	us -= m * MicrosPerMinute
	s := us / MicrosPerSecond
	us -= s * MicrosPerSecond
	dst = appendZeroPad(dst, h, 2)
	dst = append(dst, ':')
	dst = appendZeroPad(dst, m, 2)
	dst = append(dst, ':')
	dst = appendZeroPad(dst, s, 2)
	return appendFraction(dst, us)
}

// appendTimeOfDay appends time_out's form.
func appendTimeOfDay(dst []byte, t TimeOfDay) []byte {
	return appendClock(dst, int64(t))
}

// appendTZOffset appends EncodeTimezone's form of an offset in seconds
// east of UTC: +00, -05, +05:30, -04:56:02.
func appendTZOffset(dst []byte, east int) []byte {
	if east >= 0 {
		dst = append(dst, '+')
	} else {
		dst = append(dst, '-')
		east = -east
	}
	h := east / 3600
	m := east / 60 % 60
	s := east % 60
	dst = appendZeroPad(dst, int64(h), 2)
	if s != 0 || m != 0 {
		dst = append(dst, ':')
		dst = appendZeroPad(dst, int64(m), 2)
	}
	if s != 0 {
		dst = append(dst, ':')
		dst = appendZeroPad(dst, int64(s), 2)
	}
	return dst
}

// zoneOffset is the offset in seconds east of UTC that loc has at the UTC
// instant sec (seconds since 1970).
func zoneOffset(loc *time.Location, sec int64) int {
	if loc == nil || loc == time.UTC {
		return 0
	}
	_, off := time.Unix(sec, 0).In(loc).Zone()
	return off
}

// localOffset is PostgreSQL's DetermineTimeZoneOffset: the offset (seconds
// east) of loc for the wall-clock time local (seconds since 1970 read as
// UTC). In a spring-forward gap the offset before the transition is used,
// in a fall-back overlap the one after it.
func localOffset(loc *time.Location, local int64) int {
	if loc == nil || loc == time.UTC {
		return 0
	}
	before := zoneOffset(loc, local-86400)
	after := zoneOffset(loc, local+86400)
	if before == after {
		off := zoneOffset(loc, local-int64(before))
		if off == before {
			return before
		}
		// Two transitions within two days: take what the instant says.
		return off
	}
	beforeTime := local - int64(before)
	afterTime := local - int64(after)
	bOff := zoneOffset(loc, beforeTime)
	aOff := zoneOffset(loc, afterTime)
	if bOff == before && aOff == before {
		return before
	}
	if bOff == after && aOff == after {
		return after
	}
	if beforeTime > afterTime {
		return before
	}
	return after
}

// zoneAt is the offset in seconds east of UTC that loc has at the UTC
// instant sec (seconds since 1970), and the zone's abbreviation then
// ("JST", "EDT", "+04", "LMT").
func zoneAt(loc *time.Location, sec int64) (east int, abbrev string) {
	if loc == nil || loc == time.UTC {
		return 0, "UTC"
	}
	abbrev, east = time.Unix(sec, 0).In(loc).Zone()
	return east, abbrev
}

// maxTZLen is MAXTZLEN: the longest zone abbreviation timestamptz output
// prints.
const maxTZLen = 10

// Short names of the days and months, as the Postgres DateStyle prints
// them.
var (
	dayAbbrevs   = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	monthAbbrevs = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// appendTimestamp appends timestamp_out's (tz false) or timestamptz_out's
// (tz true, in loc) form in DateStyle ds: EncodeDateTime. ISO prints the
// zone as its offset (+09), the other styles as its abbreviation (JST).
func appendTimestamp(dst []byte, ts Timestamp, tz bool, loc *time.Location, ds DateStyle) []byte {
	switch ts {
	case TimestampInfinity:
		return append(dst, "infinity"...)
	case TimestampNegInfinity:
		return append(dst, "-infinity"...)
	}
	local := int64(ts)
	off, abbrev := 0, ""
	if tz {
		off, abbrev = zoneAt(loc, floorDiv(local, MicrosPerSecond))
		local += int64(off) * MicrosPerSecond
	}
	days := floorDiv(local, MicrosPerDay)
	us := local - days*MicrosPerDay
	jd := int(days) + unixEpochJDate
	y, m, d := j2date(jd)
	if ds.Output == DateOutputPostgres {
		// Tue Jan 02 03:04:05 2024 JST (02 Jan under DMY).
		dst = append(dst, dayAbbrevs[(jd+1)%7]...)
		dst = append(dst, ' ')
		if ds.Order == DateOrderDMY {
			dst = append(appendZeroPad(dst, int64(d), 2), ' ')
			dst = append(dst, monthAbbrevs[m-1]...)
		} else {
			dst = append(dst, monthAbbrevs[m-1]...)
			dst = appendZeroPad(append(dst, ' '), int64(d), 2)
		}
		dst = appendClock(append(dst, ' '), us)
		dst = appendYear(append(dst, ' '), y)
	} else {
		dst = appendDateFields(dst, y, m, d, ds)
		dst = appendClock(append(dst, ' '), us)
	}
	if tz {
		switch {
		case ds.Output == DateOutputISO:
			dst = appendTZOffset(dst, off)
		case abbrev != "":
			dst = append(dst, ' ')
			dst = append(dst, abbrev[:min(len(abbrev), maxTZLen)]...)
		case ds.Output == DateOutputPostgres:
			dst = appendTZOffset(append(dst, ' '), off)
		default:
			dst = appendTZOffset(dst, off)
		}
	}
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// IntervalStyle is the session's IntervalStyle: how interval values
// print. The zero value is postgres.
type IntervalStyle uint8

// The IntervalStyle values.
const (
	IntervalPostgres IntervalStyle = iota
	IntervalPostgresVerbose
	IntervalSQLStandard
	IntervalISO8601
)

// ParseIntervalStyle reads an IntervalStyle setting's value (already
// validated); ok is false for another one.
func ParseIntervalStyle(v string) (IntervalStyle, bool) {
	switch strings.ToLower(v) {
	case "postgres":
		return IntervalPostgres, true
	case "postgres_verbose":
		return IntervalPostgresVerbose, true
	case "sql_standard":
		return IntervalSQLStandard, true
	case "iso_8601":
		return IntervalISO8601, true
	}
	return IntervalPostgres, false
}

// intervalFields splits an interval into interval_out's fields: years,
// months, days, hours, minutes, seconds and microseconds (the time
// fields share the sign of the interval's time).
func intervalFields(iv IntervalValue) (year, mon, mday, hour, min, sec, fsec int64) {
	year = int64(iv.Months) / 12
	mon = int64(iv.Months) % 12
	mday = int64(iv.Days)
	t := iv.Micros
	hour = t / MicrosPerHour
	t -= hour * MicrosPerHour
	min = t / MicrosPerMinute
	t -= min * MicrosPerMinute
	sec = t / MicrosPerSecond
	fsec = t - sec*MicrosPerSecond
	return
}

// appendIntervalStyle appends interval_out's form in the given
// IntervalStyle (EncodeInterval).
func appendIntervalStyle(dst []byte, iv IntervalValue, style IntervalStyle) []byte {
	switch style {
	case IntervalPostgresVerbose:
		return appendIntervalVerbose(dst, iv)
	case IntervalSQLStandard:
		return appendIntervalSQL(dst, iv)
	case IntervalISO8601:
		return appendIntervalISO(dst, iv)
	}
	return appendInterval(dst, iv)
}

// appendSeconds is AppendSeconds: |sec| (two digits when pad) and the
// fraction of |fsec| without trailing zeros.
func appendSeconds(dst []byte, sec, fsec int64, pad bool) []byte {
	w := 1
	if pad {
		w = 2
	}
	return appendFraction(appendZeroPad(dst, abs64(sec), w), fsec)
}

// appendIntervalVerbose is IntervalStyle postgres_verbose: "@ 1 year 2
// mons 3 days 4 hours 5 mins 6.5 secs", " ago" when it is negative.
func appendIntervalVerbose(dst []byte, iv IntervalValue) []byte {
	year, mon, mday, hour, min, sec, fsec := intervalFields(iv)
	dst = append(dst, '@')
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			v = abs64(v)
		} else if isBefore {
			v = -v
		}
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(mday, "day")
	part(hour, "hour")
	part(min, "min")
	if sec != 0 || fsec != 0 {
		dst = append(dst, ' ')
		if sec < 0 || (sec == 0 && fsec < 0) {
			if isZero {
				isBefore = true
			} else if !isBefore {
				dst = append(dst, '-')
			}
		} else if isBefore {
			dst = append(dst, '-')
		}
		dst = appendSeconds(dst, sec, fsec, false)
		dst = append(dst, " sec"...)
		if abs64(sec) != 1 || fsec != 0 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	if isZero {
		dst = append(dst, " 0"...)
	}
	if isBefore {
		dst = append(dst, " ago"...)
	}
	return dst
}

// appendIntervalSQL is IntervalStyle sql_standard: "1-2" (year-month),
// "3 4:05:06" (day-time), or both with explicit signs when the
// interval mixes them or mixes signs.
func appendIntervalSQL(dst []byte, iv IntervalValue) []byte {
	year, mon, mday, hour, min, sec, fsec := intervalFields(iv)
	neg := year < 0 || mon < 0 || mday < 0 || hour < 0 || min < 0 || sec < 0 || fsec < 0
	pos := year > 0 || mon > 0 || mday > 0 || hour > 0 || min > 0 || sec > 0 || fsec > 0
	hasYM := year != 0 || mon != 0
	hasDT := mday != 0 || hour != 0 || min != 0 || sec != 0 || fsec != 0
	standard := !(neg && pos) && !(hasYM && hasDT)
	if neg && standard {
		dst = append(dst, '-')
		year, mon, mday, hour, min, sec, fsec = -year, -mon, -mday, -hour, -min, -sec, -fsec
	}
	sign := func(neg bool) byte {
		if neg {
			return '-'
		}
		return '+'
	}
	switch {
	case !neg && !pos:
		return append(dst, '0')
	case !standard:
		dst = append(dst, sign(year < 0 || mon < 0))
		dst = strconv.AppendInt(dst, abs64(year), 10)
		dst = append(dst, '-')
		dst = strconv.AppendInt(dst, abs64(mon), 10)
		dst = append(dst, ' ', sign(mday < 0))
		dst = strconv.AppendInt(dst, abs64(mday), 10)
		dst = append(dst, ' ', sign(hour < 0 || min < 0 || sec < 0 || fsec < 0))
		dst = strconv.AppendInt(dst, abs64(hour), 10)
		dst = append(dst, ':')
		dst = appendZeroPad(dst, abs64(min), 2)
		dst = append(dst, ':')
		return appendSeconds(dst, sec, fsec, true)
	case hasYM:
		dst = strconv.AppendInt(dst, year, 10)
		dst = append(dst, '-')
		return strconv.AppendInt(dst, mon, 10)
	}
	if mday != 0 {
		dst = strconv.AppendInt(dst, mday, 10)
		dst = append(dst, ' ')
	}
	dst = strconv.AppendInt(dst, hour, 10)
	dst = append(dst, ':')
	dst = appendZeroPad(dst, min, 2)
	dst = append(dst, ':')
	return appendSeconds(dst, sec, fsec, true)
}

// appendIntervalISO is IntervalStyle iso_8601: "P1Y2M3DT4H5M6.5S",
// "PT0S" for zero.
func appendIntervalISO(dst []byte, iv IntervalValue) []byte {
	year, mon, mday, hour, min, sec, fsec := intervalFields(iv)
	if year == 0 && mon == 0 && mday == 0 && hour == 0 && min == 0 && sec == 0 && fsec == 0 {
		return append(dst, "PT0S"...)
	}
	dst = append(dst, 'P')
	part := func(v int64, unit byte) {
		if v != 0 {
			dst = strconv.AppendInt(dst, v, 10)
			dst = append(dst, unit)
		}
	}
	part(year, 'Y')
	part(mon, 'M')
	part(mday, 'D')
	if hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		dst = append(dst, 'T')
	}
	part(hour, 'H')
	part(min, 'M')
	if sec != 0 || fsec != 0 {
		if sec < 0 || fsec < 0 {
			dst = append(dst, '-')
		}
		dst = appendSeconds(dst, sec, fsec, false)
		dst = append(dst, 'S')
	}
	return dst
}

// appendInterval appends interval_out's form in IntervalStyle postgres.
func appendInterval(dst []byte, iv IntervalValue) []byte {
	year := int64(iv.Months) / 12
	mon := int64(iv.Months) % 12
	mday := int64(iv.Days)
	t := iv.Micros
	hour := t / MicrosPerHour
	t -= hour * MicrosPerHour
	min := t / MicrosPerMinute
	t -= min * MicrosPerMinute
	sec := t / MicrosPerSecond
	fsec := t - sec*MicrosPerSecond

	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if isBefore && v > 0 {
			dst = append(dst, '+')
		}
		dst = appendZeroPad(dst, v, 1)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		isBefore = v < 0
		isZero = false
	}
	part(year, "year")
	part(mon, "mon")
	part(mday, "day")
	if isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		minus := hour < 0 || min < 0 || sec < 0 || fsec < 0
		if !isZero {
			dst = append(dst, ' ')
		}
		if minus {
			dst = append(dst, '-')
		} else if isBefore {
			dst = append(dst, '+')
		}
		dst = appendZeroPad(dst, abs64(hour), 2)
		dst = append(dst, ':')
		dst = appendZeroPad(dst, abs64(min), 2)
		dst = append(dst, ':')
		dst = appendZeroPad(dst, abs64(sec), 2)
		dst = appendFraction(dst, fsec)
	}
	return dst
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

var (
	zoneNamesOnce sync.Once
	zoneNames     map[string]string // lower-case name -> name
)

// LoadZone looks up a time zone by name as PostgreSQL's pg_tzset does:
// case-insensitively, IANA names ("America/New_York"), "UTC" and the like.
// It returns nil if the name is unknown.
func LoadZone(name string) *time.Location {
	if loc, ok := zoneCache.Load(name); ok {
		return loc.(*time.Location)
	}
	loc := loadZone(name)
	if loc != nil {
		zoneCache.Store(name, loc)
	}
	return loc
}

// zoneCache maps names given to LoadZone to their locations.
var zoneCache sync.Map

func loadZone(name string) *time.Location {
	if name == "" || strings.EqualFold(name, "local") || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return nil
	}
	if strings.EqualFold(name, "utc") || strings.EqualFold(name, "gmt") || strings.EqualFold(name, "z") {
		return time.UTC
	}
	if loc, err := time.LoadLocation(name); err == nil {
		return loc
	}
	zoneNamesOnce.Do(loadZoneNames)
	if real, ok := zoneNames[strings.ToLower(name)]; ok {
		if loc, err := time.LoadLocation(real); err == nil {
			return loc
		}
	}
	return posixZone(name)
}

// posixZone reads a POSIX TZ string without daylight saving rules, such as
// "gmt+3" or "UTC-05:30": a zone name of at least three letters and an
// offset west of UTC.
func posixZone(s string) *time.Location {
	i := 0
	for i < len(s) && isAlpha(s[i]) {
		i++
	}
	if i < 3 || i == len(s) {
		return nil
	}
	name, rest := s[:i], s[i:]
	sign := 1
	switch rest[0] {
	case '+':
		rest = rest[1:]
	case '-':
		sign = -1
		rest = rest[1:]
	}
	var parts [3]int
	n := 0
	for _, p := range strings.Split(rest, ":") {
		if n == 3 || p == "" || len(p) > 2 {
			return nil
		}
		v := 0
		for _, c := range []byte(p) {
			if !isDigit(c) {
				return nil
			}
			v = v*10 + int(c-'0')
		}
		parts[n] = v
		n++
	}
	if parts[0] > 24 || parts[1] > 59 || parts[2] > 59 {
		return nil
	}
	west := sign * (parts[0]*3600 + parts[1]*60 + parts[2])
	return time.FixedZone(strings.ToUpper(name), -west)
}

func loadZoneNames() {
	zoneNames = map[string]string{}
	for _, dir := range []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ"} {
		_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return nil
			}
			if strings.HasPrefix(rel, "posix/") || strings.HasPrefix(rel, "right/") || strings.Contains(rel, ".") {
				return nil
			}
			if _, ok := zoneNames[strings.ToLower(rel)]; !ok {
				zoneNames[strings.ToLower(rel)] = rel
			}
			return nil
		})
		if len(zoneNames) > 0 {
			return
		}
	}
}
