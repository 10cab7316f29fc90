package types

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Family is the kind of a type, independent of modifiers and array-ness.
type Family uint8

// The type families. Unknown is an untyped literal or parameter whose type
// is not yet known; Null is the type of a bare NULL. DateFamily,
// TimestampFamily and ArrayFamily carry a suffix because Date, Timestamp
// and Array name the datum types of those families.
const (
	Unknown Family = iota
	Null
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Char
	Bytea
	UUID
	JSON
	JSONB
	DateFamily
	Time
	TimestampFamily
	TimestampTZ
	Interval
	Oid
	Name
	ArrayFamily
	Vector // pgvector's vector(n): stored like float4[]
	Record // an anonymous row, e.g. (embedding, task)
	// The object identifier aliases: an oid whose text form is the
	// object's name (regclass: a relation, regtype: a type, ...). Their
	// datums are oids; casts to and from text look names up in the
	// catalog (functions.Context.Catalog).
	RegClass
	RegType
	RegNamespace
	RegProc
	RegRole
	// InternalChar is PostgreSQL's one-byte "char" (pg_class.relkind,
	// pg_type.typtype, ...), not the SQL char(n) type, which is Char.
	InternalChar
	// JSONPath is the SQL/JSON path type; its datum is the path's
	// canonical text (package jsonpath parses it).
	JSONPath
	// TSVector and TSQuery are full-text search's document and query;
	// their datums are the values' canonical text (package tsearch
	// parses it).
	TSVector
	TSQuery
	// RegConfig is the oid alias of text search configurations.
	RegConfig
	// Inet and CIDR are the IP address types (a host address with an
	// optional netmask, and a network); MacAddr and MacAddr8 the EUI-48
	// and EUI-64 MAC addresses. Their datums are InetValue,
	// MacAddrValue and MacAddr8Value (see network.go).
	Inet
	CIDR
	MacAddr
	MacAddr8
)

// T is a SQL type. The zero value is Unknown. T is a small value type:
// compare with Equal, pass by value.
type T struct {
	Family Family
	// Elem is the element type of an Array (never itself an Array).
	Elem *T
	// Dims is the declared number of dimensions of an Array (1 or 2).
	Dims int
	// Mod is the type modifier: the length of varchar(n) and char(n), the
	// dimension count of vector(n), precision<<16|scale of numeric(p,s);
	// -1 when absent.
	Mod int32
	// Domain is the name of a pg_deeplake domain over the type (EMBEDDING,
	// EMBEDDING_2D, IMAGE, VIDEO, FILE, FILE_ID) or "".
	Domain string
	// Fields are the named fields of a record whose shape is known (the
	// row a set-returning function of several columns returns in a select
	// list); nil for an anonymous record.
	Fields []Field `json:",omitempty"`
	// Enum is the enum a Text type is (see EnumType); nil for plain text
	// and every other type.
	Enum *EnumType `json:",omitempty"`
}

// Field is a named field of a record type.
type Field struct {
	Name string
	T    T
}

// Common types.
var (
	UnknownT      = T{Family: Unknown, Mod: -1}
	NullT         = T{Family: Null, Mod: -1}
	BoolT         = T{Family: Bool, Mod: -1}
	Int2T         = T{Family: Int2, Mod: -1}
	Int4T         = T{Family: Int4, Mod: -1}
	Int8T         = T{Family: Int8, Mod: -1}
	Float4T       = T{Family: Float4, Mod: -1}
	Float8T       = T{Family: Float8, Mod: -1}
	NumericT      = T{Family: Numeric, Mod: -1}
	TextT         = T{Family: Text, Mod: -1}
	VarcharT      = T{Family: Varchar, Mod: -1}
	CharT         = T{Family: Char, Mod: -1}
	ByteaT        = T{Family: Bytea, Mod: -1}
	UUIDT         = T{Family: UUID, Mod: -1}
	JSONT         = T{Family: JSON, Mod: -1}
	JSONBT        = T{Family: JSONB, Mod: -1}
	DateT         = T{Family: DateFamily, Mod: -1}
	TimeT         = T{Family: Time, Mod: -1}
	TimestampT    = T{Family: TimestampFamily, Mod: -1}
	TimestampTZT  = T{Family: TimestampTZ, Mod: -1}
	IntervalT     = T{Family: Interval, Mod: -1}
	OidT          = T{Family: Oid, Mod: -1}
	NameT         = T{Family: Name, Mod: -1}
	InternalCharT = T{Family: InternalChar, Mod: -1}
	JSONPathT     = T{Family: JSONPath, Mod: -1}
	TSVectorT     = T{Family: TSVector, Mod: -1}
	TSQueryT      = T{Family: TSQuery, Mod: -1}
	RegConfigT    = T{Family: RegConfig, Mod: -1}
	RecordT       = T{Family: Record, Mod: -1}
	InetT         = T{Family: Inet, Mod: -1}
	CIDRT         = T{Family: CIDR, Mod: -1}
	MacAddrT      = T{Family: MacAddr, Mod: -1}
	MacAddr8T     = T{Family: MacAddr8, Mod: -1}
	Float4ArrayT  = ArrayOf(Float4T, 1)
)

