package syscat

import (
	"github.com/cairn-db/cairn/functions"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// The pg_catalog relations, with PostgreSQL 15's columns in its order.
// Relations cairn has no objects for (triggers, policies, publications,
// inheritance, ...) exist with no rows, so the queries that clients join
// them into still run.

// builtinType is a row of pg_type for a base type.
type builtinType struct {
	oid       int64
	name      string
	len       int64
	byVal     bool
	category  string
	array     int64
	preferred bool
	collation int64
	kind      string // typtype: b base, p pseudo
	// io and typmod are the prefixes of the names of its I/O functions
	// and of its typmod functions ("" for none); see procsOf.
	io, typmod string
}

// builtinTypes are the base types cairn has, with PostgreSQL's OIDs;
// their array types are derived (typname "_" + name).
var builtinTypes = []builtinType{
	{16, "bool", 1, true, "B", 1000, true, 0, "b", "bool", ""},
	{17, "bytea", -1, false, "U", 1001, false, 0, "b", "bytea", ""},
	{18, "char", 1, true, "Z", 1002, false, 0, "b", "char", ""},
	{19, "name", 64, false, "S", 1003, false, 950, "b", "name", ""},
	{20, "int8", 8, true, "N", 1016, false, 0, "b", "int8", ""},
	{21, "int2", 2, true, "N", 1005, false, 0, "b", "int2", ""},
	{22, "int2vector", -1, false, "A", 1006, false, 0, "b", "int2vector", ""},
	{23, "int4", 4, true, "N", 1007, false, 0, "b", "int4", ""},
	{24, "regproc", 4, true, "N", 1008, false, 0, "b", "regproc", ""},
	{25, "text", -1, false, "S", 1009, true, defaultCollationOID, "b", "text", ""},
	{26, "oid", 4, true, "N", 1028, true, 0, "b", "oid", ""},
	{30, "oidvector", -1, false, "A", 1013, false, 0, "b", "oidvector", ""},
	{114, "json", -1, false, "U", 199, false, 0, "b", "json_", ""},
	{194, "pg_node_tree", -1, false, "Z", 0, false, defaultCollationOID, "b", "pg_node_tree_", ""},
	{700, "float4", 4, true, "N", 1021, false, 0, "b", "float4", ""},
	{701, "float8", 8, true, "N", 1022, true, 0, "b", "float8", ""},
	{705, "unknown", -2, false, "X", 0, false, 0, "p", "unknown", ""},
	{1042, "bpchar", -1, false, "S", 1014, false, defaultCollationOID, "b", "bpchar", "bpchartypmod"},
	{1043, "varchar", -1, false, "S", 1015, false, defaultCollationOID, "b", "varchar", "varchartypmod"},
	{1082, "date", 4, true, "D", 1182, false, 0, "b", "date_", ""},
	{1083, "time", 8, true, "D", 1183, false, 0, "b", "time_", "timetypmod"},
	{1114, "timestamp", 8, true, "D", 1115, false, 0, "b", "timestamp_", "timestamptypmod"},
	{1184, "timestamptz", 8, true, "D", 1185, true, 0, "b", "timestamptz_", "timestamptztypmod"},
	{1186, "interval", 16, false, "T", 1187, true, 0, "b", "interval_", "intervaltypmod"},
	{1700, "numeric", -1, false, "N", 1231, false, 0, "b", "numeric_", "numerictypmod"},
	{2205, "regclass", 4, true, "N", 2210, false, 0, "b", "regclass", ""},
	{2206, "regtype", 4, true, "N", 2211, false, 0, "b", "regtype", ""},
	{2249, "record", -1, false, "P", 2287, false, 0, "p", "record_", ""},
	{2950, "uuid", 16, false, "U", 2951, false, 0, "b", "uuid_", ""},
	{869, "inet", -1, false, "I", 1041, true, 0, "b", "inet_", ""},
	{650, "cidr", -1, false, "I", 651, false, 0, "b", "cidr_", ""},
	{829, "macaddr", 6, false, "U", 1040, false, 0, "b", "macaddr_", ""},
	{774, "macaddr8", 8, false, "U", 775, false, 0, "b", "macaddr8_", ""},
	{3802, "jsonb", -1, false, "U", 3807, false, 0, "b", "jsonb_", ""},
	{4089, "regnamespace", 4, true, "N", 4090, false, 0, "b", "regnamespace", ""},
	{4096, "regrole", 4, true, "N", 4097, false, 0, "b", "regrole", ""},
	{3614, "tsvector", -1, false, "U", 3643, false, 0, "b", "tsvector", ""},
	{3615, "tsquery", -1, false, "U", 3645, false, 0, "b", "tsquery", ""},
	{types.VectorOID, "vector", -1, false, "U", types.VectorArrayOID, false, 0, "b", "vector_", "vector_typmod_"},
}

// Typmod is a type's modifier as PostgreSQL stores it (atttypmod):
// varchar(n) and char(n) are n+4, numeric(p,s) ((p<<16)|s)+4, vector(n)
// and time(p) n or p, an interval its packed fields and precision;
// an array has its element's; -1 for none.
func Typmod(t types.T) int64 {
	if t.IsArray() {
		t = *t.Elem
	}
	if t.Mod < 0 {
		return -1
	}
	switch t.Family {
	case types.Varchar, types.Char, types.Numeric:
		return int64(t.Mod) + 4
	case types.Vector, types.Time, types.TimestampFamily, types.TimestampTZ, types.Interval:
		return int64(t.Mod)
	}
	return -1
}

// oids is an oid[] datum.
func oids(xs ...int64) *types.Array {
	elems := make([]any, len(xs))
	for i, x := range xs {
		elems[i] = x
	}
	return types.NewArray(types.OidT, elems...)
}

// int2s is an int2[] datum (int2vector columns).
func int2s(xs ...int64) *types.Array {
	elems := make([]any, len(xs))
	for i, x := range xs {
		elems[i] = x
	}
	return types.NewArray(types.Int2T, elems...)
}

// attnums are the attribute numbers (1-based positions) of column IDs.
func attnums(t *catalog.TableDef, ids []int) []int64 {
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if pos, c := t.ColumnByID(id); c != nil {
			out = append(out, int64(pos+1))
		}
	}
	return out
}

