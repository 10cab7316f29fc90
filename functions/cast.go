package functions

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgerrcode"
)

// castContexts is pg_cast's castcontext for the casts between cairn's
// scalar types that are not plain I/O conversions: 'i' implicit, 'a' in
// assignment, 'e' explicit only.
var castContexts = map[[2]types.Family]byte{
	{types.Bool, types.Int4}: 'e',
	{types.Int4, types.Bool}: 'e',

	{types.Int2, types.Int4}: 'i', {types.Int2, types.Int8}: 'i', {types.Int2, types.Float4}: 'i',
	{types.Int2, types.Float8}: 'i', {types.Int2, types.Numeric}: 'i', {types.Int2, types.Oid}: 'i',
	{types.Int4, types.Int2}: 'a', {types.Int4, types.Int8}: 'i', {types.Int4, types.Float4}: 'i',
	{types.Int4, types.Float8}: 'i', {types.Int4, types.Numeric}: 'i', {types.Int4, types.Oid}: 'i',
	{types.Int8, types.Int2}: 'a', {types.Int8, types.Int4}: 'a', {types.Int8, types.Float4}: 'i',
	{types.Int8, types.Float8}: 'i', {types.Int8, types.Numeric}: 'i', {types.Int8, types.Oid}: 'i',
	{types.Float4, types.Int2}: 'a', {types.Float4, types.Int4}: 'a', {types.Float4, types.Int8}: 'a',
	{types.Float4, types.Float8}: 'i', {types.Float4, types.Numeric}: 'a',
	{types.Float8, types.Int2}: 'a', {types.Float8, types.Int4}: 'a', {types.Float8, types.Int8}: 'a',
	{types.Float8, types.Float4}: 'a', {types.Float8, types.Numeric}: 'a',
	{types.Numeric, types.Int2}: 'a', {types.Numeric, types.Int4}: 'a', {types.Numeric, types.Int8}: 'a',
	{types.Numeric, types.Float4}: 'i', {types.Numeric, types.Float8}: 'i',
	{types.Oid, types.Int4}: 'a', {types.Oid, types.Int8}: 'a',
	{types.Oid, types.RegClass}: 'i', {types.RegClass, types.Oid}: 'i', {types.Int2, types.RegClass}: 'i', {types.Int4, types.RegClass}: 'i',
	{types.Int8, types.RegClass}: 'i', {types.RegClass, types.Int4}: 'a', {types.RegClass, types.Int8}: 'a',
	{types.Oid, types.RegType}: 'i', {types.RegType, types.Oid}: 'i', {types.Int2, types.RegType}: 'i', {types.Int4, types.RegType}: 'i',
	{types.Int8, types.RegType}: 'i', {types.RegType, types.Int4}: 'a', {types.RegType, types.Int8}: 'a',
	{types.Oid, types.RegNamespace}: 'i', {types.RegNamespace, types.Oid}: 'i', {types.Int2, types.RegNamespace}: 'i', {types.Int4, types.RegNamespace}: 'i',
	{types.Int8, types.RegNamespace}: 'i', {types.RegNamespace, types.Int4}: 'a', {types.RegNamespace, types.Int8}: 'a',
	{types.Oid, types.RegProc}: 'i', {types.RegProc, types.Oid}: 'i', {types.Int2, types.RegProc}: 'i', {types.Int4, types.RegProc}: 'i',
	{types.Int8, types.RegProc}: 'i', {types.RegProc, types.Int4}: 'a', {types.RegProc, types.Int8}: 'a',
	{types.Oid, types.RegRole}: 'i', {types.RegRole, types.Oid}: 'i', {types.Int2, types.RegRole}: 'i', {types.Int4, types.RegRole}: 'i',
	{types.Int8, types.RegRole}: 'i', {types.RegRole, types.Int4}: 'a', {types.RegRole, types.Int8}: 'a',
	{types.Oid, types.RegConfig}: 'i', {types.RegConfig, types.Oid}: 'i', {types.Int2, types.RegConfig}: 'i', {types.Int4, types.RegConfig}: 'i',
	{types.Int8, types.RegConfig}: 'i', {types.RegConfig, types.Int4}: 'a', {types.RegConfig, types.Int8}: 'a',

	{types.Text, types.Varchar}: 'i', {types.Text, types.Char}: 'i', {types.Text, types.Name}: 'i',
	{types.Varchar, types.Text}: 'i', {types.Varchar, types.Char}: 'i', {types.Varchar, types.Name}: 'i',
	{types.Char, types.Text}: 'i', {types.Char, types.Varchar}: 'i', {types.Char, types.Name}: 'i',
	{types.Name, types.Text}: 'i', {types.Name, types.Varchar}: 'a', {types.Name, types.Char}: 'a',
	{types.InternalChar, types.Text}: 'i', {types.InternalChar, types.Varchar}: 'a', {types.InternalChar, types.Char}: 'a',
	{types.Text, types.InternalChar}: 'a', {types.Varchar, types.InternalChar}: 'a', {types.Char, types.InternalChar}: 'a',
	{types.Int4, types.InternalChar}: 'e', {types.InternalChar, types.Int4}: 'e',

	{types.JSON, types.JSONB}: 'a', {types.JSONB, types.JSON}: 'a',
	{types.JSONB, types.Bool}: 'e', {types.JSONB, types.Int2}: 'e', {types.JSONB, types.Int4}: 'e',
	{types.JSONB, types.Int8}: 'e', {types.JSONB, types.Float4}: 'e', {types.JSONB, types.Float8}: 'e',
	{types.JSONB, types.Numeric}: 'e',

	{types.DateFamily, types.TimestampFamily}: 'i', {types.DateFamily, types.TimestampTZ}: 'i',
	{types.TimestampFamily, types.TimestampTZ}: 'i', {types.TimestampFamily, types.DateFamily}: 'a', {types.TimestampFamily, types.Time}: 'a',
	{types.TimestampTZ, types.TimestampFamily}: 'a', {types.TimestampTZ, types.DateFamily}: 'a', {types.TimestampTZ, types.Time}: 'a',
	{types.Time, types.Interval}: 'i', {types.Interval, types.Time}: 'a',

	{types.CIDR, types.Inet}: 'i', {types.Inet, types.CIDR}: 'a',
	{types.MacAddr, types.MacAddr8}: 'i', {types.MacAddr8, types.MacAddr}: 'i',

	// pgvector: vector -> real[] implicit, number arrays -> vector in
	// assignment (handled with the arrays below).
	{types.Vector, types.Vector}: 'i',
}

