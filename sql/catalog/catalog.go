package catalog

import (
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/cairn-db/cairn/sql/types"
)

// Catalog is an immutable snapshot of every schema, table, sequence and
// index definition. A transaction sees the catalog as of its start plus its
// own DDL; callers never mutate a Catalog they were handed (use Clone).
type Catalog struct {
	Schemas   map[string]*SchemaDef   `json:"schemas"`
	Tables    map[uint64]*TableDef    `json:"tables"`
	Sequences map[string]*SequenceDef `json:"sequences"`       // key: schema + "." + name
	Indexes   map[string]*IndexDef    `json:"indexes"`         // key: schema + "." + name
	Views     map[string]*ViewDef     `json:"views,omitempty"` // key: schema + "." + name
	// Functions are CREATE FUNCTION's, by FunctionDef.Key.
	Functions map[string]*FunctionDef `json:"functions,omitempty"`
	// Roles are the users and groups by name, Members who belongs to
	// which (role.go); NextRoleOID hands out role OIDs.
	Roles       map[string]*RoleDef `json:"roles,omitempty"`
	Members     []MemberDef         `json:"members,omitempty"`
	NextRoleOID uint32              `json:"next_role_oid,omitempty"`
	// DefaultACLs are ALTER DEFAULT PRIVILEGES' entries (pg_default_acl).
	DefaultACLs []DefaultACL `json:"default_acls,omitempty"`
	// NextID hands out table IDs; IDs are never reused.
	NextID uint64 `json:"next_id"`
	// Types are the user-defined types (enums) by schema + "." + name;
	// NextTypeOID hands out their OIDs and their labels' (enum.go).
	Types       map[string]*TypeDef `json:"types,omitempty"`
	NextTypeOID uint32              `json:"next_type_oid,omitempty"`
	// DatabaseComment is COMMENT ON DATABASE's text ("" for none): the
	// server's one database, whatever name a session connects by.
	DatabaseComment string `json:"database_comment,omitempty"`
	// ExtensionComments are COMMENT ON EXTENSION's texts by extension
	// name, in place of a built-in extension's own ("" removes it).
	ExtensionComments map[string]string `json:"extension_comments,omitempty"`
}