func init() {
	register("pg_catalog", "pg_namespace", pgNamespaceOID, "oid oid, nspname name, nspowner oid, nspacl text[]", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.schemas() {
			owner, acl := int64(BootstrapUserOID), any(nil)
			if d := v.Cat.Schemas[s]; d != nil {
				owner, acl = int64(catalog.OwnerOID(d.Owner)), aclDatum(v.Cat, d.ACL)
			}
			rows = append(rows, []any{SchemaOID(s), s, owner, acl})
		}
		return rows
	})

	register("pg_catalog", "pg_class", pgClassOID, "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4, relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, relpersistence \"char\", relkind \"char\", relnatts int2, relchecks int2, relhasrules bool, relhastriggers bool, relhassubclass bool, relrowsecurity bool, relforcerowsecurity bool, relispopulated bool, relreplident \"char\", relispartition bool, relrewrite oid, relfrozenxid xid, relminmxid xid, relacl text[], reloptions text[], relpartbound text", func(v *View) [][]any {
		var rows [][]any
		owner, acl := int64(BootstrapUserOID), any(nil)
		row := func(oid int64, name string, ns int64, am int64, kind string, natts int, checks int, hasIndex, hasTriggers bool) {
			// A table's frozen XIDs are the first normal ones (age 0:
			// cairn consumes no transaction IDs); other relations have
			// none, as in PostgreSQL.
			var frozen, minMulti int64
			if kind == "r" {
				frozen, minMulti = functions.FirstNormalXid, 1
			}
			rows = append(rows, []any{oid, name, ns, int64(0), int64(0), owner, am, oid, int64(0),
				int64(0), float64(-1), int64(0), int64(0), hasIndex, false, "p", kind, int64(natts), int64(checks),
				false, hasTriggers, false, false, false, true, "d", false, int64(0), frozen, minMulti, acl, nil, nil})
		}
		// PostgreSQL enforces foreign keys with triggers on both tables,
		// and psql only shows them for tables with relhastriggers.
		inFK := map[uint64]bool{}
		for _, t := range v.tables {
			for _, fk := range t.ForeignKeys {
				inFK[t.ID], inFK[fk.RefTable] = true, true
			}
		}
		for _, r := range allRelations() {
			kind := "r"
			if r.isView() {
				kind = "v"
			}
			row(r.OID, r.Name, SchemaOID(r.Schema), heapAMOID, kind, len(r.Cols), 0, false, false)
		}
		for _, t := range v.tables {
			owner, acl = int64(catalog.OwnerOID(t.Owner)), aclDatum(v.Cat, t.ACL)
			row(TableOID(t.ID), t.Name, SchemaOID(t.Schema), heapAMOID, "r", len(t.Columns), len(t.Checks), v.hasIndex(t), inFK[t.ID] || len(t.Triggers) > 0)
			rows[len(rows)-1][22], rows[len(rows)-1][23] = t.RowSecurity, t.ForceRowSecurity
			temporary(rows, t.Schema)
		}
		owner, acl = int64(BootstrapUserOID), nil
		for _, ix := range v.indexes {
			row(ix.oid, ix.name, SchemaOID(ix.schema), amOID(ix.method), "i", len(ix.columns), 0, false, false)
			temporary(rows, ix.schema)
		}
		for _, s := range v.sequences {
			owner, acl = int64(catalog.OwnerOID(s.Owner)), aclDatum(v.Cat, s.ACL)
			row(SequenceOID(s.Schema, s.Name), s.Name, SchemaOID(s.Schema), 0, "S", 3, 0, false, false)
			temporary(rows, s.Schema)
		}
		for _, d := range v.views {
			owner, acl = int64(catalog.OwnerOID(d.Owner)), aclDatum(v.Cat, d.ACL)
			row(ViewOID(d.Schema, d.Name), d.Name, SchemaOID(d.Schema), 0, "v", len(d.Columns), 0, false, len(d.Triggers) > 0)
			if d.CheckOption != "" {
				// reloptions: pg_dump and psql's \d+ read the check option there.
				rows[len(rows)-1][31] = types.NewArray(types.TextT, "check_option="+d.CheckOption)
			}
			temporary(rows, d.Schema)
		}
		return rows
	})

	register("pg_catalog", "pg_attribute", 1249, "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign \"char\", attstorage \"char\", attcompression \"char\", attnotnull bool, atthasdef bool, atthasmissing bool, attidentity \"char\", attgenerated \"char\", attisdropped bool, attislocal bool, attinhcount int4, attcollation oid, attacl text[], attoptions text[], attfdwoptions text[], attmissingval text", func(v *View) [][]any {
		var rows [][]any
		row := func(rel int64, num int, name string, t types.T, notNull, hasDef bool, identity, generated string, acl any) {
			var coll int64
			elem := t
			if t.IsArray() {
				elem = *t.Elem // text[] has its elements' collation
			}
			if elem.IsString() && elem.Family != types.Name && elem.Enum == nil {
				coll = defaultCollationOID
			}
			dims := 0
			if t.IsArray() {
				dims = t.Dims
			}
			var elemOID int64
			if t.IsArray() {
				elemOID = int64(t.Elem.OID())
			}
			align, storage := typeLayout(int64(t.OID()), int64(t.TypLen()), elemOID)
			rows = append(rows, []any{rel, name, int64(t.OID()), int64(-1), int64(t.TypLen()), int64(num), int64(dims), int64(-1),
				Typmod(t), t.TypLen() > 0 && t.TypLen() <= 8, align, storage, "", notNull, hasDef, false, identity, generated, false, true,
				int64(0), coll, acl, nil, nil, nil})
		}
		for _, t := range v.tables {
			for i, c := range t.Columns {
				// An identity column's sequence is no DEFAULT to PostgreSQL.
				row(TableOID(t.ID), i+1, c.Name, c.Type, notNull(t, c), c.Default != "" && c.Identity == "", c.Identity, c.Generated, aclDatum(v.Cat, c.ACL))
				if c.Domain != 0 {
					// The column's type is the domain; its typmod is the
					// domain's (pg_type.typtypmod), not the column's.
					rows[len(rows)-1][2], rows[len(rows)-1][8] = int64(c.Domain), int64(-1)
				}
			}
		}
		for _, ix := range v.indexes {
			names, ts := ix.attributes()
			for i := range names {
				row(ix.oid, i+1, names[i], ts[i], false, false, "", "", nil)
			}
		}
		for _, r := range allRelations() {
			for i, c := range r.Cols {
				row(r.OID, i+1, c.Name, c.T, false, false, "", "", nil)
			}
		}
		for _, d := range v.views {
			for i, c := range d.Columns {
				row(ViewOID(d.Schema, d.Name), i+1, c.Name, c.Type, false, false, "", "", nil)
			}
		}
		return rows
	})

	register("pg_catalog", "pg_attrdef", pgAttrdefOID, "oid oid, adrelid oid, adnum int2, adbin text", func(v *View) [][]any {
		var rows [][]any
		for _, t := range v.tables {
			for i, c := range t.Columns {
				if c.Default != "" && c.Identity == "" {
					rows = append(rows, []any{attrdefOID(t, c), TableOID(t.ID), int64(i + 1), v.columnDefault(t, &t.Columns[i], false)})
				}
			}
		}
		return rows
	})

	register("pg_catalog", "pg_type", 1247, "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, typtype \"char\", typcategory \"char\", typispreferred bool, typisdefined bool, typdelim \"char\", typrelid oid, typsubscript regproc, typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign \"char\", typstorage \"char\", typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid, typdefaultbin text, typdefault text, typacl text[]", func(v *View) [][]any {
		var rows [][]any
		row := func(oid int64, name string, ns, length int64, byVal bool, kind, category string, preferred bool, elem, array, coll int64, p typeProcs) {
			align, storage := typeLayout(oid, length, elem)
			rows = append(rows, []any{oid, name, ns, int64(BootstrapUserOID), length, byVal, kind, category, preferred, true, ",",
				int64(0), procOID(p.subscript), elem, array, procOID(p.in), procOID(p.out), procOID(p.recv), procOID(p.send),
				procOID(p.modIn), procOID(p.modOut), procOID(p.analyze),
				align, storage, false, int64(0), int64(-1), int64(0), coll, nil, nil, nil})
		}
		for _, t := range builtinTypes {
			ns := int64(PgCatalogOID)
			if t.oid == types.VectorOID {
				ns = PublicOID
			}
			row(t.oid, t.name, ns, t.len, t.byVal, t.kind, t.category, t.preferred, 0, t.array, t.collation, procsOf(t, false))
			if t.array != 0 {
				row(t.array, "_"+t.name, ns, -1, false, "b", "A", false, t.oid, 0, t.collation, procsOf(t, true))
				if t.kind == "p" { // record[] is a pseudo-type too
					rows[len(rows)-1][6], rows[len(rows)-1][7] = "p", "P"
				}
			}
		}
		for _, pt := range pseudoTypes {
			row(pt.oid, pt.name, PgCatalogOID, pt.len, pt.byVal, "p", "P", false, 0, pt.array, 0, pt.procs())
			rows[len(rows)-1][22], rows[len(rows)-1][23] = pt.align, pt.storage
			if pt.array != 0 {
				row(pt.array, "_"+pt.name, PgCatalogOID, -1, false, "b", "A", false, pt.oid, 0, 0,
					typeProcs{in: arrayIn, out: arrayOut, recv: arrayRecv, send: arraySend, analyze: arrayTypanalyze, subscript: arraySubscripting})
			}
		}
		for _, td := range v.userTypes() {
			if d := td.Domain; d != nil {
				ns := SchemaOID(td.Schema)
				length, byVal, category, coll, procs := domainLayout(d)
				row(int64(d.OID), td.Name, ns, length, byVal, "d", category, false, 0, int64(d.ArrayOID), coll, procs)
				r := rows[len(rows)-1]
				r[3], r[24], r[25], r[26] = int64(catalog.OwnerOID(td.Owner)), d.NotNull, int64(d.Base.OID()), int64(Typmod(d.Base))
				if d.Default != "" {
					r[29], r[30] = d.Default, d.Default
				}
				row(int64(d.ArrayOID), "_"+td.Name, ns, -1, false, "b", "A", false, int64(d.OID), 0, coll,
					typeProcs{in: arrayIn, out: arrayOut, recv: arrayRecv, send: arraySend, analyze: arrayTypanalyze, subscript: arraySubscripting})
				rows[len(rows)-1][3] = int64(catalog.OwnerOID(td.Owner))
				continue
			}
			e, ns := td.Enum, SchemaOID(td.Schema)
			row(int64(e.OID), td.Name, ns, 4, true, "e", "E", false, 0, int64(e.ArrayOID), 0, enumProcs)
			rows[len(rows)-1][3] = int64(catalog.OwnerOID(td.Owner))
			row(int64(e.ArrayOID), "_"+td.Name, ns, -1, false, "b", "A", false, int64(e.OID), 0, 0,
				typeProcs{in: arrayIn, out: arrayOut, recv: arrayRecv, send: arraySend, analyze: arrayTypanalyze, subscript: arraySubscripting})
			rows[len(rows)-1][3] = int64(catalog.OwnerOID(td.Owner))
		}
		return rows
	})

	register("pg_catalog", "pg_index", 2610, "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, indimmediate bool, indisclustered bool, indisvalid bool, indcheckxmin bool, indisready bool, indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector, indclass oidvector, indoption int2vector, indexprs text, indpred text", func(v *View) [][]any {
		var rows [][]any
		for _, ix := range v.indexes {
			keys := attnums(ix.table, ix.columns)
			var exprs, pred any
			if p := v.indexPred(ix, false); p != "" {
				pred = p // a node tree in PostgreSQL
			}
			keyText := func(stored string) string {
				text, _ := v.ruleText(stored, ExprContext{Table: ix.table})
				return text
			}
			if ix.def != nil && ix.def.Expr != "" {
				// An expression key is attribute 0; indexprs holds its text
				// here (a node tree in PostgreSQL).
				keys, exprs = []int64{0}, keyText(ix.def.Expr)
			}
			if ix.def != nil && len(ix.def.Keys) > 0 {
				var texts []string
				for i, k := range ix.def.Keys {
					if k.Expr != "" {
						keys[i] = 0
						texts = append(texts, keyText(k.Expr))
					}
				}
				exprs = strings.Join(texts, ", ")
			}
			zeros := make([]int64, len(keys))
			classes := make([]int64, len(keys))
			for i := range classes {
				classes[i] = ix.opClass(i)
			}
			// indoption: INDOPTION_DESC (1) and INDOPTION_NULLS_FIRST (2)
			// of each key.
			opts := make([]int64, len(keys))
			if d := ix.def; d != nil {
				for i := range opts {
					if d.KeyDesc(i) {
						opts[i] |= 1
					}
					if d.KeyNullsFirst(i) {
						opts[i] |= 2
					}
				}
			}
			rows = append(rows, []any{ix.oid, TableOID(ix.table.ID), int64(len(keys)), int64(len(keys)), ix.unique, ix.nullsNotDistinct, ix.primary,
				false, true, false, true, false, true, true, false, int2s(keys...), oids(zeros...), oids(classes...), int2s(opts...), exprs, pred})
		}
		return rows
	})

	register("pg_catalog", "pg_constraint", pgConstraintOID, "oid oid, conname name, connamespace oid, contype \"char\", condeferrable bool, condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, confupdtype \"char\", confdeltype \"char\", confmatchtype \"char\", conislocal bool, coninhcount int4, connoinherit bool, conkey int2[], confkey int2[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols int2[], conexclop oid[], conbin text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			var indexOID, refOID int64
			var refKeys, delSetCols, updType, delType, matchType any = nil, nil, " ", " ", " "
			if c.index != nil {
				indexOID = c.index.oid
			}
			if c.fk != nil {
				if ref := v.Cat.TableByID(c.fk.RefTable); ref != nil {
					refOID = TableOID(ref.ID)
					refKeys = int2s(attnums(ref, c.fk.RefColumns)...)
				}
				updType, delType, matchType = fkActionCode(c.fk.OnUpdate), fkActionCode(c.fk.OnDelete), "s"
				if c.fk.MatchFull {
					matchType = "f"
				}
				if len(c.fk.DeleteSetColumns) > 0 {
					delSetCols = int2s(attnums(c.table, c.fk.DeleteSetColumns)...)
				}
			}
			var keys, bin any
			if len(c.columns) > 0 {
				keys = int2s(attnums(c.table, c.columns)...)
			}
			if c.kind == 'c' {
				bin = v.checkExpr(c.table, c.check, false)
			}
			rows = append(rows, []any{c.oid, c.name, SchemaOID(c.table.Schema), string(c.kind), c.deferrable, c.deferred, !c.notValid, TableOID(c.table.ID),
				int64(0), indexOID, int64(0), refOID, updType, delType, matchType, true, int64(0), false, keys, refKeys,
				nil, nil, nil, delSetCols, nil, bin})
		}
		for _, c := range v.domChecks {
			rows = append(rows, []any{c.oid, c.check.Name, SchemaOID(c.domain.Schema), "c", false, false, !c.check.NotValid, int64(0),
				int64(c.domain.Domain.OID), int64(0), int64(0), int64(0), " ", " ", " ", true, int64(0), false, nil, nil,
				nil, nil, nil, nil, nil, c.check.Expr})
		}
		return rows
	})

	register("pg_catalog", "pg_am", 2601, "oid oid, amname name, amhandler oid, amtype \"char\"", func(v *View) [][]any {
		var rows [][]any
		for _, m := range accessMethods {
			rows = append(rows, []any{m.oid, m.name, int64(0), m.kind})
		}
		return rows
	})

	register("pg_catalog", "pg_database", 1262, "oid oid, datname name, datdba oid, encoding int4, datlocprovider \"char\", datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid xid, datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text, datcollversion text, datacl text[]", func(v *View) [][]any {
		return [][]any{{int64(DatabaseOID), v.Database, int64(BootstrapUserOID), int64(6), "c", false, true, int64(-1), int64(functions.FirstNormalXid), int64(1), int64(1663), "C.UTF-8", "C.UTF-8", nil, nil, nil}}
	})

	roleCols := "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, rolconfig text[], oid oid"
	register("pg_catalog", "pg_roles", 0, roleCols, func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			rows = append(rows, []any{r.Name, r.Superuser, r.Inherit, r.CreateRole, r.CreateDB, r.Login, r.OID == catalog.BootstrapRoleOID,
				int64(r.ConnLimit), "********", validUntil(r), r.OID == catalog.BootstrapRoleOID || r.BypassRLS, roleConfig(r), int64(r.OID)})
		}
		return rows
	})
	register("pg_catalog", "pg_user", 0, "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			if r.Login {
				boot := r.OID == catalog.BootstrapRoleOID
				rows = append(rows, []any{r.Name, int64(r.OID), r.CreateDB, r.Superuser, boot, boot || r.BypassRLS, "********", validUntil(r), roleConfig(r)})
			}
		}
		return rows
	})
	// pg_db_role_setting holds ALTER ROLE ... SET defaults (psql's
	// \drds); cairn has no per-database ones, so setdatabase is 0.
	register("pg_catalog", "pg_db_role_setting", 2964, "setdatabase oid, setrole oid, setconfig text[]", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			if len(r.Config) > 0 {
				rows = append(rows, []any{int64(0), int64(r.OID), roleConfig(r)})
			}
		}
		return rows
	})
	// pg_default_acl: ALTER DEFAULT PRIVILEGES' entries, their OIDs
	// derived from what identifies each.
	register("pg_catalog", "pg_default_acl", 826, "oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype \"char\", defaclacl text[]", func(v *View) [][]any {
		var rows [][]any
		for _, d := range v.Cat.DefaultACLs {
			var ns int64
			if d.Schema != "" {
				ns = SchemaOID(d.Schema)
			}
			rows = append(rows, []any{hashOID("default_acl " + strconv.FormatUint(uint64(d.Role), 10) + " " + d.Schema + " " + d.Kind), int64(d.Role), ns, d.Kind, aclDatum(v.Cat, d.ACL)})
		}
		return rows
	})

	register("pg_catalog", "pg_auth_members", 1261, "roleid oid, member oid, grantor oid, admin_option bool", func(v *View) [][]any {
		var rows [][]any
		for _, m := range v.Cat.Members {
			rows = append(rows, []any{int64(m.Role), int64(m.Member), int64(m.Grantor), m.Admin})
		}
		return rows
	})
	register("pg_catalog", "pg_description", 2609, "objoid oid, classoid oid, objsubid int4, description text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.comments() {
			rows = append(rows, []any{c.objoid, c.classoid, c.sub, c.text})
		}
		return rows
	})
	register("pg_catalog", "pg_shdescription", 2396, "objoid oid, classoid oid, description text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.sharedComments() {
			rows = append(rows, []any{c.objoid, c.classoid, c.text})
		}
		return rows
	})
	register("pg_catalog", "pg_extension", pgExtensionOID, "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, extversion text, extconfig oid[], extcondition text[]", func(v *View) [][]any {
		var rows [][]any
		for _, e := range extensions {
			rows = append(rows, []any{e.oid, e.name, int64(BootstrapUserOID), SchemaOID(e.schema), false, e.version, nil, nil})
		}
		return rows
	})
	register("pg_catalog", "pg_collation", 3456, "oid oid, collname name, collnamespace oid, collowner oid, collprovider \"char\", collisdeterministic bool, collencoding int4, collcollate text, collctype text, colliculocale text, collversion text", func(v *View) [][]any {
		return [][]any{
			{int64(defaultCollationOID), "default", int64(PgCatalogOID), int64(BootstrapUserOID), "d", true, int64(-1), nil, nil, nil, nil},
			{int64(950), "C", int64(PgCatalogOID), int64(BootstrapUserOID), "c", true, int64(-1), "C", "C", nil, nil},
			{int64(951), "POSIX", int64(PgCatalogOID), int64(BootstrapUserOID), "c", true, int64(-1), "POSIX", "POSIX", nil, nil},
		}
	})
	register("pg_catalog", "pg_inherits", 2611, "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool", nil)
	register("pg_catalog", "pg_policy", 3256, "oid oid, polname name, polrelid oid, polcmd \"char\", polpermissive bool, polroles oid[], polqual text, polwithcheck text", func(v *View) [][]any {
		var rows [][]any
		for _, t := range v.tables {
			for _, p := range t.Policies {
				roles := make([]any, len(p.Roles))
				for i, r := range p.Roles {
					roles[i] = int64(r)
				}
				rows = append(rows, []any{PolicyOID(TableOID(t.ID), p.Name), p.Name, TableOID(t.ID), p.Cmd, !p.Restrictive,
					types.NewArray(types.OidT, roles...), nullIfEmpty(p.Using), nullIfEmpty(p.Check)})
			}
		}
		return rows
	})
	register("pg_catalog", "pg_policies", 0, "schemaname name, tablename name, policyname name, permissive text, roles name[], cmd text, qual text, with_check text", func(v *View) [][]any {
		var rows [][]any
		for _, t := range v.tables {
			for _, p := range t.Policies {
				roles := make([]any, len(p.Roles))
				for i, r := range p.Roles {
					roles[i] = "public"
					if r != catalog.PublicOID {
						roles[i] = v.Cat.RoleName(r)
					}
				}
				kind := "PERMISSIVE"
				if p.Restrictive {
					kind = "RESTRICTIVE"
				}
				rows = append(rows, []any{t.Schema, t.Name, p.Name, kind, types.NewArray(types.NameT, roles...),
					catalog.PolicyCmdName(p.Cmd), nullIfEmpty(p.Using), nullIfEmpty(p.Check)})
			}
		}
		return rows
	})
	register("pg_catalog", "pg_statistic_ext", 3381, "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget int4, stxkeys int2vector, stxkind text[], stxexprs text", nil)
	register("pg_catalog", "pg_publication", 6104, "oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool", nil)
	register("pg_catalog", "pg_publication_namespace", 6237, "oid oid, pnpubid oid, pnnspid oid", nil)
	register("pg_catalog", "pg_publication_rel", 6106, "oid oid, prpubid oid, prrelid oid, prqual text, prattrs int2[]", nil)
	register("pg_catalog", "pg_trigger", 2620, "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype int2, tgenabled \"char\", tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2, tgattr int2vector, tgargs bytea, tgqual text, tgoldtable name, tgnewtable name", triggerRows)
	register("pg_catalog", "pg_proc", 1255, "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, prorows float4, provariadic oid, prosupport regproc, prokind \"char\", prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, provolatile \"char\", proparallel \"char\", pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes text[], proargnames text[], proargdefaults text, protrftypes oid[], prosrc text, probin text, prosqlbody text, proconfig text[], proacl text[]", procRows)
	register("pg_catalog", "pg_enum", 3501, "oid oid, enumtypid oid, enumsortorder float4, enumlabel name", func(v *View) [][]any {
		var rows [][]any
		for _, td := range v.userTypes() {
			if td.Enum == nil {
				continue
			}
			for _, l := range td.Enum.Labels {
				rows = append(rows, []any{int64(l.OID), int64(td.Enum.OID), float64(l.Sort), l.Label})
			}
		}
		return rows
	})
	register("pg_catalog", "pg_range", 3541, "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical oid, rngsubdiff oid", nil)
	register("pg_catalog", "pg_tablespace", 1213, "oid oid, spcname name, spcowner oid, spcacl text[], spcoptions text[]", func(v *View) [][]any {
		return [][]any{{int64(1663), "pg_default", int64(BootstrapUserOID), nil, nil}, {int64(1664), "pg_global", int64(BootstrapUserOID), nil, nil}}
	})
	register("pg_catalog", "pg_sequence", 2224, "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, seqmin int8, seqcache int8, seqcycle bool", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.sequences {
			rows = append(rows, []any{SequenceOID(s.Schema, s.Name), sequenceTypeOID(s), s.Start, s.Increment, s.Max, s.Min, int64(1), s.Cycle})
		}
		return rows
	})
	register("pg_catalog", "pg_tables", 0, "schemaname name, tablename name, tableowner name, tablespace name, hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool", func(v *View) [][]any {
		var rows [][]any
		for _, t := range v.tables {
			rows = append(rows, []any{t.Schema, t.Name, v.User, nil, v.hasIndex(t), false, false, t.RowSecurity})
		}
		return rows
	})
	register("pg_catalog", "pg_indexes", 0, "schemaname name, tablename name, indexname name, tablespace name, indexdef text", func(v *View) [][]any {
		var rows [][]any
		for _, ix := range v.indexes {
			def, _ := v.IndexDef(ix.oid, 0, false)
			rows = append(rows, []any{ix.schema, ix.table.Name, ix.name, nil, def})
		}
		return rows
	})
	register("pg_catalog", "pg_views", 0, "schemaname name, viewname name, viewowner name, definition text", func(v *View) [][]any {
		var rows [][]any
		for _, d := range v.views {
			def, _ := v.ViewDef(ViewOID(d.Schema, d.Name))
			rows = append(rows, []any{d.Schema, d.Name, v.User, def})
		}
		return rows
	})
	register("pg_catalog", "pg_matviews", 0, "schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes bool, ispopulated bool, definition text", nil)
	register("pg_catalog", "pg_sequences", 0, "schemaname name, sequencename name, sequenceowner name, data_type regtype, start_value int8, min_value int8, max_value int8, increment_by int8, cycle bool, cache_size int8, last_value int8", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.sequences {
			rows = append(rows, []any{s.Schema, s.Name, v.User, sequenceTypeOID(s), s.Start, s.Min, s.Max, s.Increment, s.Cycle, int64(1), nil})
		}
		return rows
	})
}

