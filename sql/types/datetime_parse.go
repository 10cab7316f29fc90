package types

import (
	"math"
	"strings"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// This file is a port of the parts of PostgreSQL 15's
// src/backend/utils/adt/datetime.c that read dates, times, timestamps and
// intervals (ParseDateTime, DecodeDateTime, DecodeTimeOnly, DecodeInterval,
// DecodeISO8601Interval), with IntervalStyle postgres; ambiguous dates are
// read in the DateStyle's field order (pgTm.order).

// Field types from ParseDateTime.
const (
	dtkNumber = iota
	dtkString
	dtkDate
	dtkTime
	dtkTZ
	dtkSpecial
)

// Decode error codes (DTERR_*).
type dtErr int

const (
	dtOK dtErr = iota
	dtBadFormat
	dtFieldOverflow
	dtMDFieldOverflow
	dtIntervalOverflow
	dtTZDispOverflow
)

// Token types (the DTK_M bits) of datetime.h.
const (
	tRESERV     = 0
	tMONTH      = 1
	tYEAR       = 2
	tDAY        = 3
	tJULIAN     = 4
	tTZ         = 5
	tDTZ        = 6
	tDYNTZ      = 7
	tIGNORE     = 8
	tAMPM       = 9
	tHOUR       = 10
	tMINUTE     = 11
	tSECOND     = 12
	tMILLISEC   = 13
	tMICROSEC   = 14
	tDOY        = 15
	tDOW        = 16
	tUNITS      = 17
	tADBC       = 18
	tAGO        = 19
	tISOTIME    = 23
	tWEEK       = 24
	tDECADE     = 25
	tCENTURY    = 26
	tMILLENNIUM = 27
	tDTZMOD     = 28
	tUNKNOWN    = 31
)

func dtkM(t int) int { return 1 << t }

var (
	dtkDateM    = dtkM(tYEAR) | dtkM(tMONTH) | dtkM(tDAY)
	dtkTimeM    = dtkM(tHOUR) | dtkM(tMINUTE) | dtkM(tSECOND)
	dtkAllSecsM = dtkM(tSECOND) | dtkM(tMILLISEC) | dtkM(tMICROSEC)
)

// Reserved words (values of RESERV tokens) and units.
const (
	rsvNone = iota
	rsvEpoch
	rsvLate
	rsvEarly
	rsvNow
	rsvToday
	rsvTomorrow
	rsvYesterday
	rsvZulu
)

// Units (values of UNITS tokens).
const (
	uMicrosec = iota + 1
	uMillisec
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uQuarter
	uYear
	uDecade
	uCentury
	uMillennium
	uJulian
	uOther
)

const (
	merAM = iota
	merPM
	merHR24
)

type dtToken struct {
	typ, val int
}

// datetktbl (the parts used here).
var dateTokens = map[string]dtToken{
	"-infinity": {tRESERV, rsvEarly},
	"ad":        {tADBC, 0},
	"allballs":  {tRESERV, rsvZulu},
	"am":        {tAMPM, merAM},
	"apr":       {tMONTH, 4}, "april": {tMONTH, 4},
	"at":  {tIGNORE, 0},
	"aug": {tMONTH, 8}, "august": {tMONTH, 8},
	"bc":  {tADBC, 1},
	"d":   {tUNITS, uDay},
	"dec": {tMONTH, 12}, "december": {tMONTH, 12},
	"dow":   {tUNITS, uOther},
	"doy":   {tUNITS, uOther},
	"dst":   {tDTZMOD, 3600},
	"epoch": {tRESERV, rsvEpoch},
	"feb":   {tMONTH, 2}, "february": {tMONTH, 2},
	"fri": {tDOW, 5}, "friday": {tDOW, 5},
	"h":        {tUNITS, uHour},
	"infinity": {tRESERV, rsvLate},
	"isodow":   {tUNITS, uOther},
	"isoyear":  {tUNITS, uOther},
	"j":        {tUNITS, uJulian},
	"jan":      {tMONTH, 1}, "january": {tMONTH, 1},
	"jd":  {tUNITS, uJulian},
	"jul": {tMONTH, 7}, "julian": {tUNITS, uJulian},
	"july": {tMONTH, 7},
	"jun":  {tMONTH, 6}, "june": {tMONTH, 6},
	"m":   {tUNITS, uMonth},
	"mar": {tMONTH, 3}, "march": {tMONTH, 3},
	"may": {tMONTH, 5},
	"mm":  {tUNITS, uMinute},
	"mon": {tDOW, 1}, "monday": {tDOW, 1},
	"nov": {tMONTH, 11}, "november": {tMONTH, 11},
	"now": {tRESERV, rsvNow},
	"oct": {tMONTH, 10}, "october": {tMONTH, 10},
	"on":  {tIGNORE, 0},
	"pm":  {tAMPM, merPM},
	"s":   {tUNITS, uSecond},
	"sat": {tDOW, 6}, "saturday": {tDOW, 6},
	"sep": {tMONTH, 9}, "sept": {tMONTH, 9}, "september": {tMONTH, 9},
	"sun": {tDOW, 0}, "sunday": {tDOW, 0},
	"t":   {tISOTIME, 0},
	"thu": {tDOW, 4}, "thur": {tDOW, 4}, "thurs": {tDOW, 4}, "thursday": {tDOW, 4},
	"today":    {tRESERV, rsvToday},
	"tomorrow": {tRESERV, rsvTomorrow},
	"tue":      {tDOW, 2}, "tues": {tDOW, 2}, "tuesday": {tDOW, 2},
	"wed": {tDOW, 3}, "wednesday": {tDOW, 3}, "weds": {tDOW, 3},
	"y":         {tUNITS, uYear},
	"yesterday": {tRESERV, rsvYesterday},
}

// deltatktbl: interval units.
var deltaTokens = map[string]dtToken{
	"@":   {tIGNORE, 0},
	"ago": {tAGO, 0},
	"c":   {tUNITS, uCentury}, "cent": {tUNITS, uCentury}, "centuries": {tUNITS, uCentury}, "century": {tUNITS, uCentury},
	"d": {tUNITS, uDay}, "day": {tUNITS, uDay}, "days": {tUNITS, uDay},
	"dec": {tUNITS, uDecade}, "decade": {tUNITS, uDecade}, "decades": {tUNITS, uDecade}, "decs": {tUNITS, uDecade},
	"h": {tUNITS, uHour}, "hour": {tUNITS, uHour}, "hours": {tUNITS, uHour}, "hr": {tUNITS, uHour}, "hrs": {tUNITS, uHour},
	"m":          {tUNITS, uMinute},
	"microsecon": {tUNITS, uMicrosec},
	"mil":        {tUNITS, uMillennium}, "millennia": {tUNITS, uMillennium}, "millennium": {tUNITS, uMillennium},
	"millisecon": {tUNITS, uMillisec},
	"mils":       {tUNITS, uMillennium},
	"min":        {tUNITS, uMinute}, "mins": {tUNITS, uMinute}, "minute": {tUNITS, uMinute}, "minutes": {tUNITS, uMinute},
	"mon": {tUNITS, uMonth}, "mons": {tUNITS, uMonth}, "month": {tUNITS, uMonth}, "months": {tUNITS, uMonth},
	"ms": {tUNITS, uMillisec}, "msec": {tUNITS, uMillisec}, "msecs": {tUNITS, uMillisec}, "mseconds": {tUNITS, uMillisec},
	"qtr": {tUNITS, uQuarter}, "quarter": {tUNITS, uQuarter},
	"s": {tUNITS, uSecond}, "sec": {tUNITS, uSecond}, "second": {tUNITS, uSecond}, "seconds": {tUNITS, uSecond}, "secs": {tUNITS, uSecond},
	"timezone": {tUNITS, uOther}, "timezone_h": {tUNITS, uOther}, "timezone_m": {tUNITS, uOther},
	"us": {tUNITS, uMicrosec}, "usec": {tUNITS, uMicrosec}, "useconds": {tUNITS, uMicrosec}, "usecs": {tUNITS, uMicrosec},
	"w": {tUNITS, uWeek}, "week": {tUNITS, uWeek}, "weeks": {tUNITS, uWeek},
	"y": {tUNITS, uYear}, "year": {tUNITS, uYear}, "years": {tUNITS, uYear}, "yr": {tUNITS, uYear}, "yrs": {tUNITS, uYear},
}

// tokMaxLen is TOKMAXLEN: keywords are compared on their first 10 bytes.
const tokMaxLen = 10

func lookupToken(tbl map[string]dtToken, s string) (dtToken, bool) {
	if len(s) > tokMaxLen {
		s = s[:tokMaxLen]
	}
	tok, ok := tbl[s]
	return tok, ok
}

type tzAbbrev struct {
	offset int // seconds east of UTC
	dst    bool
}

// tzAbbrevs are the fixed-offset abbreviations of PostgreSQL's "Default"
// timezone_abbreviations set.
var tzAbbrevs = map[string]tzAbbrev{
	"eat": {10800, false}, "sast": {7200, false}, "wat": {3600, false}, "act": {-18000, false},
	"akdt": {-28800, true}, "akst": {-32400, false}, "bot": {-14400, false}, "bra": {-10800, false},
	"brst": {-7200, true}, "brt": {-10800, false}, "cot": {-18000, false}, "cdt": {-18000, true},
	"clst": {-10800, true}, "cst": {-21600, false}, "edt": {-14400, true}, "egst": {0, true},
	"egt": {-3600, false}, "est": {-18000, false}, "fnt": {-7200, false}, "fnst": {-3600, true},
	"gft": {-10800, false}, "mdt": {-21600, true}, "mst": {-25200, false}, "ndt": {-9000, true},
	"nft": {-12600, false}, "nst": {-12600, false}, "pet": {-18000, false}, "pdt": {-25200, true},
	"pmdt": {-7200, true}, "pmst": {-10800, false}, "pst": {-28800, false}, "pyst": {-10800, true},
	"uyst": {-7200, true}, "uyt": {-10800, false}, "wgst": {-7200, true}, "wgt": {-10800, false},
	"ddut": {36000, false}, "aft": {16200, false}, "almt": {21600, false}, "almst": {25200, true},
	"amt": {-14400, false}, "bdt": {21600, false}, "bnt": {28800, false}, "bort": {28800, false},
	"btt": {21600, false}, "cct": {28800, false}, "hkt": {28800, false}, "ict": {25200, false},
	"idt": {10800, true}, "irt": {12600, false}, "ist": {7200, false}, "jayt": {32400, false},
	"jst": {32400, false}, "kdt": {36000, true}, "kgst": {21600, true}, "kst": {32400, false},
	"mmt": {23400, false}, "myt": {28800, false}, "npt": {20700, false}, "pht": {28800, false},
	"pkt": {18000, false}, "pkst": {21600, true}, "tjt": {18000, false}, "ulast": {32400, true},
	"uzst": {21600, true}, "uzt": {18000, false}, "xjt": {21600, false}, "yekst": {21600, true},
	"adt": {-10800, true}, "ast": {-14400, false}, "azost": {0, true}, "azot": {-3600, false},
	"acsst": {37800, true}, "acdt": {37800, true}, "acst": {34200, false}, "acwst": {31500, false},
	"aesst": {39600, true}, "aedt": {39600, true}, "aest": {36000, false}, "awsst": {32400, true},
	"awst": {28800, false}, "cadt": {37800, true}, "cast": {34200, false}, "lhst": {37800, false},
	"ligt": {36000, false}, "nzt": {43200, false}, "nzdt": {46800, true}, "nzst": {43200, false},
	"nzst_": {43200, false}, "sadt": {37800, true}, "wadt": {28800, true}, "wast": {25200, false},
	"wdt": {32400, true}, "cest": {7200, true}, "cet": {3600, false}, "cetdst": {7200, true},
	"eest": {10800, true}, "eet": {7200, false}, "eetdst": {10800, true}, "gmt": {0, false},
	"ut": {0, false}, "utc": {0, false}, "west": {3600, true}, "wet": {0, false},
	"wetdst": {3600, true}, "z": {0, false}, "zulu": {0, false}, "bst": {3600, true},
	"mest": {7200, true}, "mesz": {7200, true}, "met": {3600, false}, "metdst": {7200, true},
	"mez": {3600, false}, "cxt": {25200, false}, "mut": {14400, false}, "mvt": {18000, false},
	"ret": {14400, false}, "sct": {14400, false}, "chadt": {49500, true}, "chast": {45900, false},
	"chut": {36000, false}, "fjst": {46800, true}, "fjt": {43200, false}, "gamt": {-32400, false},
	"gilt": {43200, false}, "hst": {-36000, false}, "mart": {-34200, false}, "mht": {43200, false},
	"nrt": {43200, false}, "pgt": {36000, false}, "pont": {39600, false}, "pwt": {32400, false},
	"tahot": {-36000, false}, "tvt": {43200, false}, "vut": {39600, false}, "wakt": {43200, false},
	"waft": {43200, false}, "yapt": {36000, false}, "galt": {-21600, false}, "mpt": {36000, false},
	"sst": {-39600, false}, "chst": {36000, false}, "ddut_": {36000, false},
}

// ZoneAt is the time zone AT TIME ZONE (PostgreSQL's timestamptz_zone)
// reads zone as: a fixed-offset abbreviation of the Default set ("EST",
// "PDT"), one whose offset depends on the date ("MSK"), or a zone name
// (LoadZone: "America/New_York", "UTC+3"), or a bare POSIX offset ("+05",
// five hours west of UTC). It returns nil if the name is
// unknown.
func ZoneAt(zone string) *time.Location {
	if zone != "" && (zone[0] == '+' || zone[0] == '-') {
		// A bare offset is a POSIX TZ offset: hours west of UTC.
		if east, e := decodeTimezone(zone); e == dtOK {
			return time.FixedZone(zone, -east)
		}
	}
	low := strings.ToLower(zone)
	if a, ok := tzAbbrevs[low]; ok {
		return time.FixedZone(strings.ToUpper(zone), a.offset)
	}
	if name, ok := dynAbbrevs[low]; ok {
		return LoadZone(name)
	}
	return LoadZone(zone)
}

// dynAbbrevs are the abbreviations of the Default set whose offset
// depends on the date: they are read as the named zone.
var dynAbbrevs = map[string]string{
	"art": "America/Argentina/Buenos_Aires", "arst": "America/Argentina/Buenos_Aires",
	"clt": "America/Santiago", "gyt": "America/Guyana", "pyt": "America/Asuncion",
	"vet": "America/Caracas", "davt": "Antarctica/Davis", "mawt": "Antarctica/Mawson",
	"amst": "Asia/Yerevan", "anast": "Asia/Anadyr", "anat": "Asia/Anadyr", "azst": "Asia/Baku",
	"azt": "Asia/Baku", "gest": "Asia/Tbilisi", "get": "Asia/Tbilisi", "irkst": "Asia/Irkutsk",
	"irkt": "Asia/Irkutsk", "kgt": "Asia/Bishkek", "krast": "Asia/Krasnoyarsk",
	"krat": "Asia/Krasnoyarsk", "lkt": "Asia/Colombo", "magst": "Asia/Magadan",
	"magt": "Asia/Magadan", "novst": "Asia/Novosibirsk", "novt": "Asia/Novosibirsk",
	"omsst": "Asia/Omsk", "omst": "Asia/Omsk", "petst": "Asia/Kamchatka", "pett": "Asia/Kamchatka",
	"sgt": "Asia/Singapore", "tmt": "Asia/Ashgabat", "ulat": "Asia/Ulaanbaatar",
	"vlast": "Asia/Vladivostok", "vlat": "Asia/Vladivostok", "yakst": "Asia/Yakutsk",
	"yakt": "Asia/Yakutsk", "yekt": "Asia/Yekaterinburg", "fkst": "Atlantic/Stanley",
	"fkt": "Atlantic/Stanley", "lhdt": "Australia/Lord_Howe", "msk": "Europe/Moscow",
	"volt": "Europe/Volgograd", "iot": "Indian/Chagos", "ckt": "Pacific/Rarotonga",
	"easst": "Pacific/Easter", "east": "Pacific/Easter", "kost": "Pacific/Kosrae",
	"lint": "Pacific/Kiritimati", "nut": "Pacific/Niue", "tkt": "Pacific/Fakaofo",
}

type dtField struct {
	typ  int
	val  string // lower-cased (except digits/punctuation)
	orig string // as written, for time zone names
}

const maxDateFields = 25

// parseDateTimeFields is ParseDateTime. bufSize is the size of the work
// buffer the caller would use (it limits the input length as PostgreSQL's
// does).
func parseDateTimeFields(s string, bufSize int) ([]dtField, dtErr) {
	var fields []dtField
	used := 0
	i := 0
	for i < len(s) {
		c := s[i]
		if isSpace(c) {
			i++
			continue
		}
		if len(fields) >= maxDateFields {
			return nil, dtBadFormat
		}
		start := i
		var buf []byte
		typ := -1
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				buf = append(buf, s[i])
				i++
			}
			if i < len(s) && s[i] == ':' {
				typ = dtkTime
				buf = append(buf, s[i])
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					buf = append(buf, s[i])
					i++
				}
			} else if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				delim := s[i]
				buf = append(buf, s[i])
				i++
				if i < len(s) && isDigit(s[i]) {
					if delim == '.' {
						typ = dtkNumber
					} else {
						typ = dtkDate
					}
					for i < len(s) && isDigit(s[i]) {
						buf = append(buf, s[i])
						i++
					}
					if i < len(s) && s[i] == delim {
						typ = dtkDate
						buf = append(buf, s[i])
						i++
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							buf = append(buf, s[i])
							i++
						}
					}
				} else {
					typ = dtkDate
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						buf = append(buf, toLowerASCII(s[i]))
						i++
					}
				}
			} else {
				typ = dtkNumber
			}
		case c == '.':
			buf = append(buf, c)
			i++
			for i < len(s) && isDigit(s[i]) {
				buf = append(buf, s[i])
				i++
			}
			typ = dtkNumber
		case isAlpha(c):
			typ = dtkString
			for i < len(s) && isAlpha(s[i]) {
				buf = append(buf, toLowerASCII(s[i]))
				i++
			}
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				if _, ok := lookupToken(dateTokens, string(buf)); !ok {
					isDate = true
				}
			}
			if isDate {
				typ = dtkDate
				for {
					buf = append(buf, toLowerASCII(s[i]))
					i++
					if !(i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' ||
						s[i] == '.' || s[i] == ':' || isAlnum(s[i]))) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			buf = append(buf, c)
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) && isDigit(s[i]) {
				typ = dtkTZ
				buf = append(buf, s[i])
				i++
				for i < len(s) && (isDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					buf = append(buf, s[i])
					i++
				}
			} else if i < len(s) && isAlpha(s[i]) {
				typ = dtkSpecial
				for i < len(s) && isAlpha(s[i]) {
					buf = append(buf, toLowerASCII(s[i]))
					i++
				}
			} else {
				return nil, dtBadFormat
			}
		case c < 0x80 && c > ' ' && c != 0x7f:
			// ispunct: other punctuation is a delimiter.
			i++
			continue
		default:
			return nil, dtBadFormat
		}
		used += len(buf) + 1
		if used >= bufSize {
			return nil, dtBadFormat
		}
		fields = append(fields, dtField{typ: typ, val: string(buf), orig: s[start:i]})
	}
	return fields, dtOK
}

