package types

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Row-level values ("datums") are plain Go values; which Go type stands for
// which SQL type is fixed for all of cairn:
//
//	nil                          SQL NULL (of any type)
//	bool                         bool
//	int64                        int2, int4, int8, oid
//	float64                      float4, float8
//	*apd.Decimal                 numeric (exact; NaN and ±Infinity allowed)
//	string                       text, varchar, char, name, json, jsonb
//	                             (jsonb in NormalizeJSONB's form)
//	[]byte                       bytea
//	[16]byte                     uuid
//	Date                         date
//	TimeOfDay                    time
//	Timestamp                    timestamp, timestamptz
//	IntervalValue                interval
//	*Array                       arrays of any element type and vector
//	                             (vector: Elem Float4T, float64 elements)
//	[]any                        record
//
// The functions in this package accept a few convenient variants as input
// (int, int32, float32, apd.Decimal, time.Time, ...) but always produce the
// types above.

// Date is a date: days since 1970-01-01 (the Arrow date32 value).
// DateInfinity and DateNegInfinity are 'infinity' and '-infinity'.
type Date int32

// TimeOfDay is a time of day without zone: microseconds since midnight,
// 0 to 24:00:00 inclusive.
type TimeOfDay int64

// Timestamp is a point in time: microseconds since 1970-01-01 00:00:00 UTC.
// For timestamp without time zone it is the wall clock read as if it were
// UTC. TimestampInfinity and TimestampNegInfinity are 'infinity' and
// '-infinity'.
type Timestamp int64

// IntervalValue is an interval: months, days and microseconds, kept apart
// as PostgreSQL does (1 mon is not 30 days until compared).
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// Array is an array value of any number of dimensions. Elems holds the
// elements in row-major order (nil is a NULL element); Dims the length of
// each dimension, so len(Elems) is the product of Dims. An empty array has
// no Dims and no Elems. Lower bounds are always 1.
type Array struct {
	Elem  T
	Dims  []int
	Elems []any
}

// Special date and timestamp values.
const (
	DateInfinity         = Date(math.MaxInt32)
	DateNegInfinity      = Date(math.MinInt32)
	TimestampInfinity    = Timestamp(math.MaxInt64)
	TimestampNegInfinity = Timestamp(math.MinInt64)
)

// Microsecond constants.
const (
	MicrosPerSecond = int64(1000000)
	MicrosPerMinute = 60 * MicrosPerSecond
	MicrosPerHour   = 60 * MicrosPerMinute
	MicrosPerDay    = 24 * MicrosPerHour
)

// Julian day numbers of the epochs used here and by PostgreSQL.
const (
	unixEpochJDate     = 2440588 // date2j(1970, 1, 1)
	postgresEpochJDate = 2451545 // date2j(2000, 1, 1)
	// pgEpochDays is 2000-01-01 in days since 1970-01-01.
	pgEpochDays = postgresEpochJDate - unixEpochJDate
	// pgEpochMicros is 2000-01-01 00:00 in microseconds since 1970.
	pgEpochMicros = int64(pgEpochDays) * MicrosPerDay
)

// Limits of valid dates and timestamps (PostgreSQL's, moved to the 1970
// epoch): 4714-11-24 BC up to but excluding 5874898-01-01 for dates and
// 294277-01-01 for timestamps.
const (
	minDate      = Date(0 - unixEpochJDate)
	endDate      = Date(2147483494 - unixEpochJDate)
	minTimestamp = Timestamp(-211813488000000000 + pgEpochMicros)
	// PostgreSQL's end (294277-01-01) lies beyond int64 microseconds since
	// 1970; the last representable one is just below TimestampInfinity.
	endTimestamp    = Timestamp(math.MaxInt64)
	julianMinYear   = -4713
	julianMinMonth  = 11
	julianMaxYear   = 5874898
	julianMaxMonth  = 6
	timestampEndJul = 109203528 // date2j(294277, 1, 1)
)

// IsInfinite reports whether d is 'infinity' or '-infinity'.
func (d Date) IsInfinite() bool { return d == DateInfinity || d == DateNegInfinity }

// IsInfinite reports whether ts is 'infinity' or '-infinity'.
func (ts Timestamp) IsInfinite() bool {
	return ts == TimestampInfinity || ts == TimestampNegInfinity
}

// DateFromYMD returns the date of a proleptic Gregorian calendar day. year is
// astronomical: 0 is 1 BC, -1 is 2 BC.
func DateFromYMD(year, month, day int) Date {
	return Date(date2j(year, month, day) - unixEpochJDate)
}

// YMD returns the astronomical year (0 = 1 BC), month and day of d. It is
// meaningless for the infinities.
func (d Date) YMD() (year, month, day int) {
	return j2date(int(d) + unixEpochJDate)
}

// DateFromTime returns the date of t's wall clock in t's location.
func DateFromTime(t time.Time) Date {
	y, m, d := t.Date()
	return DateFromYMD(y, int(m), d)
}