// typeLayout is pg_type's typalign and typstorage (pg_attribute's
// attalign and attstorage) of the type with OID oid and length typlen,
// and elem its element type's OID when it is an array, as PostgreSQL's
// catalog has them: psql's \d+ shows the storage (numeric's main), and
// an array is aligned as its elements are when they are doubles.
func typeLayout(oid, length, elem int64) (align, storage string) {
	if elem != 0 {
		if elemAlign(elem) == "d" {
			return "d", "x"
		}
		return "i", "x"
	}
	switch oid {
	case 19, 705, 2950: // name, unknown (a C string), uuid
		return "c", "p"
	case 1186: // interval
		return "d", "p"
	case 2249: // record
		return "d", "x"
	case 1700, 869, 650: // numeric, inet, cidr
		return "i", "m"
	case 774: // macaddr8
		return "i", "p"
	case 22, 30, 3615: // int2vector, oidvector, tsquery
		return "i", "p"
	}
	switch {
	case length == 1:
		return "c", "p"
	case length == 2:
		return "s", "p"
	case length == 8:
		return "d", "p"
	case length < 0:
		return "i", "x"
	}
	return "i", "p"
}

// elemAlign is the typalign of an array's element type, the type with
// OID oid: a built-in type's, a pseudo-type's (record) or an enum's.
func elemAlign(oid int64) string {
	for _, t := range builtinTypes {
		if t.oid == oid {
			align, _ := typeLayout(t.oid, t.len, 0)
			return align
		}
	}
	for _, pt := range pseudoTypes {
		if pt.oid == oid {
			return pt.align
		}
	}
	return "i"
}