// pgTm is struct pg_tm plus fsec.
type pgTm struct {
	year, mon, mday   int
	hour, min, sec    int
	fsec              int64
	wday              int
	isdst             int
	haveTZ            bool
	tzEast            int // offset in seconds east of UTC when haveTZ
	namedTZ           *time.Location
	tzName            string
	dtzmod            bool
	specialNeedsClock int // rsvNow etc. when the value depends on the clock
	// order is the DateStyle field order ambiguous dates are read in;
	// set before decoding.
	order DateOrder
}

// strtoint reads an optionally signed decimal integer prefix as strtol;
// ok is false on overflow of int32.
func strtoint(s string) (v int, rest string, ok bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, s, true
	}
	var n int64
	ok = true
	for ; i < len(s) && isDigit(s[i]); i++ {
		if n > math.MaxInt32 {
			ok = false
		} else {
			n = n*10 + int64(s[i]-'0')
		}
	}
	if neg {
		n = -n
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		ok = false
	}
	return int(n), s[i:], ok
}

// strtoi64 is strtoint for int64.
func strtoi64(s string) (v int64, rest string, ok bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return 0, s, true
	}
	var n uint64
	ok = true
	for ; i < len(s) && isDigit(s[i]); i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			ok = false
			n = math.MaxUint64
		} else {
			n = n*10 + d
		}
	}
	if neg {
		if n > 1<<63 {
			return 0, s[i:], false
		}
		return -int64(n), s[i:], ok
	}
	if n > math.MaxInt64 {
		return 0, s[i:], false
	}
	return int64(n), s[i:], ok
}