// ArrayOf returns the array type with the given element type and
// dimension count.
func ArrayOf(elem T, dims int) T {
	e := elem
	e.Domain = ""
	return T{Family: ArrayFamily, Elem: &e, Dims: dims, Mod: -1}
}

// VectorOf returns pgvector's vector(n) type (n <= 0: no fixed dimension).
func VectorOf(n int) T {
	if n <= 0 {
		return T{Family: Vector, Mod: -1}
	}
	return T{Family: Vector, Mod: int32(n)}
}

// Equal reports whether two types are the same, ignoring modifiers and
// domains.
func (t T) Equal(o T) bool {
	if t.Family != o.Family {
		return false
	}
	if t.Family == ArrayFamily {
		return t.Elem.Equal(*o.Elem)
	}
	if t.Enum != nil || o.Enum != nil {
		return t.Enum != nil && o.Enum != nil && t.Enum.OID == o.Enum.OID
	}
	return true
}

// IsArray reports whether t is an array type.
func (t T) IsArray() bool { return t.Family == ArrayFamily }

// IsNumeric reports whether t is a number type.
func (t T) IsNumeric() bool {
	switch t.Family {
	case Int2, Int4, Int8, Float4, Float8, Numeric, Oid:
		return true
	}
	return false
}

// IsInteger reports whether t is an integer type.
func (t T) IsInteger() bool {
	switch t.Family {
	case Int2, Int4, Int8, Oid:
		return true
	}
	return false
}

// IsOID reports whether t is oid or one of its reg* aliases.
func (t T) IsOID() bool {
	switch t.Family {
	case Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		return true
	}
	return false
}

// IsString reports whether t is a string type (text, varchar, char, name,
// "char").
func (t T) IsString() bool {
	switch t.Family {
	case Text, Varchar, Char, Name, InternalChar:
		return true
	}
	return false
}

// IsFloatVector reports whether t holds float4 vectors (float4[] or vector).
func (t T) IsFloatVector() bool {
	return t.Family == Vector || (t.Family == ArrayFamily && t.Elem.Family == Float4)
}

type familyInfo struct {
	oid, arrayOID uint32
	name          string // format_type name
	len           int16  // pg_type.typlen
}

var families = map[Family]familyInfo{
	Unknown:         {705, 0, "unknown", -2},
	Null:            {705, 0, "unknown", -2},
	Bool:            {16, 1000, "boolean", 1},
	Int2:            {21, 1005, "smallint", 2},
	Int4:            {23, 1007, "integer", 4},
	Int8:            {20, 1016, "bigint", 8},
	Float4:          {700, 1021, "real", 4},
	Float8:          {701, 1022, "double precision", 8},
	Numeric:         {1700, 1231, "numeric", -1},
	Text:            {25, 1009, "text", -1},
	Varchar:         {1043, 1015, "character varying", -1},
	Char:            {1042, 1014, "character", -1},
	Bytea:           {17, 1001, "bytea", -1},
	UUID:            {2950, 2951, "uuid", 16},
	JSON:            {114, 199, "json", -1},
	JSONB:           {3802, 3807, "jsonb", -1},
	JSONPath:        {4072, 4073, "jsonpath", -1},
	TSVector:        {3614, 3643, "tsvector", -1},
	TSQuery:         {3615, 3645, "tsquery", -1},
	RegConfig:       {3734, 3735, "regconfig", 4},
	DateFamily:      {1082, 1182, "date", 4},
	Time:            {1083, 1183, "time without time zone", 8},
	TimestampFamily: {1114, 1115, "timestamp without time zone", 8},
	TimestampTZ:     {1184, 1185, "timestamp with time zone", 8},
	Interval:        {1186, 1187, "interval", 16},
	Oid:             {26, 1028, "oid", 4},
	RegClass:        {2205, 2210, "regclass", 4},
	RegType:         {2206, 2211, "regtype", 4},
	RegNamespace:    {4089, 4090, "regnamespace", 4},
	RegProc:         {24, 1008, "regproc", 4},
	RegRole:         {4096, 4097, "regrole", 4},
	Name:            {19, 1003, "name", 64},
	InternalChar:    {18, 1002, `"char"`, 1},
	Record:          {2249, 2287, "record", -1},
	Inet:            {869, 1041, "inet", -1},
	CIDR:            {650, 651, "cidr", -1},
	MacAddr:         {829, 1040, "macaddr", 6},
	MacAddr8:        {774, 775, "macaddr8", 8},
	// pgvector's type has no fixed OID; cairn reports a stable one of its own
	// in the user range.
	Vector: {VectorOID, VectorArrayOID, "vector", -1},
}

