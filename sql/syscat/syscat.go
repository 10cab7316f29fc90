package syscat

import (
	"fmt"
	"github.com/cairn-db/cairn/functions"
	"sort"
	"strings"

	"github.com/cairn-db/cairn/sql/types"
)

// Column is a column of a system relation.
type Column struct {
	Name string
	T    types.T
}

// Relation is a system relation: its columns and how to compute its rows.
type Relation struct {
	Schema string
	Name   string
	OID    int64
	Cols   []Column
	// SuperuserOnly marks a relation only superusers may read
	// (pg_authid, which holds the password verifiers).
	SuperuserOnly bool
	rows          func(v *View) [][]any
}

// Rows computes the relation's rows as seen by v; each row has one datum
// per column (nil for NULL).
func (r *Relation) Rows(v *View) [][]any {
	if r.rows == nil {
		return nil
	}
	return r.rows(v)
}

// relations indexes every system relation by schema and name.
var relations = map[string]*Relation{}

// Lookup returns the system relation schema.name, or nil.
func Lookup(schema, name string) *Relation {
	return relations[schema+"."+name]
}

// IsSystemSchema reports whether schema holds system relations only.
func IsSystemSchema(schema string) bool {
	return schema == "pg_catalog" || schema == "information_schema"
}

// register adds a relation; cols is "name type, name type, ..." with the
// type names of types.Named ("char" is PostgreSQL's one-byte type;
// int2vector and oidvector are int2[] and oid[], pg_node_tree and aclitem[]
// text and text[], inet text, xid oid).
func register(schema, name string, oid int64, cols string, rows func(v *View) [][]any) {
	r := &Relation{Schema: schema, Name: name, OID: oid, rows: rows}
	if oid == 0 {
		r.OID = hashOID("r:" + schema + "." + name)
	}
	for _, c := range strings.Split(cols, ",") {
		f := strings.Fields(strings.TrimSpace(c))
		if len(f) != 2 {
			panic(fmt.Sprintf("syscat: bad column %q of %s", c, name))
		}
		r.Cols = append(r.Cols, Column{Name: f[0], T: colType(f[1])})
	}
	relations[schema+"."+name] = r
}

// colType reads the type name of a register column list.
func colType(name string) types.T {
	dims := strings.Count(name, "[]")
	base := strings.TrimSuffix(name, strings.Repeat("[]", dims))
	t, ok := types.Named(base)
	if !ok {
		panic("syscat: unknown type " + name)
	}
	if dims > 0 {
		return types.ArrayOf(t, 1)
	}
	return t
}

// allRelations lists the system relations in a stable order.
func allRelations() []*Relation {
	out := make([]*Relation, 0, len(relations))
	for _, r := range relations {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Schema != out[j].Schema {
			return out[i].Schema < out[j].Schema
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Fixed OIDs of PostgreSQL's built-in objects.
const (
	PgCatalogOID         = 11
	PublicOID            = 2200
	InformationSchemaOID = 13000
	BootstrapUserOID     = 10
	DatabaseOID          = functions.DatabaseOID
	heapAMOID            = 2
	btreeAMOID           = 403
	pgClassOID           = 1259
	pgConstraintOID      = 2606
	pgExtensionOID       = 3079
	pgAttrdefOID         = 2604
	pgRewriteOID         = 2618
	pgProcOID            = 1255
	pgTypeOID            = 1247
	pgAmOID              = 2601
	pgNamespaceOID       = 2615
	pgTriggerOID         = 2620
	pgAuthidOID          = 1260
	pgDatabaseOID        = 1262
	defaultCollationOID  = 100
	tableOIDBase         = 100000
	hashOIDBase          = 1 << 24
)

// TableOID is the OID of the table with storage ID id: offset into the
// user range so it never collides with built-in OIDs (RowDescription
// reports it too).
func TableOID(id uint64) int64 { return tableOIDBase + int64(id) }

// hashOID derives a stable OID from a key, above the table OIDs.
func hashOID(key string) int64 {
	var h uint32 = 2166136261
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= 16777619
	}
	return hashOIDBase + int64(h%(1<<30))
}

// SchemaOID is the OID of a schema.
func SchemaOID(name string) int64 {
	switch name {
	case "pg_catalog":
		return PgCatalogOID
	case "public":
		return PublicOID
	case "information_schema":
		return InformationSchemaOID
	}
	return hashOID("n:" + name)
}

// IndexOID is the OID of an index (or of the index behind a primary key
// or unique constraint).
func IndexOID(schema, name string) int64 { return hashOID("i:" + schema + "." + name) }

// SequenceOID is the OID of a sequence.
func SequenceOID(schema, name string) int64 { return hashOID("S:" + schema + "." + name) }

// ViewOID is the OID of a view.
func ViewOID(schema, name string) int64 { return hashOID("v:" + schema + "." + name) }

// PolicyOID is the OID of a table's row-level security policy.
func PolicyOID(table int64, name string) int64 {
	return hashOID(fmt.Sprintf("p:%d.%s", table, name))
}

// ConstraintOID is the OID of a table constraint.
func ConstraintOID(table int64, name string) int64 {
	return hashOID(fmt.Sprintf("c:%d.%s", table, name))
}