// atoi is C's atoi on a digit string (no overflow checks needed for the
// short strings it gets).
func atoi(s string) int {
	v, _, _ := strtoint(s)
	return v
}

// parseFraction is ParseFraction: s starts with '.'.
func parseFraction(s string) (float64, dtErr) {
	if len(s) == 1 {
		return 0, dtOK
	}
	v, n, _, err := strtodPrefix(s, 64)
	if n != len(s) || err != nil {
		return 0, dtBadFormat
	}
	return v, dtOK
}

// parseFractionalSecond is ParseFractionalSecond.
func parseFractionalSecond(s string) (int64, dtErr) {
	f, e := parseFraction(s)
	if e != dtOK {
		return 0, e
	}
	return int64(math.RoundToEven(f * 1000000)), dtOK
}

// decodeTimezone is DecodeTimezone: "+hh[:mm[:ss]]" or "+hhmm"; returns
// seconds east of UTC.
func decodeTimezone(s string) (int, dtErr) {
	if len(s) == 0 || (s[0] != '+' && s[0] != '-') {
		return 0, dtBadFormat
	}
	hr, cp, ok := strtoint(s[1:])
	if !ok {
		return 0, dtTZDispOverflow
	}
	min, sec := 0, 0
	if len(cp) > 0 && cp[0] == ':' {
		min, cp, ok = strtoint(cp[1:])
		if !ok {
			return 0, dtTZDispOverflow
		}
		if len(cp) > 0 && cp[0] == ':' {
			sec, cp, ok = strtoint(cp[1:])
			if !ok {
				return 0, dtTZDispOverflow
			}
		}
	} else if len(cp) == 0 && len(s) > 3 {
		min = hr % 100
		hr = hr / 100
	}
	if hr < 0 || hr > 15 || min < 0 || min >= 60 || sec < 0 || sec >= 60 {
		return 0, dtTZDispOverflow
	}
	tz := (hr*60+min)*60 + sec
	if s[0] == '-' {
		tz = -tz
	}
	if len(cp) != 0 {
		return 0, dtBadFormat
	}
	return tz, dtOK
}

// decodeTime is DecodeTime (full range).
func decodeTime(s string, tm *pgTm) (int, dtErr) {
	var ok bool
	var cp string
	tm.hour, cp, ok = strtoint(s)
	if !ok {
		return 0, dtFieldOverflow
	}
	if len(cp) == 0 || cp[0] != ':' {
		return 0, dtBadFormat
	}
	tm.min, cp, ok = strtoint(cp[1:])
	if !ok {
		return 0, dtFieldOverflow
	}
	switch {
	case len(cp) == 0:
		tm.sec = 0
		tm.fsec = 0
	case cp[0] == '.':
		f, e := parseFractionalSecond(cp)
		if e != dtOK {
			return 0, e
		}
		tm.fsec = f
		tm.sec = tm.min
		tm.min = tm.hour
		tm.hour = 0
	case cp[0] == ':':
		tm.sec, cp, ok = strtoint(cp[1:])
		if !ok {
			return 0, dtFieldOverflow
		}
		if len(cp) == 0 {
			tm.fsec = 0
		} else if cp[0] == '.' {
			f, e := parseFractionalSecond(cp)
			if e != dtOK {
				return 0, e
			}
			tm.fsec = f
		} else {
			return 0, dtBadFormat
		}
	default:
		return 0, dtBadFormat
	}
	if tm.hour < 0 || tm.min < 0 || tm.min > 59 || tm.sec < 0 || tm.sec > 60 || tm.fsec < 0 || tm.fsec > MicrosPerSecond {
		return 0, dtFieldOverflow
	}
	return dtkTimeM, dtOK
}

func timeOverflows(hour, min, sec int, fsec int64) bool {
	if hour < 0 || hour > 24 || min < 0 || min >= 60 || sec < 0 || sec > 60 || fsec < 0 || fsec > MicrosPerSecond {
		return true
	}
	return ((int64(hour)*60+int64(min))*60+int64(sec))*MicrosPerSecond+fsec > MicrosPerDay
}

// decodeNumberField is DecodeNumberField: run-together digits. It returns
// the type it found (dtkDate or dtkTime) or an error.
func decodeNumberField(str string, fmask int, tm *pgTm, is2digits *bool) (int, int, dtErr) {
	tmask := 0
	if dot := strings.IndexByte(str, '.'); dot >= 0 {
		frac, _, _, err := strtodPrefix(str[dot:], 64)
		if err != nil {
			return 0, 0, dtBadFormat
		}
		tm.fsec = int64(math.RoundToEven(frac * 1000000))
		str = str[:dot]
	} else if fmask&dtkDateM != dtkDateM {
		if len(str) >= 6 {
			n := len(str)
			tm.mday = atoi(str[n-2:])
			tm.mon = atoi(str[n-4 : n-2])
			tm.year = atoi(str[:n-4])
			if n-4 == 2 {
				*is2digits = true
			}
			return dtkDate, dtkDateM, dtOK
		}
	}
	if fmask&dtkTimeM != dtkTimeM {
		switch len(str) {
		case 6:
			tmask = dtkTimeM
			tm.sec = atoi(str[4:])
			tm.min = atoi(str[2:4])
			tm.hour = atoi(str[:2])
			return dtkTime, tmask, dtOK
		case 4:
			tmask = dtkTimeM
			tm.sec = 0
			tm.min = atoi(str[2:])
			tm.hour = atoi(str[:2])
			return dtkTime, tmask, dtOK
		}
	}
	return 0, 0, dtBadFormat
}