// OIDs cairn assigns to types PostgreSQL has no built-in OID for.
const (
	VectorOID       = 16385
	VectorArrayOID  = 16386
	HybridRecordOID = 16387
)

// The internal vector types of PostgreSQL's catalogs (pg_index.indkey):
// 1-D arrays of int2 or oid, written with spaces ("1 3"), with OIDs of
// their own. cairn models them as arrays marked by Domain.
var (
	Int2VectorT = T{Family: ArrayFamily, Elem: &Int2T, Dims: 1, Mod: -1, Domain: "int2vector"}
	OidVectorT  = T{Family: ArrayFamily, Elem: &OidT, Dims: 1, Mod: -1, Domain: "oidvector"}
)

// XidT is PostgreSQL's xid, the type of the system columns xmin and xmax: a
// 32-bit transaction ID written as an unsigned decimal. cairn models it as
// an oid marked by Domain (the same datum, text form and comparisons with
// integers), with xid's own OID and name.
var XidT = T{Family: Oid, Mod: -1, Domain: "xid"}

// CidT is PostgreSQL's cid, the type of the system columns cmin and cmax (a
// command ID within a transaction), modelled as XidT is.
var CidT = T{Family: Oid, Mod: -1, Domain: "cid"}

// VoidT is the result type of a function that returns nothing (RETURNS
// void), whose calls give an empty value; only a function's result has
// it. It is modelled as text marked by Domain, with void's own OID.
var VoidT = T{Family: Text, Mod: -1, Domain: "void"}

// The pg_type OIDs of xid, cid and void.
const (
	XidOID  = 28
	CidOID  = 29
	VoidOID = 2278
)

// IsCatalogVector reports whether t is int2vector or oidvector.
func (t T) IsCatalogVector() bool {
	return t.Family == ArrayFamily && (t.Domain == "int2vector" || t.Domain == "oidvector")
}

// OID is the pg_type OID clients see for t.
func (t T) OID() uint32 {
	switch {
	case t.Domain == "int2vector" && t.Family == ArrayFamily:
		return 22
	case t.Domain == "oidvector" && t.Family == ArrayFamily:
		return 30
	case t.Domain == "xid" && t.Family == Oid:
		return XidOID
	case t.Domain == "cid" && t.Family == Oid:
		return CidOID
	case t.Domain == "void" && t.Family == Text:
		return VoidOID
	}
	if t.Family == ArrayFamily {
		if t.Elem.Enum != nil {
			return t.Elem.Enum.ArrayOID
		}
		return families[t.Elem.Family].arrayOID
	}
	if t.Enum != nil {
		return t.Enum.OID
	}
	return families[t.Family].oid
}

// TypLen is pg_type.typlen: the fixed byte size, -1 for varlena.
func (t T) TypLen() int16 {
	if t.Family == ArrayFamily {
		return -1
	}
	if t.Enum != nil {
		return 4
	}
	return families[t.Family].len
}

// String is the type as format_type prints it, e.g. "character varying(20)"
// or "real[]".
func (t T) String() string {
	if t.Domain != "" {
		return strings.ToLower(t.Domain)
	}
	if t.Enum != nil {
		return t.Enum.QualifiedName()
	}
	switch t.Family {
	case ArrayFamily:
		return t.Elem.String() + "[]"
	case Varchar, Char:
		if t.Mod >= 0 {
			return fmt.Sprintf("%s(%d)", families[t.Family].name, t.Mod)
		}
	case Numeric:
		if t.Mod >= 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Mod>>16, t.Mod&0xffff)
		}
	case Vector:
		if t.Mod > 0 {
			return fmt.Sprintf("vector(%d)", t.Mod)
		}
	case Interval:
		return intervalTypeName(t.Mod)
	case Time, TimestampFamily, TimestampTZ:
		if t.Mod >= 0 {
			// "timestamp(3) with time zone"
			name := families[t.Family].name
			at := strings.IndexByte(name, ' ')
			return fmt.Sprintf("%s(%d)%s", name[:at], t.Mod, name[at:])
		}
	}
	return families[t.Family].name
}

// ByOID returns the type with the given OID; ok is false for an OID cairn
// does not know.
func ByOID(oid uint32) (T, bool) {
	switch oid {
	case XidOID:
		return XidT, true
	case CidOID:
		return CidT, true
	case 22:
		return Int2VectorT, true
	case 30:
		return OidVectorT, true
	}
	for f, info := range families {
		if f == Null {
			continue
		}
		if info.oid == oid {
			return T{Family: f, Mod: -1}, true
		}
		if info.arrayOID == oid && info.arrayOID != 0 && f != Vector && f != Record {
			return ArrayOf(T{Family: f, Mod: -1}, 1), true
		}
	}
	return UnknownT, false
}

