package types

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types/jsonpath"
	"github.com/cairn-db/cairn/sql/types/tsearch"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// TextOptions are the session settings PostgreSQL's text input and output
// depend on. The zero value (and a nil *TextOptions) means PostgreSQL's
// defaults (TimeZone UTC, DateStyle ISO, MDY, extra_float_digits 1) and no
// current time. IntervalStyle is always postgres.
type TextOptions struct {
	// Location is the session TimeZone: timestamptz values are printed in
	// it, and timestamptz input without an explicit zone is read in it.
	// nil means UTC.
	Location *time.Location
	// Now is the transaction's current time, used for the special inputs
	// 'now', 'today', 'tomorrow' and 'yesterday'. When it is zero those
	// inputs are a 0A000 error saying the caller must supply it.
	Now time.Time
	// DateStyle is how date, timestamp and timestamptz values are
	// printed, and the field order ambiguous date input is read in.
	DateStyle DateStyle
	// Floats is how float4 and float8 values are printed
	// (extra_float_digits).
	Floats FloatStyle
	// RegNames, when set, names the objects values of the reg* types
	// other than oid refer to (FormatReg: regtype 23 prints "integer"),
	// wherever one is printed, array elements included; without it they
	// print as their OIDs, as oid does.
	RegNames RegNames
	// ByteaEscape prints bytea in the escape format (bytea_output =
	// escape) instead of hex.
	ByteaEscape bool
	// IntervalStyle is how interval values print.
	IntervalStyle IntervalStyle
}

// RegNames is what knows the names of the objects reg* values refer to:
// the system catalog of the statement, read-only and safe for concurrent
// use.
type RegNames interface {
	// Name is the text form of oid as a value of the reg* type f
	// (regclass: the relation's name, qualified when it is not on the
	// search path); ok is false when no such object exists.
	Name(f Family, oid int64) (name string, ok bool)
}

// FormatReg is reg*_out: the text form of oid as a value of the reg*
// type f, its object's name as names gives it, "-" for 0 (no object, as
// in pg_type.typmodin), or the number when there is no such object (or
// names is nil).
func FormatReg(oid int64, f Family, names RegNames) string {
	if oid == 0 {
		return "-"
	}
	if names != nil {
		if name, ok := names.Name(f, oid); ok {
			return name
		}
	}
	return strconv.FormatInt(oid, 10)
}

var defaultTextOptions = &TextOptions{}

func optsOrDefault(o *TextOptions) *TextOptions {
	if o == nil {
		return defaultTextOptions
	}
	return o
}

// FormatText returns PostgreSQL 15's text output for v of type t with the
// default session settings (TimeZone UTC). NULL (nil) formats as "".
func FormatText(v any, t T) string {
	return string(appendText(nil, v, t, defaultTextOptions))
}

// FormatTextTZ is FormatText with the session TimeZone loc: timestamptz
// values are printed in loc (nil means UTC).
func FormatTextTZ(v any, t T, loc *time.Location) string {
	return string(appendText(nil, v, t, &TextOptions{Location: loc}))
}

// AppendText appends v's text output (as FormatText) to dst. opts may be
// nil. NULL (nil) appends nothing: callers encode NULL themselves.
func AppendText(dst []byte, v any, t T, opts *TextOptions) []byte {
	return appendText(dst, v, t, optsOrDefault(opts))
}