// decodeNumber is DecodeNumber: a numeric date field, read in tm.order
// where the fields so far leave it ambiguous.
func decodeNumber(str string, haveTextMonth bool, fmask int, tm *pgTm, is2digits *bool) (int, dtErr) {
	flen := len(str)
	val, cp, ok := strtoint(str)
	if !ok {
		return 0, dtFieldOverflow
	}
	if len(cp) == len(str) {
		return 0, dtBadFormat
	}
	if len(cp) > 0 && cp[0] == '.' {
		if len(str)-len(cp) > 2 {
			_, tmask, e := decodeNumberField(str, fmask|dtkDateM, tm, is2digits)
			if e != dtOK {
				return 0, e
			}
			return tmask, dtOK
		}
		f, e := parseFractionalSecond(cp)
		if e != dtOK {
			return 0, e
		}
		tm.fsec = f
	} else if len(cp) != 0 {
		return 0, dtBadFormat
	}
	// Day of year.
	if flen == 3 && fmask&dtkDateM == dtkM(tYEAR) && val >= 1 && val <= 366 {
		tm.mday = val
		tm.mon = -1 // marks a day of year for validateDate
		return dtkM(tDOY) | dtkM(tMONTH) | dtkM(tDAY), dtOK
	}
	var tmask int
	switch fmask & dtkDateM {
	case 0:
		// Nothing so far: YYYY-MM-DD with a year of three or more digits,
		// or else the field order of DateStyle.
		switch {
		case flen >= 3 || tm.order == DateOrderYMD:
			tmask = dtkM(tYEAR)
			tm.year = val
		case tm.order == DateOrderDMY:
			tmask = dtkM(tDAY)
			tm.mday = val
		default:
			tmask = dtkM(tMONTH)
			tm.mon = val
		}
	case dtkM(tYEAR):
		tmask = dtkM(tMONTH)
		tm.mon = val
	case dtkM(tMONTH):
		if haveTextMonth {
			// The first number of a date with a month name: MON-DD-YYYY,
			// DD-MON-YYYY and YYYY-MON-DD, and YY-MON-DD under YMD.
			if flen >= 3 || tm.order == DateOrderYMD {
				tmask = dtkM(tYEAR)
				tm.year = val
			} else {
				tmask = dtkM(tDAY)
				tm.mday = val
			}
		} else {
			tmask = dtkM(tDAY)
			tm.mday = val
		}
	case dtkM(tYEAR) | dtkM(tMONTH):
		if haveTextMonth {
			if flen >= 3 && *is2digits {
				tmask = dtkM(tDAY)
				tm.mday = tm.year
				tm.year = val
				*is2digits = false
			} else {
				tmask = dtkM(tDAY)
				tm.mday = val
			}
		} else {
			tmask = dtkM(tDAY)
			tm.mday = val
		}
	case dtkM(tDAY):
		tmask = dtkM(tMONTH)
		tm.mon = val
	case dtkM(tMONTH) | dtkM(tDAY):
		tmask = dtkM(tYEAR)
		tm.year = val
	case dtkDateM:
		_, tmask, e := decodeNumberField(str, fmask, tm, is2digits)
		if e != dtOK {
			return 0, e
		}
		return tmask, dtOK
	default:
		return 0, dtBadFormat
	}
	if tmask == dtkM(tYEAR) {
		*is2digits = flen <= 2
	}
	return tmask, dtOK
}

// decodeDate is DecodeDate.
func decodeDate(str string, fmask int, is2digits *bool, tm *pgTm) (int, dtErr) {
	var fields []string
	i := 0
	for i < len(str) && len(fields) < maxDateFields {
		for i < len(str) && !isAlnum(str[i]) {
			i++
		}
		if i >= len(str) {
			return 0, dtBadFormat
		}
		start := i
		if isDigit(str[i]) {
			for i < len(str) && isDigit(str[i]) {
				i++
			}
		} else if isAlpha(str[i]) {
			for i < len(str) && isAlpha(str[i]) {
				i++
			}
		}
		fields = append(fields, str[start:i])
		if i < len(str) {
			i++
		}
	}
	tmask := 0
	haveTextMonth := false
	done := make([]bool, len(fields))
	for k, f := range fields {
		if len(f) > 0 && isAlpha(f[0]) {
			tok, ok := lookupToken(dateTokens, f)
			if ok && tok.typ == tIGNORE {
				done[k] = true
				continue
			}
			if !ok || tok.typ != tMONTH {
				return 0, dtBadFormat
			}
			tm.mon = tok.val
			haveTextMonth = true
			dmask := dtkM(tMONTH)
			if fmask&dmask != 0 {
				return 0, dtBadFormat
			}
			fmask |= dmask
			tmask |= dmask
			done[k] = true
		}
	}
	for k, f := range fields {
		if done[k] {
			continue
		}
		if len(f) == 0 {
			return 0, dtBadFormat
		}
		dmask, e := decodeNumber(f, haveTextMonth, fmask, tm, is2digits)
		if e != dtOK {
			return 0, e
		}
		if fmask&dmask != 0 {
			return 0, dtBadFormat
		}
		fmask |= dmask
		tmask |= dmask
	}
	if fmask&^(dtkM(tDOY)|dtkM(tTZ)) != dtkDateM {
		return 0, dtBadFormat
	}
	return tmask, dtOK
}

// validateDate is ValidateDate.
func validateDate(fmask int, is2digits, bc bool, tm *pgTm) dtErr {
	if fmask&dtkM(tYEAR) != 0 {
		switch {
		case bc:
			if tm.year <= 0 {
				return dtFieldOverflow
			}
			tm.year = -(tm.year - 1)
		case is2digits:
			if tm.year < 0 {
				return dtFieldOverflow
			}
			if tm.year < 70 {
				tm.year += 2000
			} else if tm.year < 100 {
				tm.year += 1900
			}
		default:
			if tm.year <= 0 {
				return dtFieldOverflow
			}
		}
	}
	if fmask&dtkM(tDOY) != 0 {
		y, m, d := j2date(date2j(tm.year, 1, 1) + tm.mday - 1)
		tm.year, tm.mon, tm.mday = y, m, d
	}
	if fmask&dtkM(tMONTH) != 0 {
		if tm.mon < 1 || tm.mon > 12 {
			return dtMDFieldOverflow
		}
	}
	if fmask&dtkM(tDAY) != 0 {
		if tm.mday < 1 || tm.mday > 31 {
			return dtMDFieldOverflow
		}
	}
	if fmask&dtkDateM == dtkDateM {
		leap := 0
		if isLeap(tm.year) {
			leap = 1
		}
		if tm.mday > daysInMonth[leap][tm.mon-1] {
			return dtFieldOverflow
		}
	}
	return dtOK
}

// decodeTZName resolves a time zone name field; an unknown name is a
// 22023 error as in PostgreSQL.
func decodeTZName(f dtField, tm *pgTm) error {
	loc := LoadZone(f.orig)
	if loc == nil {
		return pgerr.New(pgerrcode.InvalidParameterValue, "time zone \"%s\" not recognized", f.val)
	}
	tm.namedTZ = loc
	tm.tzName = f.orig
	return nil
}

// decodeAbbrev looks a string field up as a time zone abbreviation; ok is
// false if it is none.
func decodeAbbrev(s string, tm *pgTm) (tmask int, ok bool) {
	if a, found := tzAbbrevs[s]; found {
		tm.haveTZ = true
		tm.tzEast = a.offset
		if a.dst {
			tm.isdst = 1
			return dtkM(tTZ) | dtkM(tDTZ), true
		}
		tm.isdst = 0
		return dtkM(tTZ), true
	}
	if name, found := dynAbbrevs[s]; found {
		if loc := LoadZone(name); loc != nil {
			tm.namedTZ = loc
			return dtkM(tTZ), true
		}
	}
	return 0, false
}

