package syscat

import (
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// opClass is a row of pg_opclass: an index method's operator class for a
// key type. Schema tools read an index's keys through pg_index.indclass
// joined to it (drizzle-kit's introspection drops an index whose classes
// it cannot join, then creates it again on every push).
type opClass struct {
	oid     int64
	method  string // pg_am.amname
	name    string
	inType  int64 // opcintype
	family  int64 // opcfamily
	keyType int64 // opckeytype (0: the input type)
	def     bool  // opcdefault
}

// anyElementOID is the key type of gin's array_ops, anyenumOID the input
// type of enum_ops (procs.go has the other pseudo-types' OIDs).
const (
	anyElementOID = 2283
	anyenumOID    = 3500
)

// opClasses are the operator classes of the methods and types cairn has.
// PostgreSQL's own carry PostgreSQL 15's OIDs (initdb assigns the same
// ones in every cluster); pgvector's and pg_trgm's are extension objects,
// whose OIDs differ from one database to the next, and are hashed from
// their names here. All are in pg_catalog, built in as cairn's extensions
// are: pg_dump dumps an operator class of another schema that is no
// extension's member.
var opClasses = func() []opClass {
	vector := int64(types.VectorOf(0).OID())
	ext := func(method, name string, inType int64, def bool) opClass {
		return opClass{hashOID("opc:" + method + "." + name), method, name, inType,
			hashOID("opf:" + method + "." + name), 0, def}
	}
	return []opClass{
		{10000, "btree", "array_ops", anyarrayOID, 397, 0, true},
		{10003, "btree", "bool_ops", 16, 424, 0, true},
		{10004, "btree", "bpchar_ops", 1042, 426, 0, true},
		{4219, "btree", "bpchar_pattern_ops", 1042, 2097, 0, false},
		{10006, "btree", "bytea_ops", 17, 428, 0, true},
		{10007, "btree", "char_ops", 18, 429, 0, true},
		{3122, "btree", "date_ops", 1082, 434, 0, true},
		{10012, "btree", "float4_ops", 700, 1970, 0, true},
		{3123, "btree", "float8_ops", 701, 1970, 0, true},
		{1979, "btree", "int2_ops", 21, 1976, 0, true},
		{1978, "btree", "int4_ops", 23, 1976, 0, true},
		{3124, "btree", "int8_ops", 20, 1976, 0, true},
		{10022, "btree", "interval_ops", 1186, 1982, 0, true},
		{10069, "btree", "enum_ops", anyenumOID, 3522, 0, true},
		{10088, "btree", "jsonb_ops", 3802, 4033, 0, true},
		{10028, "btree", "name_ops", 19, 1994, cstringOID, true},
		{3125, "btree", "numeric_ops", 1700, 1988, 0, true},
		{1981, "btree", "oid_ops", 26, 1989, 0, true},
		{10032, "btree", "oidvector_ops", 30, 1991, 0, true},
		{10034, "btree", "record_ops", 2249, 2994, 0, true},
		{3126, "btree", "text_ops", 25, 1994, 0, true},
		{4217, "btree", "text_pattern_ops", 25, 2095, 0, false},
		{10038, "btree", "time_ops", 1083, 1996, 0, true},
		{3128, "btree", "timestamp_ops", 1114, 434, 0, true},
		{3127, "btree", "timestamptz_ops", 1184, 434, 0, true},
		{10074, "btree", "tsquery_ops", 3615, 3683, 0, true},
		{10071, "btree", "tsvector_ops", 3614, 3626, 0, true},
		{10065, "btree", "uuid_ops", 2950, 2968, 0, true},
		{10015, "btree", "inet_ops", 869, 1974, 0, true},
		{10009, "btree", "cidr_ops", 869, 1974, 0, false},
		{10024, "btree", "macaddr_ops", 829, 1984, 0, true},
		{10026, "btree", "macaddr8_ops", 774, 3371, 0, true},
		{10044, "btree", "varchar_ops", 25, 1994, 0, false},
		{4218, "btree", "varchar_pattern_ops", 25, 2095, 0, false},

		{10001, "hash", "array_ops", anyarrayOID, 627, 0, true},
		{10048, "hash", "bool_ops", 16, 2222, 0, true},
		{10005, "hash", "bpchar_ops", 1042, 427, 0, true},
		{10049, "hash", "bytea_ops", 17, 2223, 0, true},
		{10008, "hash", "char_ops", 18, 431, 0, true},
		{10011, "hash", "date_ops", 1082, 435, 0, true},
		{10013, "hash", "float4_ops", 700, 1971, 0, true},
		{10014, "hash", "float8_ops", 701, 1971, 0, true},
		{10019, "hash", "int2_ops", 21, 1977, 0, true},
		{10020, "hash", "int4_ops", 23, 1977, 0, true},
		{10021, "hash", "int8_ops", 20, 1977, 0, true},
		{10023, "hash", "interval_ops", 1186, 1983, 0, true},
		{10070, "hash", "enum_ops", anyenumOID, 3523, 0, true},
		{10089, "hash", "jsonb_ops", 3802, 4034, 0, true},
		{10029, "hash", "name_ops", 19, 1995, 0, true},
		{10030, "hash", "numeric_ops", 1700, 1998, 0, true},
		{10031, "hash", "oid_ops", 26, 1990, 0, true},
		{10033, "hash", "oidvector_ops", 30, 1992, 0, true},
		{10035, "hash", "record_ops", 2249, 6194, 0, true},
		{10037, "hash", "text_ops", 25, 1995, 0, true},
		{10039, "hash", "time_ops", 1083, 1997, 0, true},
		{10046, "hash", "timestamp_ops", 1114, 2040, 0, true},
		{10040, "hash", "timestamptz_ops", 1184, 1999, 0, true},
		{10066, "hash", "uuid_ops", 2950, 2969, 0, true},
		{10016, "hash", "inet_ops", 869, 1975, 0, true},
		{10010, "hash", "cidr_ops", 869, 1975, 0, false},
		{10025, "hash", "macaddr_ops", 829, 1985, 0, true},
		{10027, "hash", "macaddr8_ops", 774, 3372, 0, true},
		{10045, "hash", "varchar_ops", 25, 1995, 0, false},

		{10064, "gin", "array_ops", anyarrayOID, 2745, anyElementOID, true},
		{10090, "gin", "jsonb_ops", 3802, 4036, 25, true},
		{10091, "gin", "jsonb_path_ops", 3802, 4037, 23, false},
		{10073, "gin", "tsvector_ops", 3614, 3659, 25, true},

		ext("ivfflat", catalog.OpClassL2, vector, true),
		ext("ivfflat", catalog.OpClassIP, vector, false),
		ext("ivfflat", catalog.OpClassCosine, vector, false),
		ext("hnsw", catalog.OpClassL2, vector, false),
		ext("hnsw", catalog.OpClassIP, vector, false),
		ext("hnsw", catalog.OpClassCosine, vector, false),
		ext("hnsw", catalog.OpClassL1, vector, false),
		ext("gin", catalog.OpClassGinTrgm, 25, false),
		ext("gist", catalog.OpClassGistTrgm, 25, false),
	}
}()

// opClassOID is the pg_opclass OID of the operator class named name of
// method (0 when cairn lists none of that name).
func opClassOID(method, name string) int64 {
	for _, c := range opClasses {
		if c.method == method && c.name == name {
			return c.oid
		}
	}
	return 0
}

// defaultOpClassOID is the OID of the operator class PostgreSQL chooses
// for a key of type t of an index of method when CREATE INDEX names none
// (0 when the method has none for it, such as btree for json).
func defaultOpClassOID(method string, t types.T) int64 {
	in := opClassInput(t)
	for _, c := range opClasses {
		if c.method == method && c.def && c.inType == in {
			return c.oid
		}
	}
	return 0
}

// opClassInput is the opcintype of the operator classes that take keys of
// type t: varchar's are text's, as in PostgreSQL, where varchar is binary
// coercible to text, and arrays' are anyarray's.
func opClassInput(t types.T) int64 {
	switch {
	case t.IsCatalogVector():
		return int64(t.OID())
	case t.IsArray():
		return anyarrayOID
	case t.Enum != nil:
		return anyenumOID
	case t.Family == types.Varchar:
		return textOID
	case t.Family == types.CIDR:
		return int64(types.InetT.OID()) // cidr is binary coercible to inet
	case t.Family == types.Record:
		return recordOID
	}
	return int64(t.OID())
}

// OpClass looks up the operator class name of index method (btree, hash
// or gin) for a key of type t, as CREATE INDEX resolves a named one:
// found reports whether the method has a class of that name, accepts
// whether it takes t, and isDefault whether it is the class CREATE INDEX
// chooses when none is named.
func OpClass(method, name string, t types.T) (found, accepts, isDefault bool) {
	in := opClassInput(t)
	for _, c := range opClasses {
		if c.method != method || c.name != name {
			continue
		}
		found = true
		if c.inType == in {
			return true, true, c.def || c.oid == defaultOpClassOID(method, t)
		}
	}
	return found, false, false
}

// opClass is the pg_opclass OID of key i of the index: the class CREATE
// INDEX named (recorded for vector and trigram indexes), else the
// method's default for the key's type.
func (ix *index) opClass(i int) int64 {
	if d := ix.def; d != nil {
		if d.OpClass != "" {
			return opClassOID(ix.method, d.OpClass)
		}
		if d.Expr != "" {
			if d.ExprType == nil {
				return 0
			}
			return defaultOpClassOID(ix.method, *d.ExprType)
		}
		if i < len(d.Keys) && d.Keys[i].Expr != "" {
			if d.Keys[i].Type == nil {
				return 0
			}
			return defaultOpClassOID(ix.method, *d.Keys[i].Type)
		}
	}
	if i >= len(ix.columns) {
		return 0
	}
	_, c := ix.table.ColumnByID(ix.columns[i])
	if c == nil {
		return 0
	}
	return defaultOpClassOID(ix.method, c.Type)
}