func appendText(dst []byte, v any, t T, opts *TextOptions) []byte {
	if v == nil {
		return dst
	}
	switch t.Family {
	case Bool:
		if b, ok := v.(bool); ok {
			if b {
				return append(dst, 't')
			}
			return append(dst, 'f')
		}
	case Int2, Int4, Int8, Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		if i, ok := toInt64(v); ok {
			if opts.RegNames != nil && t.IsOID() && t.Family != Oid {
				return append(dst, FormatReg(i, t.Family, opts.RegNames)...)
			}
			return strconv.AppendInt(dst, i, 10)
		}
	case Float4:
		if f, ok := toFloat(v); ok {
			return AppendFloatStyle(dst, f, 32, opts.Floats)
		}
	case Float8:
		if f, ok := toFloat(v); ok {
			return AppendFloatStyle(dst, f, 64, opts.Floats)
		}
	case Numeric:
		if d, ok := toDecimal(v); ok {
			return appendNumeric(dst, d)
		}
	case Bytea:
		if b, ok := v.([]byte); ok {
			if opts.ByteaEscape {
				return appendByteaEscape(dst, b)
			}
			return appendByteaHex(dst, b)
		}
	case UUID:
		if u, ok := toUUID(v); ok {
			return appendUUID(dst, u)
		}
	case Inet, CIDR, MacAddr, MacAddr8:
		if out, ok := appendNetText(dst, v, t); ok {
			return out
		}
	case DateFamily:
		if d, ok := toDate(v); ok {
			return appendDate(dst, d, opts.DateStyle)
		}
	case Time:
		if tod, ok := toTimeOfDay(v); ok {
			return appendTimeOfDay(dst, tod)
		}
	case TimestampFamily, TimestampTZ:
		if ts, ok := toTimestamp(v); ok {
			return appendTimestamp(dst, ts, t.Family == TimestampTZ, opts.Location, opts.DateStyle)
		}
	case Interval:
		if iv, ok := toInterval(v); ok {
			return appendIntervalStyle(dst, iv, opts.IntervalStyle)
		}
	case ArrayFamily:
		if a, ok := v.(*Array); ok && t.IsCatalogVector() {
			for i, e := range a.Elems {
				if i > 0 {
					dst = append(dst, ' ')
				}
				dst = appendText(dst, e, *t.Elem, opts)
			}
			return dst
		}
		if a, ok := v.(*Array); ok {
			a2 := *a
			if a2.Elem.Family == Unknown && t.Elem != nil {
				a2.Elem = *t.Elem
			}
			return appendArrayText(dst, &a2, opts)
		}
	case Vector:
		if a, ok := v.(*Array); ok {
			return appendVectorText(dst, a)
		}
		if xs, ok := v.([]float32); ok {
			return AppendFloat32sText(dst, xs, t)
		}
	case Record:
		if r, ok := v.([]any); ok {
			return appendRecordText(dst, r, opts)
		}
	case InternalChar:
		if s, ok := v.(string); ok {
			return appendCharOut(dst, s)
		}
	}
	switch x := v.(type) {
	case string:
		return append(dst, x...)
	case []byte:
		if t.Family == Bytea {
			if opts.ByteaEscape {
				return appendByteaEscape(dst, x)
			}
			return appendByteaHex(dst, x)
		}
		return append(dst, x...)
	case []float32:
		return appendFloat32sText(dst, x, t, opts.Floats)
	}
	if t.Family != Unknown && t.Family != Null && t.Family != Text {
		// A value of another Go type than t's: print it as its own type.
		if vt := TypeOfValue(v); vt.Family != Unknown && vt.Family != t.Family {
			return appendText(dst, v, vt, opts)
		}
	}
	return fmt.Append(dst, v)
}

// TypeOfValue returns the SQL type a Go value stands for by the datum
// conventions: int64 is bigint, float64 double precision, Timestamp
// timestamp with time zone, a *Array its element type's array (or vector
// when its element type is unset and it holds float32s), []any record. It
// returns UnknownT for nil and Go types that are no datum.
func TypeOfValue(v any) T {
	switch x := v.(type) {
	case bool:
		return BoolT
	case int64, int:
		return Int8T
	case int32:
		return Int4T
	case int16, int8:
		return Int2T
	case uint32:
		return OidT
	case float64:
		return Float8T
	case float32:
		return Float4T
	case *apd.Decimal, apd.Decimal:
		return NumericT
	case string:
		return TextT
	case []byte:
		return ByteaT
	case [16]byte:
		return UUIDT
	case InetValue:
		if x.IsCIDR {
			return CIDRT
		}
		return InetT
	case MacAddrValue:
		return MacAddrT
	case MacAddr8Value:
		return MacAddr8T
	case Date:
		return DateT
	case TimeOfDay:
		return TimeT
	case Timestamp, time.Time:
		return TimestampTZT
	case IntervalValue, time.Duration:
		return IntervalT
	case *Array:
		if x.Elem.Family == Unknown {
			return ArrayOf(TextT, max(len(x.Dims), 1))
		}
		return ArrayOf(x.Elem, max(len(x.Dims), 1))
	case []float32:
		return VectorOf(0)
	case []any:
		return RecordT
	}
	return UnknownT
}

// AppendRecordText appends record_out's text of a row whose field types
// are known (types[i] for fields[i]); use it instead of FormatText when
// inference from Go types (TypeOfValue) is not enough, e.g. a timestamp
// without time zone field.
func AppendRecordText(dst []byte, fields []any, types []T, opts *TextOptions) []byte {
	opts = optsOrDefault(opts)
	dst = append(dst, '(')
	var scratch []byte
	for i, v := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v == nil {
			continue
		}
		t := TypeOfValue(v)
		if i < len(types) {
			t = types[i]
		}
		scratch = appendText(scratch[:0], v, t, opts)
		quote := len(scratch) == 0
		for _, c := range scratch {
			if c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isSpace(c) {
				quote = true
				break
			}
		}
		if !quote {
			dst = append(dst, scratch...)
			continue
		}
		dst = append(dst, '"')
		for _, c := range scratch {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, ')')
}