// CastKind reports in which contexts a value of type from may be converted
// to type to, following pg_cast plus PostgreSQL's automatic I/O conversion
// casts (anything to a string type in assignment, a string type to
// anything explicitly) and element-wise array coercion.
func CastKind(from, to types.T) (implicit, assignment, explicit bool) {
	kind := castContext(from, to)
	return kind == 'i', kind == 'i' || kind == 'a', kind != 0
}

func castContext(from, to types.T) byte {
	if from.Family == types.Unknown || from.Family == types.Null {
		return 'i'
	}
	if from.IsEnum() || to.IsEnum() {
		// An enum is its own type: its labels come from the string types
		// explicitly (enum_in) and go to them in assignment (enum_out),
		// and no other type converts to or from it.
		switch {
		case from.Equal(to):
			return 'i'
		case from.IsEnum() && to.IsString():
			return 'a'
		case to.IsEnum() && from.IsString():
			return 'e'
		}
		return 0
	}
	if from.Family == types.Record || to.Family == types.Record {
		if from.Family == to.Family {
			return 'i'
		}
		if to.IsString() {
			return 'a'
		}
		return 0
	}
	if from.Family == types.ArrayFamily && to.Family == types.ArrayFamily {
		if from.Elem.Family == types.Unknown || to.Elem.Family == types.Unknown {
			return 'i'
		}
		return castContext(*from.Elem, *to.Elem)
	}
	if from.Family == types.Vector && to.Family == types.ArrayFamily {
		if to.Elem.Family == types.Float4 {
			return 'i'
		}
		return 0
	}
	if from.Family == types.ArrayFamily && to.Family == types.Vector {
		switch from.Elem.Family {
		case types.Int4, types.Float4, types.Float8, types.Numeric:
			return 'a'
		}
		return 0
	}
	if from.Family == to.Family {
		return 'i'
	}
	if k, ok := castContexts[[2]types.Family{from.Family, to.Family}]; ok {
		return k
	}
	// Automatic I/O conversions.
	if to.IsString() {
		return 'a'
	}
	if from.IsString() {
		return 'e'
	}
	return 0
}

// Cast converts the datum v of type from to type to, as CAST / :: does
// when explicit is true and as an assignment or implicit coercion does
// otherwise (which rejects casts pg_cast allows only explicitly and makes
// an over-long varchar(n)/char(n) value an error instead of truncating it).
// NULL (nil) casts to NULL. Type modifiers of to (varchar(n), char(n),
// numeric(p,s), vector(n)) are applied.
func Cast(ctx *Context, v any, from, to types.T, explicit bool) (any, error) {
	kind := castContext(from, to)
	if kind == 0 || (!explicit && kind == 'e') {
		return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type %s to %s", typeName(from), typeName(to))
	}
	if v == nil {
		return nil, nil
	}
	out, err := convert(ctx, v, from, to, explicit)
	if err != nil {
		return nil, err
	}
	return types.ApplyTypmod(out, to, explicit)
}

