package types

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types/jsonpath"
	"github.com/cairn-db/cairn/sql/types/tsearch"
	"github.com/jackc/pgerrcode"
)

// EncodeBinary appends v's PostgreSQL binary wire format (the typsend
// output, without the int32 length word that precedes a value in a
// DataRow) to buf. v must not be nil: NULL is the caller's -1 length.
func EncodeBinary(buf []byte, v any, t T) ([]byte, error) {
	if v == nil {
		return buf, pgerr.New(pgerrcode.InternalError, "cannot encode NULL as a %s value", t)
	}
	switch t.Family {
	case Bool:
		b, ok := v.(bool)
		if !ok {
			break
		}
		if b {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case Int2:
		i, ok := toInt64(v)
		if !ok {
			break
		}
		if i < math.MinInt16 || i > math.MaxInt16 {
			return buf, pgerr.New(pgerrcode.NumericValueOutOfRange, "smallint out of range")
		}
		return binary.BigEndian.AppendUint16(buf, uint16(i)), nil
	case Int4:
		i, ok := toInt64(v)
		if !ok {
			break
		}
		if i < math.MinInt32 || i > math.MaxInt32 {
			return buf, pgerr.New(pgerrcode.NumericValueOutOfRange, "integer out of range")
		}
		return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
	case Int8:
		i, ok := toInt64(v)
		if !ok {
			break
		}
		return binary.BigEndian.AppendUint64(buf, uint64(i)), nil
	case Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		i, ok := toInt64(v)
		if !ok {
			break
		}
		if i < math.MinInt32 || i > math.MaxUint32 {
			return buf, pgerr.New(pgerrcode.NumericValueOutOfRange, "OID out of range")
		}
		return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
	case Float4:
		f, ok := toFloat(v)
		if !ok {
			break
		}
		if f != f {
			return binary.BigEndian.AppendUint32(buf, 0x7fc00000), nil
		}
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
	case Float8:
		f, ok := toFloat(v)
		if !ok {
			break
		}
		if f != f {
			return binary.BigEndian.AppendUint64(buf, 0x7ff8000000000000), nil
		}
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(f)), nil
	case Numeric:
		d, ok := toDecimal(v)
		if !ok {
			break
		}
		return appendNumericBinary(buf, d), nil
	case InternalChar:
		// Always one byte, as PostgreSQL's charsend writes: "" is NUL.
		if s, ok := v.(string); ok {
			if s == "" {
				return append(buf, 0), nil
			}
			return append(buf, s[0]), nil
		}
	case Text, Varchar, Char, Name, JSON, Unknown:
		switch x := v.(type) {
		case string:
			return append(buf, x...), nil
		case []byte:
			return append(buf, x...), nil
		}
	case TSVector:
		if s, ok := v.(string); ok {
			tv, err := tsearch.ParseVector(s)
			if err != nil {
				return buf, err
			}
			return tv.AppendBinary(buf), nil
		}
	case TSQuery:
		if s, ok := v.(string); ok {
			q, err := tsearch.ParseQuery(s)
			if err != nil {
				return buf, err
			}
			return q.AppendBinary(buf), nil
		}
	case JSONB, JSONPath:
		switch x := v.(type) {
		case string:
			return append(append(buf, 1), x...), nil
		case []byte:
			return append(append(buf, 1), x...), nil
		}
	case Bytea:
		switch x := v.(type) {
		case []byte:
			return append(buf, x...), nil
		case string:
			return append(buf, x...), nil
		}
	case UUID:
		u, ok := toUUID(v)
		if !ok {
			break
		}
		return append(buf, u[:]...), nil
	case Inet, CIDR, MacAddr, MacAddr8:
		if out, ok := encodeNetBinary(buf, v, t); ok {
			return out, nil
		}
	case DateFamily:
		d, ok := toDate(v)
		if !ok {
			break
		}
		if !d.IsInfinite() {
			d -= pgEpochDays
		}
		return binary.BigEndian.AppendUint32(buf, uint32(d)), nil
	case Time:
		tod, ok := toTimeOfDay(v)
		if !ok {
			break
		}
		return binary.BigEndian.AppendUint64(buf, uint64(tod)), nil
	case TimestampFamily, TimestampTZ:
		ts, ok := toTimestamp(v)
		if !ok {
			break
		}
		if !ts.IsInfinite() {
			ts -= Timestamp(pgEpochMicros)
		}
		return binary.BigEndian.AppendUint64(buf, uint64(ts)), nil
	case Interval:
		iv, ok := toInterval(v)
		if !ok {
			break
		}
		buf = binary.BigEndian.AppendUint64(buf, uint64(iv.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(iv.Months)), nil
	case ArrayFamily:
		switch x := v.(type) {
		case *Array:
			elem := x.Elem
			if elem.Family == Unknown && t.Elem != nil {
				elem = *t.Elem
			}
			return appendArrayBinary(buf, x, elem)
		case []float32:
			return AppendFloat32sBinary(buf, x, t), nil
		}
	case Vector:
		switch x := v.(type) {
		case *Array:
			xs, ok := x.Float32s()
			if !ok {
				return buf, pgerr.New(pgerrcode.DataException, "vector elements must not be NULL")
			}
			return AppendFloat32sBinary(buf, xs, t), nil
		case []float32:
			return AppendFloat32sBinary(buf, x, t), nil
		}
	case Record:
		if r, ok := v.([]any); ok {
			var fieldTypes []T
			for _, f := range t.Fields {
				fieldTypes = append(fieldTypes, f.T)
			}
			return AppendRecordBinary(buf, r, fieldTypes)
		}
	}
	return buf, pgerr.New(pgerrcode.DatatypeMismatch, "cannot encode Go value of type %T as %s", v, t)
}

func appendArrayBinary(buf []byte, a *Array, elem T) ([]byte, error) {
	ndim := len(a.Dims)
	if len(a.Elems) == 0 {
		ndim = 0
	}
	hasNull := uint32(0)
	for _, e := range a.Elems {
		if e == nil {
			hasNull = 1
			break
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(ndim))
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, elem.OID())
	n := 1
	for i := 0; i < ndim; i++ {
		buf = binary.BigEndian.AppendUint32(buf, uint32(a.Dims[i]))
		buf = binary.BigEndian.AppendUint32(buf, 1)
		n *= a.Dims[i]
	}
	if ndim == 0 {
		return buf, nil
	}
	if n != len(a.Elems) {
		return buf, pgerr.New(pgerrcode.InternalError, "array dimensions %v do not match its %d elements", a.Dims, len(a.Elems))
	}
	for _, e := range a.Elems {
		if e == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		buf, err = EncodeBinary(buf, e, elem)
		if err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// AppendRecordBinary appends record_send's format of a row: the column
// count, then each column's type OID, length and binary value. types gives
// the field types (nil or short: inferred with TypeOfValue).
func AppendRecordBinary(buf []byte, fields []any, types []T) ([]byte, error) {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for i, f := range fields {
		t := TypeOfValue(f)
		if i < len(types) {
			t = types[i]
		}
		if t.Family == Unknown {
			t = TextT
		}
		buf = binary.BigEndian.AppendUint32(buf, t.OID())
		if f == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		if s, isText := f.(string); isText && !t.IsString() {
			// A record read back from a column keeps its fields as text.
			v, err := ParseText(s, t)
			if err != nil {
				return buf, err
			}
			f = v
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		buf, err = EncodeBinary(buf, f, t)
		if err != nil {
			return buf, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// DecodeBinary reads a value of type t in PostgreSQL's binary format (the
// typreceive input, without a length word). Malformed input is an 08P01
// "insufficient data left in message" or a 22P03 error, never a panic.
// The type's modifier is not applied (see ApplyTypmod).
func DecodeBinary(src []byte, t T) (any, error) {
	return decodeBinary(src, t, 0)
}

// fixedLen checks the length of a fixed-size value. elem > 0 is the
// 1-based array element being read.
func fixedLen(src []byte, n, elem int) error {
	if len(src) < n {
		return errInsufficient()
	}
	if len(src) > n {
		if elem > 0 {
			return errBinaryMsg("improper binary format in array element %d", elem)
		}
		return errBinaryFormat()
	}
	return nil
}

// CheckText verifies that src is valid UTF-8 without NUL bytes, as
// PostgreSQL requires of text in a UTF8 database; the error (22021) names
// the offending bytes.
func CheckText(src []byte) error {
	for i := 0; i < len(src); {
		c := src[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if c == 0 || (r == utf8.RuneError && size <= 1) {
			n := mbLen(string(src), i)
			if n == 0 {
				n = 1
			}
			msg := ""
			for k := 0; k < n; k++ {
				if k > 0 {
					msg += " "
				}
				msg += fmt.Sprintf("0x%02x", src[i+k])
			}
			return pgerr.New(pgerrcode.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", msg)
		}
		i += size
	}
	return nil
}

func decodeBinary(src []byte, t T, elem int) (any, error) {
	switch t.Family {
	case Bool:
		if err := fixedLen(src, 1, elem); err != nil {
			return nil, err
		}
		return src[0] != 0, nil
	case Int2:
		if err := fixedLen(src, 2, elem); err != nil {
			return nil, err
		}
		return int64(int16(binary.BigEndian.Uint16(src))), nil
	case Int4:
		if err := fixedLen(src, 4, elem); err != nil {
			return nil, err
		}
		return int64(int32(binary.BigEndian.Uint32(src))), nil
	case Int8:
		if err := fixedLen(src, 8, elem); err != nil {
			return nil, err
		}
		return int64(binary.BigEndian.Uint64(src)), nil
	case Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		if err := fixedLen(src, 4, elem); err != nil {
			return nil, err
		}
		return int64(binary.BigEndian.Uint32(src)), nil
	case Float4:
		if err := fixedLen(src, 4, elem); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(src))), nil
	case Float8:
		if err := fixedLen(src, 8, elem); err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(src)), nil
	case Numeric:
		d, err := decodeNumericBinary(src)
		if err != nil {
			if pe := pgerr.From(err); elem > 0 && pe.Message == errBinaryFormat().Message {
				// Bytes left over after the digits.
				return nil, errBinaryMsg("improper binary format in array element %d", elem)
			}
			return nil, err
		}
		return d, nil
	case Text, Varchar, Char, Unknown:
		if err := CheckText(src); err != nil {
			return nil, err
		}
		if t.Enum != nil {
			// An enum's binary form is its label (enum_recv), which must
			// be one of the type's, as a text value's must.
			if err := CheckEnumLabel(t.Enum, string(src)); err != nil {
				return nil, err
			}
		}
		return string(src), nil
	case Name:
		if err := CheckText(src); err != nil {
			return nil, err
		}
		return ClipName(string(src)), nil
	case InternalChar:
		// One byte, as PostgreSQL's charrecv reads; the NUL byte is "".
		if err := fixedLen(src, 1, elem); err != nil {
			return nil, err
		}
		if src[0] == 0 {
			return "", nil
		}
		return string(src), nil
	case JSON:
		if err := CheckText(src); err != nil {
			return nil, err
		}
		s := string(src)
		if err := ValidateJSON(s); err != nil {
			return nil, err
		}
		return s, nil
	case TSVector:
		tv, err := tsearch.DecodeVector(src)
		if err != nil {
			return nil, err
		}
		// Lexemes are text: invalid UTF-8 is 22021, as pq_getmsgstring
		// makes it in tsvectorrecv.
		for _, l := range tv {
			if err := CheckText([]byte(l.Word)); err != nil {
				return nil, err
			}
		}
		return tv.String(), nil
	case TSQuery:
		q, err := tsearch.DecodeQuery(src)
		if err != nil {
			return nil, err
		}
		for stack := []*tsearch.Node{q.Root}; len(stack) > 0; {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == nil {
				continue
			}
			if err := CheckText([]byte(n.Word)); err != nil {
				return nil, err
			}
			stack = append(stack, n.L, n.R)
		}
		return q.String(), nil
	case JSONB, JSONPath:
		if len(src) < 1 {
			return nil, errInsufficient()
		}
		if src[0] != 1 {
			return nil, errBinaryMsg("unsupported %s version number %d", t.String(), src[0])
		}
		if err := CheckText(src[1:]); err != nil {
			return nil, err
		}
		if t.Family == JSONPath {
			return jsonpath.Normalize(string(src[1:]))
		}
		return NormalizeJSONB(string(src[1:]))
	case Bytea:
		return append([]byte{}, src...), nil
	case UUID:
		if err := fixedLen(src, 16, elem); err != nil {
			return nil, err
		}
		var u [16]byte
		copy(u[:], src)
		return u, nil
	case Inet, CIDR, MacAddr, MacAddr8:
		return decodeNetBinary(src, t, elem)
	case DateFamily:
		if err := fixedLen(src, 4, elem); err != nil {
			return nil, err
		}
		d := int32(binary.BigEndian.Uint32(src))
		if Date(d).IsInfinite() {
			return Date(d), nil
		}
		r := Date(int64(d) + pgEpochDays)
		if int64(d)+pgEpochDays < int64(minDate) || int64(d)+pgEpochDays >= int64(endDate) {
			return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "date out of range")
		}
		return r, nil
	case Time:
		if err := fixedLen(src, 8, elem); err != nil {
			return nil, err
		}
		us := int64(binary.BigEndian.Uint64(src))
		if us < 0 || us > MicrosPerDay {
			return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "time out of range")
		}
		return TimeOfDay(us), nil
	case TimestampFamily, TimestampTZ:
		if err := fixedLen(src, 8, elem); err != nil {
			return nil, err
		}
		us := Timestamp(binary.BigEndian.Uint64(src))
		if us.IsInfinite() {
			return us, nil
		}
		if us < minTimestamp-Timestamp(pgEpochMicros) || us >= endTimestamp-Timestamp(pgEpochMicros) {
			return nil, pgerr.New(pgerrcode.DatetimeFieldOverflow, "timestamp out of range")
		}
		return us + Timestamp(pgEpochMicros), nil
	case Interval:
		if err := fixedLen(src, 16, elem); err != nil {
			return nil, err
		}
		return IntervalValue{
			Micros: int64(binary.BigEndian.Uint64(src)),
			Days:   int32(binary.BigEndian.Uint32(src[8:])),
			Months: int32(binary.BigEndian.Uint32(src[12:])),
		}, nil
	case ArrayFamily:
		elemT := UnknownT
		if t.Elem != nil {
			elemT = *t.Elem
		}
		return decodeArrayBinary(src, elemT)
	case Vector:
		return decodeVectorBinary(src, elem)
	case Record:
		return decodeRecordBinary(src)
	}
	return nil, pgerr.New(pgerrcode.FeatureNotSupported, "binary input for type %s is not supported", t)
}

// maxArraySize is MaxArraySize.
const maxArraySize = (1<<30 - 1) / 8

func decodeArrayBinary(src []byte, elem T) (any, error) {
	if len(src) < 12 {
		return nil, errInsufficient()
	}
	ndim := int32(binary.BigEndian.Uint32(src))
	flags := int32(binary.BigEndian.Uint32(src[4:]))
	elemOID := binary.BigEndian.Uint32(src[8:])
	if ndim < 0 {
		return nil, errBinaryMsg("invalid number of dimensions: %d", ndim)
	}
	if ndim > MaxArrayDims {
		return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim, MaxArrayDims)
	}
	if flags != 0 && flags != 1 {
		return nil, errBinaryMsg("invalid array flags")
	}
	if elem.Family == Unknown || elem.Family == Null {
		e, ok := ByOID(elemOID)
		if !ok || e.Family == ArrayFamily {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "wrong element type")
		}
		elem = e
	} else if elemOID != elem.OID() {
		got := "???"
		if e, ok := ByOID(elemOID); ok {
			got = e.String()
		}
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			elemOID, got, elem.OID(), elem)
	}
	p := src[12:]
	if len(p) < 8*int(ndim) {
		return nil, errInsufficient()
	}
	dims := make([]int, ndim)
	lbs := make([]int32, ndim)
	nitems := int64(1)
	for i := range dims {
		d := int32(binary.BigEndian.Uint32(p))
		lbs[i] = int32(binary.BigEndian.Uint32(p[4:]))
		p = p[8:]
		if d < 0 {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArraySize)
		}
		dims[i] = int(d)
		nitems *= int64(d)
		if nitems > maxArraySize {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArraySize)
		}
	}
	// ArrayCheckBounds, after the size as in array_recv: a dimension's
	// length plus its lower bound must fit an int32.
	for i, lb := range lbs {
		if int64(lb)+int64(dims[i]) > math.MaxInt32 {
			return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "array lower bound is too large: %d", lb)
		}
	}
	if ndim == 0 || nitems == 0 {
		if len(p) != 0 {
			return nil, errBinaryFormat()
		}
		return &Array{Elem: elem}, nil
	}
	// Each element takes at least its 4-byte length word: the capacity
	// is bounded by the payload, whatever nitems claims.
	elems := make([]any, 0, min(nitems, int64(len(p)/4)))
	for i := 0; int64(i) < nitems; i++ {
		if len(p) < 4 {
			// As pq_getmsgint reading the length word.
			return nil, errInsufficient()
		}
		n := int32(binary.BigEndian.Uint32(p))
		p = p[4:]
		if n == -1 {
			elems = append(elems, nil)
			continue
		}
		if n < -1 || int(n) > len(p) {
			return nil, errBinaryMsg("insufficient data left in message")
		}
		v, err := decodeBinary(p[:n], elem, i+1)
		if err != nil {
			return nil, err
		}
		elems = append(elems, v)
		p = p[n:]
	}
	if len(p) != 0 {
		return nil, errBinaryFormat()
	}
	return &Array{Elem: elem, Dims: dims, Elems: elems}, nil
}