// ParseText reads PostgreSQL text input for type t (what '...'::t and a
// text-format Bind parameter do) with the default session settings. It
// does not apply t's modifier (see ApplyTypmod). Errors are *pgerr.Error
// with PostgreSQL's SQLSTATE and message.
func ParseText(s string, t T) (any, error) {
	return parseTextOpts(s, t, defaultTextOptions)
}

// ParseTextTZ is ParseText with the session TimeZone loc (for timestamptz
// input without an explicit zone).
func ParseTextTZ(s string, t T, loc *time.Location) (any, error) {
	return parseTextOpts(s, t, &TextOptions{Location: loc})
}

// ParseTextOpts is ParseText with session settings (opts may be nil).
func ParseTextOpts(s string, t T, opts *TextOptions) (any, error) {
	return parseTextOpts(s, t, optsOrDefault(opts))
}

func parseTextOpts(s string, t T, opts *TextOptions) (any, error) {
	switch t.Family {
	case Bool:
		return parseBool(s)
	case Int2, Int4, Int8:
		return parseInt(s, t)
	case Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		return parseOid(s)
	case Float4:
		f, err := parseFloat(s, t)
		return float64(float32(f)), err
	case Float8:
		return parseFloat(s, t)
	case Numeric:
		return parseNumeric(s)
	case Text, Varchar, Char, Unknown, Null:
		if t.Enum != nil {
			return s, CheckEnumLabel(t.Enum, s)
		}
		return s, nil
	case Name:
		return ClipName(s), nil
	case InternalChar:
		return charIn(s), nil
	case Bytea:
		return parseBytea(s)
	case UUID:
		return parseUUID(s)
	case Inet, CIDR, MacAddr, MacAddr8:
		return parseNetText(s, t)
	case JSON:
		if err := ValidateJSON(s); err != nil {
			return nil, err
		}
		return s, nil
	case JSONB:
		return NormalizeJSONB(s)
	case JSONPath:
		return jsonpath.Normalize(s)
	case TSVector:
		return tsearch.NormalizeVector(s)
	case TSQuery:
		return tsearch.NormalizeQuery(s)
	case DateFamily:
		return parseDate(s, opts)
	case Time:
		return parseTime(s, opts)
	case TimestampFamily:
		return parseTimestamp(s, false, opts)
	case TimestampTZ:
		return parseTimestamp(s, true, opts)
	case Interval:
		return parseInterval(s, t.Mod, opts)
	case ArrayFamily:
		if t.IsCatalogVector() {
			return parseCatalogVector(s, *t.Elem)
		}
		elem := TextT
		if t.Elem != nil {
			elem = *t.Elem
		}
		if elem.Family == Float4 {
			if a, ok := parseFloat4Array(s, elem); ok {
				return a, nil
			}
		}
		return parseArray(s, elem, opts)
	case Vector:
		return parseVector(s)
	case Record:
		return parseRecord(s)
	}
	return nil, pgerr.New(pgerrcode.FeatureNotSupported, "text input for type %s is not supported", t)
}

// parseCatalogVector reads int2vector or oidvector text: elements
// separated by spaces ("1 3"), as int2vectorin and oidvectorin read it.
func parseCatalogVector(s string, elem T) (*Array, error) {
	fields := strings.Fields(s)
	elems := make([]any, len(fields))
	for i, f := range fields {
		v, err := parseTextOpts(f, elem, defaultTextOptions)
		if err != nil {
			return nil, err
		}
		elems[i] = v
	}
	return NewArray(elem, elems...), nil
}

// nameDataLen is NAMEDATALEN.
const nameDataLen = 64

// ClipName truncates s to NAMEDATALEN-1 bytes on a character boundary, as
// namein does (and an identifier's scan: a longer table name names the
// table of its first 63 bytes).
func ClipName(s string) string {
	if len(s) < nameDataLen {
		return s
	}
	n := nameDataLen - 1
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func appendByteaHex(dst []byte, b []byte) []byte {
	dst = append(dst, '\\', 'x')
	return hex.AppendEncode(dst, b)
}

// appendByteaEscape is byteaout's escape format: printable ASCII as it
// is, a backslash doubled, any other byte as \ and three octal digits.
func appendByteaEscape(dst []byte, b []byte) []byte {
	for _, c := range b {
		switch {
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			dst = append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// parseBytea is byteain: hex format (\x...) or the escape format.
func parseBytea(s string) ([]byte, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		out := make([]byte, 0, (len(s)-2)/2)
		i := 2
		for i < len(s) {
			c := s[i]
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				i++
				continue
			}
			hi := hexVal(c)
			if hi < 0 {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+mbLen(s, i)])
			}
			i++
			if i >= len(s) {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo := hexVal(s[i])
			if lo < 0 {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+mbLen(s, i)])
			}
			i++
			out = append(out, byte(hi<<4|lo))
		}
		return out, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] != '\\':
			out = append(out, s[i])
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7':
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i += 2
		default:
			return nil, pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return out, nil
}

