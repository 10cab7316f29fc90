package syscat

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/types"
)

// The extensions cairn has built in, listed in pg_extension as installed
// (in the schema each installs into) and in pg_available_extensions.
// CREATE EXTENSION records nothing: they are always there. Their
// functions are pg_proc rows in that schema, as PostgreSQL lists an
// extension's functions, so psql's \df shows them (it leaves out
// pg_catalog's unless a pattern names it): pg_deeplake's similarity and
// hybrid-record functions and cairn's float4[] forms of the distance
// functions, pgvector's distance functions and vector I/O functions, and
// uuid-ossp's uuid_generate_v4. pg_deeplake's BM25 and hybrid scores are
// the <#> operator over text and over deeplake_hybrid_record, not
// functions of their own.

// extension is one built-in extension.
type extension struct {
	oid                            int64
	name, version, schema, comment string
	// lib is the shared library its C functions are in (pg_proc.probin).
	lib string
}

// plpgsqlExtensionOID is PostgreSQL 15's OID of the plpgsql extension.
const plpgsqlExtensionOID = 13559

// The built-in extensions' OIDs are below PostgreSQL's first normal OID
// (16384), as those of objects initdb creates: pg_dump dumps no such
// extension, nor its member objects (pg_depend's 'e' rows), as it leaves
// out plpgsql; every cairn has them.
var extensions = []extension{
	{16001, "pg_deeplake", "1.0", "public", "Deep Lake's BM25, hybrid search and multimodal types, built into cairn", "$libdir/pg_deeplake"},
	{plpgsqlExtensionOID, "plpgsql", "1.0", "pg_catalog", "PL/pgSQL procedural language", "$libdir/plpgsql"},
	{16002, "pg_stat_statements", "1.10", "public", "track planning and execution statistics of all SQL statements executed", "$libdir/pg_stat_statements"},
	{16003, "uuid-ossp", "1.1", "public", "generate universally unique identifiers (UUIDs)", "$libdir/uuid-ossp"},
	{16004, "vector", "0.8.0", "public", "vector data type and ivfflat and hnsw access methods", "$libdir/vector"},
}

// IsExtension reports whether name is one of the extensions pg_extension
// lists (COMMENT ON EXTENSION names one).
func IsExtension(name string) bool {
	return slices.ContainsFunc(extensions, func(e extension) bool { return e.name == name })
}

// extensionNamed returns the built-in extension called name.
func extensionNamed(name string) extension {
	for _, e := range extensions {
		if e.name == name {
			return e
		}
	}
	panic("syscat: no extension " + name)
}

// extensionFunctions are the functions of the registry (package
// functions) each extension provides, by name. An overload taking a
// vector is pgvector's; the float4[] overloads of pgvector's names are
// cairn's own, listed with pg_deeplake.
var extensionFunctions = map[string][]string{
	"pg_deeplake": {"contains", "cosine_similarity", "deeplake_cosine_similarity", "deeplake_maxsim", "l1_norm", "l2_norm", "maxsim",
		"cosine_distance", "inner_product", "l1_distance", "l2_distance", "vector_dims"},
	"vector":    {"cosine_distance", "inner_product", "l1_distance", "l2_distance", "vector_dims", "vector_norm"},
	"uuid-ossp": {"uuid_generate_v4"},
}

// procDef is one pg_proc row: a function some built-in type names as its
// I/O function, or an extension's function.
type procDef struct {
	oid        int64
	name       string
	schema     string
	lang       int64 // pg_language OID: internal (12) or c (13)
	volatility string
	ret        int64
	args       []int64
	src, bin   any // prosrc, probin (nil: NULL)
	// ext is the extension the function belongs to ("" for pg_catalog's).
	ext string
}

// Language OIDs of pg_language.
const (
	langInternal = 12
	langC        = 13
)