func decodeVectorBinary(src []byte, elem int) (any, error) {
	if len(src) < 4 {
		return nil, errInsufficient()
	}
	dim := int(int16(binary.BigEndian.Uint16(src)))
	unused := int(int16(binary.BigEndian.Uint16(src[2:])))
	if dim < 1 {
		return nil, pgerr.New(pgerrcode.DataException, "vector must have at least 1 dimension")
	}
	if dim > VectorMaxDim {
		return nil, pgerr.New(pgerrcode.ProgramLimitExceeded, "vector cannot have more than %d dimensions", VectorMaxDim)
	}
	if unused != 0 {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "expected unused to be 0, not %d", unused)
	}
	if err := fixedLen(src, 4+4*dim, elem); err != nil {
		return nil, err
	}
	elems := make([]any, dim)
	for i := range elems {
		f := math.Float32frombits(binary.BigEndian.Uint32(src[4+4*i:]))
		if f != f {
			return nil, pgerr.New(pgerrcode.DataException, "NaN not allowed in vector")
		}
		if math.IsInf(float64(f), 0) {
			return nil, pgerr.New(pgerrcode.DataException, "infinite value not allowed in vector")
		}
		elems[i] = float64(f)
	}
	return &Array{Elem: Float4T, Dims: []int{dim}, Elems: elems}, nil
}