// decodeDateTime is DecodeDateTime. dtype is rsvNone for an ordinary date
// (and time), else the reserved word found.
func decodeDateTime(fields []dtField, tm *pgTm) (dtype int, derr dtErr, err error) {
	fmask := 0
	ptype := 0
	is2digits, bc, haveTextMonth, isJulian := false, false, false, false
	mer := merHR24
	tm.isdst = -1
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		tmask := 0
		switch f.typ {
		case dtkDate:
			if ptype != 0 || fmask&(dtkM(tMONTH)|dtkM(tDAY)) == dtkM(tMONTH)|dtkM(tDAY) {
				if isDigit(f.val[0]) || ptype != 0 {
					if ptype != 0 {
						ptype = 0
					}
					if fmask&dtkTimeM == dtkTimeM {
						return 0, dtBadFormat, nil
					}
					dash := strings.IndexByte(f.val, '-')
					if dash < 0 {
						return 0, dtBadFormat, nil
					}
					tz, e := decodeTimezone(f.val[dash:])
					if e != dtOK {
						return 0, e, nil
					}
					tm.haveTZ, tm.tzEast = true, tz
					_, tm2, e := decodeNumberField(f.val[:dash], fmask, tm, &is2digits)
					if e != dtOK {
						return 0, e, nil
					}
					tmask = tm2 | dtkM(tTZ)
				} else {
					if err := decodeTZName(f, tm); err != nil {
						return 0, dtOK, err
					}
					tmask = dtkM(tTZ)
				}
			} else {
				var e dtErr
				tmask, e = decodeDate(f.val, fmask, &is2digits, tm)
				if e != dtOK {
					return 0, e, nil
				}
			}
		case dtkTime:
			if ptype != 0 {
				ptype = 0
			}
			var e dtErr
			tmask, e = decodeTime(f.val, tm)
			if e != dtOK {
				return 0, e, nil
			}
			if timeOverflows(tm.hour, tm.min, tm.sec, tm.fsec) {
				return 0, dtFieldOverflow, nil
			}
		case dtkTZ:
			tz, e := decodeTimezone(f.val)
			if e != dtOK {
				return 0, e, nil
			}
			tm.haveTZ, tm.tzEast = true, tz
			tmask = dtkM(tTZ)
		case dtkNumber:
			if ptype == -2 {
				// A Julian day number, maybe with a fraction of a day.
				ptype = 0
				val, cp, ok := strtoint(f.val)
				if !ok {
					return 0, dtFieldOverflow, nil
				}
				if val < 0 {
					return 0, dtFieldOverflow, nil
				}
				tmask = dtkDateM
				tm.year, tm.mon, tm.mday = j2date(val)
				isJulian = true
				if len(cp) > 0 && cp[0] == '.' {
					frac, e := parseFraction(cp)
					if e != dtOK {
						return 0, e, nil
					}
					us := int64(math.RoundToEven(frac * float64(MicrosPerDay)))
					tm.hour = int(us / MicrosPerHour)
					us -= int64(tm.hour) * MicrosPerHour
					tm.min = int(us / MicrosPerMinute)
					us -= int64(tm.min) * MicrosPerMinute
					tm.sec = int(us / MicrosPerSecond)
					tm.fsec = us - int64(tm.sec)*MicrosPerSecond
					tmask |= dtkTimeM
				} else if len(cp) != 0 {
					return 0, dtBadFormat, nil
				}
				break
			}
			if ptype != 0 {
				// Only the "t" prefix of an ISO time is supported.
				if ptype != -1 {
					return 0, dtBadFormat, nil
				}
				ptype = 0
				_, tm2, e := decodeNumberField(f.val, fmask|dtkDateM, tm, &is2digits)
				if e != dtOK {
					return 0, e, nil
				}
				if tm2 != dtkTimeM {
					return 0, dtBadFormat, nil
				}
				tmask = tm2
				break
			}
			flen := len(f.val)
			dot := strings.IndexByte(f.val, '.')
			var e dtErr
			switch {
			case dot >= 0 && fmask&dtkDateM == 0:
				tmask, e = decodeDate(f.val, fmask, &is2digits, tm)
			case dot >= 0 && dot > 2:
				_, tmask, e = decodeNumberField(f.val, fmask, tm, &is2digits)
			case flen >= 6 && (fmask&dtkDateM == 0 || fmask&dtkTimeM == 0):
				_, tmask, e = decodeNumberField(f.val, fmask, tm, &is2digits)
			default:
				tmask, e = decodeNumber(f.val, haveTextMonth, fmask, tm, &is2digits)
			}
			if e != dtOK {
				return 0, e, nil
			}
		case dtkString, dtkSpecial:
			if m, ok := decodeAbbrev(f.val, tm); ok {
				tmask = m
				break
			}
			tok, ok := lookupToken(dateTokens, f.val)
			if !ok {
				// All-alpha time zone name?
				loc := LoadZone(f.orig)
				if loc == nil {
					return 0, dtBadFormat, nil
				}
				tm.namedTZ = loc
				tmask = dtkM(tTZ)
				break
			}
			if tok.typ == tIGNORE {
				continue
			}
			tmask = dtkM(tok.typ)
			switch tok.typ {
			case tRESERV:
				switch tok.val {
				case rsvNow:
					tmask = dtkDateM | dtkTimeM | dtkM(tTZ)
					dtype = rsvNow
					// The caller fills in the clock; a valid placeholder
					// date passes validateDate meanwhile.
					tm.year, tm.mon, tm.mday = 2000, 1, 1
				case rsvYesterday, rsvToday, rsvTomorrow:
					tmask = dtkDateM
					dtype = tok.val
					tm.year, tm.mon, tm.mday = 2000, 1, 1
				case rsvZulu:
					tmask = dtkTimeM | dtkM(tTZ)
					tm.hour, tm.min, tm.sec = 0, 0, 0
					tm.haveTZ, tm.tzEast = true, 0
				default:
					dtype = tok.val
				}
			case tMONTH:
				if fmask&dtkM(tMONTH) != 0 && !haveTextMonth && fmask&dtkM(tDAY) == 0 && tm.mon >= 1 && tm.mon <= 31 {
					tm.mday = tm.mon
					tmask = dtkM(tDAY)
				}
				haveTextMonth = true
				tm.mon = tok.val
			case tDTZMOD:
				tmask |= dtkM(tDTZ)
				tm.isdst = 1
				tm.dtzmod = true
				tm.tzEast += tok.val
			case tAMPM:
				mer = tok.val
			case tADBC:
				bc = tok.val == 1
			case tDOW:
				tm.wday = tok.val
			case tUNITS:
				// Only the Julian day label (J2451545) is supported, not
				// labelled ISO fields (y2001m02d04).
				if tok.val != uJulian {
					return 0, dtBadFormat, nil
				}
				tmask = 0
				ptype = -2
			case tISOTIME:
				tmask = 0
				if fmask&dtkDateM != dtkDateM {
					return 0, dtBadFormat, nil
				}
				if i >= len(fields)-1 || (fields[i+1].typ != dtkNumber && fields[i+1].typ != dtkTime && fields[i+1].typ != dtkDate) {
					return 0, dtBadFormat, nil
				}
				ptype = -1
			default:
				return 0, dtBadFormat, nil
			}
		default:
			return 0, dtBadFormat, nil
		}
		if tmask&fmask != 0 {
			return 0, dtBadFormat, nil
		}
		fmask |= tmask
	}
	if isJulian {
		fmask &^= dtkM(tYEAR) // the year is right as it is
	}
	if e := validateDate(fmask, is2digits, bc, tm); e != dtOK {
		return 0, e, nil
	}
	if isJulian {
		fmask |= dtkM(tYEAR)
	}
	if mer != merHR24 && tm.hour > 12 {
		return 0, dtFieldOverflow, nil
	}
	if mer == merAM && tm.hour == 12 {
		tm.hour = 0
	} else if mer == merPM && tm.hour != 12 {
		tm.hour += 12
	}
	if dtype == rsvNone {
		if fmask&dtkDateM != dtkDateM {
			return 0, dtBadFormat, nil
		}
		if tm.dtzmod && (tm.namedTZ != nil || !tm.haveTZ) {
			return 0, dtBadFormat, nil
		}
	}
	return dtype, dtOK, nil
}