// sequenceTypeOID is the OID of a sequence's data type (pg_sequence.seqtypid).
func sequenceTypeOID(s *catalog.SequenceDef) int64 {
	switch s.Type {
	case "smallint":
		return int64(types.Int2T.OID())
	case "integer":
		return int64(types.Int4T.OID())
	}
	return int64(types.Int8T.OID())
}

// viewNames are the pg_catalog relations that are views in PostgreSQL.
var viewNames = map[string]bool{
	"pg_roles": true, "pg_user": true, "pg_tables": true, "pg_indexes": true, "pg_views": true,
	"pg_matviews": true, "pg_sequences": true, "pg_settings": true, "pg_stat_user_tables": true,
	"pg_stat_activity": true, "pg_locks": true, "pg_prepared_xacts": true, "pg_timezone_names": true,
	"pg_available_extensions": true, "pg_prepared_statements": true, "pg_seclabels": true, "pg_cursors": true,
	"pg_stat_gssapi": true, "pg_stat_all_tables": true, "pg_statio_user_tables": true, "pg_statio_all_tables": true,
	"pg_stat_user_indexes": true, "pg_stat_all_indexes": true, "pg_statio_user_indexes": true, "pg_statio_all_indexes": true,
	"pg_stats": true, "pg_stat_user_functions": true, "pg_user_mappings": true,
	"pg_stat_replication": true, "pg_replication_slots": true, "pg_stat_wal_receiver": true, "pg_stat_subscription": true,
	"pg_stat_progress_vacuum": true, "pg_stat_bgwriter": true, "pg_stat_archiver": true, "pg_stat_database_conflicts": true,
	"pg_group": true, "pg_shadow": true, "pg_hba_file_rules": true, "pg_file_settings": true, "pg_config": true,
	"pg_available_extension_versions": true, "pg_rules": true, "pg_stat_wal": true, "pg_stat_recovery_prefetch": true,
	"pg_stat_slru": true, "pg_stat_replication_slots": true, "pg_stat_subscription_stats": true, "pg_publication_tables": true,
	"pg_ident_file_mappings": true, "pg_stat_progress_analyze": true, "pg_stat_progress_cluster": true,
	"pg_stat_progress_basebackup": true, "pg_stat_sys_tables": true, "pg_statio_sys_tables": true, "pg_stat_sys_indexes": true,
	"pg_statio_sys_indexes": true, "pg_stat_xact_user_tables": true, "pg_stat_xact_all_tables": true,
	"pg_stat_xact_sys_tables": true, "pg_stat_xact_user_functions": true, "pg_statio_user_sequences": true,
	"pg_statio_all_sequences": true, "pg_statio_sys_sequences": true, "pg_stat_ssl": true,
}

