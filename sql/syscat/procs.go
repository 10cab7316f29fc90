package syscat

import (
	"slices"

	"github.com/cairn-db/cairn/sql/types"
)

// The functions pg_type names as each type's input, output, receive, send
// and typmod functions (regproc columns): pgjdbc tells array types apart
// with typinput = 'pg_catalog.array_in'::regproc, Npgsql by joining
// pg_proc on typreceive and reading proname = 'array_recv'. These are
// cairn's pg_proc rows, and their names resolve as regproc values both
// ways, with PostgreSQL's OIDs (pgvector's, which PostgreSQL assigns at
// CREATE EXTENSION, are derived from the name like other OIDs here).

// Array types' functions, shared by every array type.
const (
	arrayIn           = "array_in"
	arrayOut          = "array_out"
	arrayRecv         = "array_recv"
	arraySend         = "array_send"
	arrayTypanalyze   = "array_typanalyze"
	arraySubscripting = "array_subscript_handler"
)

// builtinProcs are the OIDs of the pg_catalog functions pg_type names.
var builtinProcs = map[string]int64{
	"boolin": 1242, "boolout": 1243, "boolrecv": 2436, "boolsend": 2437,
	"byteain": 1244, "byteaout": 31, "bytearecv": 2412, "byteasend": 2413,
	"charin": 1245, "charout": 33, "charrecv": 2434, "charsend": 2435,
	"namein": 34, "nameout": 35, "namerecv": 2422, "namesend": 2423,
	"int8in": 460, "int8out": 461, "int8recv": 2408, "int8send": 2409,
	"int2in": 38, "int2out": 39, "int2recv": 2404, "int2send": 2405,
	"int2vectorin": 40, "int2vectorout": 41, "int2vectorrecv": 2410, "int2vectorsend": 2411,
	"int4in": 42, "int4out": 43, "int4recv": 2406, "int4send": 2407,
	"regprocin": 44, "regprocout": 45, "regprocrecv": 2444, "regprocsend": 2445,
	"textin": 46, "textout": 47, "textrecv": 2414, "textsend": 2415,
	"oidin": 1798, "oidout": 1799, "oidrecv": 2418, "oidsend": 2419,
	"oidvectorin": 54, "oidvectorout": 55, "oidvectorrecv": 2420, "oidvectorsend": 2421,
	"json_in": 321, "json_out": 322, "json_recv": 323, "json_send": 324,
	"pg_node_tree_in": 195, "pg_node_tree_out": 196, "pg_node_tree_recv": 197, "pg_node_tree_send": 198,
	"float4in": 200, "float4out": 201, "float4recv": 2424, "float4send": 2425,
	"float8in": 214, "float8out": 215, "float8recv": 2426, "float8send": 2427,
	"unknownin": 109, "unknownout": 110, "unknownrecv": 2416, "unknownsend": 2417,
	"bpcharin": 1044, "bpcharout": 1045, "bpcharrecv": 2430, "bpcharsend": 2431,
	"varcharin": 1046, "varcharout": 1047, "varcharrecv": 2432, "varcharsend": 2433,
	"date_in": 1084, "date_out": 1085, "date_recv": 2468, "date_send": 2469,
	"time_in": 1143, "time_out": 1144, "time_recv": 2470, "time_send": 2471,
	"timestamp_in": 1312, "timestamp_out": 1313, "timestamp_recv": 2474, "timestamp_send": 2475,
	"timestamptz_in": 1150, "timestamptz_out": 1151, "timestamptz_recv": 2476, "timestamptz_send": 2477,
	"interval_in": 1160, "interval_out": 1161, "interval_recv": 2478, "interval_send": 2479,
	"numeric_in": 1701, "numeric_out": 1702, "numeric_recv": 2460, "numeric_send": 2461,
	"regclassin": 2218, "regclassout": 2219, "regclassrecv": 2452, "regclasssend": 2453,
	"regtypein": 2220, "regtypeout": 2221, "regtyperecv": 2454, "regtypesend": 2455,
	"record_in": 2290, "record_out": 2291, "record_recv": 2402, "record_send": 2403,
	"uuid_in": 2952, "uuid_out": 2953, "uuid_recv": 2961, "uuid_send": 2962,
	"inet_in": 910, "inet_out": 911, "inet_recv": 2496, "inet_send": 2497,
	"cidr_in": 1267, "cidr_out": 1427, "cidr_recv": 2498, "cidr_send": 2499,
	"macaddr_in": 436, "macaddr_out": 437, "macaddr_recv": 2494, "macaddr_send": 2495,
	"macaddr8_in": 4110, "macaddr8_out": 4111, "macaddr8_recv": 3446, "macaddr8_send": 3447,
	"tsvectorin": 3610, "tsvectorout": 3611, "tsvectorrecv": 3639, "tsvectorsend": 3638,
	"tsqueryin": 3612, "tsqueryout": 3613, "tsqueryrecv": 3641, "tsquerysend": 3640,
	"jsonb_in": 3806, "jsonb_out": 3804, "jsonb_recv": 3805, "jsonb_send": 3803,
	"regnamespacein": 4084, "regnamespaceout": 4085, "regnamespacerecv": 4087, "regnamespacesend": 4088,
	"regrolein": 4098, "regroleout": 4092, "regrolerecv": 4094, "regrolesend": 4095,
	"bpchartypmodin": 2913, "bpchartypmodout": 2914, "varchartypmodin": 2915, "varchartypmodout": 2916,
	"timetypmodin": 2909, "timetypmodout": 2910, "timestamptypmodin": 2905, "timestamptypmodout": 2906,
	"timestamptztypmodin": 2907, "timestamptztypmodout": 2908, "intervaltypmodin": 2903, "intervaltypmodout": 2904,
	"numerictypmodin": 2917, "numerictypmodout": 2918,
	"enum_in": 3506, "enum_out": 3507, "enum_recv": 3532, "enum_send": 3533,
	arrayIn: 750, arrayOut: 751, arrayRecv: 2400, arraySend: 2401, arrayTypanalyze: 3816, arraySubscripting: 6179,
}