// parseUUID is uuid_in: 32 hex digits, a hyphen allowed after any group of
// four, optionally in braces.
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	p := 0
	braces := false
	if len(s) > 0 && s[0] == '{' {
		braces = true
		p++
	}
	for i := 0; i < 16; i++ {
		if p+1 >= len(s) {
			return u, errSyntax(UUIDT, s)
		}
		hi, lo := hexVal(s[p]), hexVal(s[p+1])
		if hi < 0 || lo < 0 {
			return u, errSyntax(UUIDT, s)
		}
		u[i] = byte(hi<<4 | lo)
		p += 2
		if p < len(s) && s[p] == '-' && i%2 == 1 && i < 15 {
			p++
		}
	}
	if braces {
		if p >= len(s) || s[p] != '}' {
			return u, errSyntax(UUIDT, s)
		}
		p++
	}
	if p != len(s) {
		return u, errSyntax(UUIDT, s)
	}
	return u, nil
}

func appendUUID(dst []byte, u [16]byte) []byte {
	const hexd = "0123456789abcdef"
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexd[b>>4], hexd[b&15])
	}
	return dst
}

// Conversions from the Go types accepted as input.

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	if i, ok := toInt64(v); ok {
		return float64(i), true
	}
	return 0, false
}

func toDecimal(v any) (*apd.Decimal, bool) {
	switch x := v.(type) {
	case *apd.Decimal:
		if x == nil {
			return nil, false
		}
		return x, true
	case apd.Decimal:
		return &x, true
	case string:
		d, err := parseNumeric(x)
		return d, err == nil
	case float64:
		d, err := parseNumeric(strconv.FormatFloat(x, 'g', -1, 64))
		return d, err == nil
	}
	if i, ok := toInt64(v); ok {
		return apd.New(i, 0), true
	}
	return nil, false
}

func toUUID(v any) ([16]byte, bool) {
	switch x := v.(type) {
	case [16]byte:
		return x, true
	case []byte:
		if len(x) == 16 {
			var u [16]byte
			copy(u[:], x)
			return u, true
		}
	case string:
		u, err := parseUUID(x)
		return u, err == nil
	}
	return [16]byte{}, false
}

func toDate(v any) (Date, bool) {
	switch x := v.(type) {
	case Date:
		return x, true
	case time.Time:
		return DateFromTime(x), true
	case int32:
		return Date(x), true
	}
	return 0, false
}

func toTimeOfDay(v any) (TimeOfDay, bool) {
	switch x := v.(type) {
	case TimeOfDay:
		return x, true
	case time.Duration:
		return TimeOfDay(x.Microseconds()), true
	case int64:
		return TimeOfDay(x), true
	}
	return 0, false
}

func toTimestamp(v any) (Timestamp, bool) {
	switch x := v.(type) {
	case Timestamp:
		return x, true
	case time.Time:
		return TimestampFromTime(x), true
	case int64:
		return Timestamp(x), true
	}
	return 0, false
}

func toInterval(v any) (IntervalValue, bool) {
	switch x := v.(type) {
	case IntervalValue:
		return x, true
	case time.Duration:
		return IntervalValue{Micros: x.Microseconds()}, true
	}
	return IntervalValue{}, false
}

// charIn is "char" input, PostgreSQL 15's charin: a backslash and three
// octal digits are the byte they spell (how charOut writes a byte that is
// not ASCII), anything else is its first byte. The datum is that one
// byte, "" for the NUL byte (what empty input gives).
func charIn(s string) string {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		s = string([]byte{(s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')})
	}
	if len(s) > 1 {
		s = s[:1]
	}
	if s == "\x00" {
		return ""
	}
	return s
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// appendCharOut appends the text of "char" datum s, PostgreSQL 15's
// charout: a byte with the high bit set as a backslash and three octal
// digits, so that the text is ASCII (a lone byte of 0x80 and up is no
// UTF-8), the NUL byte as nothing, any other byte as itself.
func appendCharOut(dst []byte, s string) []byte {
	if s == "" || s[0] == 0 {
		return dst
	}
	c := s[0]
	if c < 0x80 {
		return append(dst, c)
	}
	return append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
}