// accessMethod is a row of pg_am.
type accessMethod struct {
	oid  int64
	name string
	kind string
	ext  string // the extension that provides it ("" for PostgreSQL's)
}

// accessMethods are the table and index methods: tables are heap in
// pg_am's terms; the index kinds are the ones CREATE INDEX records.
var accessMethods = []accessMethod{
	{heapAMOID, "heap", "t", ""},
	{btreeAMOID, "btree", "i", ""},
	{405, "hash", "i", ""},
	{783, "gist", "i", ""},
	{2742, "gin", "i", ""},
	{3580, "brin", "i", ""},
	{hashOID("am:hnsw"), "hnsw", "i", "vector"},
	{hashOID("am:ivfflat"), "ivfflat", "i", "vector"},
	{hashOID("am:deeplake_index"), "deeplake_index", "i", "pg_deeplake"},
}

// attrdefOID is the pg_attrdef OID of column c's default.
func attrdefOID(t *catalog.TableDef, c catalog.ColumnDef) int64 {
	return hashOID("d:" + t.Name + "." + c.Name)
}

// ruleOID is the pg_rewrite OID of view d's _RETURN rule.
func ruleOID(d *catalog.ViewDef) int64 { return hashOID("rw:" + d.Schema + "." + d.Name) }

// hasIndex reports whether a table has an index: a recorded one, or the
// one behind its primary key or a unique constraint.
func (v *View) hasIndex(t *catalog.TableDef) bool {
	return len(t.PrimaryKey) > 0 || len(t.Uniques) > 0 || len(v.Cat.IndexesOf(t.ID)) > 0
}