// typeProcs are the functions pg_type lists for a type, by name ("" for
// none). Only arrays have typanalyze and typsubscript functions here;
// PostgreSQL's few others (name's and jsonb's subscripting) are left out.
type typeProcs struct {
	in, out, recv, send, modIn, modOut, analyze, subscript string
}

// procsOf are the functions of a built-in type, or, with array set, of its
// array type. A type's I/O functions are named by its io prefix (int4in,
// date_in); those of types with a modifier by its typmod prefix
// (varchartypmodin), which its array type shares.
func procsOf(t builtinType, array bool) typeProcs {
	p := typeProcs{in: t.io + "in", out: t.io + "out", recv: t.io + "recv", send: t.io + "send"}
	if array {
		p = typeProcs{in: arrayIn, out: arrayOut, recv: arrayRecv, send: arraySend, analyze: arrayTypanalyze, subscript: arraySubscripting}
	}
	if t.typmod != "" {
		p.modIn, p.modOut = t.typmod+"in", t.typmod+"out"
	}
	return p
}

// proc is a function pg_type names: its schema (pgvector's are in public,
// with its type) and OID.
type proc struct {
	schema string
	oid    int64
}

// procs indexes every function some built-in type names, by name.
var procs = func() map[string]proc {
	out := map[string]proc{}
	for _, t := range builtinTypes {
		for _, array := range []bool{false, true} {
			p := procsOf(t, array)
			for _, name := range []string{p.in, p.out, p.recv, p.send, p.modIn, p.modOut, p.analyze, p.subscript} {
				if name == "" {
					continue
				}
				if oid, ok := builtinProcs[name]; ok {
					out[name] = proc{schema: "pg_catalog", oid: oid}
				} else if t.oid == types.VectorOID {
					out[name] = proc{schema: "public", oid: hashOID("p:public." + name)}
				} else {
					panic("syscat: no OID for function " + name)
				}
			}
		}
	}
	for _, name := range []string{enumProcs.in, enumProcs.out, enumProcs.recv, enumProcs.send} {
		out[name] = proc{schema: "pg_catalog", oid: builtinProcs[name]}
	}
	for name, oid := range pseudoIOProcs {
		out[name] = proc{schema: "pg_catalog", oid: oid}
	}
	return out
}()

// enumProcs are the I/O functions of every enum type.
var enumProcs = typeProcs{in: "enum_in", out: "enum_out", recv: "enum_recv", send: "enum_send"}

// procOID is the OID of a function pg_type names, 0 for "" (none).
func procOID(name string) int64 {
	return procs[name].oid
}

// procName finds a function by OID: its schema and name.
func procName(oid int64) (schema, name string, ok bool) {
	for name, p := range procs {
		if p.oid == oid {
			return p.schema, name, true
		}
	}
	return "", "", false
}

// procByName finds a function by name, when it is in one of schemas.
func procByName(schemas []string, name string) (int64, bool) {
	p, ok := procs[name]
	if !ok || !slices.Contains(schemas, p.schema) {
		return 0, false
	}
	return p.oid, true
}

// OIDs of the types the I/O functions take and return.
const (
	boolOID       = 16
	byteaOID      = 17
	int4OID       = 23
	oidOID        = 26
	cstringOID    = 2275
	cstringArrOID = 1263
	internalOID   = 2281
	anyarrayOID   = 2277
	textOID       = 25
	float8OID     = 701
	float4ArrOID  = 1021
	recordOID     = 2249
)

// procRows are pg_proc's rows (procDefs): each function a built-in type
// names, with the signature PostgreSQL gives such functions (in: cstring
// to the type, out: the type to cstring, recv: internal to the type,
// send: the type to bytea, typmod in and out, array analyze and
// subscripting), and the built-in extensions' functions (extensions.go).
func procRows(v *View) [][]any {
	rows := userProcRows(v)
	for _, d := range procDefs() {
		rows = append(rows, []any{d.oid, d.name, SchemaOID(d.schema), int64(BootstrapUserOID), d.lang, float64(1), float64(0),
			int64(0), int64(0), "f", false, false, true, false, d.volatility, "s", int64(len(d.args)), int64(0), d.ret, oids(d.args...),
			nil, nil, nil, nil, nil, d.src, d.bin, nil, nil, nil})
	}
	return rows
}