func decodeRecordBinary(src []byte) (any, error) {
	if len(src) < 4 {
		return nil, errInsufficient()
	}
	n := int32(binary.BigEndian.Uint32(src))
	p := src[4:]
	if n < 0 || int(n) > len(p)/8 {
		return nil, errInsufficient()
	}
	fields := make([]any, n)
	for i := range fields {
		if len(p) < 8 {
			return nil, errInsufficient()
		}
		oid := binary.BigEndian.Uint32(p)
		l := int32(binary.BigEndian.Uint32(p[4:]))
		p = p[8:]
		if l == -1 {
			continue
		}
		if l < -1 || int(l) > len(p) {
			return nil, errBinaryMsg("insufficient data left in message")
		}
		ft, ok := ByOID(oid)
		if !ok {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "binary data has type %d instead of expected record field type", oid)
		}
		v, err := decodeBinary(p[:l], ft, 0)
		if err != nil {
			return nil, err
		}
		fields[i] = v
		p = p[l:]
	}
	if len(p) != 0 {
		return nil, errBinaryFormat()
	}
	return fields, nil
}

// ReceiveFloat4s appends the elements of f, a real[] in binary form, to
// dst when it is one-dimensional, with lower bound 1, at least one element
// and no NULLs: the shape of an embedding, decoded without boxing each
// element. Anything else (ok false) is left to DecodeBinary, which gives
// the error or the general *Array.
func ReceiveFloat4s(dst []float32, f []byte) (_ []float32, ok bool) {
	be := binary.BigEndian
	if len(f) < 20 || be.Uint32(f) != 1 || be.Uint32(f[4:]) != 0 || be.Uint32(f[8:]) != Float4T.OID() || be.Uint32(f[16:]) != 1 {
		return dst, false
	}
	n := int(be.Uint32(f[12:]))
	if n < 1 || len(f) != 20+8*n {
		return dst, false
	}
	// Each element is a length (4, big endian) and the float's bits (big
	// endian): one little-endian load of 8 bytes checks the one and swaps
	// the other.
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	out, body := dst[start:], f[20:]
	for k := range out {
		w := binary.LittleEndian.Uint64(body)
		body = body[8:]
		if uint32(w) != 0x04000000 {
			return dst[:start], false
		}
		out[k] = math.Float32frombits(bits.ReverseBytes32(uint32(w >> 32)))
	}
	return dst, true
}