// amOID is the pg_am OID of an index method.
func amOID(method string) int64 {
	for _, m := range accessMethods {
		if m.name == method {
			return m.oid
		}
	}
	return btreeAMOID
}

// validUntil is a role's rolvaliduntil datum.
func validUntil(r *catalog.RoleDef) any {
	if r.ValidUntil == nil {
		return nil
	}
	return types.Timestamp(r.ValidUntil.UnixMicro())
}

// aclDatum is an ACL as relacl and nspacl show it: NULL for the default,
// else aclitem texts (catalog.ACLText).
func aclDatum(cat *catalog.Catalog, acl []catalog.ACLItem) any {
	if acl == nil {
		return nil
	}
	items := cat.ACLText(acl)
	vals := make([]any, len(items))
	for i, it := range items {
		vals[i] = it
	}
	return types.NewArray(types.TextT, vals...)
}

// roleConfig is a role's rolconfig datum.
func roleConfig(r *catalog.RoleDef) any {
	if len(r.Config) == 0 {
		return nil
	}
	vals := make([]any, len(r.Config))
	for i, c := range r.Config {
		vals[i] = c
	}
	return types.NewArray(types.TextT, vals...)
}

// Superuser reports whether the view's user is a superuser (a name that
// is no role stands for the bootstrap superuser, as in exec/session).
func (v *View) Superuser() bool {
	r := v.Cat.Role(v.User)
	return r == nil || r.Superuser
}

