package sql

import (
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
	InSchemas []string
	Schemas   []string
	Grantees  []RoleSpec
	// GrantOption is WITH GRANT OPTION, or for REVOKE, GRANT OPTION FOR.
	GrantOption bool
	Cascade     bool
}

func (*GrantPrivileges) statement() {}

// AlterSchemaOwner is ALTER SCHEMA name OWNER TO role.
type AlterSchemaOwner struct {
	Name  string
	Owner RoleSpec
}

func (*AlterSchemaOwner) statement() {}

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
		return nil, pgerr.NotSupported("GRANTED BY")
	}
	all, kind := catalog.TablePrivs, "table"
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE:
	case pg_query.ObjectType_OBJECT_SCHEMA:
		all, kind = catalog.SchemaPrivs, "schema"
	default:
		return nil, pgerr.NotSupported("GRANT and REVOKE on %s", strings.ToLower(strings.TrimPrefix(s.Objtype.String(), "OBJECT_")))
	}
	for _, n := range s.Privileges {
		p := n.GetAccessPriv()
		if len(p.Cols) > 0 {
			return nil, pgerr.NotSupported("column privileges")
		}
		bit, ok := privNames[p.PrivName]
		if !ok || bit&all == 0 {
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
			def, err := b.rangeVarTable(n.GetRangeVar())
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

// Access is one privilege a bound statement needs, which the session
// checks for the current role before running it: Privs on Table, on
// Schema, on View (views have no ACL yet: reading one needs its
// ownership) or with Database on the database (CREATE SCHEMA); with
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
}

// Accesses are the privileges the statement bound last needs: every
// table its FROM clauses, joins, subqueries, CTEs and views read, the
// target of INSERT, UPDATE, DELETE, TRUNCATE and COPY. The binder records
// them where it resolves each table, so no access goes unchecked.
func (b *Binder) Accesses() []Access { return b.accesses }

// needOwner records that the statement needs to own def.
func (b *Binder) needOwner(def *catalog.TableDef) {
	b.accesses = append(b.accesses, Access{Table: def, Owner: true})
}

// need records that the statement needs privs on def.
func (b *Binder) need(def *catalog.TableDef, privs catalog.Priv) {
	b.accesses = append(b.accesses, Access{Table: def, Privs: privs})
}