// Time returns d as midnight UTC of that day.
func (d Date) Time() time.Time {
	return time.Unix(int64(d)*86400, 0).UTC()
}

// MakeTimeOfDay returns the time of day h:m:s plus micros microseconds.
func MakeTimeOfDay(h, m, s int, micros int64) TimeOfDay {
	return TimeOfDay(int64(h)*MicrosPerHour + int64(m)*MicrosPerMinute + int64(s)*MicrosPerSecond + micros)
}

// HMS splits t into hours, minutes, seconds and microseconds.
func (t TimeOfDay) HMS() (h, m, s int, micros int64) {
	v := int64(t)
	h = int(v / MicrosPerHour)
	v -= int64(h) * MicrosPerHour
	m = int(v / MicrosPerMinute)
	v -= int64(m) * MicrosPerMinute
	s = int(v / MicrosPerSecond)
	return h, m, s, v - int64(s)*MicrosPerSecond
}

// MakeTimestamp returns the timestamp of a wall-clock time read as UTC;
// year is astronomical (0 = 1 BC).
func MakeTimestamp(year, month, day, h, m, s int, micros int64) Timestamp {
	days := int64(DateFromYMD(year, month, day))
	return Timestamp(days*MicrosPerDay + int64(MakeTimeOfDay(h, m, s, micros)))
}

// TimestampFromTime returns the instant t as a Timestamp (timestamptz). For
// a timestamp without time zone, pass the wall clock in UTC:
// TimestampFromTime(time.Date(..., time.UTC)).
func TimestampFromTime(t time.Time) Timestamp {
	return Timestamp(t.Unix()*MicrosPerSecond + int64(t.Nanosecond()/1000))
}

// Time returns ts as a time.Time in UTC. The infinities map to the largest
// and smallest timestamps PostgreSQL allows.
func (ts Timestamp) Time() time.Time {
	switch ts {
	case TimestampInfinity:
		ts = endTimestamp - 1
	case TimestampNegInfinity:
		ts = minTimestamp
	}
	return time.UnixMicro(int64(ts)).UTC()
}

// Split returns the date and the time of day of ts (read as UTC).
func (ts Timestamp) Split() (Date, TimeOfDay) {
	days := floorDiv(int64(ts), MicrosPerDay)
	return Date(days), TimeOfDay(int64(ts) - days*MicrosPerDay)
}

// NewArray returns a one-dimensional array of elem with the given elements.
func NewArray(elem T, elems ...any) *Array {
	if len(elems) == 0 {
		return &Array{Elem: elem}
	}
	return &Array{Elem: elem, Dims: []int{len(elems)}, Elems: elems}
}

// NewVector returns a pgvector vector value holding xs.
func NewVector(xs []float32) *Array {
	elems := make([]any, len(xs))
	for i, x := range xs {
		elems[i] = float64(x)
	}
	return &Array{Elem: Float4T, Dims: []int{len(xs)}, Elems: elems}
}

// Len is the number of elements of a.
func (a *Array) Len() int { return len(a.Elems) }

// NDims is the number of dimensions of a (0 for an empty array).
func (a *Array) NDims() int { return len(a.Dims) }

// Float32s returns the elements of a float array as float32s; ok is false if
// an element is NULL or not a number.
func (a *Array) Float32s() (xs []float32, ok bool) {
	xs = make([]float32, len(a.Elems))
	for i, e := range a.Elems {
		switch x := e.(type) {
		case float64:
			xs[i] = float32(x)
		case float32:
			xs[i] = x
		case int64:
			xs[i] = float32(x)
		default:
			return nil, false
		}
	}
	return xs, true
}

// NewNumeric parses a numeric literal into a Datum for numeric; it panics on
// bad input and is meant for constants and tests.
func NewNumeric(s string) *apd.Decimal {
	v, err := parseNumeric(s)
	if err != nil {
		panic(err)
	}
	return v
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// date2j is PostgreSQL's date2j: the Julian day number of a proleptic
// Gregorian date (astronomical year).
func date2j(year, month, day int) int {
	return int(Date2J(int64(year), int64(month), int64(day)))
}

// Date2J is date2j for any integers (an interval's fields too, as
// to_char reads them).
func Date2J(year, month, day int64) int64 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// j2date is PostgreSQL's j2date.
func j2date(jd int) (year, month, day int) {
	julian := uint32(jd)
	julian += 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := int(julian * 4 / 1461)
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += int(quad * 4)
	year = y - 4800
	quad = julian * 2141 / 65536
	day = int(julian - 7834*quad/256)
	month = int((quad+10)%12 + 1)
	return
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var daysInMonth = [2][12]int{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func validJulian(y, m int) bool {
	return (y > julianMinYear || (y == julianMinYear && m >= julianMinMonth)) &&
		(y < julianMaxYear || (y == julianMaxYear && m < julianMaxMonth))
}
