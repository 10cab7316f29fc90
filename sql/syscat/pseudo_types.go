package syscat

import "strings"

// pseudoType is one of PostgreSQL's pseudo-types cairn has no value of
// (void, trigger, anyarray, ...) but whose OIDs function signatures and
// clients' catalog queries name: each has its pg_type row, its I/O
// functions' pg_proc rows, and regtype and format_type read and print it.
type pseudoType struct {
	oid     int64
	name    string
	len     int64
	byVal   bool
	align   string
	storage string
	// binary marks a type with receive and send functions (its I/O
	// functions are name_in, name_out, name_recv, name_send).
	binary bool
	// array is its array type's OID (0 for none).
	array int64
}

// pseudoTypes are PostgreSQL 15's pseudo-types but record and unknown
// (builtinTypes has them, as values of them exist), with their OIDs.
var pseudoTypes = []pseudoType{
	{32, "pg_ddl_command", 8, true, "d", "p", true, 0},
	{269, "table_am_handler", 4, true, "i", "p", false, 0},
	{325, "index_am_handler", 4, true, "i", "p", false, 0},
	{2275, "cstring", -2, false, "c", "p", true, 1263},
	{2276, "any", 4, true, "i", "p", false, 0},
	{2277, "anyarray", -1, false, "d", "x", true, 0},
	{2278, "void", 4, true, "i", "p", true, 0},
	{2279, "trigger", 4, true, "i", "p", false, 0},
	{2280, "language_handler", 4, true, "i", "p", false, 0},
	{2281, "internal", 8, true, "d", "p", false, 0},
	{2283, "anyelement", 4, true, "i", "p", false, 0},
	{2776, "anynonarray", 4, true, "i", "p", false, 0},
	{3115, "fdw_handler", 4, true, "i", "p", false, 0},
	{3310, "tsm_handler", 4, true, "i", "p", false, 0},
	{3500, "anyenum", 4, true, "i", "p", false, 0},
	{3831, "anyrange", -1, false, "d", "x", false, 0},
	{3838, "event_trigger", 4, true, "i", "p", false, 0},
	{4537, "anymultirange", -1, false, "d", "x", false, 0},
	{4538, "anycompatiblemultirange", -1, false, "d", "x", false, 0},
	{5077, "anycompatible", 4, true, "i", "p", false, 0},
	{5078, "anycompatiblearray", -1, false, "d", "x", true, 0},
	{5079, "anycompatiblenonarray", 4, true, "i", "p", false, 0},
	{5080, "anycompatiblerange", -1, false, "d", "x", false, 0},
}

// pseudoIOProcs are the OIDs of the pseudo-types' I/O functions.
var pseudoIOProcs = map[string]int64{
	"pg_ddl_command_in": 86, "pg_ddl_command_out": 87, "pg_ddl_command_recv": 88, "pg_ddl_command_send": 90,
	"table_am_handler_in": 267, "table_am_handler_out": 268,
	"index_am_handler_in": 326, "index_am_handler_out": 327,
	"cstring_in": 2292, "cstring_out": 2293, "cstring_recv": 2500, "cstring_send": 2501,
	"any_in": 2294, "any_out": 2295,
	"anyarray_in": 2296, "anyarray_out": 2297, "anyarray_recv": 2502, "anyarray_send": 2503,
	"void_in": 2298, "void_out": 2299, "void_recv": 3120, "void_send": 3121,
	"trigger_in": 2300, "trigger_out": 2301,
	"language_handler_in": 2302, "language_handler_out": 2303,
	"internal_in": 2304, "internal_out": 2305,
	"anyelement_in": 2312, "anyelement_out": 2313,
	"anynonarray_in": 2777, "anynonarray_out": 2778,
	"fdw_handler_in": 3116, "fdw_handler_out": 3117,
	"tsm_handler_in": 3311, "tsm_handler_out": 3312,
	"anyenum_in": 3504, "anyenum_out": 3505,
	"anyrange_in": 3832, "anyrange_out": 3833,
	"event_trigger_in": 3594, "event_trigger_out": 3595,
	"anymultirange_in": 4229, "anymultirange_out": 4230,
	"anycompatiblemultirange_in": 4226, "anycompatiblemultirange_out": 4227,
	"anycompatible_in": 5086, "anycompatible_out": 5087,
	"anycompatiblearray_in": 5088, "anycompatiblearray_out": 5089, "anycompatiblearray_recv": 5090, "anycompatiblearray_send": 5091,
	"anycompatiblenonarray_in": 5092, "anycompatiblenonarray_out": 5093,
	"anycompatiblerange_in": 5094, "anycompatiblerange_out": 5095,
}

// procs are the pseudo-type's I/O functions.
func (p pseudoType) procs() typeProcs {
	t := typeProcs{in: p.name + "_in", out: p.name + "_out"}
	if p.binary {
		t.recv, t.send = p.name+"_recv", p.name+"_send"
	}
	return t
}

// pseudoTypeName is the name of the pseudo-type (or the array of one)
// with OID oid, as regtype and format_type print it.
func pseudoTypeName(oid int64) (string, bool) {
	for _, t := range builtinTypes {
		if t.kind == "p" && t.array == oid && oid != 0 {
			return t.name + "[]", true // record[]
		}
	}
	for _, p := range pseudoTypes {
		switch oid {
		case p.oid:
			return p.name, true
		case p.array:
			return p.name + "[]", true
		}
	}
	return "", false
}

// pseudoTypeOID reads a pseudo-type's name as regtype's input does
// (optionally qualified with pg_catalog, quoted, or with [] or the
// array's own _name for an array).
func pseudoTypeOID(text string) (int64, bool) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(s, "pg_catalog.")
	s = strings.Trim(s, `"`)
	base, array := strings.CutSuffix(s, "[]")
	if elem, ok := strings.CutPrefix(base, "_"); ok && !array {
		base, array = elem, true
	}
	for _, p := range pseudoTypes {
		if p.name == base {
			if array {
				return p.array, p.array != 0
			}
			return p.oid, true
		}
	}
	return 0, false
}