// AppendFloat32sBinary appends the binary format of a float vector: for
// vector pgvector's (int16 dimension, int16 0, float4s), else a
// one-dimensional float4[] with element OID 700.
func AppendFloat32sBinary(dst []byte, xs []float32, t T) []byte {
	if t.Family == Vector {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(xs)))
		dst = append(dst, 0, 0)
		for _, x := range xs {
			dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
		}
		return dst
	}
	if len(xs) == 0 {
		dst = binary.BigEndian.AppendUint32(dst, 0)
		dst = binary.BigEndian.AppendUint32(dst, 0)
		return binary.BigEndian.AppendUint32(dst, Float4T.OID())
	}
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, 0)
	dst = binary.BigEndian.AppendUint32(dst, Float4T.OID())
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(xs)))
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = growBytes(dst, 8*len(xs))
	for _, x := range xs {
		dst = append(dst, 0, 0, 0, 4)
		dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

// AppendFloat32sText appends the text format of a float vector: [1,2.5]
// for vector, {1,2.5} for float4[] (with extra_float_digits 1).
func AppendFloat32sText(dst []byte, xs []float32, t T) []byte {
	return appendFloat32sText(dst, xs, t, FloatStyle{})
}

// appendFloat32sText is AppendFloat32sText with float4[] elements printed
// in style fs. A vector's elements are always the shortest exact text, as
// pgvector's vector_out prints them whatever extra_float_digits says.
func appendFloat32sText(dst []byte, xs []float32, t T, fs FloatStyle) []byte {
	open, close := byte('{'), byte('}')
	if t.Family == Vector {
		open, close = '[', ']'
		fs = FloatStyle{}
	}
	dst = append(dst, open)
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendFloatStyle(dst, float64(x), 32, fs)
	}
	return append(dst, close)
}

func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		return nb
	}
	return b
}