// SchemaDef is a schema (a workspace).
type SchemaDef struct {
	Name string `json:"name"`
	// Owner is the owning role's OID, 0 for the bootstrap superuser
	// (OwnerOID); ACL its privileges, nil for the default (acl.go).
	Owner uint32    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl"`
	// Comment is COMMENT ON SCHEMA's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// TableDef is a table's definition. Column positions are the order of
// Columns; a column's ID is stable across renames and never reused, and is
// what segment files are matched by.
type TableDef struct {
	ID      uint64      `json:"id"`
	Schema  string      `json:"schema"`
	Name    string      `json:"name"`
	Columns []ColumnDef `json:"columns"`
	// PrimaryKey holds column IDs; empty when the table has none.
	PrimaryKey []int `json:"primary_key,omitempty"`
	// PrimaryKeyName names the primary key constraint, which is also the
	// entry of Uniques over PrimaryKey that storage enforces it by. It is
	// set when the key is made (as CONSTRAINT names it, else
	// "<table>_pkey" of the table's name then: renaming the table keeps
	// it, as in PostgreSQL); "" in catalogs written before, where
	// PrimaryKeyConstraint finds it among Uniques.
	PrimaryKeyName string `json:"primary_key_name,omitempty"`
	// Uniques are UNIQUE constraints (column IDs each), enforced by storage
	// at insert and at commit like the primary key.
	Uniques []UniqueDef `json:"uniques,omitempty"`
	// Checks and ForeignKeys are SQL text that storage only keeps; the
	// executor evaluates them.
	Checks      []CheckDef      `json:"checks,omitempty"`
	ForeignKeys []ForeignKeyDef `json:"foreign_keys,omitempty"`
	// NextColumnID hands out column IDs.
	NextColumnID int `json:"next_column_id"`
	// Comment is COMMENT ON TABLE's text ("" for none).
	Comment string `json:"comment,omitempty"`
	// Owner is the owning role's OID, 0 for the bootstrap superuser
	// (OwnerOID); ACL its privileges, nil for the default (acl.go).
	Owner uint32    `json:"owner,omitempty"`
	ACL   []ACLItem `json:"acl"`
	// RowSecurity and ForceRowSecurity are ALTER TABLE's ENABLE and FORCE
	// ROW LEVEL SECURITY; Policies the table's policies (policy.go).
	RowSecurity      bool        `json:"row_security,omitempty"`
	ForceRowSecurity bool        `json:"force_row_security,omitempty"`
	Policies         []PolicyDef `json:"policies,omitempty"`
	// Triggers are the table's triggers, in order of creation (they
	// fire in order of name, as PostgreSQL's).
	Triggers []TriggerDef `json:"triggers,omitempty"`
}

// TriggerTable is view v as the table its triggers run on: its name,
// columns and triggers, no ID (nothing is stored in it). INSERT, UPDATE
// and DELETE on a view with an INSTEAD OF trigger for them write it,
// and the trigger runs for each row in place of the write.
func (v *ViewDef) TriggerTable() *TableDef {
	t := &TableDef{Schema: v.Schema, Name: v.Name, Owner: v.Owner, ACL: v.ACL, Triggers: v.Triggers}
	for i, c := range v.Columns {
		t.Columns = append(t.Columns, ColumnDef{ID: i + 1, Name: c.Name, Type: c.Type})
	}
	t.NextColumnID = len(t.Columns) + 1
	return t
}

// InsteadOf reports whether the view has an enabled INSTEAD OF trigger
// for event (INSERT, UPDATE, DELETE): writes of it run the trigger.
func (v *ViewDef) InsteadOf(event string) bool {
	return slices.ContainsFunc(v.Triggers, func(t TriggerDef) bool { return t.Instead && t.Fires(event) })
}

// ColumnDef is one column.
type ColumnDef struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Type    types.T `json:"type"`
	NotNull bool    `json:"not_null,omitempty"`
	// Default is the SQL text of the DEFAULT expression, "" for none;
	// storage does not interpret it.
	Default string `json:"default,omitempty"`
	// Comment is COMMENT ON COLUMN's text ("" for none).
	Comment string `json:"comment,omitempty"`
	// Identity is "a" for GENERATED ALWAYS AS IDENTITY, "d" for GENERATED
	// BY DEFAULT AS IDENTITY, "" for neither (pg_attribute.attidentity);
	// Default then draws from the column's sequence.
	Identity string `json:"identity,omitempty"`
	// Generated is "s" for a stored generated column (GENERATED ALWAYS AS
	// (expr) STORED), "" otherwise (pg_attribute.attgenerated); Default
	// then holds the generation expression, computed from the row's other
	// columns on every write, as pg_attrdef holds it.
	Generated string `json:"generated,omitempty"`
	// Domain is the pg_type OID of the domain the column was declared
	// with (Type is then the domain's base type), 0 for none.
	Domain uint32 `json:"domain,omitempty"`
	// ACL is the column's privileges (GRANT SELECT (col) ...), beside
	// the table's; nil for none (pg_attribute.attacl NULL).
	ACL []ACLItem `json:"acl,omitempty"`
}

// UniqueDef is a UNIQUE (or PRIMARY KEY) constraint.
type UniqueDef struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"` // column IDs
	// Deferrable is DEFERRABLE (INITIALLY IMMEDIATE): checked at each
	// row as any other, and SET CONSTRAINTS ... DEFERRED on it is refused
	// (cairn does not defer uniqueness).
	Deferrable bool `json:"deferrable,omitempty"`
	// NullsNotDistinct is UNIQUE NULLS NOT DISTINCT (PostgreSQL 15): a
	// key with a NULL conflicts with an equal key, NULLs counting as
	// equal, instead of with none.
	NullsNotDistinct bool `json:"nulls_not_distinct,omitempty"`
	// Comment is COMMENT ON CONSTRAINT's text, IndexComment COMMENT ON
	// INDEX's on the index behind the constraint ("" for none).
	Comment      string `json:"comment,omitempty"`
	IndexComment string `json:"index_comment,omitempty"`
}