// decodeTimeOnly is DecodeTimeOnly.
func decodeTimeOnly(fields []dtField, tm *pgTm) (dtype int, derr dtErr, err error) {
	fmask := 0
	ptype := 0
	is2digits, bc := false, false
	mer := merHR24
	tm.isdst = -1
	nf := len(fields)
	for i := 0; i < nf; i++ {
		f := fields[i]
		tmask := 0
		switch f.typ {
		case dtkDate:
			if i == 0 && nf >= 2 && (fields[nf-1].typ == dtkDate || fields[1].typ == dtkTime) {
				var e dtErr
				tmask, e = decodeDate(f.val, fmask, &is2digits, tm)
				if e != dtOK {
					return 0, e, nil
				}
			} else if isDigit(f.val[0]) {
				if fmask&dtkTimeM == dtkTimeM {
					return 0, dtBadFormat, nil
				}
				dash := strings.IndexByte(f.val, '-')
				if dash < 0 {
					return 0, dtBadFormat, nil
				}
				tz, e := decodeTimezone(f.val[dash:])
				if e != dtOK {
					return 0, e, nil
				}
				tm.haveTZ, tm.tzEast = true, tz
				_, tm2, e := decodeNumberField(f.val[:dash], fmask|dtkDateM, tm, &is2digits)
				if e != dtOK {
					return 0, e, nil
				}
				tmask = tm2 | dtkM(tTZ)
			} else {
				if err := decodeTZName(f, tm); err != nil {
					return 0, dtOK, err
				}
				tmask = dtkM(tTZ)
			}
		case dtkTime:
			var e dtErr
			tmask, e = decodeTime(f.val, tm)
			if e != dtOK {
				return 0, e, nil
			}
		case dtkTZ:
			tz, e := decodeTimezone(f.val)
			if e != dtOK {
				return 0, e, nil
			}
			tm.haveTZ, tm.tzEast = true, tz
			tmask = dtkM(tTZ)
		case dtkNumber:
			if ptype != 0 {
				ptype = 0
				_, tm2, e := decodeNumberField(f.val, fmask|dtkDateM, tm, &is2digits)
				if e != dtOK {
					return 0, e, nil
				}
				tmask = tm2
				break
			}
			flen := len(f.val)
			dot := strings.IndexByte(f.val, '.')
			var e dtErr
			switch {
			case dot >= 0:
				if i == 0 && nf >= 2 && fields[nf-1].typ == dtkDate {
					tmask, e = decodeDate(f.val, fmask, &is2digits, tm)
				} else if dot > 2 {
					_, tmask, e = decodeNumberField(f.val, fmask|dtkDateM, tm, &is2digits)
				} else {
					e = dtBadFormat
				}
			case flen > 4:
				_, tmask, e = decodeNumberField(f.val, fmask|dtkDateM, tm, &is2digits)
			default:
				tmask, e = decodeNumber(f.val, false, fmask|dtkDateM, tm, &is2digits)
			}
			if e != dtOK {
				return 0, e, nil
			}
		case dtkString, dtkSpecial:
			if m, ok := decodeAbbrev(f.val, tm); ok {
				tmask = m
				break
			}
			tok, ok := lookupToken(dateTokens, f.val)
			if !ok {
				loc := LoadZone(f.orig)
				if loc == nil {
					return 0, dtBadFormat, nil
				}
				tm.namedTZ = loc
				tmask = dtkM(tTZ)
				break
			}
			if tok.typ == tIGNORE {
				continue
			}
			tmask = dtkM(tok.typ)
			switch tok.typ {
			case tRESERV:
				switch tok.val {
				case rsvNow:
					tmask = dtkTimeM
					dtype = rsvNow
				case rsvZulu:
					tmask = dtkTimeM | dtkM(tTZ)
					tm.hour, tm.min, tm.sec = 0, 0, 0
					tm.isdst = 0
				default:
					return 0, dtBadFormat, nil
				}
			case tDTZMOD:
				tmask |= dtkM(tDTZ)
				tm.isdst = 1
				tm.dtzmod = true
				tm.tzEast += tok.val
			case tAMPM:
				mer = tok.val
			case tADBC:
				bc = tok.val == 1
			case tUNITS:
				return 0, dtBadFormat, nil
			case tISOTIME:
				tmask = 0
				if i >= nf-1 || (fields[i+1].typ != dtkNumber && fields[i+1].typ != dtkTime && fields[i+1].typ != dtkDate) {
					return 0, dtBadFormat, nil
				}
				ptype = -1
			default:
				return 0, dtBadFormat, nil
			}
		default:
			return 0, dtBadFormat, nil
		}
		if tmask&fmask != 0 {
			return 0, dtBadFormat, nil
		}
		fmask |= tmask
	}
	if e := validateDate(fmask, is2digits, bc, tm); e != dtOK {
		return 0, e, nil
	}
	if mer != merHR24 && tm.hour > 12 {
		return 0, dtFieldOverflow, nil
	}
	if mer == merAM && tm.hour == 12 {
		tm.hour = 0
	} else if mer == merPM && tm.hour != 12 {
		tm.hour += 12
	}
	if dtype == rsvNow {
		return dtype, dtOK, nil
	}
	if timeOverflows(tm.hour, tm.min, tm.sec, tm.fsec) {
		return 0, dtFieldOverflow, nil
	}
	if fmask&dtkTimeM == 0 {
		return 0, dtBadFormat, nil
	}
	if tm.namedTZ != nil {
		if tm.dtzmod {
			return 0, dtBadFormat, nil
		}
		// A zone with daylight saving time needs a date.
		if !fixedZone(tm.namedTZ) && fmask&dtkDateM != dtkDateM {
			return 0, dtBadFormat, nil
		}
	}
	return dtype, dtOK, nil
}

// fixedZone reports whether loc has had a single UTC offset (PostgreSQL's
// pg_get_timezone_offset).
func fixedZone(loc *time.Location) bool {
	var first int
	for i, y := range []int{1800, 1850, 1900, 1930, 1950, 1970, 1990, 2000, 2010, 2024} {
		for _, m := range []time.Month{time.January, time.July} {
			_, off := time.Date(y, m, 1, 0, 0, 0, 0, loc).Zone()
			if i == 0 && m == time.January {
				first = off
			} else if off != first {
				return false
			}
		}
	}
	return true
}

