package sql

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// GrantPrivileges is GRANT or REVOKE of privileges on tables or schemas.
// The session checks who may grant and writes the ACLs.
type GrantPrivileges struct {
	Revoke bool
	// Privs are the privileges named; All is ALL [PRIVILEGES].
	Privs catalog.Priv
	All   bool
	// Tables are the tables named, or in InSchemas for ALL TABLES IN
	// SCHEMA (resolved at execution); Schemas the schemas of ON SCHEMA.
	Tables    []*catalog.TableDef
	Views     []*catalog.ViewDef
	Sequences []*catalog.SequenceDef
	// InSchemas are the schemas of ALL TABLES (or with OnSequences, ALL
	// SEQUENCES) IN SCHEMA.
	InSchemas   []string
	OnSequences bool
	Schemas     []string
	Grantees    []RoleSpec
	// GrantOption is WITH GRANT OPTION, or for REVOKE, GRANT OPTION FOR.
	GrantOption bool
	Cascade     bool
	// GrantedBy is GRANTED BY's role (nil: none), which PostgreSQL 15
	// accepts only naming the current user.
	GrantedBy *RoleSpec
	// ColumnPrivs are the column privileges named (SELECT (a, b)), in
	// order, on the columns of each of Tables.
	ColumnPrivs []ColumnPriv
}

// ColumnPriv is privileges on one column a GRANT or REVOKE names.
type ColumnPriv struct {
	Column string
	Privs  catalog.Priv
}

func (*GrantPrivileges) statement() {}

// AlterSchemaOwner is ALTER SCHEMA name OWNER TO role.
type AlterSchemaOwner struct {
	Name  string
	Owner RoleSpec
}

func (*AlterSchemaOwner) statement() {}

// AlterRelationOwner is ALTER TABLE, SEQUENCE or VIEW name OWNER TO role
// for a sequence or a view (PostgreSQL takes ALTER TABLE for either, as
// pg_dump writes it); one of Sequence and View is set.
type AlterRelationOwner struct {
	Sequence *catalog.SequenceDef
	View     *catalog.ViewDef
	Owner    RoleSpec
	// Tag is the command tag: ALTER TABLE, ALTER SEQUENCE or ALTER VIEW,
	// as written.
	Tag string
}

func (*AlterRelationOwner) statement() {}

func bindAlterOwner(s *pg_query.AlterOwnerStmt) (Statement, error) {
	if s.ObjectType != pg_query.ObjectType_OBJECT_SCHEMA {
		return nil, pgerr.NotSupported("ALTER %s ... OWNER TO", strings.ToUpper(strings.TrimPrefix(s.ObjectType.String(), "OBJECT_")))
	}
	return &AlterSchemaOwner{Name: s.Object.GetString_().Sval, Owner: roleSpec(s.Newowner)}, nil
}

// privNames are the privileges GRANT knows by name.
var privNames = map[string]catalog.Priv{
	"select": catalog.PrivSelect, "insert": catalog.PrivInsert, "update": catalog.PrivUpdate,
	"delete": catalog.PrivDelete, "truncate": catalog.PrivTruncate, "references": catalog.PrivReferences,
	"trigger": catalog.PrivTrigger, "usage": catalog.PrivUsage, "create": catalog.PrivCreate,
}