// RoleName implements functions.RoleCatalog (pg_get_userbyid): the
// bootstrap superuser is the session's login name when that names no
// role, as such a login acts as it.
func (v *View) RoleName(oid int64) (string, bool) {
	r := v.Cat.RoleByOID(uint32(oid))
	switch {
	case r == nil:
		return "", false
	case r.OID == catalog.BootstrapRoleOID && v.Cat.Role(v.User) == nil:
		return v.User, true
	}
	return r.Name, true
}

// HasPrivilege implements functions.PrivilegeCatalog: whether role holds
// want on the table (or, with schema, the schema) of OID object, by the
// catalog's owners and ACLs; known is false for an OID that names none.
// System catalogs and schemas are readable by everyone, as PostgreSQL's
// are; a view (which has no ACL yet) only by its owner.
func (v *View) HasPrivilege(role, object int64, schema bool, want catalog.Priv, grantOption bool) (ok, known bool) {
	cat, r := v.Cat, uint32(role)
	if schema {
		for _, s := range v.schemas() {
			if SchemaOID(s) != object {
				continue
			}
			if d := cat.Schemas[s]; d != nil {
				return cat.HasPrivilege(d.ACL, d.Owner, r, catalog.SchemaPrivs, want, grantOption), true
			}
			return cat.HasPrivilege([]catalog.ACLItem{{Grantee: catalog.PublicOID, Grantor: catalog.BootstrapRoleOID, Privs: catalog.PrivUsage}},
				catalog.BootstrapRoleOID, r, catalog.SchemaPrivs, want, grantOption), true
		}
		return false, false
	}
	switch x := v.byOID[object].(type) {
	case *catalog.TableDef:
		return cat.HasPrivilege(x.ACL, x.Owner, r, catalog.TablePrivs, want, grantOption), true
	case *catalog.SequenceDef:
		return cat.HasPrivilege(x.ACL, x.Owner, r, catalog.SequencePrivs, want, grantOption), true
	case *catalog.ViewDef:
		return cat.HasPrivilege(x.ACL, x.Owner, r, catalog.TablePrivs, want, grantOption), true
	case *Relation:
		return cat.HasPrivilege([]catalog.ACLItem{{Grantee: catalog.PublicOID, Grantor: catalog.BootstrapRoleOID, Privs: catalog.PrivSelect}},
			catalog.BootstrapRoleOID, r, catalog.TablePrivs, want, grantOption), true
	}
	return false, false
}