// convert changes the representation; applyTypmod then enforces to's
// modifier.
func convert(ctx *Context, v any, from, to types.T, explicit bool) (any, error) {
	ff, tf := from.Family, to.Family
	if to.IsEnum() && !from.Equal(to) {
		s, ok := v.(string)
		if !ok {
			return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type %s to %s", typeName(from), typeName(to))
		}
		if ff == types.Char {
			s = strings.TrimRight(s, " ")
		}
		return s, types.CheckEnumLabel(to.Enum, s)
	}
	if ff == types.Unknown || ff == types.Null {
		s, ok := v.(string)
		if !ok {
			return v, nil
		}
		return parseText(ctx, s, to)
	}
	if ff == types.ArrayFamily || ff == types.Vector {
		if tf == types.ArrayFamily || tf == types.Vector {
			return castArray(ctx, v, from, to, explicit)
		}
	}
	if from.Equal(to) && ff != types.Char {
		return v, nil
	}
	if from.IsOID() && ff != types.Oid && to.IsString() {
		return regName(ctx, v.(int64), ff), nil
	}
	switch tf {
	case types.Text, types.Varchar, types.Char, types.Name:
		if tf == types.Name && from.IsNetwork() {
			// No pg_cast row: an I/O conversion, by inet_out (network_show
			// is the cast to the other string types only).
			return types.FormatText(v, from), nil
		}
		return toText(ctx, v, from), nil
	}
	switch {
	case ff == types.InternalChar && tf == types.Int4:
		// chartoi4: the byte as a signed number.
		if s := v.(string); s != "" {
			return int64(int8(s[0])), nil
		}
		return int64(0), nil
	case ff == types.Int4 && tf == types.InternalChar:
		// i4tochar: a signed byte's number to the byte.
		n := v.(int64)
		if n < math.MinInt8 || n > math.MaxInt8 {
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "\"char\" out of range")
		}
		if n == 0 {
			return "", nil
		}
		return string([]byte{byte(n)}), nil
	}
	switch ff {
	case types.Text, types.Varchar, types.Char, types.Name, types.InternalChar:
		s := v.(string)
		if ff == types.Char {
			s = strings.TrimRight(s, " ")
		}
		return parseText(ctx, s, to)
	case types.Bool:
		if tf == types.Int4 {
			if v.(bool) {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case types.Int2, types.Int4, types.Int8, types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		if from.IsOID() && tf == types.Int4 {
			return int64(int32(uint32(v.(int64)))), nil // oid -> int4 wraps
		}
		return castFromInt(v.(int64), to)
	case types.Float4, types.Float8:
		return castFromFloat(v.(float64), ff == types.Float4, to)
	case types.Numeric:
		return castFromNumeric(v.(*apd.Decimal), to)
	case types.JSON:
		if tf == types.JSONB {
			return types.NormalizeJSONB(v.(string))
		}
	case types.JSONB:
		if tf == types.JSON {
			return v, nil
		}
		return castFromJSONB(ctx, v.(string), to)
	case types.DateFamily:
		d := int32(v.(types.Date))
		switch tf {
		case types.TimestampFamily, types.TimestampTZ:
			w, err := dateToWallChecked(d)
			if err != nil {
				return nil, err
			}
			if tf == types.TimestampTZ {
				w = wallToUTC(w, location(ctx))
			}
			return types.Timestamp(w), nil
		}
	case types.TimestampFamily, types.TimestampTZ:
		ts := int64(v.(types.Timestamp))
		wall := ts
		if ff == types.TimestampTZ {
			wall = utcToWall(ts, location(ctx))
		}
		switch tf {
		case types.TimestampFamily:
			return types.Timestamp(wall), nil
		case types.TimestampTZ:
			return types.Timestamp(wallToUTC(ts, location(ctx))), nil
		case types.DateFamily:
			return types.Date(wallToDate(wall)), nil
		case types.Time:
			if isInfTS(wall) {
				return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range")
			}
			return types.TimeOfDay(floorMod(wall, usecPerDay)), nil
		}
	case types.Time:
		if tf == types.Interval {
			return types.IntervalValue{Micros: int64(v.(types.TimeOfDay))}, nil
		}
	case types.Interval:
		if tf == types.Time {
			return types.TimeOfDay(floorMod(v.(types.IntervalValue).Micros, usecPerDay)), nil
		}
	case types.CIDR:
		if tf == types.Inet {
			iv := v.(types.InetValue)
			iv.IsCIDR = false
			return iv, nil
		}
	case types.Inet:
		if tf == types.CIDR {
			// inet_to_cidr: the network of the address.
			iv := v.(types.InetValue)
			return iv.Network(int(iv.Bits)), nil
		}
	case types.MacAddr:
		if tf == types.MacAddr8 {
			return types.MacAddrTo8(v.(types.MacAddrValue)), nil
		}
	case types.MacAddr8:
		if tf == types.MacAddr {
			return types.MacAddr8To6(v.(types.MacAddr8Value))
		}
	}
	return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type %s to %s", typeName(from), typeName(to))
}

// parseText is a string type's input conversion to t (types.ParseText),
// with the session's TimeZone applied to timestamptz input, its DateStyle
// to ambiguous dates, and the reg* types' names looked up in the catalog.
func parseText(ctx *Context, s string, t types.T) (any, error) {
	if t.IsOID() && t.Family != types.Oid {
		if ctx == nil || ctx.Catalog == nil {
			return types.ParseText(s, types.OidT)
		}
		return ctx.Catalog.Lookup(t.Family, s)
	}
	if isRegArray(t) && ctx != nil && ctx.Catalog != nil {
		// '{int4,text}'::regtype[]: the elements' text, each then looked
		// up as its own literal would be.
		texts, err := types.ParseTextOpts(s, types.ArrayOf(types.TextT, t.Dims), textOptions(ctx))
		if err != nil {
			return nil, err
		}
		return castArray(ctx, texts, types.ArrayOf(types.TextT, t.Dims), t, true)
	}
	return types.ParseTextOpts(s, baseType(t), textOptions(ctx))
}

// isRegArray reports whether t is an array of a reg* type other than oid,
// whose elements are names in text.
func isRegArray(t types.T) bool {
	return t.Family == types.ArrayFamily && t.Elem != nil && t.Elem.IsOID() && t.Elem.Family != types.Oid
}

// regName is the text form of a reg* value (types.FormatReg), with the
// names of ctx's catalog when it has one.
func regName(ctx *Context, oid int64, f types.Family) string {
	if ctx == nil || ctx.Catalog == nil {
		return types.FormatReg(oid, f, nil)
	}
	return types.FormatReg(oid, f, ctx.Catalog)
}

// toText is a value's text form as a cast to text gives it: its output
// function's (outputText), except that bool is "true"/"false" there and
// char(n) loses its padding.
func toText(ctx *Context, v any, from types.T) string {
	switch from.Family {
	case types.Bool:
		if v.(bool) {
			return "true"
		}
		return "false"
	case types.Char:
		return strings.TrimRight(v.(string), " ")
	case types.Inet, types.CIDR:
		// network_show: the mask length even when it is the full width.
		return types.InetText(v.(types.InetValue))
	}
	if from.IsCatalogVector() {
		return types.FormatText(v, from)
	}
	return string(types.AppendText(nil, v, baseType(from), textOptions(ctx)))
}

// intRange returns the bounds and name of an integer type.
func intRange(f types.Family) (lo, hi int64, name string) {
	switch f {
	case types.Int2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case types.Int4:
		return math.MinInt32, math.MaxInt32, "integer"
	case types.Oid:
		return 0, math.MaxUint32, "oid"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

func errIntRange(name string) error {
	return pgerr.New(pgerrcode.NumericValueOutOfRange, "%s out of range", name)
}

// checkInt range-checks an integer result of type f.
func checkInt(i int64, f types.Family) (int64, error) {
	lo, hi, name := intRange(f)
	if i < lo || i > hi {
		return 0, errIntRange(name)
	}
	return i, nil
}

func castFromInt(i int64, to types.T) (any, error) {
	switch to.Family {
	case types.Int2, types.Int4, types.Int8:
		return checkInt(i, to.Family)
	case types.Oid, types.RegClass, types.RegType, types.RegNamespace, types.RegProc, types.RegRole, types.RegConfig:
		if i < 0 && i >= math.MinInt32 {
			return i + 1<<32, nil // int4 -> oid wraps
		}
		return checkInt(i, types.Oid)
	case types.Float4:
		return float64(float32(i)), nil
	case types.Float8:
		return float64(i), nil
	case types.Numeric:
		return newDec(i), nil
	case types.Bool:
		return i != 0, nil
	}
	return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type %s to %s", "integer", typeName(to))
}

// castFromFloat converts a float: to an integer by rounding half to even
// (rint), to numeric through its 15 (6 for real) significant digits.
func castFromFloat(f float64, isFloat4 bool, to types.T) (any, error) {
	switch to.Family {
	case types.Int2, types.Int4, types.Int8:
		lo, hi, name := intRange(to.Family)
		r := math.RoundToEven(f)
		if math.IsNaN(r) || r < float64(lo) || r >= -float64(lo) || (to.Family != types.Int8 && r > float64(hi)) {
			return nil, errIntRange(name)
		}
		return int64(r), nil
	case types.Float4:
		r := float64(float32(f))
		if math.IsInf(r, 0) && !math.IsInf(f, 0) {
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "value out of range: overflow")
		}
		if r == 0 && f != 0 {
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "value out of range: underflow")
		}
		return r, nil
	case types.Float8:
		return f, nil
	case types.Numeric:
		return decFromFloat(f, isFloat4), nil
	}
	return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type double precision to %s", typeName(to))
}

func castFromNumeric(d *apd.Decimal, to types.T) (any, error) {
	switch to.Family {
	case types.Int2, types.Int4, types.Int8:
		_, _, name := intRange(to.Family)
		i, err := decToInt(d, name)
		if err != nil {
			return nil, err
		}
		return checkInt(i, to.Family)
	case types.Float4, types.Float8:
		// As float8in and float4in read the numeric's text: too large
		// or so small it would be zero is out of range.
		f, ok := decToFloat(d)
		if ok && to.Family == types.Float4 {
			f32 := float32(f)
			ok = !math.IsInf(float64(f32), 0) || math.IsInf(f, 0)
			f = float64(f32)
		}
		ok = ok && (f != 0 || d.IsZero())
		if !ok {
			return nil, pgerr.New(pgerrcode.NumericValueOutOfRange, "%q is out of range for type %s",
				types.FormatText(d, types.NumericT), typeName(to))
		}
		return f, nil
	case types.Numeric:
		return d, nil
	}
	return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type numeric to %s", typeName(to))
}

// castFromJSONB converts a jsonb scalar to bool or a number.
func castFromJSONB(ctx *Context, s string, to types.T) (any, error) {
	j, err := parseJSON(s)
	if err != nil {
		return nil, err
	}
	want := jsonNumber
	if to.Family == types.Bool {
		want = jsonBool
	}
	if j.kind != want {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "cannot cast jsonb %s to type %s", jsonbKindName(j), typeName(to))
	}
	if want == jsonBool {
		return j.b, nil
	}
	d, _, err := apd.NewFromString(j.str)
	if err != nil {
		return nil, err
	}
	return castFromNumeric(normDec(d), to)
}