func (b *Binder) bindGrant(s *pg_query.GrantStmt) (Statement, error) {
	g := &GrantPrivileges{Revoke: !s.IsGrant, GrantOption: s.GrantOption, Grantees: roleSpecs(s.Grantees),
		Cascade: s.Behavior == pg_query.DropBehavior_DROP_CASCADE, All: len(s.Privileges) == 0}
	if s.Grantor != nil {
		r := roleSpec(s.Grantor)
		g.GrantedBy = &r
	}
	all, kind := catalog.TablePrivs, "table"
	if s.Targtype == pg_query.GrantTargetType_ACL_TARGET_DEFAULTS {
		kind = "relation"
	}
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE:
	case pg_query.ObjectType_OBJECT_SCHEMA:
		all, kind = catalog.SchemaPrivs, "schema"
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		all, kind, g.OnSequences = catalog.SequencePrivs, "sequence", true
	default:
		return nil, pgerr.NotSupported("GRANT and REVOKE on %s", strings.ToLower(strings.TrimPrefix(s.Objtype.String(), "OBJECT_")))
	}
	for _, n := range s.Privileges {
		p := n.GetAccessPriv()
		bit, ok := privNames[p.PrivName]
		if len(p.Cols) > 0 {
			if kind != "table" || s.Targtype != pg_query.GrantTargetType_ACL_TARGET_OBJECT {
				return nil, pgerr.New(pgerrcode.SyntaxError, "column privileges are only valid for relations")
			}
			if p.PrivName == "" { // ALL (cols)
				bit, ok = catalog.ColumnPrivs, true
			}
			if !ok || bit&catalog.ColumnPrivs == 0 {
				return nil, pgerr.New(pgerrcode.InvalidGrantOperation, "invalid privilege type %s for column", strings.ToUpper(p.PrivName))
			}
			for _, c := range strList(p.Cols) {
				g.ColumnPrivs = append(g.ColumnPrivs, ColumnPriv{Column: c, Privs: bit})
			}
			continue
		}
		// ON [TABLE] may name sequences too, which take USAGE: whether
		// a table is named is known below.
		onRelations := kind == "table" && s.Targtype == pg_query.GrantTargetType_ACL_TARGET_OBJECT
		if !ok || bit&all == 0 && !(onRelations && bit&catalog.SequencePrivs != 0) {
			return nil, pgerr.New(pgerrcode.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(p.PrivName), kind)
		}
		g.Privs |= bit
	}
	if g.All {
		g.Privs = all
	}
	for _, n := range s.Objects {
		switch {
		case s.Objtype == pg_query.ObjectType_OBJECT_SCHEMA:
			g.Schemas = append(g.Schemas, n.GetString_().Sval)
		case s.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
			g.InSchemas = append(g.InSchemas, n.GetString_().Sval)
		case s.Targtype == pg_query.GrantTargetType_ACL_TARGET_OBJECT:
			rv := n.GetRangeVar()
			if kind == "sequence" {
				seq, err := b.lookupSequence(rv)
				if err != nil {
					return nil, err
				}
				g.Sequences = append(g.Sequences, seq)
				continue
			}
			v := b.lookupView(rv.Schemaname, rv.Relname)
			def, err := b.rangeVarTable(rv)
			if v == nil && err != nil && len(g.ColumnPrivs) == 0 {
				if seq := b.findSequence(rv.Schemaname, rv.Relname); seq != nil {
					g.Sequences = append(g.Sequences, seq) // given the privileges named it has (runGrant)
					continue
				}
			}
			if g.Privs&^all != 0 {
				return nil, pgerr.New(pgerrcode.InvalidGrantOperation, "invalid privilege type USAGE for table")
			}
			if v != nil {
				if len(g.ColumnPrivs) > 0 {
					return nil, pgerr.NotSupported("column privileges on views")
				}
				g.Views = append(g.Views, v)
				continue
			}
			if err != nil {
				return nil, err
			}
			g.Tables = append(g.Tables, def)
		default:
			return nil, pgerr.NotSupported("ALTER DEFAULT PRIVILEGES")
		}
	}
	return g, nil
}

// AlterDefaultPrivileges is ALTER DEFAULT PRIVILEGES [FOR ROLE r, ...]
// [IN SCHEMA s, ...] GRANT | REVOKE ... ON TABLES | SEQUENCES: Grant
// holds the privileges and grantees, Kind the objects ('r' or 'S').
type AlterDefaultPrivileges struct {
	Roles   []RoleSpec
	Schemas []string
	Kind    string
	Grant   *GrantPrivileges
}

func (*AlterDefaultPrivileges) statement() {}

func (b *Binder) bindAlterDefaultPrivileges(s *pg_query.AlterDefaultPrivilegesStmt) (Statement, error) {
	a := &AlterDefaultPrivileges{Kind: "r"}
	for _, o := range s.Options {
		d := o.GetDefElem()
		switch d.Defname {
		case "roles":
			a.Roles = roleSpecs(d.Arg.GetList().Items)
		case "schemas":
			a.Schemas = strList(d.Arg.GetList().Items)
		}
	}
	switch s.Action.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE:
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		a.Kind = "S"
	default:
		return nil, pgerr.NotSupported("ALTER DEFAULT PRIVILEGES on %s", strings.ToLower(strings.TrimPrefix(s.Action.Objtype.String(), "OBJECT_"))+"s")
	}
	g, err := b.bindGrant(s.Action)
	if err != nil {
		return nil, err
	}
	a.Grant = g.(*GrantPrivileges)
	return a, nil
}