// IsSequence implements functions.PrivilegeCatalog.
func (v *View) IsSequence(rel int64) (isSeq, known bool) {
	switch v.byOID[rel].(type) {
	case *catalog.SequenceDef:
		return true, true
	case *catalog.TableDef, *catalog.ViewDef, *Relation, *index:
		return false, true
	}
	return false, false
}

// HasColumnPrivilege implements functions.PrivilegeCatalog. Relations
// other than tables have no column ACLs: their own privileges answer.
func (v *View) HasColumnPrivilege(role, table int64, column any, want catalog.Priv, grantOption bool) (ok, known bool, err error) {
	t, isTable := v.byOID[table].(*catalog.TableDef)
	if !isTable {
		ok, known = v.HasPrivilege(role, table, false, want, grantOption)
		return ok, known, nil
	}
	switch c := column.(type) {
	case nil:
		for i := range t.Columns {
			if v.Cat.HasColumnPrivilege(t, i, uint32(role), want, grantOption) {
				return true, true, nil
			}
		}
		return false, true, nil
	case string:
		i := slices.IndexFunc(t.Columns, func(col catalog.ColumnDef) bool { return col.Name == c })
		if i < 0 {
			return false, false, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, t.Name)
		}
		return v.Cat.HasColumnPrivilege(t, i, uint32(role), want, grantOption), true, nil
	default:
		n := int(c.(int64))
		if n < 1 || n > len(t.Columns) {
			return false, false, nil
		}
		return v.Cat.HasColumnPrivilege(t, n-1, uint32(role), want, grantOption), true, nil
	}
}

// HasRole implements functions.RoleCatalog (pg_has_role).
func (v *View) HasRole(member, role int64, usage, admin bool) bool {
	m, r := v.Cat.RoleByOID(uint32(member)), v.Cat.RoleByOID(uint32(role))
	switch {
	case m == nil:
		return false
	case m.Superuser:
		return true
	case r == nil:
		return false
	case admin:
		return m.OID != r.OID && v.Cat.HasAdminOf(m.OID, r.OID)
	}
	return v.Cat.IsMemberOf(m.OID, r.OID, usage)
}

// temporary marks the last pg_class row relpersistence 't' when its
// relation lives in a session's temporary schema.
func temporary(rows [][]any, schema string) {
	if catalog.IsTempSchema(schema) {
		rows[len(rows)-1][15] = "t"
	}
}