// procDefs is every pg_proc row, ordered by OID; built on first use,
// once the function registry is complete.
var procDefs = sync.OnceValue(func() []procDef {
	var out []procDef
	seen := map[string]bool{}
	// The I/O functions of the built-in types: pg_catalog's, and
	// pgvector's (in public, in its library).
	add := func(name string, ret int64, args ...int64) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		p := procs[name]
		d := procDef{oid: p.oid, name: name, schema: p.schema, lang: langInternal, volatility: "i", ret: ret, args: args, src: name}
		if p.schema != "pg_catalog" {
			d.lang, d.bin, d.ext = langC, extensionNamed("vector").lib, "vector"
		}
		out = append(out, d)
	}
	for _, t := range builtinTypes {
		for _, array := range []bool{false, true} {
			if array && t.array == 0 {
				continue
			}
			typ := t.oid
			if array {
				typ = anyarrayOID
			}
			p := procsOf(t, array)
			// Input of a type with a modifier also takes the element
			// type and the modifier.
			if array || t.typmod != "" {
				add(p.in, typ, cstringOID, oidOID, int4OID)
				add(p.recv, typ, internalOID, oidOID, int4OID)
			} else {
				add(p.in, typ, cstringOID)
				add(p.recv, typ, internalOID)
			}
			add(p.out, cstringOID, typ)
			add(p.send, byteaOID, typ)
			add(p.modIn, int4OID, cstringArrOID)
			add(p.modOut, cstringOID, int4OID)
			add(p.analyze, boolOID, internalOID)
			add(p.subscript, internalOID, internalOID)
		}
	}
	for _, pt := range pseudoTypes {
		p := pt.procs()
		add(p.in, pt.oid, cstringOID)
		add(p.out, cstringOID, pt.oid)
		add(p.recv, pt.oid, internalOID)
		add(p.send, byteaOID, pt.oid)
	}
	// The extensions' functions, from the function registry.
	for _, e := range extensions {
		for _, name := range extensionFunctions[e.name] {
			for _, ov := range functions.Overloads(name) {
				vector := false
				args := make([]int64, len(ov.Args))
				var sig []string
				for i, a := range ov.Args {
					args[i] = int64(a.OID())
					sig = append(sig, a.String())
					vector = vector || a.Family == types.Vector
				}
				if vector != (e.name == "vector") && e.name != "uuid-ossp" {
					continue
				}
				ret := functions.ResultType(ov, ov.Args)
				out = append(out, procDef{oid: hashOID("p:" + e.schema + "." + name + "(" + strings.Join(sig, ",") + ")"), name: name,
					schema: e.schema, lang: langC, volatility: ov.Volatility.String(), ret: int64(ret.OID()), args: args, src: name, bin: e.lib, ext: e.name})
			}
		}
	}
	// pg_deeplake's hybrid record constructor is bound by the planner, not
	// the registry: (embedding, text) with weights 0.5 and 0.5, or given.
	deeplake := extensionNamed("pg_deeplake")
	for _, args := range [][]int64{{float4ArrOID, textOID}, {float4ArrOID, textOID, float8OID, float8OID}} {
		sig := make([]string, len(args))
		for i, a := range args {
			sig[i] = typeName(a)
		}
		out = append(out, procDef{oid: hashOID("p:public.deeplake_hybrid_record(" + strings.Join(sig, ",") + ")"), name: "deeplake_hybrid_record",
			schema: deeplake.schema, lang: langC, volatility: "i", ret: recordOID, args: args, src: "deeplake_hybrid_record", bin: deeplake.lib, ext: deeplake.name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
})

// procByOID finds a pg_proc row by OID.
func procByOID(oid int64) (procDef, bool) {
	defs := procDefs()
	i := sort.Search(len(defs), func(i int) bool { return defs[i].oid >= oid })
	if i < len(defs) && defs[i].oid == oid {
		return defs[i], true
	}
	return procDef{}, false
}

// typeName is format_type(oid, NULL) for the types pg_proc rows use.
func typeName(oid int64) string {
	if n, ok := pseudoTypeName(oid); ok {
		return n
	}
	if t, ok := types.ByOID(uint32(oid)); ok {
		return t.String()
	}
	return "???"
}

// FunctionArgDefault is pg_get_function_arg_default's DEFAULT of
// argument arg (from 1) of the user function with OID oid (built-in
// functions have none); ok is false when there is none.
func (v *View) FunctionArgDefault(oid int64, arg int) (string, bool) {
	f := userFunctionByOID(v.Cat, oid)
	if f == nil || arg < 1 || arg > len(f.ArgDefaults) || f.ArgDefaults[arg-1] == "" {
		return "", false
	}
	return f.ArgDefaults[arg-1], true
}

// FunctionSignature is what pg_get_function_result and
// pg_get_function_arguments print for the function with OID oid, and the
// schema it is in; ok is false for an OID no pg_proc row has.
func (v *View) FunctionSignature(oid int64) (schema, result, arguments, identity string, ok bool) {
	d, ok := procByOID(oid)
	if !ok {
		if f := userFunctionByOID(v.Cat, oid); f != nil {
			schema, result, arguments, identity = userFunctionSignature(f, v.qualified)
			return schema, result, arguments, identity, true
		}
		return "", "", "", "", false
	}
	names := make([]string, len(d.args))
	for i, a := range d.args {
		names[i] = typeName(a)
	}
	return d.schema, typeName(d.ret), strings.Join(names, ", "), strings.Join(names, ", "), true
}