// lookupSequence finds the sequence rv names (42P01 when none).
func (b *Binder) lookupSequence(rv *pg_query.RangeVar) (*catalog.SequenceDef, error) {
	if seq := b.findSequence(rv.Schemaname, rv.Relname); seq != nil {
		return seq, nil
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
}

// findSequence is the sequence name means in schema, or with schema ""
// on the search path; nil when none.
func (b *Binder) findSequence(schema, name string) *catalog.SequenceDef {
	if schema == "pg_temp" {
		schema = b.TempSchema
	}
	schemas := b.SearchPath
	if schema != "" {
		schemas = []string{schema}
	}
	for _, s := range schemas {
		if seq := b.Catalog.Sequences[catalog.Key(s, name)]; seq != nil {
			return seq
		}
	}
	return nil
}

// Access is one privilege a bound statement needs, which the session
// checks for the current role before running it: Privs on Table, on
// Schema, on View or with Database on the database (CREATE SCHEMA); with
// Owner, ownership of Table, View or Schema (ALTER, DROP, CREATE INDEX;
// DROP INDEX of Table's index Index; with Relation, the error names
// Table a relation, as DROP POLICY's does).
// As, when not 0, is the role the check is for: the tables a view reads
// are checked as the view's owner, as in PostgreSQL. Reading or writing a
// table also needs USAGE on its schema.
type Access struct {
	Table    *catalog.TableDef
	View     *catalog.ViewDef
	Schema   string
	Index    string
	Database bool
	Privs    catalog.Priv
	Owner    bool
	Relation bool
	As       uint32
	// Sequence, with AnyOf, needs any one of Privs on the sequence
	// (nextval: USAGE or UPDATE), as PostgreSQL's sequence functions do;
	// with Owner, its ownership (ALTER, DROP).
	Sequence *catalog.SequenceDef
	AnyOf    bool
	// Columns are the columns of Table (positions in its Columns) the
	// statement uses with Privs: without Privs on the table, the role
	// needs them on each of these columns, or on any one column when
	// none is named (SELECT count(*)), as in PostgreSQL.
	Columns []int
}

// Accesses are the privileges the statement bound last needs: every
// table its FROM clauses, joins, subqueries, CTEs and views read, the
// target of INSERT, UPDATE, DELETE, MERGE, TRUNCATE and COPY. The binder records
// them where it resolves each table, so no access goes unchecked. A
// SELECT on a table carries the columns the statement references
// (Columns), known once the whole statement is bound.
func (b *Binder) Accesses() []Access {
	out := slices.Clone(b.accesses)
	for i, a := range out {
		if a.Table != nil && a.Privs == catalog.PrivSelect && a.Columns == nil {
			uses := b.colUses[TableOID(a.Table.ID)]
			out[i].Columns = make([]int, 0, len(uses))
			for n := range uses {
				out[i].Columns = append(out[i].Columns, int(n)-1)
			}
			slices.Sort(out[i].Columns)
		}
	}
	return out
}

// useCol records that the statement references c, a table's column
// (or a computed one, which needs nothing).
func (b *Binder) useCol(c Col) {
	if c.TableOID == 0 || c.Attnum <= 0 {
		return
	}
	if b.colUses == nil {
		b.colUses = map[uint32]map[int16]bool{}
	}
	if b.colUses[c.TableOID] == nil {
		b.colUses[c.TableOID] = map[int16]bool{}
	}
	b.colUses[c.TableOID][c.Attnum] = true
}

// needOwner records that the statement needs to own def.
func (b *Binder) needOwner(def *catalog.TableDef) {
	b.accesses = append(b.accesses, Access{Table: def, Owner: true})
}

// need records that the statement needs privs on def; with columns
// (positions in def.Columns), on those columns at least.
func (b *Binder) need(def *catalog.TableDef, privs catalog.Priv, columns ...int) {
	b.accesses = append(b.accesses, Access{Table: def, Privs: privs, Columns: columns})
}