// dateTimeError is DateTimeParseError.
func dateTimeError(e dtErr, s, typ string) error {
	switch e {
	case dtFieldOverflow:
		return pgerr.New(pgerrcode.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtMDFieldOverflow:
		return pgerr.New(pgerrcode.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s).
			WithHint("Perhaps you need a different \"datestyle\" setting.")
	case dtIntervalOverflow:
		return pgerr.New(pgerrcode.IntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
	case dtTZDispOverflow:
		return pgerr.New(pgerrcode.InvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"%s\"", s)
	}
	return pgerr.New(pgerrcode.InvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
}

func errNeedsClock(word, typ string) error {
	return pgerr.New(pgerrcode.FeatureNotSupported,
		"special value \"%s\" for type %s needs the current time: pass TextOptions.Now", word, typ)
}

var reservedWord = map[int]string{rsvNow: "now", rsvToday: "today", rsvTomorrow: "tomorrow", rsvYesterday: "yesterday"}

// clockFields fills tm from now (in loc) for the special words now, today,
// tomorrow and yesterday.
func clockFields(dtype int, now time.Time, loc *time.Location, tm *pgTm, withZone bool) {
	if loc == nil {
		loc = time.UTC
	}
	n := now.In(loc)
	y, m, d := n.Date()
	switch dtype {
	case rsvNow:
		tm.year, tm.mon, tm.mday = y, int(m), d
		tm.hour, tm.min, tm.sec = n.Clock()
		tm.fsec = int64(n.Nanosecond() / 1000)
		if withZone {
			_, off := n.Zone()
			tm.haveTZ, tm.tzEast = true, off
		}
		return
	case rsvYesterday:
		d--
	case rsvTomorrow:
		d++
	}
	jd := date2j(y, int(m), 1) + d - 1
	tm.year, tm.mon, tm.mday = j2date(jd)
	tm.hour, tm.min, tm.sec, tm.fsec = 0, 0, 0, 0
}

// timestampFromTm is tm2timestamp; tz is applied when withZone.
func timestampFromTm(tm *pgTm, loc *time.Location, withZone bool) (Timestamp, bool) {
	if !validJulian(tm.year, tm.mon) {
		return 0, false
	}
	days := int64(date2j(tm.year, tm.mon, tm.mday) - unixEpochJDate)
	if days > math.MaxInt64/MicrosPerDay || days < math.MinInt64/MicrosPerDay {
		return 0, false
	}
	us := ((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*MicrosPerSecond + tm.fsec
	local := days * MicrosPerDay
	if local > math.MaxInt64-us {
		return 0, false
	}
	local += us
	if withZone {
		var off int
		switch {
		case tm.namedTZ != nil:
			off = localOffset(tm.namedTZ, floorDiv(local, MicrosPerSecond))
		case tm.haveTZ:
			off = tm.tzEast
		default:
			if tm.dtzmod {
				return 0, false
			}
			off = localOffset(loc, floorDiv(local, MicrosPerSecond))
		}
		o := int64(off) * MicrosPerSecond
		if (o < 0 && local > math.MaxInt64+o) || (o > 0 && local < math.MinInt64+o) {
			return 0, false
		}
		local -= o
	}
	ts := Timestamp(local)
	if ts < minTimestamp || ts >= endTimestamp {
		return 0, false
	}
	return ts, true
}

// parseTimestamp is timestamp_in (withZone false) or timestamptz_in.
func parseTimestamp(s string, withZone bool, opts *TextOptions) (Timestamp, error) {
	typ := "timestamp"
	if withZone {
		typ = "timestamp with time zone"
	}
	fields, e := parseDateTimeFields(s, 128+maxDateFields)
	tm := pgTm{order: opts.DateStyle.Order}
	var dtype int
	var err error
	if e == dtOK {
		dtype, e, err = decodeDateTime(fields, &tm)
	}
	if err != nil {
		return 0, err
	}
	if e != dtOK {
		return 0, dateTimeError(e, s, typ)
	}
	switch dtype {
	case rsvEpoch:
		return 0, nil
	case rsvLate:
		return TimestampInfinity, nil
	case rsvEarly:
		return TimestampNegInfinity, nil
	case rsvNow:
		if opts.Now.IsZero() {
			return 0, errNeedsClock("now", typ)
		}
		ts := TimestampFromTime(opts.Now)
		if !withZone {
			ts += Timestamp(int64(zoneOffset(opts.Location, opts.Now.Unix())) * MicrosPerSecond)
		}
		return ts, nil
	case rsvToday, rsvTomorrow, rsvYesterday:
		if opts.Now.IsZero() {
			return 0, errNeedsClock(reservedWord[dtype], typ)
		}
		h, m, sec, f := tm.hour, tm.min, tm.sec, tm.fsec
		clockFields(dtype, opts.Now, opts.Location, &tm, false)
		tm.hour, tm.min, tm.sec, tm.fsec = h, m, sec, f
	}
	ts, ok := timestampFromTm(&tm, opts.Location, withZone)
	if !ok {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	return ts, nil
}

// parseDate is date_in.
func parseDate(s string, opts *TextOptions) (Date, error) {
	fields, e := parseDateTimeFields(s, 128+maxDateFields)
	tm := pgTm{order: opts.DateStyle.Order}
	var dtype int
	var err error
	if e == dtOK {
		dtype, e, err = decodeDateTime(fields, &tm)
	}
	if err != nil {
		return 0, err
	}
	if e != dtOK {
		return 0, dateTimeError(e, s, "date")
	}
	switch dtype {
	case rsvNone:
	case rsvEpoch:
		return 0, nil
	case rsvLate:
		return DateInfinity, nil
	case rsvEarly:
		return DateNegInfinity, nil
	case rsvNow, rsvToday, rsvTomorrow, rsvYesterday:
		if opts.Now.IsZero() {
			return 0, errNeedsClock(reservedWord[dtype], "date")
		}
		clockFields(dtype, opts.Now, opts.Location, &tm, false)
	default:
		return 0, dateTimeError(dtBadFormat, s, "date")
	}
	if !validJulian(tm.year, tm.mon) {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	d := Date(date2j(tm.year, tm.mon, tm.mday) - unixEpochJDate)
	if d < minDate || d >= endDate {
		return 0, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return d, nil
}

// parseTime is time_in.
func parseTime(s string, opts *TextOptions) (TimeOfDay, error) {
	fields, e := parseDateTimeFields(s, 128+maxDateFields)
	tm := pgTm{order: opts.DateStyle.Order}
	var dtype int
	var err error
	if e == dtOK {
		dtype, e, err = decodeTimeOnly(fields, &tm)
	}
	if err != nil {
		return 0, err
	}
	if e != dtOK {
		return 0, dateTimeError(e, s, "time")
	}
	if dtype == rsvNow {
		if opts.Now.IsZero() {
			return 0, errNeedsClock("now", "time")
		}
		clockFields(rsvNow, opts.Now, opts.Location, &tm, false)
	}
	return TimeOfDay(((int64(tm.hour)*60+int64(tm.min))*60+int64(tm.sec))*MicrosPerSecond + tm.fsec), nil
}

// itmIn is struct pg_itm_in.
type itmIn struct {
	usec             int64
	mday, mon, year  int32
	overflow         bool
	haveTime, signed bool
}

func (it *itmIn) addUsec(v int64) bool {
	r := it.usec + v
	if (v > 0 && r < it.usec) || (v < 0 && r > it.usec) {
		return false
	}
	it.usec = r
	return true
}

// int64MultiplyAdd is int64_multiply_add: *sum += val * multiplier.
func int64MultiplyAdd(val, multiplier int64, sum *int64) bool {
	if val != 0 && multiplier != 0 {
		p := val * multiplier
		if p/multiplier != val || (val == -1 && multiplier == math.MinInt64) || (multiplier == -1 && val == math.MinInt64) {
			return false
		}
		r := *sum + p
		if (p > 0 && r < *sum) || (p < 0 && r > *sum) {
			return false
		}
		*sum = r
	}
	return true
}

func add32(a *int32, v int64) bool {
	r := int64(*a) + v
	if r > math.MaxInt32 || r < math.MinInt32 {
		return false
	}
	*a = int32(r)
	return true
}

func (it *itmIn) adjustFractMicroseconds(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	if frac >= 9.2233720368547758e18 || frac <= -9.2233720368547758e18 || math.IsNaN(frac) {
		return false
	}
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	return it.addUsec(usec)
}

func (it *itmIn) adjustFractDays(frac float64, scale int) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	if !add32(&it.mday, extra) {
		return false
	}
	frac -= float64(extra)
	return it.adjustFractMicroseconds(frac, MicrosPerDay)
}

func (it *itmIn) adjustFractYears(frac float64, scale int) bool {
	extra := int64(math.RoundToEven(frac * float64(scale) * 12))
	return add32(&it.mon, extra)
}

func (it *itmIn) adjustMicroseconds(val int64, fval float64, scale int64) bool {
	if !int64MultiplyAdd(val, scale, &it.usec) {
		return false
	}
	return it.adjustFractMicroseconds(fval, scale)
}

func (it *itmIn) adjustDays(val int64, scale int) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	v := val * int64(scale)
	if v > math.MaxInt32 || v < math.MinInt32 {
		return false
	}
	return add32(&it.mday, v)
}

func (it *itmIn) adjustMonths(val int64) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	return add32(&it.mon, val)
}

func (it *itmIn) adjustYears(val int64, scale int) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	v := val * int64(scale)
	if v > math.MaxInt32 || v < math.MinInt32 {
		return false
	}
	return add32(&it.year, v)
}

// decodeTimeForInterval is DecodeTime for an interval of the given fields.
func decodeTimeForInterval(s string, it *itmIn, rangeMask int) (int, dtErr) {
	hour, cp, ok := strtoi64(s)
	if !ok {
		return 0, dtFieldOverflow
	}
	if len(cp) == 0 || cp[0] != ':' {
		return 0, dtBadFormat
	}
	min, cp, ok := strtoint(cp[1:])
	if !ok {
		return 0, dtFieldOverflow
	}
	sec := 0
	var usec int64
	switch {
	case len(cp) == 0:
		if rangeMask == IntervalMinute|IntervalSecond {
			// MINUTE TO SECOND reads hh:mm as mm:ss.
			sec, min, hour = min, int(hour), 0
		}
	case cp[0] == '.':
		f, e := parseFractionalSecond(cp)
		if e != dtOK {
			return 0, e
		}
		usec = f
		sec = min
		min = int(hour)
		hour = 0
	case cp[0] == ':':
		sec, cp, ok = strtoint(cp[1:])
		if !ok {
			return 0, dtFieldOverflow
		}
		if len(cp) > 0 {
			if cp[0] != '.' {
				return 0, dtBadFormat
			}
			f, e := parseFractionalSecond(cp)
			if e != dtOK {
				return 0, e
			}
			usec = f
		}
	default:
		return 0, dtBadFormat
	}
	if hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 60 || usec < 0 || usec > MicrosPerSecond {
		return 0, dtFieldOverflow
	}
	it.usec = usec
	if !int64MultiplyAdd(hour, MicrosPerHour, &it.usec) ||
		!int64MultiplyAdd(int64(min), MicrosPerMinute, &it.usec) ||
		!int64MultiplyAdd(int64(sec), MicrosPerSecond, &it.usec) {
		return 0, dtFieldOverflow
	}
	// A time is every seconds field too: '1:20:05 5 microseconds' is
	// malformed, as in PostgreSQL.
	return dtkTimeM | dtkAllSecsM, dtOK
}

// decodeInterval is DecodeInterval (IntervalStyle postgres): rangeMask is
// the fields of the interval's typmod, which decide the unit of a bare
// number (interval '1' day) and of hh:mm (interval '1:30' minute to
// second).
//
// With sqlStandard (IntervalStyle sql_standard), a leading minus sign with
// no other explicit sign applies to every field ('-1 2:03:04' is minus one
// day and minus two hours), as the SQL standard reads it.
func decodeInterval(fields []dtField, it *itmIn, rangeMask int, sqlStandard bool) dtErr {
	isBefore := false
	fmask := 0
	typ := -1 // IGNORE_DTF
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		tmask := 0
		switch f.typ {
		case dtkTime:
			m, e := decodeTimeForInterval(f.val, it, rangeMask)
			if e != dtOK {
				return e
			}
			tmask = m
			typ = uDay
		case dtkTZ, dtkDate, dtkNumber:
			if f.typ == dtkTZ && strings.IndexByte(f.val[1:], ':') >= 0 {
				saved := *it
				if m, e := decodeTimeForInterval(f.val[1:], it, rangeMask); e == dtOK {
					if f.val[0] == '-' {
						if it.usec == math.MinInt64 {
							return dtFieldOverflow
						}
						it.usec = -it.usec
					}
					tmask = m
					typ = uDay
					break
				}
				*it = saved
			}
			if typ == -1 {
				typ = intervalUnitFor(rangeMask)
			}
			val, cp, ok := strtoi64(f.val)
			if !ok {
				return dtFieldOverflow
			}
			var fval float64
			if len(cp) > 0 && cp[0] == '-' {
				val2, cp2, ok := strtoint(cp[1:])
				if !ok || val2 < 0 || val2 >= 12 {
					return dtFieldOverflow
				}
				if len(cp2) != 0 {
					return dtBadFormat
				}
				typ = uMonth
				if f.val[0] == '-' {
					val2 = -val2
				}
				if val > math.MaxInt64/12 || val < math.MinInt64/12 {
					return dtFieldOverflow
				}
				val = val*12 + int64(val2)
			} else if len(cp) > 0 && cp[0] == '.' {
				var e dtErr
				fval, e = parseFraction(cp)
				if e != dtOK {
					return e
				}
				if f.val[0] == '-' {
					fval = -fval
				}
			} else if len(cp) != 0 {
				return dtBadFormat
			}
			ok = true
			switch typ {
			case uMicrosec:
				ok = it.adjustMicroseconds(val, fval, 1)
				tmask = dtkM(tMICROSEC)
			case uMillisec:
				ok = it.adjustMicroseconds(val, fval, 1000)
				tmask = dtkM(tMILLISEC)
			case uSecond:
				ok = it.adjustMicroseconds(val, fval, MicrosPerSecond)
				if fval == 0 {
					tmask = dtkM(tSECOND)
				} else {
					tmask = dtkAllSecsM
				}
			case uMinute:
				ok = it.adjustMicroseconds(val, fval, MicrosPerMinute)
				tmask = dtkM(tMINUTE)
			case uHour:
				ok = it.adjustMicroseconds(val, fval, MicrosPerHour)
				tmask = dtkM(tHOUR)
				typ = uDay
			case uDay:
				ok = it.adjustDays(val, 1) && it.adjustFractMicroseconds(fval, MicrosPerDay)
				tmask = dtkM(tDAY)
			case uWeek:
				ok = it.adjustDays(val, 7) && it.adjustFractDays(fval, 7)
				tmask = dtkM(tWEEK)
			case uMonth:
				ok = it.adjustMonths(val) && it.adjustFractDays(fval, 30)
				tmask = dtkM(tMONTH)
			case uYear:
				ok = it.adjustYears(val, 1) && it.adjustFractYears(fval, 1)
				tmask = dtkM(tYEAR)
			case uDecade:
				ok = it.adjustYears(val, 10) && it.adjustFractYears(fval, 10)
				tmask = dtkM(tDECADE)
			case uCentury:
				ok = it.adjustYears(val, 100) && it.adjustFractYears(fval, 100)
				tmask = dtkM(tCENTURY)
			case uMillennium:
				ok = it.adjustYears(val, 1000) && it.adjustFractYears(fval, 1000)
				tmask = dtkM(tMILLENNIUM)
			default:
				return dtBadFormat
			}
			if !ok {
				return dtFieldOverflow
			}
		case dtkString, dtkSpecial:
			tok, ok := lookupToken(deltaTokens, f.val)
			if !ok {
				return dtBadFormat
			}
			switch tok.typ {
			case tIGNORE:
				continue
			case tUNITS:
				typ = tok.val
			case tAGO:
				isBefore = true
			default:
				return dtBadFormat
			}
		default:
			return dtBadFormat
		}
		if tmask&fmask != 0 {
			return dtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return dtBadFormat
	}
	if sqlStandard && len(fields) > 0 && strings.HasPrefix(fields[0].val, "-") {
		moreSigns := false
		for _, f := range fields[1:] {
			if strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "+") {
				moreSigns = true
				break
			}
		}
		if !moreSigns {
			if it.usec > 0 {
				it.usec = -it.usec
			}
			if it.mday > 0 {
				it.mday = -it.mday
			}
			if it.mon > 0 {
				it.mon = -it.mon
			}
			if it.year > 0 {
				it.year = -it.year
			}
		}
	}
	if isBefore {
		if it.usec == math.MinInt64 || it.mday == math.MinInt32 || it.mon == math.MinInt32 || it.year == math.MinInt32 {
			return dtFieldOverflow
		}
		it.usec, it.mday, it.mon, it.year = -it.usec, -it.mday, -it.mon, -it.year
	}
	return dtOK
}

// parseISO8601Number is ParseISO8601Number.
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, e dtErr) {
	if len(s) == 0 || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtBadFormat
	}
	v, n, _, err := strtodPrefix(s, 64)
	if n == 0 || err != nil {
		return 0, 0, s, dtBadFormat
	}
	if math.IsNaN(v) || v < -1e15 || v > 1e15 {
		return 0, 0, s, dtFieldOverflow
	}
	if v >= 0 {
		ipart = int64(math.Floor(v))
	} else {
		ipart = -int64(math.Floor(-v))
	}
	return ipart, v - float64(ipart), s[n:], dtOK
}

func iso8601IntegerWidth(s string) int {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// decodeISO8601Interval is DecodeISO8601Interval.
func decodeISO8601Interval(str string, it *itmIn) dtErr {
	datepart, havefield := true, false
	*it = itmIn{}
	if len(str) < 2 || str[0] != 'P' {
		return dtBadFormat
	}
	str = str[1:]
	for len(str) > 0 {
		if str[0] == 'T' {
			datepart = false
			havefield = false
			str = str[1:]
			continue
		}
		fieldstart := str
		val, fval, rest, e := parseISO8601Number(str)
		if e != dtOK {
			return e
		}
		str = rest
		var unit byte
		if len(str) > 0 {
			unit = str[0]
			str = str[1:]
		}
		if datepart {
			switch unit {
			case 'Y':
				if !it.adjustYears(val, 1) || !it.adjustFractYears(fval, 1) {
					return dtFieldOverflow
				}
			case 'M':
				if !it.adjustMonths(val) || !it.adjustFractDays(fval, 30) {
					return dtFieldOverflow
				}
			case 'W':
				if !it.adjustDays(val, 7) || !it.adjustFractDays(fval, 7) {
					return dtFieldOverflow
				}
			case 'D':
				if !it.adjustDays(val, 1) || !it.adjustFractMicroseconds(fval, MicrosPerDay) {
					return dtFieldOverflow
				}
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldstart) == 8 && !havefield {
					if !it.adjustYears(val/10000, 1) || !it.adjustMonths((val/100)%100) ||
						!it.adjustDays(val%100, 1) || !it.adjustFractMicroseconds(fval, MicrosPerDay) {
						return dtFieldOverflow
					}
					if unit == 0 {
						return dtOK
					}
					datepart = false
					havefield = false
					continue
				}
				if havefield {
					return dtBadFormat
				}
				if !it.adjustYears(val, 1) || !it.adjustFractYears(fval, 1) {
					return dtFieldOverflow
				}
				if unit == 0 {
					return dtOK
				}
				if unit == 'T' {
					datepart = false
					havefield = false
					continue
				}
				val, fval, str, e = parseISO8601Number(str)
				if e != dtOK {
					return e
				}
				if !it.adjustMonths(val) || !it.adjustFractDays(fval, 30) {
					return dtFieldOverflow
				}
				if len(str) == 0 {
					return dtOK
				}
				if str[0] == 'T' {
					datepart = false
					havefield = false
					continue
				}
				if str[0] != '-' {
					return dtBadFormat
				}
				str = str[1:]
				val, fval, str, e = parseISO8601Number(str)
				if e != dtOK {
					return e
				}
				if !it.adjustDays(val, 1) || !it.adjustFractMicroseconds(fval, MicrosPerDay) {
					return dtFieldOverflow
				}
				if len(str) == 0 {
					return dtOK
				}
				if str[0] == 'T' {
					datepart = false
					havefield = false
					continue
				}
				return dtBadFormat
			default:
				return dtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				if !it.adjustMicroseconds(val, fval, MicrosPerHour) {
					return dtFieldOverflow
				}
			case 'M':
				if !it.adjustMicroseconds(val, fval, MicrosPerMinute) {
					return dtFieldOverflow
				}
			case 'S':
				if !it.adjustMicroseconds(val, fval, MicrosPerSecond) {
					return dtFieldOverflow
				}
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldstart) == 6 && !havefield {
					if !it.adjustMicroseconds(val/10000, 0, MicrosPerHour) ||
						!it.adjustMicroseconds((val/100)%100, 0, MicrosPerMinute) ||
						!it.adjustMicroseconds(val%100, 0, MicrosPerSecond) ||
						!it.adjustFractMicroseconds(fval, 1) {
						return dtFieldOverflow
					}
					return dtOK
				}
				if havefield {
					return dtBadFormat
				}
				if !it.adjustMicroseconds(val, fval, MicrosPerHour) {
					return dtFieldOverflow
				}
				if unit == 0 {
					return dtOK
				}
				val, fval, str, e = parseISO8601Number(str)
				if e != dtOK {
					return e
				}
				if !it.adjustMicroseconds(val, fval, MicrosPerMinute) {
					return dtFieldOverflow
				}
				if len(str) == 0 {
					return dtOK
				}
				if str[0] != ':' {
					return dtBadFormat
				}
				str = str[1:]
				val, fval, str, e = parseISO8601Number(str)
				if e != dtOK {
					return e
				}
				if !it.adjustMicroseconds(val, fval, MicrosPerSecond) {
					return dtFieldOverflow
				}
				if len(str) == 0 {
					return dtOK
				}
				return dtBadFormat
			default:
				return dtBadFormat
			}
		}
		havefield = true
	}
	return dtOK
}

// parseInterval is interval_in for an interval of the typmod's fields
// (AdjustIntervalForTypmod is left to ApplyTypmod).
func parseInterval(s string, mod int32, opts *TextOptions) (IntervalValue, error) {
	var it itmIn
	fields, e := parseDateTimeFields(s, 256)
	if e == dtOK {
		e = decodeInterval(fields, &it, IntervalRange(mod), opts != nil && opts.IntervalStyle == IntervalSQLStandard)
	}
	if e == dtBadFormat {
		e = decodeISO8601Interval(s, &it)
	}
	if e != dtOK {
		if e == dtFieldOverflow {
			e = dtIntervalOverflow
		}
		return IntervalValue{}, dateTimeError(e, s, "interval")
	}
	months := int64(it.year)*12 + int64(it.mon)
	if months > math.MaxInt32 || months < math.MinInt32 {
		return IntervalValue{}, pgerr.New(pgerrcode.DatetimeFieldOverflow, "interval out of range")
	}
	return IntervalValue{Months: int32(months), Days: it.mday, Micros: it.usec}, nil
}