// Arrow is the Arrow data type of a column of t.
func (t T) Arrow() arrow.DataType {
	switch t.Family {
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int2:
		return arrow.PrimitiveTypes.Int16
	case Int4:
		return arrow.PrimitiveTypes.Int32
	case Int8:
		return arrow.PrimitiveTypes.Int64
	case Oid, RegClass, RegType, RegNamespace, RegProc, RegRole, RegConfig:
		return arrow.PrimitiveTypes.Uint32
	case Float4:
		return arrow.PrimitiveTypes.Float32
	case Float8:
		return arrow.PrimitiveTypes.Float64
	case Bytea:
		return arrow.BinaryTypes.Binary
	case UUID:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}
	case DateFamily:
		return arrow.FixedWidthTypes.Date32
	case Time:
		return arrow.FixedWidthTypes.Time64us
	case TimestampFamily:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case TimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case Interval:
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	case Vector:
		return arrow.ListOf(arrow.PrimitiveTypes.Float32)
	case ArrayFamily:
		var dt arrow.DataType = t.Elem.Arrow()
		for i := 0; i < max(t.Dims, 1); i++ {
			dt = arrow.ListOf(dt)
		}
		return dt
	case Null, Unknown:
		return arrow.Null
	default:
		// numeric (exact decimal text), text, varchar, char, json, jsonb,
		// name, record, inet, cidr, macaddr, macaddr8 (canonical text)
		return arrow.BinaryTypes.String
	}
}

// Named looks up a type by the name a user writes in DDL or a cast
// (already lower-cased, without modifiers or array brackets): "int",
// "float4", "timestamptz", "embedding", ...
func Named(name string) (T, bool) {
	switch name {
	case "bool", "boolean":
		return BoolT, true
	case "int2", "smallint", "smallserial", "serial2":
		return Int2T, true
	case "int4", "int", "integer", "serial", "serial4":
		return Int4T, true
	case "int8", "bigint", "bigserial", "serial8":
		return Int8T, true
	case "float4", "real":
		return Float4T, true
	case "float8", "double precision", "float":
		return Float8T, true
	case "numeric", "decimal":
		return NumericT, true
	case "text":
		return TextT, true
	case "varchar", "character varying":
		return VarcharT, true
	case "bpchar", "char", "character":
		return CharT, true
	case `"char"`:
		return InternalCharT, true
	case "bytea":
		return ByteaT, true
	case "uuid":
		return UUIDT, true
	case "json":
		return JSONT, true
	case "jsonb":
		return JSONBT, true
	case "jsonpath":
		return JSONPathT, true
	case "tsvector":
		return TSVectorT, true
	case "tsquery":
		return TSQueryT, true
	case "regconfig":
		return RegConfigT, true
	case "date":
		return DateT, true
	case "time", "time without time zone":
		return TimeT, true
	case "timestamp", "timestamp without time zone":
		return TimestampT, true
	case "timestamptz", "timestamp with time zone":
		return TimestampTZT, true
	case "interval":
		return IntervalT, true
	case "oid":
		return OidT, true
	case "xid":
		return XidT, true
	case "cid":
		return CidT, true
	case "int2vector":
		return Int2VectorT, true
	case "oidvector":
		return OidVectorT, true
	case "regclass":
		return T{Family: RegClass, Mod: -1}, true
	case "regtype":
		return T{Family: RegType, Mod: -1}, true
	case "regnamespace":
		return T{Family: RegNamespace, Mod: -1}, true
	case "regproc", "regprocedure":
		return T{Family: RegProc, Mod: -1}, true
	case "regrole":
		return T{Family: RegRole, Mod: -1}, true
	case "name":
		return NameT, true
	case "vector":
		return VectorOf(0), true
	case "record":
		return RecordT, true
	case "inet":
		return InetT, true
	case "cidr":
		return CIDRT, true
	case "macaddr":
		return MacAddrT, true
	case "macaddr8":
		return MacAddr8T, true
	case "embedding":
		t := Float4ArrayT
		t.Domain = "EMBEDDING"
		return t, true
	case "embedding_2d":
		t := ArrayOf(Float4T, 2)
		t.Domain = "EMBEDDING_2D"
		return t, true
	case "image", "video", "file":
		t := ByteaT
		t.Domain = strings.ToUpper(name)
		return t, true
	case "file_id":
		t := UUIDT
		t.Domain = "FILE_ID"
		return t, true
	}
	return UnknownT, false
}

// IsSerial reports whether a DDL type name is a serial pseudo-type, which
// creates a sequence and a nextval default.
func IsSerial(name string) bool {
	switch name {
	case "serial", "serial4", "bigserial", "serial8", "smallserial", "serial2":
		return true
	}
	return false
}