// CheckDef is a CHECK constraint as SQL text.
type CheckDef struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// Columns are the IDs of the columns Expr reads, in order of
	// appearance (pg_constraint.conkey); empty in catalogs written before
	// they were recorded.
	Columns []int `json:"columns,omitempty"`
	// NotValid marks a check added NOT VALID and not validated since: new
	// and updated rows are checked, the rows the table held then need
	// not pass (pg_constraint.convalidated false).
	NotValid bool `json:"not_valid,omitempty"`
	// Comment is COMMENT ON CONSTRAINT's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// ForeignKeyDef is FOREIGN KEY (Columns) REFERENCES RefSchema.RefTable
// (RefColumns) [MATCH FULL] [ON UPDATE OnUpdate] [ON DELETE OnDelete].
type ForeignKeyDef struct {
	Name       string `json:"name"`
	Columns    []int  `json:"columns"`
	RefTable   uint64 `json:"ref_table"`
	RefColumns []int  `json:"ref_columns"`
	// OnDelete and OnUpdate are the referential actions, coded as
	// pg_constraint.confdeltype and confupdtype: FKNoAction ("", which
	// catalogs written before actions existed hold), FKRestrict,
	// FKCascade, FKSetNull or FKSetDefault.
	OnDelete string `json:"on_delete,omitempty"`
	OnUpdate string `json:"on_update,omitempty"`
	// DeleteSetColumns are the column IDs of ON DELETE SET NULL (cols) or
	// SET DEFAULT (cols), a subset of Columns; empty for all of them
	// (pg_constraint.confdelsetcols).
	DeleteSetColumns []int `json:"delete_set_columns,omitempty"`
	// MatchFull is MATCH FULL: a key with some but not all columns NULL
	// is a violation (MATCH SIMPLE, the default, passes it).
	MatchFull bool `json:"match_full,omitempty"`
	// Deferrable is DEFERRABLE: SET CONSTRAINTS may move the check of the
	// referencing rows (and NO ACTION's check of the referenced ones) to
	// the end of the transaction. InitiallyDeferred is INITIALLY DEFERRED:
	// each transaction starts with the check there.
	Deferrable        bool `json:"deferrable,omitempty"`
	InitiallyDeferred bool `json:"initially_deferred,omitempty"`
	// NotValid marks a foreign key added NOT VALID and not validated
	// since: it is enforced on rows written and referenced rows deleted
	// from then on, and the rows the table held then need not match.
	NotValid bool `json:"not_valid,omitempty"`
	// Comment is COMMENT ON CONSTRAINT's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// The referential actions of ForeignKeyDef.OnDelete and OnUpdate, as
// pg_constraint codes them (NO ACTION is "a" there).
const (
	FKNoAction   = ""
	FKRestrict   = "r"
	FKCascade    = "c"
	FKSetNull    = "n"
	FKSetDefault = "d"
)

// ViewDef is a view: the SQL text of its query, bound again wherever the
// view is read (under the search path it was created with, so its names
// mean what they meant then), and the columns it had when created.
type ViewDef struct {
	Schema     string      `json:"schema"`
	Name       string      `json:"name"`
	Query      string      `json:"query"`
	SearchPath []string    `json:"search_path"`
	Columns    []ColumnDef `json:"columns"`
	// QueryColumns are the names the query gave its columns (before the
	// view's own column names), to tell when a changed table makes the
	// query answer other columns than the view was made of.
	QueryColumns []string `json:"query_columns"`
	// Owner is the owning role's OID, 0 for the bootstrap superuser
	// (OwnerOID).
	Owner uint32 `json:"owner,omitempty"`
	// ACL is the view's privileges, as a table's (nil: the owner's).
	ACL []ACLItem `json:"acl,omitempty"`
	// CheckOption is WITH [LOCAL | CASCADED] CHECK OPTION: "local" or
	// "cascaded", "" for none. Rows written through the view must then
	// be rows the view shows.
	CheckOption string `json:"check_option,omitempty"`
	// Comment is COMMENT ON VIEW's text ("" for none); COMMENT ON COLUMN
	// of a view sets its column's. CREATE OR REPLACE VIEW keeps them.
	Comment string `json:"comment,omitempty"`
	// Triggers are the view's triggers: INSTEAD OF row triggers and
	// BEFORE or AFTER statement triggers, which fire when a write of the
	// view runs its INSTEAD OF triggers (catalog.TriggerTable).
	Triggers []TriggerDef `json:"triggers,omitempty"`
}

// SequenceDef is a sequence (serial columns own one).
type SequenceDef struct {
	Schema    string `json:"schema"`
	Name      string `json:"name"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	// Cycle makes nextval past a bound start again at the other one.
	Cycle bool `json:"cycle,omitempty"`
	// Type is the sequence's data type (AS type; a serial column's
	// type): "smallint" or "integer", "" for bigint. It bounds Min and
	// Max, and pg_sequence.seqtypid shows it (pg_dump writes AS integer).
	Type string `json:"type,omitempty"`
	// Owner is the owning role's OID (OwnerOID); a serial column's
	// sequence belongs to its table's creator.
	Owner uint32 `json:"owner,omitempty"`
	// ACL is the sequence's privileges (nil: the owner's).
	ACL []ACLItem `json:"acl,omitempty"`
	// OwnedBy is the column ALTER SEQUENCE ... OWNED BY tied it to (nil:
	// none): dropping the table drops the sequence. A serial or identity
	// column's sequence is its column's through the column's default, with
	// or without it.
	OwnedBy *SequenceOwner `json:"owned_by,omitempty"`
	// Comment is COMMENT ON SEQUENCE's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// SequenceOwner is the column a sequence belongs to: a table's ID and
// the column's ID.
type SequenceOwner struct {
	Table  uint64 `json:"table"`
	Column int    `json:"column"`
}

// IndexDef is a recorded index (deeplake_index, hnsw, ivfflat, btree).
type IndexDef struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Table  uint64 `json:"table"`
	Method string `json:"method"`
	// Columns are the IDs of the indexed columns. A deeplake_index on
	// (embedding, text)::deeplake_hybrid_record holds both, embedding
	// first, with Options["index_type"] "hybrid".
	Columns []int `json:"columns"`
	// Options are the index's effective parameters: the WITH options,
	// validated and normalised (integers in decimal, index_type in lower
	// case), and for hnsw, ivfflat and deeplake_index the access method's
	// default for each parameter WITH left out, so whoever builds the
	// index needs no defaults of its own (IntOption reads them).
	Options map[string]string `json:"options,omitempty"`
	// With are the WITH options as written, "name=value" in the order
	// given: pg_class.reloptions, which pg_get_indexdef prints.
	With []string `json:"with,omitempty"`
	// OpClass is the operator class of an hnsw or ivfflat index
	// (OpClassL2, OpClassIP, OpClassCosine, OpClassL1): the distance the
	// index orders by. "" in catalogs written before it was recorded:
	// EffectiveOpClass reads that as the default.
	OpClass string `json:"opclass,omitempty"`
	// Desc marks the keys indexed DESC, by position in CREATE INDEX's
	// key list (a hybrid record is one key); nil when none is.
	Desc []bool `json:"desc,omitempty"`
	// NullsFlipped marks the keys whose NULLS FIRST or NULLS LAST is not
	// their direction's default (NULLS LAST ascending, NULLS FIRST
	// descending), by position; nil when none is.
	NullsFlipped []bool `json:"nulls_flipped,omitempty"`
	Unique       bool   `json:"unique,omitempty"`
	// NullsNotDistinct is CREATE UNIQUE INDEX ... NULLS NOT DISTINCT:
	// keys with NULLs conflict as equal keys do (pg_index.indnullsnotdistinct).
	NullsNotDistinct bool `json:"nulls_not_distinct,omitempty"`
	// Expr is the SQL text of the key of an index on an expression, in
	// parentheses unless it is a function call, as pg_get_indexdef prints
	// it (a gin index on to_tsvector(...), as mem0 creates, a btree one on
	// metadata_ ->> 'ref_doc_id', as LlamaIndex does), whose Columns are then
	// the columns the expression reads. cairn keeps such an index in the
	// catalog only: nothing is built for it and no plan reads it.
	Expr string `json:"expr,omitempty"`
	// ExprType is the type of Expr's value, whose default operator class
	// pg_index.indclass lists (nil in catalogs written before it was
	// recorded).
	ExprType *types.T `json:"expr_type,omitempty"`
	// Pred is the SQL text of a partial index's predicate (CREATE INDEX
	// ... WHERE pred), "" for none; PredDef is it as pg_get_indexdef
	// prints it (pg_index.indpred), and PredColumns are the IDs of the
	// columns it reads (dropping one drops the index, as in PostgreSQL).
	// A non-unique partial index is kept in the catalog only, as one on
	// an expression is; a unique one is enforced among the rows the
	// predicate holds for (see ComputedKey).
	Pred        string `json:"pred,omitempty"`
	PredDef     string `json:"pred_def,omitempty"`
	PredColumns []int  `json:"pred_columns,omitempty"`
	// Keys are the keys of an index of several keys at least one of which
	// is an expression (CREATE INDEX ON t (lower(email), tenant_id)), in
	// order; Expr and ExprType are then empty and Columns are the columns
	// the keys read. A non-unique such index is kept in the catalog only,
	// as one on a single expression is; a unique one is enforced on its
	// keys computed from the row (see ComputedKey).
	Keys []IndexKey `json:"keys,omitempty"`
	// Comment is COMMENT ON INDEX's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// IndexKey is one key of an index with expression keys (IndexDef.Keys): a
// column's, or an expression's, held as IndexDef.Expr holds one, with
// its type.
type IndexKey struct {
	Column int      `json:"column,omitempty"`
	Expr   string   `json:"expr,omitempty"`
	Type   *types.T `json:"type,omitempty"`
}

// ComputedKey reports whether ix is a unique index whose key storage
// computes from the row rather than reading its columns: a unique index
// on an expression, on keys mixing columns and expressions, or a partial
// one. Its key is the value of Expr (or of Keys, or of Columns) for a
// row Pred holds for and NULL — which conflicts with nothing — for the
// others; such an index backs no primary key, foreign key or point
// lookup, only uniqueness and ON CONFLICT.
func (ix *IndexDef) ComputedKey() bool {
	return ix.Unique && (ix.Expr != "" || ix.Pred != "" || len(ix.Keys) > 0)
}

// PlainUnique reports whether ix is a unique index over its columns'
// values for every row, as a UNIQUE constraint is.
func (ix *IndexDef) PlainUnique() bool { return ix.Unique && !ix.ComputedKey() }

// KeyDesc reports whether key i is indexed DESC.
func (ix *IndexDef) KeyDesc(i int) bool { return i < len(ix.Desc) && ix.Desc[i] }

// KeyNullsFirst reports whether key i sorts NULLs first.
func (ix *IndexDef) KeyNullsFirst(i int) bool {
	return ix.KeyDesc(i) != (i < len(ix.NullsFlipped) && ix.NullsFlipped[i])
}

// The operator classes of pgvector's hnsw and ivfflat indexes, which
// cairn also accepts on real[] columns.
const (
	OpClassL2     = "vector_l2_ops"     // <->, Euclidean distance
	OpClassIP     = "vector_ip_ops"     // <#> on vector: negative inner product
	OpClassCosine = "vector_cosine_ops" // <=>, cosine distance
	OpClassL1     = "vector_l1_ops"     // <+>, taxicab distance (hnsw only)
)

// DefaultOpClass is the operator class an hnsw or ivfflat index on a
// column of type t uses when CREATE INDEX names none: vector_l2_ops on
// vector, as pgvector's ivfflat does (pgvector's hnsw has no default and
// refuses; cairn takes the same one), and vector_cosine_ops on real[]
// (a cairn extension: on real[], <#> is pg_deeplake's cosine similarity,
// so an index on a real[] column serves it by default). "" for other
// methods.
func DefaultOpClass(method string, t types.T) string {
	if method != "hnsw" && method != "ivfflat" {
		return ""
	}
	if t.Family == types.Vector {
		return OpClassL2
	}
	return OpClassCosine
}

// EffectiveOpClass is the operator class of an hnsw or ivfflat index on
// table t: the one recorded, or the default for the column's type.
func (ix *IndexDef) EffectiveOpClass(t *TableDef) string {
	if ix.OpClass != "" || len(ix.Columns) == 0 {
		return ix.OpClass
	}
	_, c := t.ColumnByID(ix.Columns[0])
	if c == nil {
		return ""
	}
	return DefaultOpClass(ix.Method, c.Type)
}

// IndexParam is an integer WITH parameter of an access method, with
// pgvector's default and valid range.
type IndexParam struct {
	Name     string
	Default  int
	Min, Max int
}

// VectorIndexParams are the WITH parameters of hnsw and ivfflat, as
// pgvector 0.8.6 defines them (hnsw.h, ivfflat.h).
var VectorIndexParams = map[string][]IndexParam{
	"hnsw":    {{Name: "m", Default: 16, Min: 2, Max: 100}, {Name: "ef_construction", Default: 64, Min: 4, Max: 1000}},
	"ivfflat": {{Name: "lists", Default: 100, Min: 1, Max: 32768}},
}

// IntOption is the integer parameter name of an hnsw or ivfflat index:
// its recorded value, or pgvector's default where the catalog was written
// before defaults were recorded (0 for a parameter the method lacks).
func (ix *IndexDef) IntOption(name string) int {
	if v, err := strconv.Atoi(ix.Options[name]); err == nil {
		return v
	}
	for _, p := range VectorIndexParams[ix.Method] {
		if p.Name == name {
			return p.Default
		}
	}
	return 0
}

// PublicSchema is the schema that exists in every new database.
const PublicSchema = "public"

// RowIDColumn is the name of the hidden row ID column: Scan appends it when
// asked to, and every segment file stores it. No table column may use it.
const RowIDColumn = "__rowid"

// New returns an empty catalog holding only the public schema.
func New() *Catalog {
	c := &Catalog{NextID: 1}
	c.Normalize()
	c.Schemas[PublicSchema] = &SchemaDef{Name: PublicSchema, ACL: PublicSchemaACL()}
	return c
}

// Normalize replaces nil maps (from an old or hand-written catalog.json)
// with empty ones, and adds the bootstrap superuser to a catalog without
// one.
func (c *Catalog) Normalize() {
	if c.Schemas == nil {
		c.Schemas = map[string]*SchemaDef{}
	}
	if c.Tables == nil {
		c.Tables = map[uint64]*TableDef{}
	}
	if c.Sequences == nil {
		c.Sequences = map[string]*SequenceDef{}
	}
	if c.Indexes == nil {
		c.Indexes = map[string]*IndexDef{}
	}
	if c.Views == nil {
		c.Views = map[string]*ViewDef{}
	}
	if c.Functions == nil {
		c.Functions = map[string]*FunctionDef{}
	}
	if c.Types == nil {
		c.Types = map[string]*TypeDef{}
	}
	if c.NextID == 0 {
		c.NextID = 1
	}
	c.ensureBootstrapRole()
	if s := c.Schemas[PublicSchema]; s != nil && s.ACL == nil {
		s.ACL = PublicSchemaACL()
	}
}

// PublicSchemaACL is the public schema's ACL in a new database, as
// PostgreSQL 15's: its owner holds USAGE and CREATE, PUBLIC USAGE.
func PublicSchemaACL() []ACLItem {
	return []ACLItem{
		{Grantee: BootstrapRoleOID, Grantor: BootstrapRoleOID, Privs: SchemaPrivs},
		{Grantee: PublicOID, Grantor: BootstrapRoleOID, Privs: PrivUsage},
	}
}

// Clone returns a deep copy of c that shares no memory with it (types.T
// values are shared: they are immutable).
func (c *Catalog) Clone() *Catalog {
	n := &Catalog{
		Schemas:     make(map[string]*SchemaDef, len(c.Schemas)),
		Tables:      make(map[uint64]*TableDef, len(c.Tables)),
		Sequences:   make(map[string]*SequenceDef, len(c.Sequences)),
		Indexes:     make(map[string]*IndexDef, len(c.Indexes)),
		Views:       make(map[string]*ViewDef, len(c.Views)),
		Functions:   make(map[string]*FunctionDef, len(c.Functions)),
		NextID:      c.NextID,
		Roles:       make(map[string]*RoleDef, len(c.Roles)),
		Members:     slices.Clone(c.Members),
		DefaultACLs: slices.Clone(c.DefaultACLs),
		NextRoleOID: c.NextRoleOID,
		Types:       make(map[string]*TypeDef, len(c.Types)),
		NextTypeOID: c.NextTypeOID,

		DatabaseComment:   c.DatabaseComment,
		ExtensionComments: maps.Clone(c.ExtensionComments),
	}
	for k, t := range c.Types {
		t2 := *t
		n.Types[k] = &t2
	}
	for k, r := range c.Roles {
		n.Roles[k] = r.Clone()
	}
	for k, f := range c.Functions {
		n.Functions[k] = f.Clone()
	}
	for k, v := range c.Views {
		v2 := *v
		v2.Columns = append([]ColumnDef(nil), v.Columns...)
		v2.SearchPath = append([]string(nil), v.SearchPath...)
		v2.QueryColumns = append([]string(nil), v.QueryColumns...)
		v2.Triggers = cloneTriggers(v.Triggers)
		n.Views[k] = &v2
	}
	for k, s := range c.Schemas {
		s2 := *s
		s2.ACL = slices.Clone(s.ACL)
		n.Schemas[k] = &s2
	}
	for k, t := range c.Tables {
		n.Tables[k] = t.Clone()
	}
	for k, s := range c.Sequences {
		s2 := *s
		n.Sequences[k] = &s2
	}
	for k, ix := range c.Indexes {
		n.Indexes[k] = ix.Clone()
	}
	return n
}

// Table returns the table named name in schema, or nil if there is none.
func (c *Catalog) Table(schema, name string) *TableDef {
	for _, t := range c.Tables {
		if t.Schema == schema && t.Name == name {
			return t
		}
	}
	return nil
}

// View returns the view schema.name, or nil.
func (c *Catalog) View(schema, name string) *ViewDef { return c.Views[Key(schema, name)] }

// TableByID returns the table with the given ID, or nil if there is none.
func (c *Catalog) TableByID(id uint64) *TableDef { return c.Tables[id] }

// Sequence returns the sequence named name in schema, or nil.
func (c *Catalog) Sequence(schema, name string) *SequenceDef {
	return c.Sequences[Key(schema, name)]
}

// Index returns the index named name in schema, or nil.
func (c *Catalog) Index(schema, name string) *IndexDef {
	return c.Indexes[Key(schema, name)]
}

// TableNames returns the names of the tables in schema, sorted.
func (c *Catalog) TableNames(schema string) []string {
	var names []string
	for _, t := range c.Tables {
		if t.Schema == schema {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	return names
}

// IndexesOf returns the indexes defined on the table with the given ID,
// sorted by name.
func (c *Catalog) IndexesOf(tableID uint64) []*IndexDef {
	var out []*IndexDef
	for _, ix := range c.Indexes {
		if ix.Table == tableID {
			out = append(out, ix)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RelationExists reports whether a table, sequence or index called name
// exists in schema (PostgreSQL keeps them in one namespace).
func (c *Catalog) RelationExists(schema, name string) bool {
	if c.Table(schema, name) != nil || c.Sequences[Key(schema, name)] != nil ||
		c.Indexes[Key(schema, name)] != nil || c.Views[Key(schema, name)] != nil {
		return true
	}
	// A primary key or unique constraint is an index of its name too.
	for _, t := range c.Tables {
		if t.Schema == schema && slices.ContainsFunc(t.Uniques, func(u UniqueDef) bool { return u.Name == name }) {
			return true
		}
	}
	return false
}

// Key is the map key of a sequence, index or view: schema + "." + name.
func Key(schema, name string) string { return schema + "." + name }

// Clone returns a deep copy of t.
func (t *TableDef) Clone() *TableDef {
	n := *t
	n.Columns = slices.Clone(t.Columns)
	n.PrimaryKey = slices.Clone(t.PrimaryKey)
	n.Uniques = make([]UniqueDef, len(t.Uniques))
	for i, u := range t.Uniques {
		u.Columns = slices.Clone(u.Columns)
		n.Uniques[i] = u
	}
	if t.Uniques == nil {
		n.Uniques = nil
	}
	n.Checks = slices.Clone(t.Checks)
	n.ACL = slices.Clone(t.ACL)
	n.Triggers = cloneTriggers(t.Triggers)
	if t.Policies != nil {
		n.Policies = make([]PolicyDef, len(t.Policies))
		for i, p := range t.Policies {
			p.Roles = slices.Clone(p.Roles)
			n.Policies[i] = p
		}
	}
	if t.ForeignKeys != nil {
		n.ForeignKeys = make([]ForeignKeyDef, len(t.ForeignKeys))
		for i, f := range t.ForeignKeys {
			f.Columns = slices.Clone(f.Columns)
			f.RefColumns = slices.Clone(f.RefColumns)
			f.DeleteSetColumns = slices.Clone(f.DeleteSetColumns)
			n.ForeignKeys[i] = f
		}
	}
	return &n
}

// RenumberColumn makes t's keys, checks, foreign keys (a self-reference's
// referenced columns too) and triggers name column ID to where they named
// from: ALTER COLUMN ... TYPE that rewrites a column gives its values a
// new column ID. Each list changed is a new slice (Clone shares some).
func (t *TableDef) RenumberColumn(from, to int) {
	t.PrimaryKey = RenumberIDs(t.PrimaryKey, from, to)
	for i := range t.Uniques {
		t.Uniques[i].Columns = RenumberIDs(t.Uniques[i].Columns, from, to)
	}
	for i := range t.Checks {
		t.Checks[i].Columns = RenumberIDs(t.Checks[i].Columns, from, to)
	}
	for i := range t.ForeignKeys {
		f := &t.ForeignKeys[i]
		f.Columns = RenumberIDs(f.Columns, from, to)
		f.DeleteSetColumns = RenumberIDs(f.DeleteSetColumns, from, to)
		if f.RefTable == t.ID {
			f.RefColumns = RenumberIDs(f.RefColumns, from, to)
		}
	}
	for i := range t.Triggers {
		t.Triggers[i].Columns = RenumberIDs(t.Triggers[i].Columns, from, to)
	}
}

// RenumberIDs is ids with from replaced by to: a new slice, or ids itself
// when it holds no from.
func RenumberIDs(ids []int, from, to int) []int {
	if !slices.Contains(ids, from) {
		return ids
	}
	out := slices.Clone(ids)
	for i, id := range out {
		if id == from {
			out[i] = to
		}
	}
	return out
}

// cloneTriggers is a deep copy of a table's or view's triggers.
func cloneTriggers(trs []TriggerDef) []TriggerDef {
	if trs == nil {
		return nil
	}
	out := make([]TriggerDef, len(trs))
	for i, tr := range trs {
		tr.Events, tr.Args, tr.Columns = slices.Clone(tr.Events), slices.Clone(tr.Args), slices.Clone(tr.Columns)
		out[i] = tr
	}
	return out
}

// Column returns the position and definition of the column called name, or
// (-1, nil) if the table has none.
func (t *TableDef) Column(name string) (int, *ColumnDef) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i, &t.Columns[i]
		}
	}
	return -1, nil
}

// ColumnByID returns the position and definition of the column with the
// given ID, or (-1, nil).
func (t *TableDef) ColumnByID(id int) (int, *ColumnDef) {
	for i := range t.Columns {
		if t.Columns[i].ID == id {
			return i, &t.Columns[i]
		}
	}
	return -1, nil
}

// PrimaryKeyConstraint is the name of the primary key constraint.
func (t *TableDef) PrimaryKeyConstraint() string {
	if t.PrimaryKeyName != "" {
		return t.PrimaryKeyName
	}
	// A catalog written before PrimaryKeyName was set: the key's entry
	// of Uniques has its name (the one of the table's name when the key
	// was made, or the one CONSTRAINT gave it).
	for _, u := range t.Uniques {
		if slices.Equal(u.Columns, t.PrimaryKey) {
			return u.Name
		}
	}
	return t.Name + "_pkey"
}

// Clone returns a deep copy of ix.
func (ix *IndexDef) Clone() *IndexDef {
	n := *ix
	n.Columns = slices.Clone(ix.Columns)
	n.With = slices.Clone(ix.With)
	n.Desc = slices.Clone(ix.Desc)
	n.NullsFlipped = slices.Clone(ix.NullsFlipped)
	n.PredColumns = slices.Clone(ix.PredColumns)
	n.Keys = slices.Clone(ix.Keys)
	if ix.Options != nil {
		n.Options = make(map[string]string, len(ix.Options))
		for k, v := range ix.Options {
			n.Options[k] = v
		}
	}
	return &n
}