// castArray converts arrays (and pgvector's vector, which is a float4
// array) element by element.
func castArray(ctx *Context, v any, from, to types.T, explicit bool) (any, error) {
	a, ok := v.(*types.Array)
	if !ok {
		return v, nil
	}
	fe := types.Float4T
	if from.Family == types.ArrayFamily {
		fe = *from.Elem
	}
	te := types.Float4T
	if to.Family == types.ArrayFamily {
		te = *to.Elem
	}
	if to.Family == types.Vector {
		if len(a.Dims) > 1 {
			return nil, pgerr.New(pgerrcode.DataException, "array must be 1-D")
		}
		for _, e := range a.Elems {
			if e == nil {
				return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "array must not contain nulls")
			}
		}
		// pgvector's CheckDim.
		if len(a.Elems) < 1 {
			return nil, pgerr.New(pgerrcode.DataException, "vector must have at least 1 dimension")
		}
		if len(a.Elems) > types.VectorMaxDim {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "vector cannot have more than %d dimensions", types.VectorMaxDim)
		}
	}
	out := &types.Array{Elem: baseType(te), Dims: append([]int(nil), a.Dims...), Elems: make([]any, len(a.Elems))}
	for i, e := range a.Elems {
		if e == nil {
			continue
		}
		c, err := convert(ctx, e, fe, te, explicit)
		if err != nil {
			return nil, err
		}
		if c, err = types.ApplyTypmod(c, te, explicit); err != nil {
			return nil, err
		}
		if to.Family == types.Vector {
			if f := c.(float64); math.IsNaN(f) {
				return nil, pgerr.New(pgerrcode.DataException, "NaN not allowed in vector")
			} else if math.IsInf(f, 0) {
				return nil, pgerr.New(pgerrcode.DataException, "infinite value not allowed in vector")
			}
		}
		out.Elems[i] = c
	}
	return out, nil
}

// runePrefix is the first n characters of s.
func runePrefix(s string, n int) string {
	i := 0
	for n > 0 && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return s[:i]
}
