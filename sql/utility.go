package sql

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// Utility statements: plain descriptions that exec carries out.

// CreateSchema is CREATE SCHEMA [IF NOT EXISTS].
type CreateSchema struct {
	Name        string
	IfNotExists bool
	// Owner is AUTHORIZATION's role, nil for the current user.
	Owner *RoleSpec
}

// DropSchema is DROP SCHEMA [IF EXISTS] ... [CASCADE].
type DropSchema struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

// CreateTable is CREATE TABLE; Sequences are those its serial columns own.
type CreateTable struct {
	Def         *catalog.TableDef
	Sequences   []*catalog.SequenceDef
	IfNotExists bool
	// Temp: Def.Schema is the session's temporary schema (Binder.
	// TempSchema), which the session creates if it does not exist yet;
	// OnCommit is what each commit does to the table.
	Temp     bool
	OnCommit OnCommit
}

// CommentOn is COMMENT ON: Text ("" removes the comment) for one of
// Table or View, or for its column Column when that is set, for the
// schema Schema, for the function of key Function, which the statement
// names Written (as its errors name it), or for the object Target names
// (an index, sequence, type, constraint, trigger, role, the database or
// an extension), of which the session checks ownership (or CREATEROLE)
// when Target is a role, the database or an extension.
type CommentOn struct {
	Table    *catalog.TableDef
	View     *catalog.ViewDef
	Column   string
	Schema   string
	Function string
	Written  string
	Target   *catalog.CommentTarget
	Text     string
}

// CreateTableAs is CREATE TABLE ... AS SELECT (and SELECT ... INTO): the
// table, with the query's columns, and the query's plan, which fills it
// unless WithNoData.
type CreateTableAs struct {
	Create *CreateTable
	// Query is the plan of the rows to insert: one column per column of
	// Create.Def, cast to its type.
	Query      Node
	WithNoData bool
}

// DropTable is DROP TABLE; Missing lists names that did not exist (IF
// EXISTS turns them into notices).
type DropTable struct {
	Tables   []*catalog.TableDef
	Missing  []string
	IfExists bool
	Cascade  bool
}

// AlterTable is ALTER TABLE with its sub-commands, applied in order.
type AlterTable struct {
	Table *catalog.TableDef
	Cmds  []AlterCmd
	// Missing is set for ALTER TABLE IF EXISTS on a missing table.
	Missing string
	// Index marks ALTER INDEX renaming a constraint's index (its tag).
	Index bool
}

// AlterCmd is one ALTER TABLE action.
type AlterCmd struct {
	Kind        AlterKind
	Column      catalog.ColumnDef // AddColumn
	Name        string            // DropColumn / RenameColumn: the column; RenameTable: unused
	NewName     string            // RenameColumn / RenameTable
	IfExists    bool
	IfNotExists bool
	Unique      bool // AddColumn with UNIQUE / PRIMARY KEY
	Primary     bool
	// NullsNotDistinct is AddColumn's UNIQUE NULLS NOT DISTINCT.
	NullsNotDistinct bool
	// Constraint is AddConstraint's table with the constraint added: the
	// new unique key, check or foreign key is the last of its kind there
	// (Primary marks a primary key).
	Constraint *catalog.TableDef
	// Owner is ChangeOwner's new owner.
	Owner RoleSpec
	// Cascade is DropColumn's CASCADE: the policies that use the column
	// go with it.
	Cascade bool
	// Sequence is AddIdentity's new sequence (Column: the column made an
	// identity column), or AddColumn's for a serial or identity column.
	Sequence *catalog.SequenceDef
	// Narrows marks a SetType to a varchar(n) shorter than the column's
	// type allows, which keeps the values only if each fits: applying it
	// checks them (22001).
	Narrows bool
	// Rewrite marks a SetType whose values change (integer to bigint, a
	// USING expression): the statement computes the column anew for every
	// row from Using, the USING expression's text ("" for the column
	// itself), cast to the new type.
	Rewrite bool
	Using   string
}

// AlterKind is the kind of an ALTER TABLE action.
type AlterKind uint8

// ALTER TABLE actions.
const (
	AddColumn AlterKind = iota
	DropColumn
	RenameColumn
	RenameTable
	RenameConstraint // Name: the constraint; NewName
	SetNotNull
	DropNotNull
	SetDefault
	SetType // Name: the column; Column.Type: its new type (keepsValues, Narrows or Rewrite)
	AddConstraint
	DropConstraint // Name: the constraint
	ChangeOwner    // Owner: the new owner
	RowSecurity    // Name: Enable, Disable, Force or NoForce
	AddIdentity    // Name: the column; Column, Sequence
	DropExpression // Name: the column, a generated one made plain
	// TriggerState is ENABLE / DISABLE TRIGGER: Name the trigger ("" for
	// all the table's), NewName the state (catalog.TriggerDef.Enabled).
	TriggerState
	RenameTrigger // Name: the trigger; NewName
	// ValidateConstraint is VALIDATE CONSTRAINT: Name, a check or foreign
	// key added NOT VALID, is checked against every row and marked valid.
	ValidateConstraint
)

// Truncate is TRUNCATE of one or more tables.
type Truncate struct {
	Tables []*catalog.TableDef
	// Cascaded are the tables of Tables that TRUNCATE ... CASCADE added
	// because their foreign keys reference one of the others.
	Cascaded []string
	// Restart are the sequences of the tables' serial and identity
	// columns, for RESTART IDENTITY.
	Restart []*catalog.SequenceDef
}

// AlterSequence is ALTER SEQUENCE ... RESTART [WITH n]: the sequence's
// next nextval returns Value. Missing names the sequence IF EXISTS did
// not find (Seq is nil then).
type AlterSequence struct {
	Seq     *catalog.SequenceDef
	Value   int64
	Missing string
	// SetOwner makes it ALTER SEQUENCE ... OWNED BY: Owner is the column
	// (nil for NONE), and nothing is restarted.
	SetOwner bool
	Owner    *catalog.SequenceOwner
}

// CreateIndex is CREATE INDEX (deeplake_index, hnsw, ivfflat, btree).
type CreateIndex struct {
	Def         *catalog.IndexDef
	IfNotExists bool
	// NoTxBlock is "CREATE INDEX CONCURRENTLY" for that form, which
	// PostgreSQL refuses in a transaction block (cairn builds every index
	// without blocking writes).
	NoTxBlock string
}

// DropIndex is DROP INDEX.
type DropIndex struct {
	Names    [][2]string // schema, name
	IfExists bool
	// NoTxBlock is "DROP INDEX CONCURRENTLY" for that form, which
	// PostgreSQL refuses in a transaction block.
	NoTxBlock string
}

// RenameIndex is ALTER INDEX name RENAME TO new_name of an index CREATE
// INDEX made (that of a primary key or unique constraint binds as ALTER
// TABLE ... RENAME CONSTRAINT, which renames both, as in PostgreSQL).
type RenameIndex struct {
	Schema, Name, NewName string
}

// CreateExtension is CREATE EXTENSION for the extensions cairn has built in.
type CreateExtension struct {
	Name        string
	IfNotExists bool
}

// Set is SET [LOCAL] name = value, SET name TO DEFAULT and RESET name.
type Set struct {
	Name  string
	Value string // "" with Reset
	Local bool
	Reset bool
	// Tag is the command tag when it is not SET: RESET.
	Tag string
}

// Discard is DISCARD ALL | PLANS | SEQUENCES | TEMP (What), which
// connection pools run to hand a session over clean.
type Discard struct {
	What string
}

// Show is SHOW name (or SHOW ALL).
type Show struct {
	Name string
}

// TxKind is the kind of a transaction control statement.
type TxKind uint8

// Transaction control statements.
const (
	TxBegin TxKind = iota
	TxCommit
	TxRollback
	TxSavepoint
	TxRelease
	TxRollbackTo
	// TxPrepare is PREPARE TRANSACTION, which ends the transaction
	// rolled back: two-phase commit is off (max_prepared_transactions 0).
	TxPrepare
)

// Transaction is BEGIN, COMMIT, ROLLBACK and the savepoint statements.
type Transaction struct {
	Kind      TxKind
	Savepoint string
	// Isolation is the requested isolation level ("" when not given).
	Isolation string
	// ReadOnly is the requested access mode (nil when not given).
	ReadOnly *bool
	// Start marks BEGIN spelt START TRANSACTION (its command tag).
	Start bool
	// Chain marks COMMIT AND CHAIN and ROLLBACK AND CHAIN: a new
	// transaction starts at once with the ended one's isolation level and
	// access mode.
	Chain bool
}

// SetTransaction is SET TRANSACTION (Session false) or SET SESSION
// CHARACTERISTICS AS TRANSACTION (Session true): the isolation level ("" when
// not given) and access mode (nil when not given) of the current
// transaction or of the session's later ones.
type SetTransaction struct {
	Session   bool
	Isolation string
	ReadOnly  *bool
	// Snapshot makes it SET TRANSACTION SNAPSHOT: the identifier
	// pg_export_snapshot gave.
	Snapshot string
}

// txModes reads the options of BEGIN and SET TRANSACTION.
func txModes(opts []*pg_query.Node) (isolation string, readOnly *bool) {
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "transaction_isolation":
			isolation = defString(d.Arg)
		case "transaction_read_only":
			ro := defString(d.Arg) == "1"
			readOnly = &ro
		}
	}
	return isolation, readOnly
}

// Prepare is the SQL-level PREPARE name [(types)] AS statement.
type Prepare struct {
	Name       string
	ParamTypes []types.T
	// Stmt is the statement prepared, bound when the PREPARE runs (and
	// again at each EXECUTE, against the catalog of the time).
	Stmt *Parsed
}

// Execute is the SQL-level EXECUTE name (args). Args are bound, each cast
// to its parameter's type when the binder knew the prepared statement
// (Binder.Prepared) and its parameter count matches; the session checks
// both again when it runs the statement.
type Execute struct {
	Name string
	Args []Expr
	// Explain is EXPLAIN [ANALYZE] EXECUTE: the prepared statement's plan
	// for these arguments is shown (and, with Analyze, run) instead of
	// its rows, in ExplainFormat.
	Explain, Analyze bool
	ExplainFormat    ExplainFormat
}

// Deallocate is DEALLOCATE [ALL | name].
type Deallocate struct {
	Name string
	All  bool
}

// Listen is LISTEN channel, or with Unlisten UNLISTEN channel (UNLISTEN *
// when Channel is "").
type Listen struct {
	Channel  string
	Unlisten bool
}

// Notify is NOTIFY channel [, payload].
type Notify struct {
	Channel, Payload string
}

// NoOp is a statement cairn accepts and has nothing to do for (VACUUM,
// ANALYZE, ...); Tag is its command tag.
type NoOp struct {
	Tag string
}

// Vacuum is VACUUM, ANALYZE or REINDEX. cairn has nothing for them to do
// (no dead rows to reclaim, no planner statistics to gather, and every
// index is kept in step with its table by each write, so none needs
// rebuilding), but what they name must exist, as in PostgreSQL.
type Vacuum struct {
	Tag string // VACUUM, ANALYZE or REINDEX
	// Skipped are the views named, which PostgreSQL skips with a warning.
	Skipped []string
	// NoTxBlock is set for the forms PostgreSQL refuses in a transaction
	// block: VACUUM, REINDEX CONCURRENTLY, REINDEX SCHEMA.
	NoTxBlock string
}

// bindReindex checks what REINDEX names, as PostgreSQL does: an index, a
// table, a schema, or the current database (LangChain's PGVectorStore
// sends REINDEX INDEX after loading rows).
func (b *Binder) bindReindex(s *pg_query.ReindexStmt) (*Vacuum, error) {
	v := &Vacuum{Tag: "REINDEX"}
	concurrently := false
	for _, p := range s.Params {
		d := p.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "concurrently":
			concurrently = true
		case "verbose", "tablespace":
		default:
			return nil, pgerr.New(pgerrcode.SyntaxError, "unrecognized REINDEX option \"%s\"", d.Defname)
		}
	}
	if concurrently {
		v.NoTxBlock = "REINDEX CONCURRENTLY"
	}
	switch s.Kind {
	case pg_query.ReindexObjectType_REINDEX_OBJECT_INDEX:
		rv := s.Relation
		schemas := b.SearchPath
		if rv.Schemaname != "" {
			if _, ok := b.Catalog.Schemas[rv.Schemaname]; !ok {
				return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", rv.Schemaname)
			}
			schemas = []string{rv.Schemaname}
		}
		for _, sc := range schemas {
			if b.Catalog.Index(sc, rv.Relname) != nil || b.indexOfConstraint(sc, rv.Relname) {
				return v, nil
			}
			if b.Catalog.Table(sc, rv.Relname) != nil || b.Catalog.View(sc, rv.Relname) != nil || b.Catalog.Sequence(sc, rv.Relname) != nil {
				return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not an index", rv.Relname)
			}
		}
		if rv.Schemaname != "" {
			return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname)
		}
		return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	case pg_query.ReindexObjectType_REINDEX_OBJECT_TABLE:
		if _, err := b.rangeVarTable(s.Relation); err != nil {
			rv := s.Relation
			isIndex := false
			for _, sc := range append([]string{rv.Schemaname}, b.SearchPath...) {
				if sc != "" && (rv.Schemaname == "" || sc == rv.Schemaname) && (b.Catalog.Index(sc, rv.Relname) != nil || b.indexOfConstraint(sc, rv.Relname)) {
					isIndex = true
				}
			}
			if pgerr.Code(err) == pgerrcode.WrongObjectType || isIndex && pgerr.Code(err) == pgerrcode.UndefinedTable {
				return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a table or materialized view", s.Relation.Relname)
			}
			return nil, err
		}
		return v, nil
	case pg_query.ReindexObjectType_REINDEX_OBJECT_SCHEMA:
		if _, ok := b.Catalog.Schemas[s.Name]; !ok {
			return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", s.Name)
		}
		v.NoTxBlock = "REINDEX SCHEMA"
		return v, nil
	}
	// DATABASE and SYSTEM: PostgreSQL checks the name against the database
	// it is connected to, which cairn does not know here; it refuses them
	// CONCURRENTLY and in a transaction block.
	if concurrently && s.Kind == pg_query.ReindexObjectType_REINDEX_OBJECT_SYSTEM {
		return nil, pgerr.NotSupported("cannot reindex system catalogs concurrently")
	}
	v.NoTxBlock = "REINDEX DATABASE"
	if s.Kind == pg_query.ReindexObjectType_REINDEX_OBJECT_SYSTEM {
		v.NoTxBlock = "REINDEX SYSTEM"
	}
	return v, nil
}

// bindVacuum checks the relations and columns VACUUM or ANALYZE names:
// 42P01 for a relation that does not exist, 42703 for a column.
func (b *Binder) bindVacuum(s *pg_query.VacuumStmt) (*Vacuum, error) {
	v := &Vacuum{Tag: "ANALYZE"}
	if s.IsVacuumcmd {
		v.Tag, v.NoTxBlock = "VACUUM", "VACUUM"
	}
	for _, n := range s.Rels {
		rel := n.GetVacuumRelation()
		if rel == nil || rel.Relation == nil {
			continue
		}
		rv := rel.Relation
		def, err := b.rangeVarTable(rv)
		if err != nil {
			if pgerr.From(err).Code == pgerrcode.WrongObjectType {
				v.Skipped = append(v.Skipped, rv.Relname)
				continue
			}
			return nil, err
		}
		for _, c := range rel.VaCols {
			name := c.GetString_().GetSval()
			if i, _ := def.Column(name); i < 0 {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, def.Name)
			}
		}
	}
	return v, nil
}

// LockTable is LOCK TABLE ... IN ACCESS SHARE MODE, as pg_dump takes it
// on each table it dumps so that no DROP or ALTER changes the table
// before its rows are read. A transaction's snapshot already keeps
// every table as it was (a table dropped meanwhile still reads from the
// snapshot's files), so in a transaction block, where the snapshot
// lasts, the lock has nothing to add. The stronger modes, which keep
// other sessions from writing, are refused (0A000): cairn has no table
// locks.
type LockTable struct{}

// Checkpoint is CHECKPOINT: write every table's committed rows to their
// segments and manifests and truncate the write-ahead log, now.
type Checkpoint struct{}

// CreateSequence is CREATE SEQUENCE.
type CreateSequence struct {
	Def         *catalog.SequenceDef
	IfNotExists bool
	// Temp: Def.Schema is the session's temporary schema (see
	// CreateTable).
	Temp bool
}

// DropSequence is DROP SEQUENCE. Without Cascade a sequence a column
// default draws from cannot go; with it those defaults go first.
type DropSequence struct {
	Names    [][2]string
	IfExists bool
	Cascade  bool
}

func (b *Binder) bindUtility(n *pg_query.Node) (Statement, error) {
	switch s := n.Node.(type) {
	case *pg_query.Node_CreateSchemaStmt:
		if len(s.CreateSchemaStmt.SchemaElts) > 0 {
			return nil, pgerr.NotSupported("CREATE SCHEMA with schema elements")
		}
		name := s.CreateSchemaStmt.Schemaname
		cs := &CreateSchema{Name: name, IfNotExists: s.CreateSchemaStmt.IfNotExists}
		if r := s.CreateSchemaStmt.Authrole; r != nil {
			owner := roleSpec(r)
			cs.Owner = &owner
			if name == "" {
				cs.Name = r.Rolename
			}
		}
		b.accesses = append(b.accesses, Access{Database: true, Privs: catalog.PrivCreate})
		return cs, nil
	case *pg_query.Node_CreateStmt:
		return b.bindCreateTable(s.CreateStmt)
	case *pg_query.Node_CreateTableAsStmt:
		return b.bindCreateTableAs(s.CreateTableAsStmt)
	case *pg_query.Node_ViewStmt:
		return b.bindCreateView(s.ViewStmt)
	case *pg_query.Node_DropStmt:
		return b.bindDrop(s.DropStmt)
	case *pg_query.Node_AlterTableStmt:
		return b.bindAlterTable(s.AlterTableStmt)
	case *pg_query.Node_RenameStmt:
		if s.RenameStmt.RenameType == pg_query.ObjectType_OBJECT_ROLE {
			return &RenameRole{Name: s.RenameStmt.Subname, NewName: s.RenameStmt.Newname}, nil
		}
		return b.bindRename(s.RenameStmt)
	case *pg_query.Node_AlterObjectSchemaStmt:
		return b.bindSetSchema(s.AlterObjectSchemaStmt)
	case *pg_query.Node_CreateRoleStmt:
		return bindCreateRole(s.CreateRoleStmt)
	case *pg_query.Node_AlterRoleStmt:
		return bindAlterRole(s.AlterRoleStmt)
	case *pg_query.Node_AlterRoleSetStmt:
		return bindAlterRoleSet(s.AlterRoleSetStmt)
	case *pg_query.Node_DropRoleStmt:
		return &DropRole{Roles: roleSpecs(s.DropRoleStmt.Roles), IfExists: s.DropRoleStmt.MissingOk}, nil
	case *pg_query.Node_GrantRoleStmt:
		return bindGrantRole(s.GrantRoleStmt)
	case *pg_query.Node_GrantStmt:
		return b.bindGrant(s.GrantStmt)
	case *pg_query.Node_AlterDefaultPrivilegesStmt:
		return b.bindAlterDefaultPrivileges(s.AlterDefaultPrivilegesStmt)
	case *pg_query.Node_AlterOwnerStmt:
		switch s.AlterOwnerStmt.ObjectType {
		case pg_query.ObjectType_OBJECT_FUNCTION:
			return b.bindAlterFunctionOwner(s.AlterOwnerStmt)
		case pg_query.ObjectType_OBJECT_TYPE:
			return b.bindTypeOwner(s.AlterOwnerStmt)
		case pg_query.ObjectType_OBJECT_DOMAIN:
			return b.bindDomainOwner(s.AlterOwnerStmt)
		}
		return bindAlterOwner(s.AlterOwnerStmt)
	case *pg_query.Node_CreateEnumStmt:
		return b.bindCreateEnum(s.CreateEnumStmt)
	case *pg_query.Node_CreateDomainStmt:
		return b.bindCreateDomain(s.CreateDomainStmt)
	case *pg_query.Node_AlterDomainStmt:
		return b.bindAlterDomain(s.AlterDomainStmt)
	case *pg_query.Node_AlterEnumStmt:
		return b.bindAlterEnum(s.AlterEnumStmt)
	case *pg_query.Node_CreatePolicyStmt:
		return b.bindCreatePolicy(s.CreatePolicyStmt)
	case *pg_query.Node_AlterPolicyStmt:
		return b.bindAlterPolicy(s.AlterPolicyStmt)
	case *pg_query.Node_TruncateStmt:
		t := &Truncate{}
		add := func(def *catalog.TableDef) {
			b.need(def, catalog.PrivTruncate)
			t.Tables = append(t.Tables, def)
			if s.TruncateStmt.RestartSeqs {
				for i := range def.Columns {
					if seq := b.catalogView().OwnedSequence(def, &def.Columns[i]); seq != nil {
						t.Restart = append(t.Restart, seq)
					}
				}
			}
		}
		for _, r := range s.TruncateStmt.Relations {
			def, err := b.rangeVarTable(r.GetRangeVar())
			if err != nil {
				return nil, err
			}
			add(def)
		}
		if err := b.truncateReferences(t, s.TruncateStmt.Behavior == pg_query.DropBehavior_DROP_CASCADE, add); err != nil {
			return nil, err
		}
		return t, nil
	case *pg_query.Node_AlterSeqStmt:
		return b.bindAlterSequence(s.AlterSeqStmt)
	case *pg_query.Node_IndexStmt:
		return b.bindCreateIndex(s.IndexStmt)
	case *pg_query.Node_CreateExtensionStmt:
		name := s.CreateExtensionStmt.Extname
		switch name {
		case "vector", "pg_deeplake", "deeplake", "pgcrypto", "uuid-ossp", "plpgsql", "pg_trgm", "pg_stat_statements":
		default:
			return nil, pgerr.New(pgerrcode.UndefinedFile, "extension \"%s\" is not available", name)
		}
		return &CreateExtension{Name: name, IfNotExists: s.CreateExtensionStmt.IfNotExists}, nil
	case *pg_query.Node_CreateSeqStmt:
		return b.bindCreateSequence(s.CreateSeqStmt)
	case *pg_query.Node_VariableSetStmt:
		return bindSet(s.VariableSetStmt)
	case *pg_query.Node_VariableShowStmt:
		return &Show{Name: strings.ToLower(s.VariableShowStmt.Name)}, nil
	case *pg_query.Node_TransactionStmt:
		return bindTransaction(s.TransactionStmt)
	case *pg_query.Node_ConstraintsSetStmt:
		return b.bindSetConstraints(s.ConstraintsSetStmt)
	case *pg_query.Node_PrepareStmt:
		p := &Prepare{Name: s.PrepareStmt.Name, Stmt: &Parsed{node: s.PrepareStmt.Query}}
		for _, a := range s.PrepareStmt.Argtypes {
			if err := b.refuseDomain(a.GetTypeName(), "PREPARE parameters"); err != nil {
				return nil, err
			}
			t, err := b.typeFromName(a.GetTypeName())
			if err != nil {
				return nil, err
			}
			p.ParamTypes = append(p.ParamTypes, t)
		}
		return p, nil
	case *pg_query.Node_ExecuteStmt:
		return b.bindExecute(s.ExecuteStmt)
	case *pg_query.Node_DeallocateStmt:
		return &Deallocate{Name: s.DeallocateStmt.Name, All: s.DeallocateStmt.Name == ""}, nil
	case *pg_query.Node_ListenStmt:
		return &Listen{Channel: s.ListenStmt.Conditionname}, nil
	case *pg_query.Node_UnlistenStmt:
		return &Listen{Channel: s.UnlistenStmt.Conditionname, Unlisten: true}, nil
	case *pg_query.Node_NotifyStmt:
		return &Notify{Channel: s.NotifyStmt.Conditionname, Payload: s.NotifyStmt.Payload}, nil
	case *pg_query.Node_VacuumStmt:
		return b.bindVacuum(s.VacuumStmt)
	case *pg_query.Node_ReindexStmt:
		return b.bindReindex(s.ReindexStmt)
	case *pg_query.Node_DoStmt:
		return b.bindDo(s.DoStmt)
	case *pg_query.Node_CreateFunctionStmt:
		return b.bindCreateFunction(s.CreateFunctionStmt)
	case *pg_query.Node_CreateTrigStmt:
		return b.bindCreateTrigger(s.CreateTrigStmt)
	case *pg_query.Node_CheckPointStmt:
		return &Checkpoint{}, nil
	case *pg_query.Node_LockStmt:
		return b.bindLockTable(s.LockStmt)
	case *pg_query.Node_DiscardStmt:
		return &Discard{What: strings.TrimPrefix(s.DiscardStmt.Target.String(), "DISCARD_")}, nil
	case *pg_query.Node_CommentStmt:
		return b.bindComment(s.CommentStmt)
	case *pg_query.Node_DeclareCursorStmt:
		return b.bindDeclareCursor(s.DeclareCursorStmt)
	case *pg_query.Node_FetchStmt:
		return bindFetch(s.FetchStmt)
	case *pg_query.Node_ClosePortalStmt:
		return &CloseCursor{Name: s.ClosePortalStmt.Portalname}, nil
	}
	return nil, pgerr.NotSupported("statement %s", statementName(n))
}

// statementName names a statement as SQL writes it, from its parse node
// type: CreateFunctionStmt is CREATE FUNCTION, ViewStmt CREATE VIEW.
func statementName(n *pg_query.Node) string {
	return nodeName(n, "Stmt", statementNames)
}

// statementNames are the statements whose parse node names are not their
// SQL words.
var statementNames = map[string]string{
	"Rule": "CREATE RULE", "Grant": "GRANT and REVOKE", "GrantRole": "GRANT and REVOKE of roles",
	"Createdb": "CREATE DATABASE", "Dropdb": "DROP DATABASE", "Alterdb": "ALTER DATABASE",
	"CreateTrig": "CREATE TRIGGER", "CreatePlang": "CREATE LANGUAGE", "Do": "DO", "Execute": "EXECUTE",
}

// expressionName names an expression the binder does not take as SQL
// writes it, for its 0A000 (not the parser's Go type: XmlExpr is "XML
// functions").
func expressionName(n *pg_query.Node) string {
	return nodeName(n, "", expressionNames)
}

// expressionNames are the expressions whose parse node names are not
// their SQL words.
var expressionNames = map[string]string{
	"XmlExpr": "XML", "XmlSerialize": "XMLSERIALIZE",
	"JsonObjectConstructor": "JSON_OBJECT", "JsonArrayConstructor": "JSON_ARRAY",
	"JsonArrayQueryConstructor": "JSON_ARRAY over a query", "JsonObjectAgg": "JSON_OBJECTAGG",
	"JsonArrayAgg": "JSON_ARRAYAGG", "JsonIsPredicate": "IS JSON", "MultiAssignRef": "a multiple-column assignment here",
}

// nodeName is the SQL words of parse node n's type: its name in names
// (less suffix), or the words of its name, each in capitals.
func nodeName(n *pg_query.Node, suffix string, names map[string]string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_"), suffix)
	if sql, ok := names[name]; ok {
		return sql
	}
	var words []string
	start := 0
	for i := 1; i <= len(name); i++ {
		if i == len(name) || name[i] >= 'A' && name[i] <= 'Z' {
			words = append(words, strings.ToUpper(name[start:i]))
			start = i
		}
	}
	return strings.Join(words, " ")
}

func bindTransaction(t *pg_query.TransactionStmt) (Statement, error) {
	switch t.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		tx := &Transaction{Kind: TxBegin, Start: t.Kind == pg_query.TransactionStmtKind_TRANS_STMT_START}
		tx.Isolation, tx.ReadOnly = txModes(t.Options)
		return tx, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		return &Transaction{Kind: TxCommit, Chain: t.Chain}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return &Transaction{Kind: TxRollback, Chain: t.Chain}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		return &Transaction{Kind: TxSavepoint, Savepoint: t.SavepointName}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:
		return &Transaction{Kind: TxRelease, Savepoint: t.SavepointName}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return &Transaction{Kind: TxRollbackTo, Savepoint: t.SavepointName}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_PREPARE:
		return &Transaction{Kind: TxPrepare}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT_PREPARED, pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
		return nil, pgerr.New(pgerrcode.UndefinedObject, "prepared transaction with identifier \"%s\" does not exist", t.Gid)
	}
	return nil, pgerr.NotSupported("transaction statement %s", t.Kind)
}

func bindSet(s *pg_query.VariableSetStmt) (Statement, error) {
	name := strings.ToLower(s.Name)
	switch s.Kind {
	case pg_query.VariableSetKind_VAR_SET_VALUE:
		vals := make([]string, len(s.Args))
		for i, a := range s.Args {
			vals[i] = defString(a)
			if name == "search_path" && a.GetAConst().GetSval() != nil {
				// A list of names, which PostgreSQL (GUC_LIST_QUOTE)
				// keeps quoted as identifiers: "$user", "My Schema" and
				// "a,b" read back as the names they are.
				vals[i] = ident.Quote(vals[i])
			}
		}
		if name == "timezone" && len(s.Args) == 1 {
			if c := s.Args[0].GetAConst(); c != nil {
				vals[0] = constText(c)
			}
			if tc := s.Args[0].GetTypeCast(); tc != nil {
				v, err := timeZoneInterval(tc)
				if err != nil {
					return nil, err
				}
				vals[0] = v
			}
		}
		return &Set{Name: name, Value: strings.Join(vals, ", "), Local: s.IsLocal}, nil
	case pg_query.VariableSetKind_VAR_SET_DEFAULT:
		return &Set{Name: name, Reset: true, Local: s.IsLocal}, nil
	case pg_query.VariableSetKind_VAR_RESET:
		return &Set{Name: name, Reset: true, Local: s.IsLocal, Tag: "RESET"}, nil
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		return &Set{Name: "all", Reset: true, Tag: "RESET"}, nil
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		switch s.Name {
		case "TRANSACTION", "SESSION CHARACTERISTICS":
			st := &SetTransaction{Session: s.Name != "TRANSACTION"}
			st.Isolation, st.ReadOnly = txModes(s.Args)
			return st, nil
		case "TRANSACTION SNAPSHOT":
			if len(s.Args) != 1 || s.Args[0].GetAConst().GetSval() == nil {
				return nil, pgerr.New(pgerrcode.SyntaxError, "SET TRANSACTION SNAPSHOT takes one snapshot identifier")
			}
			return &SetTransaction{Snapshot: s.Args[0].GetAConst().GetSval().Sval}, nil
		}
		return nil, pgerr.NotSupported("SET %s", s.Name)
	case pg_query.VariableSetKind_VAR_SET_CURRENT:
		return nil, pgerr.NotSupported("SET ... FROM CURRENT")
	}
	return nil, pgerr.NotSupported("this form of SET")
}

// timeZoneInterval is the value SET TIME ZONE INTERVAL '...' gives
// TimeZone: the interval's offset in hours east of UTC, as SET TIME ZONE
// 2 gives it (the value was lost: TimeZone became empty, and UTC). As in
// PostgreSQL, the interval may have no months or days.
func timeZoneInterval(tc *pg_query.TypeCast) (string, error) {
	str := tc.Arg.GetAConst().GetSval()
	if str == nil || !strings.EqualFold(nameOf(tc.TypeName.Names), "interval") {
		return "", pgerr.NotSupported("this form of SET TIME ZONE")
	}
	t := types.IntervalT
	if mods := tc.TypeName.Typmods; len(mods) > 0 {
		prec := -1
		if len(mods) > 1 {
			prec = int(mods[1].GetAConst().GetIval().GetIval())
		}
		mod, err := types.IntervalTypmod(int(mods[0].GetAConst().GetIval().GetIval()), prec)
		if err != nil {
			return "", err
		}
		t.Mod = mod
	}
	v, err := types.ParseText(str.Sval, t)
	if err != nil {
		return "", err
	}
	iv := v.(types.IntervalValue)
	if iv.Months != 0 || iv.Days != 0 {
		unit := map[bool]string{true: "months", false: "days"}[iv.Months != 0]
		return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"INTERVAL '%s'\"", types.FormatText(iv, t)).
			WithDetail("Cannot specify %s in time zone interval.", unit)
	}
	return strconv.FormatFloat(float64(iv.Micros)/3.6e9, 'f', -1, 64), nil
}

func (b *Binder) bindCreateTable(s *pg_query.CreateStmt) (Statement, error) {
	if len(s.InhRelations) > 0 || s.Partspec != nil || s.OfTypename != nil {
		return nil, pgerr.NotSupported("table inheritance, partitioning and typed tables")
	}
	switch s.AccessMethod {
	case "", "deeplake", "heap":
	default:
		return nil, pgerr.New(pgerrcode.UndefinedObject, "access method \"%s\" does not exist", s.AccessMethod)
	}
	schema, temp, oc, err := b.newTableSchema(s.Relation, s.Oncommit)
	if err != nil {
		return nil, err
	}
	def := &catalog.TableDef{Schema: schema, Name: s.Relation.Relname}
	ct := &CreateTable{Def: def, IfNotExists: s.IfNotExists, Temp: temp, OnCommit: oc}
	var tableCons []*pg_query.Constraint
	for _, elt := range s.TableElts {
		switch e := elt.Node.(type) {
		case *pg_query.Node_ColumnDef:
			if err := b.addColumnDef(ct, e.ColumnDef, &tableCons); err != nil {
				return nil, err
			}
		case *pg_query.Node_Constraint:
			tableCons = append(tableCons, e.Constraint)
		case *pg_query.Node_TableLikeClause:
			if err := b.addLikeColumns(def, e.TableLikeClause); err != nil {
				return nil, err
			}
		}
	}
	def.NextColumnID = len(def.Columns) + 1
	if len(def.Columns) > MaxTableColumns {
		return nil, TooManyColumns()
	}
	if err := b.checkGenerated(def, 0); err != nil {
		return nil, err
	}
	for _, c := range s.Constraints {
		tableCons = append(tableCons, c.GetConstraint())
	}
	for _, c := range withoutRedundantKeys(tableCons) {
		if err := b.addTableConstraint(def, c); err != nil {
			return nil, err
		}
	}
	// A foreign key referencing the table itself names a key its
	// constraints declare, maybe after it: checked once all are in.
	for _, fk := range def.ForeignKeys {
		if fk.RefTable != def.ID {
			continue
		}
		if err := b.checkReferencedKey(def, fk.RefColumns, slices.Equal(fk.RefColumns, def.PrimaryKey)); err != nil {
			return nil, err
		}
	}
	return ct, nil
}

// What LIKE's INCLUDING options copy (PostgreSQL's CREATE_TABLE_LIKE_*
// bits of TableLikeClause.Options; INCLUDING ALL sets them all).
const (
	likeComments    = 1 << 0
	likeConstraints = 1 << 2
	likeDefaults    = 1 << 3
	likeGenerated   = 1 << 4
	likeIdentity    = 1 << 5
	likeIndexes     = 1 << 6
)

// addLikeColumns adds the columns of CREATE TABLE's LIKE source (names,
// types and NOT NULL) and, as its INCLUDING options ask, their defaults,
// CHECK constraints, primary key and unique constraints, and comments.
// Indexes other than those constraints' and identity columns' sequences
// are not copied: asking for them is 0A000 when the source has them.
func (b *Binder) addLikeColumns(def *catalog.TableDef, like *pg_query.TableLikeClause) error {
	src, err := b.rangeVarTable(like.Relation)
	if err != nil {
		return err
	}
	b.need(src, catalog.PrivSelect)
	opts := like.Options
	ids := map[int]int{} // source column ID -> new column ID
	for _, c := range src.Columns {
		if pos, _ := def.Column(c.Name); pos >= 0 {
			return pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", c.Name)
		}
		col := catalog.ColumnDef{ID: len(def.Columns) + 1, Name: c.Name, Type: c.Type, NotNull: c.NotNull, Domain: c.Domain}
		switch {
		case c.Identity != "" && opts&likeIdentity != 0:
			return pgerr.NotSupported("CREATE TABLE ... LIKE ... INCLUDING IDENTITY")
		case c.Generated != "":
			if opts&likeGenerated != 0 {
				col.Default, col.Generated = c.Default, c.Generated
			}
		case c.Identity == "" && opts&likeDefaults != 0:
			col.Default = c.Default
		}
		if opts&likeComments != 0 {
			col.Comment = c.Comment
		}
		ids[c.ID] = col.ID
		def.Columns = append(def.Columns, col)
	}
	remap := func(cols []int) []int {
		out := make([]int, len(cols))
		for i, c := range cols {
			out[i] = ids[c]
		}
		return out
	}
	if opts&likeConstraints != 0 {
		for _, c := range src.Checks {
			def.Checks = append(def.Checks, catalog.CheckDef{Name: c.Name, Expr: c.Expr, Columns: remap(c.Columns)})
		}
	}
	if opts&likeIndexes != 0 {
		pk := len(src.PrimaryKey) > 0 // the primary key's entry of Uniques is still to come
		for _, u := range src.Uniques {
			cols := remap(u.Columns)
			name := def.Name + "_" + strings.Join(likeColumnNames(def, cols), "_") + "_key"
			if pk && slices.Equal(u.Columns, src.PrimaryKey) {
				if len(def.PrimaryKey) > 0 {
					return pgerr.New(pgerrcode.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", def.Name)
				}
				def.PrimaryKey, name, pk = cols, def.Name+"_pkey", false
				def.PrimaryKeyName = name
			}
			def.Uniques = append(def.Uniques, catalog.UniqueDef{Name: name, Columns: cols, Deferrable: u.Deferrable, NullsNotDistinct: u.NullsNotDistinct})
		}
		if len(b.Catalog.IndexesOf(src.ID)) > 0 {
			return pgerr.NotSupported("CREATE TABLE ... LIKE ... INCLUDING INDEXES of a table with indexes other than its key constraints")
		}
	}
	return nil
}

// likeColumnNames are the names of def's columns with the given IDs.
func likeColumnNames(def *catalog.TableDef, ids []int) []string {
	names := make([]string, len(ids))
	for i, id := range ids {
		for _, c := range def.Columns {
			if c.ID == id {
				names[i] = c.Name
			}
		}
	}
	return names
}

// addColumnDef adds one column of CREATE TABLE (or ALTER TABLE ADD
// COLUMN); column-level constraints that concern the table (PRIMARY KEY,
// UNIQUE, REFERENCES) are turned into table constraints on that column.
func (b *Binder) addColumnDef(ct *CreateTable, cd *pg_query.ColumnDef, tableCons *[]*pg_query.Constraint) error {
	def := ct.Def
	if pos, _ := def.Column(cd.Colname); pos >= 0 {
		return pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", cd.Colname)
	}
	col, seq, err := b.columnFromDef(def, cd)
	if err != nil {
		return err
	}
	if seq != nil {
		ct.Sequences = append(ct.Sequences, seq)
	}
	if err := applyConstraintAttrs(cd.Constraints); err != nil {
		return err
	}
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_FOREIGN, pg_query.ConstrType_CONSTR_CHECK:
			c.Keys = []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: cd.Colname}}}}
			if c.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
				c.FkAttrs = c.Keys
			}
			*tableCons = append(*tableCons, c)
		}
	}
	col.ID = len(def.Columns) + 1
	def.Columns = append(def.Columns, col)
	return nil
}

// applyConstraintAttrs applies a column's DEFERRABLE, NOT DEFERRABLE,
// INITIALLY DEFERRED and INITIALLY IMMEDIATE to the constraint before
// each (REFERENCES p DEFERRABLE INITIALLY DEFERRED), which the grammar
// gives as constraints of their own; as PostgreSQL's
// transformConstraintAttrs, only a primary key, unique or foreign key
// constraint takes them, each kind once, and INITIALLY DEFERRED implies
// DEFERRABLE.
func applyConstraintAttrs(cons []*pg_query.Node) error {
	var last *pg_query.Constraint
	var sawDeferrability, sawInitially bool
	for _, cn := range cons {
		c := cn.GetConstraint()
		misplaced := func(what string) error {
			return pgerr.New(pgerrcode.SyntaxError, "misplaced %s clause", what).WithPosition(c.Location + 1)
		}
		multiple := func(what string) error {
			return pgerr.New(pgerrcode.SyntaxError, "multiple %s clauses not allowed", what).WithPosition(c.Location + 1)
		}
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE, pg_query.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
			what := map[bool]string{true: "DEFERRABLE", false: "NOT DEFERRABLE"}[c.Contype == pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE]
			switch {
			case last == nil:
				return misplaced(what)
			case sawDeferrability:
				return multiple("DEFERRABLE/NOT DEFERRABLE")
			}
			sawDeferrability = true
			last.Deferrable = c.Contype == pg_query.ConstrType_CONSTR_ATTR_DEFERRABLE
			if !last.Deferrable && last.Initdeferred {
				return pgerr.New(pgerrcode.SyntaxError, "constraint declared INITIALLY DEFERRED must be DEFERRABLE").WithPosition(c.Location + 1)
			}
		case pg_query.ConstrType_CONSTR_ATTR_DEFERRED, pg_query.ConstrType_CONSTR_ATTR_IMMEDIATE:
			deferred := c.Contype == pg_query.ConstrType_CONSTR_ATTR_DEFERRED
			what := map[bool]string{true: "INITIALLY DEFERRED", false: "INITIALLY IMMEDIATE"}[deferred]
			switch {
			case last == nil:
				return misplaced(what)
			case sawInitially:
				return multiple("INITIALLY IMMEDIATE/DEFERRED")
			}
			sawInitially = true
			last.Initdeferred = deferred
			if deferred && !sawDeferrability {
				last.Deferrable = true
			} else if deferred && !last.Deferrable {
				return pgerr.New(pgerrcode.SyntaxError, "constraint declared INITIALLY DEFERRED must be DEFERRABLE").WithPosition(c.Location + 1)
			}
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_FOREIGN, pg_query.ConstrType_CONSTR_EXCLUSION:
			last, sawDeferrability, sawInitially = c, false, false
		default:
			last, sawDeferrability, sawInitially = nil, false, false
		}
	}
	return nil
}

// columnFromDef builds a column from its definition: type, NOT NULL,
// DEFAULT (checked by binding it now), and the sequence a serial type
// creates.
func (b *Binder) columnFromDef(def *catalog.TableDef, cd *pg_query.ColumnDef) (catalog.ColumnDef, *catalog.SequenceDef, error) {
	col := catalog.ColumnDef{Name: cd.Colname}
	if err := systemColumnConflict(cd.Colname); err != nil {
		return col, nil, err
	}
	if cc := cd.CollClause; cc != nil {
		if err := checkCollation(cc.Collname, cc.Location); err != nil {
			return col, nil, err
		}
	}
	typeName := strings.ToLower(nameOf(cd.TypeName.Names))
	t, err := b.typeFromName(cd.TypeName)
	if err != nil {
		return col, nil, err
	}
	col.Type = t
	if td := b.lookupDomain(cd.TypeName); td != nil {
		col.Domain = td.Domain.OID
	}
	col.NotNull = cd.IsNotNull
	var seq *catalog.SequenceDef
	if types.IsSerial(typeName) && len(cd.TypeName.ArrayBounds) == 0 {
		seq = &catalog.SequenceDef{Schema: def.Schema, Name: b.freeRelationName(def.Schema, def.Name+"_"+cd.Colname+"_seq"), Start: 1, Increment: 1, Min: 1, Max: maxForType(t), Type: sequenceType(t)}
		col.Default = NextvalDefault(def.Schema, seq.Name)
		col.NotNull = true
	}
	// sawDefault is a DEFAULT clause met, which DEFAULT NULL is too
	// though it keeps no default.
	sawDefault := cd.RawDefault != nil
	if cd.RawDefault != nil {
		if err := b.setDefault(&col, cd.RawDefault); err != nil {
			return col, nil, err
		}
	}
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL, pg_query.ConstrType_CONSTR_PRIMARY:
			col.NotNull = true
		case pg_query.ConstrType_CONSTR_NULL:
			col.NotNull = false
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if col.Generated != "" {
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "both default and generation expression specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			}
			if seq != nil {
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "multiple default values specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			}
			if err := b.setDefault(&col, c.RawExpr); err != nil {
				return col, nil, err
			}
			sawDefault = true
		case pg_query.ConstrType_CONSTR_IDENTITY:
			if col.Generated != "" {
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "both identity and generation expression specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			}
			if seq != nil || col.Default != "" || sawDefault {
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "both default and identity specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			}
			if seq, err = b.identitySequence(def, &col, c); err != nil {
				return col, nil, err
			}
		case pg_query.ConstrType_CONSTR_GENERATED:
			switch {
			case col.Identity != "":
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "both identity and generation expression specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			case seq != nil || col.Default != "" || sawDefault:
				return col, nil, pgerr.New(pgerrcode.SyntaxError, "both default and generation expression specified for column \"%s\" of table \"%s\"", cd.Colname, def.Name)
			}
			// Checked against the whole table by checkGenerated once
			// every column is known; kept as pg_get_expr shows it.
			text, err := policyDeparse(c.RawExpr)
			if err != nil {
				return col, nil, err
			}
			col.Generated, col.Default = "s", text
		}
	}
	return col, seq, nil
}

// identitySequence makes col an identity column (GENERATED ALWAYS or BY
// DEFAULT AS IDENTITY): NOT NULL, drawing its default from the sequence
// it owns, named as a serial column's is.
func (b *Binder) identitySequence(def *catalog.TableDef, col *catalog.ColumnDef, c *pg_query.Constraint) (*catalog.SequenceDef, error) {
	switch col.Type.Family {
	case types.Int2, types.Int4, types.Int8:
	default:
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	seq := &catalog.SequenceDef{Schema: def.Schema, Name: b.freeRelationName(def.Schema, def.Name+"_"+col.Name+"_seq"), Increment: 1}
	if err := b.applySequenceOptions(seq, c.Options, col.Type); err != nil {
		return nil, err
	}
	// SEQUENCE NAME [schema.]name, as pg_dump writes an identity column.
	for _, o := range c.Options {
		if d := o.GetDefElem(); d.Defname == "sequence_name" {
			names := strList(d.Arg.GetList().GetItems())
			seq.Name = names[len(names)-1]
			if len(names) > 1 && names[len(names)-2] != def.Schema {
				return nil, pgerr.NotSupported("an identity column's sequence in another schema than its table's")
			}
		}
	}
	col.Identity = c.GeneratedWhen // "a" (ALWAYS) or "d" (BY DEFAULT)
	col.Default = NextvalDefault(def.Schema, seq.Name)
	col.NotNull = true
	return seq, nil
}

// defaultClause is the clause of a column's DEFAULT expression, as the
// binder's errors name it ("aggregate functions are not allowed in
// DEFAULT expressions").
const defaultClause = "DEFAULT expressions"

// setDefault checks a DEFAULT expression by binding it and stores its text.
func (b *Binder) setDefault(col *catalog.ColumnDef, n *pg_query.Node) error {
	saved, savedStored := b.clause, b.storedExpr
	b.clause, b.storedExpr = defaultClause, "DEFAULT expression"
	e, err := b.bindExpr(&scope{}, n)
	b.clause, b.storedExpr = saved, savedStored
	if err != nil {
		if pe := pgerr.From(err); pe.Code == pgerrcode.UndefinedColumn {
			return pgerr.New(pgerrcode.FeatureNotSupported, "cannot use column reference in DEFAULT expression")
		}
		return err
	}
	coerced, err := b.coerceColumn(e, col.Name, col.Type)
	if err != nil {
		return err
	}
	if k, ok := coerced.(*Const); ok && k.Value == nil && col.Domain == 0 {
		// DEFAULT NULL is no default, as PostgreSQL keeps none for a
		// null constant (pg_attrdef has no row); a domain column's keeps
		// it, overriding the domain's DEFAULT.
		col.Default = ""
		return nil
	}
	if nv, ok := e.(*NextVal); ok && regclassLiteral(n.GetFuncCall().GetArgs()) {
		// DEFAULT nextval('seq'): PostgreSQL resolves the name to the
		// sequence now (a regclass constant), so that pg_get_expr prints
		// it schema-qualified when the search path does not find it
		// (pg_dump restores with an empty one) and pg_depend ties the
		// default to the sequence; it is kept as a serial column's is.
		// nextval('seq'::text) is looked up at each call, as written.
		col.Default = NextvalDefault(nv.Schema, nv.Name)
		return nil
	}
	text, err := DeparseExpr(n)
	if err != nil {
		return err
	}
	col.Default = text
	// A string literal for a string column is kept as PostgreSQL shows it
	// (pg_get_expr, information_schema.columns.column_default, which ORMs
	// read back): 'x'::text, 'x'::character varying, 'x'::bpchar.
	// So is one written with its cast to the column's type, as pg_dump
	// writes it back ('x'::character varying), which would deparse as
	// 'x'::varchar.
	lit := n
	if tc := n.GetTypeCast(); tc != nil && tc.Arg.GetAConst() != nil && len(tc.TypeName.GetTypmods()) == 0 && e.Type().Family == col.Type.Family {
		lit = tc.Arg
		if text, err = DeparseExpr(lit); err != nil {
			return err
		}
	}
	if c := lit.GetAConst(); c != nil && c.GetSval() != nil && col.Type.IsEnum() {
		// 'ok'::mood, as pg_get_expr prints an enum constant.
		if err := types.CheckEnumLabel(col.Type.Enum, c.GetSval().Sval); err != nil {
			return err
		}
		col.Default = catalog.EnumDefault(col.Type.Enum, c.GetSval().Sval)
		return nil
	}
	if c := lit.GetAConst(); c != nil && c.GetSval() != nil && !col.Type.IsArray() {
		switch col.Type.Family {
		case types.Text, types.Varchar:
			col.Default = text + "::" + types.T{Family: col.Type.Family, Mod: -1}.String()
			return nil
		case types.Char:
			col.Default = text + "::bpchar"
			return nil
		}
	}
	if shown, ok := constDefaultText(lit, col.Type); ok {
		col.Default = shown
	} else if f := n.GetSqlvalueFunction(); f != nil {
		// PostgreSQL prints CURRENT_DATE, CURRENT_TIMESTAMP(3) ... in
		// capitals.
		col.Default = strings.ToUpper(text)
	}
	return nil
}

// constDefaultText is a constant DEFAULT as PostgreSQL's pg_get_expr
// prints it, which ORMs and GUI clients read back and compare: a string
// literal for a column of another type is converted to that type when the
// table is created, so it prints in that type's output form with a cast
// ('{}'::jsonb, '1 day'::interval, '{}'::real[]); a negative integer or a
// number without a decimal point that is not an int4 is quoted and cast
// ('-1'::integer, '5000000000'::bigint), as ruleutils prints Consts.
// ok is false for anything else, which keeps its deparsed text.
func constDefaultText(n *pg_query.Node, t types.T) (string, bool) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return "", false
	}
	quoted := func(s, typ string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'::" + typ }
	switch {
	case c.GetIval() != nil:
		if v := c.GetIval().Ival; v < 0 {
			return quoted(strconv.FormatInt(int64(v), 10), "integer"), true
		}
	case c.GetFval() != nil:
		f := c.GetFval().Fval
		if strings.ContainsAny(f, ".eE") {
			// A numeric prints as numeric_out writes it (1e5 is 100000,
			// 1.5e-3 0.0015), bare only when that has a point or an
			// exponent and no sign.
			d, err := types.ParseText(f, types.NumericT)
			if err != nil {
				return "", false
			}
			out := types.FormatText(d, types.NumericT)
			if out[0] == '-' || !strings.ContainsAny(out, ".eE") {
				return quoted(out, "numeric"), true
			}
			return out, true
		}
		if _, err := strconv.ParseInt(f, 10, 64); err == nil {
			return quoted(f, "bigint"), true
		}
		return quoted(f, "numeric"), true
	case c.GetSval() != nil:
		if t.IsCatalogVector() || t.Family == types.Text || t.Family == types.Varchar || t.Family == types.Char {
			return "", false
		}
		v, err := types.ParseText(c.GetSval().Sval, t)
		if err != nil || v == nil {
			return "", false
		}
		out := types.FormatText(v, t)
		switch t.Family {
		case types.Bool:
			if v.(bool) {
				return "true", true
			}
			return "false", true
		case types.Int4:
			if out[0] != '-' {
				return out, true
			}
		case types.Numeric:
			if out[0] >= '0' && out[0] <= '9' && strings.ContainsAny(out, ".eE") {
				return out, true
			}
		}
		var name string
		switch {
		case t.IsArray() && t.Elem.Enum != nil:
			return catalog.EnumArrayDefault(t.Elem.Enum, out), true
		case t.IsArray() && t.Elem.Family == types.Char:
			name = "bpchar[]"
		case t.IsArray():
			name = types.T{Family: t.Elem.Family, Mod: -1}.String() + "[]"
		default:
			name = types.T{Family: t.Family, Mod: -1}.String()
		}
		return quoted(out, name), true
	}
	return "", false
}

// regclassLiteral reports whether args are one string literal that
// PostgreSQL reads as a regclass constant: untyped ('seq') or cast to
// regclass ('seq'::regclass).
func regclassLiteral(args []*pg_query.Node) bool {
	if len(args) != 1 {
		return false
	}
	arg := args[0]
	if tc := arg.GetTypeCast(); tc != nil {
		if !strings.EqualFold(nameOf(tc.TypeName.Names), "regclass") {
			return false
		}
		arg = tc.Arg
	}
	return arg.GetAConst().GetSval() != nil
}

// NextvalDefault is the default of a column drawing from sequence
// schema.name, as cairn stores it: nextval('schema.name'::regclass),
// qualified so that it finds the sequence whatever the search path (a
// sequence moved to another schema rewrites it).
func NextvalDefault(schema, name string) string {
	return fmt.Sprintf("nextval('%s.%s'::regclass)", ident.Quote(schema), ident.Quote(name))
}

// sequenceType is SequenceDef.Type of a sequence of integer type t.
func sequenceType(t types.T) string {
	if t.Family == types.Int8 {
		return ""
	}
	return t.String()
}

// RetypeSequence gives seq, the sequence of an identity column ALTER
// COLUMN ... TYPE changes to integer type to, that type as PostgreSQL's
// ALTER SEQUENCE ... AS does: a bound that was the old type's limit
// becomes the new type's; 22023 when another bound does not fit it.
func RetypeSequence(seq *catalog.SequenceDef, to types.T) error {
	from := types.Int8T
	for _, t := range []types.T{types.Int2T, types.Int4T} {
		if seq.Type == sequenceType(t) {
			from = t
		}
	}
	oldMax, newMax := maxForType(from), maxForType(to)
	if seq.Max == oldMax {
		seq.Max = newMax
	}
	if seq.Min == -oldMax-1 {
		seq.Min = -newMax - 1
	}
	seq.Type = sequenceType(to)
	if seq.Max > newMax || seq.Max < -newMax-1 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", seq.Max, to)
	}
	if seq.Min > newMax || seq.Min < -newMax-1 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", seq.Min, to)
	}
	return nil
}

// maxForType is the greatest value of integer type t.
func maxForType(t types.T) int64 {
	switch t.Family {
	case types.Int2:
		return 32767
	case types.Int4:
		return 2147483647
	}
	return 9223372036854775807
}

// withoutRedundantKeys drops from a CREATE TABLE's constraints each
// UNIQUE whose key columns the primary key or an earlier UNIQUE already
// has, as PostgreSQL's transformIndexConstraints does (`id int PRIMARY
// KEY UNIQUE` makes one index); the earlier one takes the dropped one's
// name when CONSTRAINT gave it none.
func withoutRedundantKeys(cons []*pg_query.Constraint) []*pg_query.Constraint {
	keyOf := func(c *pg_query.Constraint) string { return strings.Join(strList(c.Keys), "\x00") }
	var kept []*pg_query.Constraint // the primary key first, then the UNIQUEs kept
	for _, c := range cons {
		if c.Contype == pg_query.ConstrType_CONSTR_PRIMARY {
			kept = append(kept, c)
		}
	}
	out := make([]*pg_query.Constraint, 0, len(cons))
	for _, c := range cons {
		if c.Contype != pg_query.ConstrType_CONSTR_UNIQUE || len(c.Keys) == 0 {
			out = append(out, c)
			continue
		}
		i := slices.IndexFunc(kept, func(k *pg_query.Constraint) bool {
			return keyOf(k) == keyOf(c) && len(k.Including) == 0 && len(c.Including) == 0 && k.NullsNotDistinct == c.NullsNotDistinct
		})
		if i < 0 {
			kept = append(kept, c)
			out = append(out, c)
			continue
		}
		if kept[i].Conname == "" {
			kept[i].Conname = c.Conname
		}
	}
	return out
}

// freeConstraintName is the name for a constraint of def that CONSTRAINT
// does not name: name, or name with the lowest number appended that no
// constraint of def's schema has, as PostgreSQL's ChooseConstraintName
// picks it (CREATE TABLE t (a int UNIQUE, UNIQUE (a)) makes t_a_key and
// t_a_key1; Sequelize's sync adds its unique keys again on each run). A
// primary or unique key's name names its index too, so for those
// (indexed) it must be free among the schema's relations as well.
func (b *Binder) freeConstraintName(def *catalog.TableDef, name string, indexed bool) string {
	used := func(t *catalog.TableDef, n string) bool {
		return slices.ContainsFunc(t.Uniques, func(u catalog.UniqueDef) bool { return u.Name == n }) ||
			slices.ContainsFunc(t.Checks, func(c catalog.CheckDef) bool { return c.Name == n }) ||
			slices.ContainsFunc(t.ForeignKeys, func(f catalog.ForeignKeyDef) bool { return f.Name == n })
	}
	taken := func(n string) bool {
		if used(def, n) || indexed && b.Catalog.RelationExists(def.Schema, n) {
			return true
		}
		for _, t := range b.Catalog.Tables {
			if t.Schema == def.Schema && t.ID != def.ID && used(t, n) {
				return true
			}
		}
		return false
	}
	candidate := name
	for i := 1; taken(candidate); i++ {
		candidate = name + itoa(int64(i))
	}
	return candidate
}

// addTableConstraint records PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY.
// What would change when or how one is checked and cairn cannot do is
// refused, not ignored.
func (b *Binder) addTableConstraint(def *catalog.TableDef, c *pg_query.Constraint) error {
	switch {
	case c.Deferrable && c.Contype == pg_query.ConstrType_CONSTR_CHECK:
		return pgerr.New(pgerrcode.FeatureNotSupported, "CHECK constraints cannot be marked DEFERRABLE").WithPosition(c.Location + 1)
	case c.Initdeferred && c.Contype != pg_query.ConstrType_CONSTR_FOREIGN:
		return pgerr.NotSupported("INITIALLY DEFERRED unique and primary key constraints").WithPosition(c.Location + 1).
			WithDetail("cairn checks uniqueness when a row is written; foreign keys can be INITIALLY DEFERRED.")
	}
	colIDs := func(keys []*pg_query.Node) ([]int, []string, error) {
		var ids []int
		var names []string
		for _, k := range keys {
			name := k.GetString_().GetSval()
			pos, col := def.Column(name)
			if col == nil {
				return nil, nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" named in key does not exist", name)
			}
			ids = append(ids, def.Columns[pos].ID)
			names = append(names, name)
		}
		return ids, names, nil
	}
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_PRIMARY:
		if len(def.PrimaryKey) > 0 {
			return pgerr.New(pgerrcode.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", def.Name)
		}
		ids, _, err := colIDs(c.Keys)
		if err != nil {
			return err
		}
		def.PrimaryKey = ids
		for _, id := range ids {
			for i := range def.Columns {
				if def.Columns[i].ID == id {
					def.Columns[i].NotNull = true
				}
			}
		}
		name := c.Conname
		if name == "" {
			name = b.freeConstraintName(def, def.Name+"_pkey", true)
		}
		def.PrimaryKeyName = name
		def.Uniques = append(def.Uniques, catalog.UniqueDef{Name: name, Columns: ids, Deferrable: c.Deferrable})
	case pg_query.ConstrType_CONSTR_UNIQUE:
		ids, names, err := colIDs(c.Keys)
		if err != nil {
			return err
		}
		name := c.Conname
		if name == "" {
			name = b.freeConstraintName(def, def.Name+"_"+strings.Join(names, "_")+"_key", true)
		}
		def.Uniques = append(def.Uniques, catalog.UniqueDef{Name: name, Columns: ids, Deferrable: c.Deferrable, NullsNotDistinct: c.NullsNotDistinct})
	case pg_query.ConstrType_CONSTR_CHECK:
		// Check the expression binds against the table's columns.
		cond, err := b.bindCondition(&scope{cols: tableCols(def, def.Name)}, c.RawExpr, "CHECK")
		if err != nil {
			return err
		}
		text, err := DeparseExpr(c.RawExpr)
		if err != nil {
			return err
		}
		// The columns the expression reads, in order of appearance
		// (pg_constraint.conkey). As in PostgreSQL, an unnamed check
		// reading exactly one column is <table>_<column>_check, any
		// other <table>_check, whether written on a column or not.
		var positions, cols []int
		WalkExpr(cond, func(e Expr) {
			if ref, ok := e.(*ColumnRef); ok && ref.Index >= 0 && ref.Index < len(def.Columns) && !slices.Contains(positions, ref.Index) {
				positions = append(positions, ref.Index)
				cols = append(cols, def.Columns[ref.Index].ID)
			}
		})
		name := c.Conname
		if name == "" {
			name = def.Name + "_check"
			if len(positions) == 1 {
				name = def.Name + "_" + def.Columns[positions[0]].Name + "_check"
			}
			name = b.freeConstraintName(def, name, false)
		}
		def.Checks = append(def.Checks, catalog.CheckDef{Name: name, Expr: text, Columns: cols})
	case pg_query.ConstrType_CONSTR_FOREIGN:
		ids, names, err := colIDs(c.FkAttrs)
		if err != nil {
			return err
		}
		var ref *catalog.TableDef
		if c.Pktable.Relname == def.Name && (c.Pktable.Schemaname == "" || c.Pktable.Schemaname == def.Schema) {
			ref = def
		} else if ref, err = b.rangeVarTable(c.Pktable); err != nil {
			return err
		} else if err := checkReferencePersistence(def, ref); err != nil {
			return err
		}
		var refIDs []int
		if len(c.PkAttrs) == 0 {
			if len(ref.PrimaryKey) == 0 {
				return pgerr.New(pgerrcode.UndefinedObject, "there is no primary key for referenced table \"%s\"", ref.Name)
			}
			refIDs = ref.PrimaryKey
		} else {
			for _, k := range c.PkAttrs {
				pos, col := ref.Column(k.GetString_().GetSval())
				if col == nil {
					return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", k.GetString_().GetSval())
				}
				refIDs = append(refIDs, ref.Columns[pos].ID)
			}
		}
		if len(refIDs) != len(ids) {
			return pgerr.New(pgerrcode.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
		}
		if err := fkTypesComparable(def, ref, ids, refIDs, c.Conname, names); err != nil {
			return err
		}
		// The referenced columns must be a key, not a DEFERRABLE one: a
		// table's own, being created, may declare it after the foreign
		// key.
		if ref != def {
			if err := b.checkReferencedKey(ref, refIDs, len(c.PkAttrs) == 0); err != nil {
				return err
			}
		}
		// ON DELETE SET NULL (cols) and SET DEFAULT (cols) name some of
		// the key's columns, each once.
		var setIDs []int
		for _, k := range c.FkDelSetCols {
			name := k.GetString_().GetSval()
			pos, col := def.Column(name)
			if col == nil {
				return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" referenced in foreign key constraint does not exist", name)
			}
			if !slices.Contains(ids, col.ID) {
				return pgerr.New(pgerrcode.InvalidColumnReference, "column \"%s\" referenced in ON DELETE SET action must be part of foreign key", name)
			}
			if !slices.Contains(setIDs, def.Columns[pos].ID) {
				setIDs = append(setIDs, def.Columns[pos].ID)
			}
		}
		name := c.Conname
		if name == "" {
			name = b.freeConstraintName(def, def.Name+"_"+strings.Join(names, "_")+"_fkey", false)
		}
		def.ForeignKeys = append(def.ForeignKeys, catalog.ForeignKeyDef{Name: name, Columns: ids, RefTable: ref.ID, RefColumns: refIDs,
			OnDelete: fkAction(c.FkDelAction), OnUpdate: fkAction(c.FkUpdAction), DeleteSetColumns: setIDs, MatchFull: c.FkMatchtype == "f",
			Deferrable: c.Deferrable, InitiallyDeferred: c.Initdeferred})
	case pg_query.ConstrType_CONSTR_EXCLUSION:
		return pgerr.NotSupported("exclusion constraints")
	}
	return nil
}

// fkAction is the catalog's code of a referential action as the parser
// gives it ("a" for NO ACTION, or nothing when none was written).
// fkTypesComparable refuses, as PostgreSQL does (42804), a foreign key
// whose column cannot be compared with the key it references: its type
// must be the key's, one of the same family of comparable types
// (integers, floating point, date and timestamps, strings), or one that
// converts to it implicitly (an integer column may reference a numeric
// key; a numeric column may not reference an integer key).
func fkTypesComparable(def, ref *catalog.TableDef, ids, refIDs []int, conname string, names []string) error {
	group := func(t types.T) int {
		switch t.Family {
		case types.Int2, types.Int4, types.Int8:
			return 1
		case types.Float4, types.Float8:
			return 2
		case types.DateFamily, types.TimestampFamily, types.TimestampTZ:
			return 3
		case types.Text, types.Varchar:
			return 4
		}
		return 0
	}
	for i := range ids {
		_, c := def.ColumnByID(ids[i])
		_, p := ref.ColumnByID(refIDs[i])
		if c == nil || p == nil {
			continue
		}
		if c.Type.Equal(p.Type) || group(c.Type) != 0 && group(c.Type) == group(p.Type) {
			continue
		}
		if implicit, _, _ := functions.CastKind(c.Type, p.Type); implicit {
			continue
		}
		name := conname
		if name == "" {
			name = def.Name + "_" + strings.Join(names, "_") + "_fkey"
		}
		return pgerr.New(pgerrcode.DatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", name).
			WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", c.Name, p.Name, c.Type, p.Type)
	}
	return nil
}

func fkAction(a string) string {
	if a == "a" {
		return catalog.FKNoAction
	}
	return a
}

// checkReferencedKey checks that cols (column IDs of ref) are a key of
// ref a foreign key may reference (isKey), in PostgreSQL's words: 42830
// for none, 55000 for a DEFERRABLE one (primary: the foreign key names
// ref's primary key by naming no columns).
func (b *Binder) checkReferencedKey(ref *catalog.TableDef, cols []int, primary bool) error {
	key, deferrable := b.isKey(ref, cols)
	switch {
	case deferrable && primary:
		return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "cannot use a deferrable primary key for referenced table \"%s\"", ref.Name)
	case deferrable:
		return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "cannot use a deferrable unique constraint for referenced table \"%s\"", ref.Name)
	case !key:
		return pgerr.New(pgerrcode.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table \"%s\"", ref.Name)
	}
	return nil
}

// isKey reports whether cols (column IDs of def) are a key of def that a
// foreign key may reference: its primary key, a unique constraint or a
// unique index on exactly those columns. deferrable reports that the only
// such keys are DEFERRABLE, which PostgreSQL refuses to reference (55000).
func (b *Binder) isKey(def *catalog.TableDef, cols []int) (key, deferrable bool) {
	same := func(key []int) bool {
		return len(key) == len(cols) && !slices.ContainsFunc(cols, func(c int) bool { return !slices.Contains(key, c) })
	}
	for _, u := range def.Uniques {
		if same(u.Columns) {
			if !u.Deferrable {
				return true, false
			}
			deferrable = true
		}
	}
	if len(def.PrimaryKey) > 0 && same(def.PrimaryKey) && !deferrable {
		return true, false
	}
	for _, ix := range b.Catalog.IndexesOf(def.ID) {
		if ix.PlainUnique() && same(ix.Columns) {
			return true, false
		}
	}
	return deferrable, deferrable
}

func (b *Binder) bindDrop(s *pg_query.DropStmt) (Statement, error) {
	cascade := s.Behavior == pg_query.DropBehavior_DROP_CASCADE
	qualified := func(o *pg_query.Node) (string, string) {
		names := strList(o.GetList().GetItems())
		if len(names) == 0 {
			return "", o.GetString_().GetSval()
		}
		if len(names) == 1 {
			return "", names[0]
		}
		return names[len(names)-2], names[len(names)-1]
	}
	switch s.RemoveType {
	case pg_query.ObjectType_OBJECT_FUNCTION:
		return b.bindDropFunction(s)
	case pg_query.ObjectType_OBJECT_TRIGGER:
		return b.bindDropTrigger(s)
	case pg_query.ObjectType_OBJECT_TABLE:
		d := &DropTable{IfExists: s.MissingOk, Cascade: cascade}
		for _, o := range s.Objects {
			schema, name := qualified(o)
			def, err := b.lookupTable(schema, name)
			if err != nil {
				if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable || s.MissingOk && pgerr.Code(err) == pgerrcode.InvalidSchemaName {
					d.Missing = append(d.Missing, name)
					continue
				}
				return nil, err
			}
			b.needOwner(def)
			d.Tables = append(d.Tables, def)
		}
		return d, nil
	case pg_query.ObjectType_OBJECT_SCHEMA:
		d := &DropSchema{IfExists: s.MissingOk, Cascade: cascade}
		for _, o := range s.Objects {
			d.Names = append(d.Names, o.GetString_().GetSval())
			b.accesses = append(b.accesses, Access{Schema: o.GetString_().GetSval(), Owner: true})
		}
		return d, nil
	case pg_query.ObjectType_OBJECT_POLICY:
		return b.bindDropPolicy(s)
	case pg_query.ObjectType_OBJECT_INDEX:
		d := &DropIndex{IfExists: s.MissingOk}
		if s.Concurrent {
			d.NoTxBlock = "DROP INDEX CONCURRENTLY"
		}
		for _, o := range s.Objects {
			schema, name := qualified(o)
			d.Names = append(d.Names, [2]string{schema, name})
			path := b.SearchPath
			if schema != "" {
				path = []string{schema}
			}
			for _, sc := range path {
				if ix := b.Catalog.Indexes[sc+"."+name]; ix != nil {
					if t := b.Catalog.Tables[ix.Table]; t != nil {
						b.accesses = append(b.accesses, Access{Table: t, Index: name, Owner: true})
					}
					break
				}
			}
		}
		return d, nil
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		d := &DropSequence{IfExists: s.MissingOk, Cascade: cascade}
		for _, o := range s.Objects {
			schema, name := qualified(o)
			d.Names = append(d.Names, [2]string{schema, name})
			if seq := b.findSequence(schema, name); seq != nil {
				b.accesses = append(b.accesses, Access{Sequence: seq, Owner: true})
			}
		}
		return d, nil
	case pg_query.ObjectType_OBJECT_VIEW:
		return b.bindDropView(s)
	case pg_query.ObjectType_OBJECT_EXTENSION:
		return &NoOp{Tag: "DROP EXTENSION"}, nil
	case pg_query.ObjectType_OBJECT_TYPE, pg_query.ObjectType_OBJECT_DOMAIN:
		return b.bindDropType(s)
	}
	return nil, pgerr.NotSupported("DROP %s", strings.TrimPrefix(s.RemoveType.String(), "OBJECT_"))
}

func (b *Binder) bindAlterTable(s *pg_query.AlterTableStmt) (Statement, error) {
	if st, ok, err := b.bindAlterRelationOwner(s); ok {
		return st, err
	}
	if s.Objtype != pg_query.ObjectType_OBJECT_TABLE {
		return nil, pgerr.NotSupported("ALTER %s", strings.TrimPrefix(s.Objtype.String(), "OBJECT_"))
	}
	def, err := b.rangeVarTable(s.Relation)
	if def != nil {
		b.needOwner(def)
	}
	if err != nil {
		if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
			return &AlterTable{Missing: s.Relation.Relname}, nil
		}
		return nil, err
	}
	at := &AlterTable{Table: def}
	var added []catalog.ColumnDef // the columns its ADD COLUMNs add, in order
	for _, c := range s.Cmds {
		cmd := c.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg_query.AlterTableType_AT_AddColumn:
			cd := cmd.Def.GetColumnDef()
			col, seq, err := b.columnFromDef(def, cd)
			if err != nil {
				return nil, err
			}
			if col.Generated != "" {
				// Checked as CREATE TABLE checks it; the rows already
				// there get its value as a DEFAULT's (FillColumns).
				with := def.Clone()
				col.ID = with.NextColumnID
				with.Columns = append(with.Columns, col)
				if err := b.checkGenerated(with, len(def.Columns)); err != nil {
					return nil, err
				}
			}
			ac := AlterCmd{Kind: AddColumn, Column: col, IfNotExists: cmd.MissingOk, Sequence: seq}
			if err := applyConstraintAttrs(cd.Constraints); err != nil {
				return nil, err
			}
			var tableCons []*pg_query.Constraint
			for _, cn := range cd.Constraints {
				switch c := cn.GetConstraint(); c.Contype {
				case pg_query.ConstrType_CONSTR_PRIMARY:
					ac.Primary = true
				case pg_query.ConstrType_CONSTR_UNIQUE:
					ac.Unique = true
					ac.NullsNotDistinct = c.NullsNotDistinct
				case pg_query.ConstrType_CONSTR_FOREIGN, pg_query.ConstrType_CONSTR_CHECK:
					tableCons = append(tableCons, c)
				}
			}
			at.Cmds = append(at.Cmds, ac)
			// Its CHECK and REFERENCES constraints are added after it, as
			// ADD CONSTRAINT adds them (the rows already there checked),
			// bound against the table with the columns this ALTER TABLE
			// adds up to this one, numbered as applying them will.
			if pos, _ := def.Column(col.Name); pos < 0 {
				added = append(added, col)
				for _, c := range tableCons {
					cmd, err := b.addColumnConstraint(def, added, col.Name, c)
					if err != nil {
						return nil, err
					}
					at.Cmds = append(at.Cmds, cmd)
				}
			}
		case pg_query.AlterTableType_AT_AlterColumnType:
			ac, err := b.bindSetType(def, cmd)
			if err != nil {
				return nil, err
			}
			at.Cmds = append(at.Cmds, ac)
		case pg_query.AlterTableType_AT_DropExpression:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: DropExpression, Name: cmd.Name, IfExists: cmd.MissingOk})
		case pg_query.AlterTableType_AT_DropColumn:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: DropColumn, Name: cmd.Name, IfExists: cmd.MissingOk, Cascade: cmd.Behavior == pg_query.DropBehavior_DROP_CASCADE})
		case pg_query.AlterTableType_AT_SetNotNull:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: SetNotNull, Name: cmd.Name})
		case pg_query.AlterTableType_AT_DropNotNull:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: DropNotNull, Name: cmd.Name})
		case pg_query.AlterTableType_AT_ColumnDefault:
			ac := AlterCmd{Kind: SetDefault, Name: cmd.Name}
			pos, col := def.Column(cmd.Name)
			if col == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			}
			ac.Column = def.Columns[pos]
			if ac.Column.Generated != "" {
				err := pgerr.New(pgerrcode.SyntaxError, "column \"%s\" of relation \"%s\" is a generated column", cmd.Name, def.Name)
				if cmd.Def == nil {
					err = err.WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead.")
				}
				return nil, err
			}
			ac.Column.Default = ""
			if cmd.Def != nil {
				if err := b.setDefault(&ac.Column, cmd.Def); err != nil {
					return nil, err
				}
			}
			at.Cmds = append(at.Cmds, ac)
		case pg_query.AlterTableType_AT_AddConstraint:
			c := cmd.Def.GetConstraint()
			switch c.Contype {
			case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_CHECK, pg_query.ConstrType_CONSTR_FOREIGN:
			default:
				return nil, pgerr.NotSupported("ALTER TABLE ADD CONSTRAINT of this kind")
			}
			if c.Indexname != "" {
				return nil, pgerr.NotSupported("ADD CONSTRAINT ... USING INDEX")
			}
			with := withColumns(def, added)
			if err := b.addTableConstraint(with, c); err != nil {
				return nil, err
			}
			if c.SkipValidation { // (the grammar takes it for these two only)
				// The rows the table holds are not checked; later ones are.
				if c.Contype == pg_query.ConstrType_CONSTR_CHECK {
					with.Checks[len(with.Checks)-1].NotValid = true
				} else {
					with.ForeignKeys[len(with.ForeignKeys)-1].NotValid = true
				}
			}
			at.Cmds = append(at.Cmds, AlterCmd{Kind: AddConstraint, Constraint: with, Primary: c.Contype == pg_query.ConstrType_CONSTR_PRIMARY})
		case pg_query.AlterTableType_AT_DropConstraint:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: DropConstraint, Name: cmd.Name, IfExists: cmd.MissingOk})
		case pg_query.AlterTableType_AT_ValidateConstraint:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: ValidateConstraint, Name: cmd.Name})
		case pg_query.AlterTableType_AT_ChangeOwner:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: ChangeOwner, Owner: roleSpec(cmd.Newowner)})
		case pg_query.AlterTableType_AT_AddIdentity:
			pos, col := def.Column(cmd.Name)
			switch {
			case col == nil:
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
			case col.Identity != "":
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" is already an identity column", cmd.Name, def.Name)
			case col.Default != "":
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" already has a default value", cmd.Name, def.Name)
			}
			c := def.Columns[pos]
			seq, err := b.identitySequence(def, &c, cmd.Def.GetConstraint())
			if err != nil {
				return nil, err
			}
			if !col.NotNull && !slices.Contains(def.PrimaryKey, col.ID) {
				return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added", cmd.Name, def.Name)
			}
			at.Cmds = append(at.Cmds, AlterCmd{Kind: AddIdentity, Name: cmd.Name, Column: c, Sequence: seq})
		case pg_query.AlterTableType_AT_EnableTrig, pg_query.AlterTableType_AT_EnableAlwaysTrig, pg_query.AlterTableType_AT_EnableReplicaTrig,
			pg_query.AlterTableType_AT_DisableTrig, pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_DisableTrigAll,
			pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrigUser:
			c, err := b.bindTriggerState(def, cmd)
			if err != nil {
				return nil, err
			}
			at.Cmds = append(at.Cmds, c)
		case pg_query.AlterTableType_AT_EnableRowSecurity, pg_query.AlterTableType_AT_DisableRowSecurity,
			pg_query.AlterTableType_AT_ForceRowSecurity, pg_query.AlterTableType_AT_NoForceRowSecurity:
			at.Cmds = append(at.Cmds, AlterCmd{Kind: RowSecurity, Name: strings.TrimSuffix(strings.TrimPrefix(cmd.Subtype.String(), "AT_"), "RowSecurity")})
		default:
			return nil, pgerr.NotSupported("ALTER TABLE %s", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
		}
	}
	if err := b.checkSelfReferences(def, at.Cmds); err != nil {
		return nil, err
	}
	return at, nil
}

// checkSelfReferences checks that each foreign key an ALTER TABLE adds
// that references the table itself names a key of it, one the table has
// or one the same ALTER adds (PostgreSQL adds keys before foreign keys),
// as checkReferencedKey checks another table's.
func (b *Binder) checkSelfReferences(def *catalog.TableDef, cmds []AlterCmd) error {
	keyed := def.Clone()
	var fks []catalog.ForeignKeyDef
	for _, c := range cmds {
		if c.Kind != AddConstraint {
			continue
		}
		with := c.Constraint
		switch {
		case len(with.Uniques) > len(def.Uniques):
			keyed.Uniques = append(keyed.Uniques, with.Uniques[len(with.Uniques)-1])
			if c.Primary {
				keyed.PrimaryKey = with.PrimaryKey
			}
		case len(with.ForeignKeys) > len(def.ForeignKeys):
			if fk := with.ForeignKeys[len(with.ForeignKeys)-1]; fk.RefTable == def.ID {
				fks = append(fks, fk)
			}
		}
	}
	for _, fk := range fks {
		if err := b.checkReferencedKey(keyed, fk.RefColumns, slices.Equal(fk.RefColumns, keyed.PrimaryKey)); err != nil {
			return err
		}
	}
	return nil
}

// bindTriggerState binds ALTER TABLE ... {ENABLE [ALWAYS | REPLICA] |
// DISABLE} TRIGGER {name | USER | ALL}. ALL in PostgreSQL also switches
// the internal triggers that check foreign keys, which cairn checks
// without triggers: DISABLE TRIGGER ALL of a table with foreign keys (on
// either side) is 0A000 rather than leaving them checked.
func (b *Binder) bindTriggerState(def *catalog.TableDef, cmd *pg_query.AlterTableCmd) (AlterCmd, error) {
	sub := cmd.Subtype
	state := ""
	switch sub {
	case pg_query.AlterTableType_AT_DisableTrig, pg_query.AlterTableType_AT_DisableTrigAll, pg_query.AlterTableType_AT_DisableTrigUser:
		state = "D"
	case pg_query.AlterTableType_AT_EnableAlwaysTrig:
		state = "A"
	case pg_query.AlterTableType_AT_EnableReplicaTrig:
		state = "R"
	}
	c := AlterCmd{Kind: TriggerState, NewName: state}
	switch sub {
	case pg_query.AlterTableType_AT_DisableTrigAll:
		if len(def.ForeignKeys) > 0 || b.referenced(def) {
			return AlterCmd{}, pgerr.NotSupported("DISABLE TRIGGER ALL on a table with foreign keys (cairn checks them without triggers; DISABLE TRIGGER USER disables the table's own)")
		}
	case pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrigUser:
	default:
		if !slices.ContainsFunc(def.Triggers, func(t catalog.TriggerDef) bool { return t.Name == cmd.Name }) {
			return AlterCmd{}, pgerr.New(pgerrcode.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", cmd.Name, def.Name)
		}
		c.Name = cmd.Name
	}
	return c, nil
}

// referenced reports whether a foreign key of any table references def.
func (b *Binder) referenced(def *catalog.TableDef) bool {
	for _, t := range b.Catalog.Tables {
		for _, fk := range t.ForeignKeys {
			if fk.RefTable == def.ID {
				return true
			}
		}
	}
	return false
}

// addColumnConstraint binds the CHECK or REFERENCES constraint c of a
// column ALTER TABLE ADD COLUMN adds (name), as ADD CONSTRAINT on def
// with the columns added (the ALTER's new columns up to this one, given
// the IDs applying them gives).
func (b *Binder) addColumnConstraint(def *catalog.TableDef, added []catalog.ColumnDef, name string, c *pg_query.Constraint) (AlterCmd, error) {
	with := withColumns(def, added)
	c.Keys = []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: name}}}}
	if c.Contype == pg_query.ConstrType_CONSTR_FOREIGN {
		c.FkAttrs = c.Keys
	}
	if err := b.addTableConstraint(with, c); err != nil {
		return AlterCmd{}, err
	}
	return AlterCmd{Kind: AddConstraint, Constraint: with}, nil
}

// withColumns is def with the columns an ALTER TABLE adds before the
// action being bound (added, in order), numbered as applying them will
// number them: what that action's constraint may refer to.
func withColumns(def *catalog.TableDef, added []catalog.ColumnDef) *catalog.TableDef {
	with := def.Clone()
	for _, col := range added {
		col.ID = with.NextColumnID
		with.NextColumnID++
		with.Columns = append(with.Columns, col)
	}
	return with
}

// bindSetType binds ALTER TABLE ... ALTER COLUMN c [SET DATA] TYPE t
// [USING expr]. A change every value the column holds survives as
// stored (keepsValues) changes only the catalog: the same type (ORMs'
// schema sync issues it for every column), a longer or unbounded varchar,
// varchar to text, a wider numeric of the same scale, more fractional
// digits of a timestamp or time; a shorter varchar checks that the values
// fit. Any other change (integer to bigint, a USING expression) rewrites
// the column, as PostgreSQL rewrites the table: Rewrite, with Using the
// USING expression's text ("" for the column itself), which the
// statement binds again over the table's rows (RewriteColumn).
func (b *Binder) bindSetType(def *catalog.TableDef, cmd *pg_query.AlterTableCmd) (AlterCmd, error) {
	cd := cmd.Def.GetColumnDef()
	pos, col := def.Column(cmd.Name)
	if col == nil {
		return AlterCmd{}, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, def.Name)
	}
	if cc := cd.CollClause; cc != nil {
		if err := checkCollation(cc.Collname, cc.Location); err != nil {
			return AlterCmd{}, err
		}
	}
	t, err := b.typeFromName(cd.TypeName)
	if err != nil {
		return AlterCmd{}, err
	}
	if td := b.lookupDomain(cd.TypeName); td != nil || col.Domain != 0 {
		return AlterCmd{}, pgerr.NotSupported("ALTER COLUMN ... TYPE to or from a domain")
	}
	// USING the column itself, or the column cast to the new type (as
	// GORM and Django write it): the values as they are, or as the cast
	// makes them.
	var cast bool
	u := cd.RawDefault
	plain := u == nil
	if u != nil {
		isColumn := func(n *pg_query.Node) bool {
			ref := n.GetColumnRef()
			return ref != nil && len(ref.Fields) == 1 && ref.Fields[0].GetString_().GetSval() == col.Name
		}
		if tc := u.GetTypeCast(); tc != nil && isColumn(tc.Arg) {
			ct, err := b.typeFromName(tc.TypeName)
			if err != nil {
				return AlterCmd{}, err
			}
			cast = ct.Equal(t) && ct.Mod == t.Mod
		}
		plain = cast || isColumn(u)
	}
	c := *col
	c.Type = t
	narrows := !keepsValues(col.Type, t) && narrowsText(col.Type, t)
	if plain && (keepsValues(col.Type, t) || narrows && !cast) {
		return AlterCmd{Kind: SetType, Name: cmd.Name, Column: c, Narrows: narrows}, nil
	}
	var using string
	if u != nil {
		if using, err = DeparseExpr(u); err != nil {
			return AlterCmd{}, err
		}
	}
	if col.Generated != "" && u != nil {
		// A generated column's values are cast as they are stored, as
		// PostgreSQL's rewrite casts them (it does not compute them
		// anew).
		return AlterCmd{}, pgerr.New(pgerrcode.InvalidColumnDefinition, "cannot specify USING when altering type of generated column").
			WithDetail("Column \"%s\" is a generated column.", col.Name)
	}
	if col.Identity != "" && t.Family != types.Int2 && t.Family != types.Int4 && t.Family != types.Int8 {
		return AlterCmd{}, pgerr.New(pgerrcode.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	if _, err := b.rewriteExpr(def, pos, t, u); err != nil {
		return AlterCmd{}, err
	}
	if err := b.foreignKeysAfterRetype(def, pos, t); err != nil {
		return AlterCmd{}, err
	}
	return AlterCmd{Kind: SetType, Name: cmd.Name, Column: c, Rewrite: true, Using: using}, nil
}

// foreignKeysAfterRetype checks that the foreign keys over the column at
// position pos of def, its own and other tables' that reference it, can
// still compare their columns once it is of type t (42804, as PostgreSQL
// rebuilding them says).
func (b *Binder) foreignKeysAfterRetype(def *catalog.TableDef, pos int, t types.T) error {
	retyped := def.Clone()
	retyped.Columns[pos].Type = t
	id := def.Columns[pos].ID
	names := func(tbl *catalog.TableDef, ids []int) []string {
		var out []string
		for _, id := range ids {
			if _, c := tbl.ColumnByID(id); c != nil {
				out = append(out, c.Name)
			}
		}
		return out
	}
	for _, fk := range def.ForeignKeys {
		ref := b.Catalog.TableByID(fk.RefTable)
		if fk.RefTable == def.ID {
			ref = retyped
		}
		if ref == nil || !slices.Contains(fk.Columns, id) && !(fk.RefTable == def.ID && slices.Contains(fk.RefColumns, id)) {
			continue
		}
		if err := fkTypesComparable(retyped, ref, fk.Columns, fk.RefColumns, fk.Name, names(def, fk.Columns)); err != nil {
			return err
		}
	}
	for _, cid := range slices.Sorted(maps.Keys(b.Catalog.Tables)) {
		child := b.Catalog.Tables[cid]
		if child.ID == def.ID {
			continue
		}
		for _, fk := range child.ForeignKeys {
			if fk.RefTable == def.ID && slices.Contains(fk.RefColumns, id) {
				if err := fkTypesComparable(child, retyped, fk.Columns, fk.RefColumns, fk.Name, names(child, fk.Columns)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// narrowsText reports whether from is text or varchar and to a varchar
// of a length from may exceed: the values are stored alike, and keep
// only if each fits (ApplyTypmod's check, which applying the change
// makes over the rows).
func narrowsText(from, to types.T) bool {
	return (from.Family == types.Text || from.Family == types.Varchar) && !from.IsArray() && from.Domain == "" &&
		to.Family == types.Varchar && !to.IsArray() && to.Domain == "" && to.Mod >= 0
}

// keepsValues reports whether every value of type from is a value of type
// to, stored alike, so that a column can change from one to the other
// without rewriting or checking its rows.
func keepsValues(from, to types.T) bool {
	if from.Equal(to) && from.Mod == to.Mod && from.Domain == to.Domain && (!from.IsArray() || from.Elem.Mod == to.Elem.Mod) {
		return true // the same type (Equal leaves out modifiers)
	}
	if from.IsArray() || to.IsArray() || from.Domain != "" || to.Domain != "" || from.Enum != nil || to.Enum != nil {
		return false
	}
	switch {
	case from.Family == types.Varchar && to.Family == types.Varchar:
		return to.Mod < 0 || from.Mod >= 0 && to.Mod >= from.Mod
	case from.Family == types.Varchar && to.Family == types.Text:
		return true
	case from.Family == types.Numeric && to.Family == types.Numeric:
		// numeric(p, s) to numeric, or to numeric(p2 >= p, s).
		return to.Mod < 0 || from.Mod >= 0 && to.Mod&0xffff == from.Mod&0xffff && to.Mod>>16 >= from.Mod>>16
	case from.Family == to.Family && (from.Family == types.TimestampFamily || from.Family == types.TimestampTZ || from.Family == types.Time):
		// Fewer fractional digits would round the values stored.
		return to.Mod < 0 || from.Mod >= 0 && to.Mod >= from.Mod
	}
	return false
}

func (b *Binder) bindRename(s *pg_query.RenameStmt) (Statement, error) {
	switch s.RenameType {
	case pg_query.ObjectType_OBJECT_POLICY:
		return b.bindRenamePolicy(s)
	case pg_query.ObjectType_OBJECT_TYPE:
		return b.bindRenameType(s)
	case pg_query.ObjectType_OBJECT_DOMAIN, pg_query.ObjectType_OBJECT_DOMCONSTRAINT:
		return b.bindRenameDomain(s)
	case pg_query.ObjectType_OBJECT_INDEX:
		return b.bindRenameIndex(s)
	case pg_query.ObjectType_OBJECT_VIEW:
		return b.bindRenameView(s, b.lookupView(s.Relation.Schemaname, s.Relation.Relname))
	case pg_query.ObjectType_OBJECT_COLUMN:
		// ALTER VIEW renames a table's column too, as PostgreSQL's does.
		if v := b.lookupView(s.Relation.Schemaname, s.Relation.Relname); v != nil ||
			s.RelationType == pg_query.ObjectType_OBJECT_VIEW && !b.tableNamed(s.Relation.Schemaname, s.Relation.Relname) {
			return b.bindRenameView(s, v)
		}
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_TABCONSTRAINT, pg_query.ObjectType_OBJECT_TRIGGER:
	default:
		return nil, pgerr.NotSupported("ALTER %s ... RENAME", strings.ReplaceAll(strings.TrimPrefix(s.RenameType.String(), "OBJECT_"), "_", " "))
	}
	def, err := b.rangeVarTable(s.Relation)
	if def != nil {
		b.needOwner(def)
	}
	if v := b.lookupView(s.Relation.Schemaname, s.Relation.Relname); v != nil && s.RenameType == pg_query.ObjectType_OBJECT_TRIGGER {
		b.accesses = append(b.accesses, Access{View: v, Owner: true})
		return &RenameViewTrigger{View: v, Name: s.Subname, NewName: s.Newname}, nil
	} else if v != nil && s.RenameType == pg_query.ObjectType_OBJECT_TABLE {
		return b.bindRenameView(s, v)
	}
	if err != nil {
		if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
			return &AlterTable{Missing: s.Relation.Relname}, nil
		}
		return nil, err
	}
	switch s.RenameType {
	case pg_query.ObjectType_OBJECT_TABLE:
		return &AlterTable{Table: def, Cmds: []AlterCmd{{Kind: RenameTable, NewName: s.Newname}}}, nil
	case pg_query.ObjectType_OBJECT_TABCONSTRAINT:
		return &AlterTable{Table: def, Cmds: []AlterCmd{{Kind: RenameConstraint, Name: s.Subname, NewName: s.Newname}}}, nil
	case pg_query.ObjectType_OBJECT_TRIGGER:
		return &AlterTable{Table: def, Cmds: []AlterCmd{{Kind: RenameTrigger, Name: s.Subname, NewName: s.Newname}}}, nil
	}
	if err := systemColumnConflict(s.Newname); err != nil {
		return nil, err
	}
	return &AlterTable{Table: def, Cmds: []AlterCmd{{Kind: RenameColumn, Name: s.Subname, NewName: s.Newname}}}, nil
}

// SetTableSchema is ALTER TABLE name SET SCHEMA new_schema of a table:
// it moves with its indexes, constraints, triggers, policies, row type and
// the sequences of its serial and identity columns, and the views that
// read it follow.
type SetTableSchema struct {
	Table  *catalog.TableDef
	Schema string
}

// SetSequenceSchema is ALTER SEQUENCE name SET SCHEMA new_schema of a
// sequence no table owns. Missing names the sequence IF EXISTS did not
// find (Seq nil).
type SetSequenceSchema struct {
	Seq     *catalog.SequenceDef
	Schema  string
	Missing string
}

// bindSetSchema binds ALTER TABLE, ALTER VIEW and ALTER SEQUENCE [IF
// EXISTS] name SET SCHEMA new_schema (ALTER TABLE's of a view too); other
// objects' SET SCHEMA is 0A000.
func (b *Binder) bindSetSchema(s *pg_query.AlterObjectSchemaStmt) (Statement, error) {
	switch s.ObjectType {
	case pg_query.ObjectType_OBJECT_VIEW:
		return b.bindViewSetSchema(s, b.lookupView(s.Relation.Schemaname, s.Relation.Relname))
	case pg_query.ObjectType_OBJECT_TABLE:
		if v := b.lookupView(s.Relation.Schemaname, s.Relation.Relname); v != nil {
			return b.bindViewSetSchema(s, v)
		}
		def, err := b.rangeVarTable(s.Relation)
		if err != nil {
			if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
				return &AlterTable{Missing: s.Relation.Relname}, nil
			}
			if pgerr.Code(err) == pgerrcode.UndefinedTable && (s.Relation.Schemaname == "" || s.Relation.Schemaname == "pg_catalog") &&
				syscat.Lookup("pg_catalog", s.Relation.Relname) != nil {
				return nil, pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied: \"%s\" is a system catalog", s.Relation.Relname)
			}
			return nil, err
		}
		schema, err := b.newSchema(s.Newschema, def.Schema, def.Name)
		if err != nil {
			return nil, err
		}
		b.needOwner(def)
		b.accesses = append(b.accesses, Access{Schema: schema, Privs: catalog.PrivCreate})
		return &SetTableSchema{Table: def, Schema: schema}, nil
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		seq, err := b.lookupSequence(s.Relation)
		if err != nil {
			if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
				return &SetSequenceSchema{Missing: s.Relation.Relname}, nil
			}
			return nil, err
		}
		if seq.OwnedBy != nil {
			if t := b.Catalog.TableByID(seq.OwnedBy.Table); t != nil {
				return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot move an owned sequence into another schema").
					WithDetail("Sequence \"%s\" is linked to table \"%s\".", seq.Name, t.Name)
			}
		}
		schema, err := b.newSchema(s.Newschema, seq.Schema, seq.Name)
		if err != nil {
			return nil, err
		}
		b.accesses = append(b.accesses, Access{Sequence: seq, Owner: true}, Access{Schema: schema, Privs: catalog.PrivCreate})
		return &SetSequenceSchema{Seq: seq, Schema: schema}, nil
	}
	return nil, pgerr.NotSupported("ALTER %s ... SET SCHEMA", strings.ReplaceAll(strings.TrimPrefix(s.ObjectType.String(), "OBJECT_"), "_", " "))
}

// newSchema checks SET SCHEMA's schema for relation name, now in schema
// from, as PostgreSQL's CheckSetNamespace does: no moves into or out of
// a temporary schema or the TOAST one; pg_catalog and information_schema
// take no relations in cairn (CreationSchema); 3F000 for a missing one.
func (b *Binder) newSchema(schema, from, name string) (string, error) {
	if schema == "pg_temp" && b.TempSchema != "" {
		schema = b.TempSchema
	}
	switch {
	case catalog.IsTempSchema(from) || catalog.IsTempSchema(schema) || schema == "pg_temp":
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	case schema == "pg_toast":
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot move objects into or out of TOAST schema")
	case schema == "pg_catalog" || schema == "information_schema":
		return b.CreationSchema(schema, name)
	}
	if _, ok := b.Catalog.Schemas[schema]; !ok {
		return "", pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	return schema, nil
}

// bindRenameIndex binds ALTER INDEX [IF EXISTS] name RENAME TO new_name:
// the index found in the schema named or the first of the search path
// holding one of the name, which its table's owner may rename.
func (b *Binder) bindRenameIndex(s *pg_query.RenameStmt) (Statement, error) {
	name := s.Relation.Relname
	path := b.SearchPath
	if s.Relation.Schemaname != "" {
		path = []string{s.Relation.Schemaname}
	}
	for _, schema := range path {
		if ix := b.Catalog.Indexes[catalog.Key(schema, name)]; ix != nil {
			if t := b.Catalog.Tables[ix.Table]; t != nil {
				b.accesses = append(b.accesses, Access{Table: t, Index: name, Owner: true})
			}
			return &RenameIndex{Schema: schema, Name: name, NewName: s.Newname}, nil
		}
		for _, t := range b.Catalog.Tables {
			if t.Schema == schema && slices.ContainsFunc(t.Uniques, func(u catalog.UniqueDef) bool { return u.Name == name }) {
				b.needOwner(t)
				return &AlterTable{Table: t, Cmds: []AlterCmd{{Kind: RenameConstraint, Name: name, NewName: s.Newname}}, Index: true}, nil
			}
		}
	}
	if s.MissingOk {
		return &AlterTable{Missing: name, Index: true}, nil
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", name)
}

// systemColumnConflict refuses a table column named as a system column
// (IsSystemColumn), as PostgreSQL does.
func systemColumnConflict(name string) error {
	if IsSystemColumn(name) {
		return pgerr.New(pgerrcode.DuplicateColumn, "column name \"%s\" conflicts with a system column name", name)
	}
	return nil
}

// bindAlterRelationOwner binds ALTER TABLE, SEQUENCE or VIEW ... OWNER
// TO of a sequence or a view; ok is false for any other ALTER.
func (b *Binder) bindAlterRelationOwner(s *pg_query.AlterTableStmt) (Statement, bool, error) {
	if len(s.Cmds) != 1 || s.Cmds[0].GetAlterTableCmd().Subtype != pg_query.AlterTableType_AT_ChangeOwner {
		return nil, false, nil
	}
	owner := roleSpec(s.Cmds[0].GetAlterTableCmd().Newowner)
	tag := "ALTER " + strings.TrimPrefix(s.Objtype.String(), "OBJECT_")
	rv := s.Relation
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_VIEW:
		if v := b.lookupView(rv.Schemaname, rv.Relname); v != nil {
			return &AlterRelationOwner{View: v, Owner: owner, Tag: tag}, true, nil
		}
	}
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_SEQUENCE:
		if seq := b.findSequence(rv.Schemaname, rv.Relname); seq != nil && !b.tableNamed(rv.Schemaname, rv.Relname) {
			if t := b.sequenceTable(seq); t != nil {
				return nil, true, pgerr.New(pgerrcode.FeatureNotSupported, "cannot change owner of sequence \"%s\"", seq.Name).
					WithDetail("Sequence \"%s\" is linked to table \"%s\".", seq.Name, t.Name)
			}
			return &AlterRelationOwner{Sequence: seq, Owner: owner, Tag: tag}, true, nil
		}
		if s.Objtype == pg_query.ObjectType_OBJECT_SEQUENCE {
			return nil, true, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
		}
	case pg_query.ObjectType_OBJECT_VIEW:
		return nil, true, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	}
	return nil, false, nil
}

// sequenceTable is the table a sequence belongs to (OWNED BY, or a serial
// or identity column's default), or nil.
func (b *Binder) sequenceTable(seq *catalog.SequenceDef) *catalog.TableDef {
	if seq.OwnedBy != nil {
		return b.Catalog.TableByID(seq.OwnedBy.Table)
	}
	serial := fmt.Sprintf("nextval('%s.%s'::regclass)", ident.Quote(seq.Schema), ident.Quote(seq.Name))
	for _, id := range slices.Sorted(maps.Keys(b.Catalog.Tables)) {
		t := b.Catalog.Tables[id]
		for _, c := range t.Columns {
			if c.Default == serial {
				return t
			}
		}
	}
	return nil
}

// freeRelationName returns name, or name with the smallest numeric suffix
// that no relation of the schema uses (PostgreSQL's ChooseRelationName):
// an index's name, or a serial or identity column's sequence's.
func (b *Binder) freeRelationName(schema, name string) string {
	candidate := name
	for i := 1; b.Catalog.RelationExists(schema, candidate); i++ {
		candidate = name + itoa(int64(i))
	}
	return candidate
}

func (b *Binder) bindCreateSequence(s *pg_query.CreateSeqStmt) (Statement, error) {
	schema, temp, err := b.relationSchema(s.Sequence)
	if err != nil {
		return nil, err
	}
	seq := &catalog.SequenceDef{Schema: schema, Name: s.Sequence.Relname, Increment: 1}
	if err := b.applySequenceOptions(seq, s.Options, types.Int8T); err != nil {
		return nil, err
	}
	return &CreateSequence{Def: seq, IfNotExists: s.IfNotExists, Temp: temp}, nil
}

// bindAlterSequence binds ALTER SEQUENCE [IF EXISTS] name RESTART [WITH
// n], the form migrations and test fixtures use; other options are 0A000.
func (b *Binder) bindAlterSequence(s *pg_query.AlterSeqStmt) (Statement, error) {
	schema := s.Sequence.Schemaname
	if schema == "" {
		for _, sp := range b.SearchPath {
			if b.Catalog.Sequence(sp, s.Sequence.Relname) != nil {
				schema = sp
				break
			}
		}
	}
	seq := b.Catalog.Sequence(schema, s.Sequence.Relname)
	if seq == nil {
		if s.MissingOk {
			return &AlterSequence{Missing: s.Sequence.Relname}, nil
		}
		return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", s.Sequence.Relname)
	}
	b.accesses = append(b.accesses, Access{Sequence: seq, Owner: true})
	a := &AlterSequence{Seq: seq, Value: seq.Start}
	if len(s.Options) == 1 && s.Options[0].GetDefElem().Defname == "owned_by" {
		return b.bindSequenceOwner(a, s.Options[0].GetDefElem())
	}
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d.Defname != "restart" {
			return nil, pgerr.NotSupported("ALTER SEQUENCE %s (only RESTART and OWNED BY are)", strings.ToUpper(d.Defname))
		}
		if i := d.Arg.GetInteger(); i != nil {
			a.Value = int64(i.Ival)
		} else if f := d.Arg.GetFloat(); f != nil {
			if _, err := fmt.Sscan(f.Fval, &a.Value); err != nil {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "RESTART value %s is out of range", f.Fval)
			}
		}
	}
	if a.Value < seq.Min {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", a.Value, seq.Min)
	}
	if a.Value > seq.Max {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", a.Value, seq.Max)
	}
	return a, nil
}

// bindSequenceOwner binds ALTER SEQUENCE ... OWNED BY table.column or
// OWNED BY NONE, as pg_dump restores a serial column's sequence: the
// table must be the sequence owner's and in the sequence's schema.
func (b *Binder) bindSequenceOwner(a *AlterSequence, d *pg_query.DefElem) (Statement, error) {
	a.SetOwner = true
	names := strList(d.Arg.GetList().GetItems())
	if len(names) == 1 && strings.EqualFold(names[0], "none") {
		return a, nil
	}
	if len(names) < 2 {
		return nil, pgerr.New(pgerrcode.SyntaxError, "invalid OWNED BY option").WithHint("Specify OWNED BY table.column or OWNED BY NONE.")
	}
	col := names[len(names)-1]
	rv := &pg_query.RangeVar{Relname: names[len(names)-2]}
	if len(names) > 2 {
		rv.Schemaname = names[len(names)-3]
	}
	t, err := b.rangeVarTable(rv)
	if err != nil {
		return nil, err
	}
	b.needOwner(t)
	if t.Schema != a.Seq.Schema {
		return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "sequence must be in same schema as table it is linked to")
	}
	pos, c := t.Column(col)
	if c == nil {
		return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, t.Name)
	}
	a.Owner = &catalog.SequenceOwner{Table: t.ID, Column: t.Columns[pos].ID}
	return a, nil
}

// truncateReferences checks that no table outside t's references one of
// its tables by a foreign key: such a table is truncated too with CASCADE
// (add, until none is left), refused without it (0A000, as PostgreSQL).
func (b *Binder) truncateReferences(t *Truncate, cascade bool, add func(*catalog.TableDef)) error {
	in := func(id uint64) bool {
		return slices.ContainsFunc(t.Tables, func(d *catalog.TableDef) bool { return d.ID == id })
	}
	ids := slices.Sorted(maps.Keys(b.Catalog.Tables))
	for changed := true; changed; {
		changed = false
		for _, id := range ids {
			ref := b.Catalog.Tables[id]
			if in(id) {
				continue
			}
			for _, fk := range ref.ForeignKeys {
				if !in(fk.RefTable) {
					continue
				}
				if !cascade {
					target := b.Catalog.Tables[fk.RefTable]
					return pgerr.New(pgerrcode.FeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
						WithDetail("Table \"%s\" references \"%s\".", ref.Name, target.Name).
						WithHint("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", ref.Name)
				}
				add(ref)
				t.Cascaded = append(t.Cascaded, ref.Name)
				changed = true
				break
			}
		}
	}
	return nil
}

// applySequenceOptions sets a sequence's START, INCREMENT, MINVALUE,
// MAXVALUE and CYCLE from CREATE SEQUENCE's (or an identity column's)
// options. As in PostgreSQL, the bounds default to 1 and the maximum of
// the sequence's type (AS, else as) counting up, to the type's minimum and
// -1 counting down, and the start to the bound it counts away from.
func (b *Binder) applySequenceOptions(seq *catalog.SequenceDef, opts []*pg_query.Node, as types.T) error {
	startSet, minSet, maxSet := false, false, false
	for _, o := range opts {
		d := o.GetDefElem()
		v := int64(0)
		if d.Arg != nil {
			switch a := d.Arg.Node.(type) {
			case *pg_query.Node_Integer:
				v = int64(a.Integer.Ival)
			case *pg_query.Node_Float:
				fmt.Sscan(a.Float.Fval, &v)
			}
		}
		switch d.Defname {
		case "start":
			seq.Start, startSet = v, true
		case "increment":
			seq.Increment = v
		case "minvalue":
			seq.Min, minSet = v, d.Arg != nil
		case "maxvalue":
			seq.Max, maxSet = v, d.Arg != nil
		case "cycle":
			seq.Cycle = d.Arg == nil || defBool(d.Arg)
		case "as":
			t, err := b.typeFromName(d.Arg.GetTypeName())
			if err != nil {
				return err
			}
			if t.Family != types.Int2 && t.Family != types.Int4 && t.Family != types.Int8 {
				return pgerr.New(pgerrcode.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			as = t
		case "cache", "owned_by", "sequence_name":
		default:
			return pgerr.NotSupported("sequence option %s", d.Defname)
		}
	}
	if seq.Increment == 0 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "INCREMENT must not be zero")
	}
	typeMax := maxForType(as)
	seq.Type = sequenceType(as)
	switch {
	case !maxSet && seq.Increment > 0:
		seq.Max = typeMax
	case !maxSet:
		seq.Max = -1
	}
	switch {
	case !minSet && seq.Increment > 0:
		seq.Min = 1
	case !minSet:
		seq.Min = -typeMax - 1
	}
	typeName := as.String()
	if seq.Max > typeMax || seq.Max < -typeMax-1 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", seq.Max, typeName)
	}
	if seq.Min > typeMax || seq.Min < -typeMax-1 {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", seq.Min, typeName)
	}
	if seq.Min >= seq.Max {
		return pgerr.New(pgerrcode.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", seq.Min, seq.Max)
	}
	if !startSet {
		seq.Start = seq.Min
		if seq.Increment < 0 {
			seq.Start = seq.Max
		}
	}
	if seq.Start < seq.Min {
		return pgerr.New(pgerrcode.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", seq.Start, seq.Min)
	}
	if seq.Start > seq.Max {
		return pgerr.New(pgerrcode.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", seq.Start, seq.Max)
	}
	return nil
}

// bindCreateTableAs binds CREATE TABLE name [(columns)] AS query [WITH
// [NO] DATA]: the query is bound to learn its columns' names and types.
func (b *Binder) bindCreateTableAs(s *pg_query.CreateTableAsStmt) (Statement, error) {
	if s.Objtype != pg_query.ObjectType_OBJECT_TABLE {
		return nil, pgerr.NotSupported("materialized views")
	}
	into := s.Into
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.NotSupported("CREATE TABLE AS of a statement other than SELECT")
	}
	plan, err := b.bindSelect(sel, nil)
	if err != nil {
		return nil, err
	}
	schema, temp, oc, err := b.newTableSchema(into.Rel, into.OnCommit)
	if err != nil {
		return nil, err
	}
	names := strList(into.ColNames)
	visible := 0
	for _, c := range plan.Columns() {
		if !c.Hidden {
			visible++
		}
	}
	if len(names) > visible {
		return nil, pgerr.New(pgerrcode.SyntaxError, "too many column names were specified")
	}
	def := &catalog.TableDef{Schema: schema, Name: into.Rel.Relname}
	// The query's rows go into the table through a projection of its
	// visible columns, each cast to the column it fills.
	proj := &Project{Input: plan}
	for i, c := range plan.Columns() {
		if c.Hidden {
			continue
		}
		name, t := c.Name, c.T
		if n := len(def.Columns); n < len(names) {
			name = names[n]
		}
		if t.Family == types.Unknown || t.Family == types.Null {
			t = types.TextT
		}
		for _, d := range def.Columns {
			if d.Name == name {
				return nil, pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", name)
			}
		}
		if err := systemColumnConflict(name); err != nil {
			return nil, err
		}
		def.Columns = append(def.Columns, catalog.ColumnDef{Name: name, Type: t})
		e, err := b.coerceColumn(&ColumnRef{Index: i, Name: c.Name, T: c.T}, name, t)
		if err != nil {
			return nil, err
		}
		proj.Exprs = append(proj.Exprs, e)
		proj.Out = append(proj.Out, Col{Name: name, T: t})
	}
	return &CreateTableAs{Create: &CreateTable{Def: def, IfNotExists: s.IfNotExists, Temp: temp, OnCommit: oc},
		Query: PruneColumns(proj), WithNoData: into.SkipData}, nil
}

// bindComment binds COMMENT ON TABLE t / VIEW v / COLUMN r.c / SCHEMA s
// / FUNCTION f(types) IS 'text' | NULL, which the owner may set (pg_dump
// writes them; dbt's persist_docs comments views and their columns), and
// COMMENT ON the objects commentTarget binds.
func (b *Binder) bindComment(s *pg_query.CommentStmt) (Statement, error) {
	switch s.Objtype {
	case pg_query.ObjectType_OBJECT_SCHEMA:
		name := s.Object.GetString_().GetSval()
		if b.Catalog.Schemas[name] == nil {
			return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		b.accesses = append(b.accesses, Access{Schema: name, Owner: true})
		return &CommentOn{Schema: name, Text: s.Comment}, nil
	case pg_query.ObjectType_OBJECT_FUNCTION:
		ow := s.Object.GetObjectWithArgs()
		f, err := b.existingFunction(ow)
		if err != nil {
			return nil, err
		}
		return &CommentOn{Function: f.Key(), Written: strings.Join(strList(ow.Objname), "."), Text: s.Comment}, nil
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_VIEW, pg_query.ObjectType_OBJECT_COLUMN:
	default:
		t, err := b.commentTarget(s)
		if err != nil {
			return nil, err
		}
		return &CommentOn{Target: t, Text: s.Comment}, nil
	}
	names := strList(s.Object.GetList().GetItems())
	var column string
	if s.Objtype == pg_query.ObjectType_OBJECT_COLUMN {
		if len(names) < 2 {
			return nil, pgerr.New(pgerrcode.SyntaxError, "column name must be qualified")
		}
		column, names = names[len(names)-1], names[:len(names)-1]
	}
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	noColumn := pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, strings.Join(names, "."))
	notA := func(kind string) error {
		return pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a %s", name, kind)
	}
	if v := b.lookupView(schema, name); v != nil {
		if s.Objtype == pg_query.ObjectType_OBJECT_TABLE {
			return nil, notA("table")
		}
		b.accesses = append(b.accesses, Access{View: v, Owner: true})
		if column != "" && !slices.ContainsFunc(v.Columns, func(c catalog.ColumnDef) bool { return c.Name == column }) {
			return nil, noColumn
		}
		return &CommentOn{View: v, Column: column, Text: s.Comment}, nil
	}
	def, err := b.lookupTable(schema, name)
	if err != nil {
		return nil, err
	}
	if s.Objtype == pg_query.ObjectType_OBJECT_VIEW {
		return nil, notA("view")
	}
	b.needOwner(def)
	if _, c := def.Column(column); column != "" && c == nil {
		return nil, noColumn
	}
	return &CommentOn{Table: def, Column: column, Text: s.Comment}, nil
}

// bindExecute binds EXECUTE's arguments as constant expressions, each as
// CAST(arg AS type) of its parameter when the prepared statement is known.
func (b *Binder) bindExecute(s *pg_query.ExecuteStmt) (Statement, error) {
	var ptypes []types.T
	if b.Prepared != nil {
		if t, ok := b.Prepared(s.Name); ok && len(t) == len(s.Params) {
			ptypes = t
		}
	}
	x := &Execute{Name: s.Name, Args: make([]Expr, len(s.Params))}
	for i, a := range s.Params {
		e, err := b.bindExpr(&scope{}, a)
		if err != nil {
			return nil, err
		}
		if ptypes != nil {
			if e, err = b.coerce(e, ptypes[i], castExplicit); err != nil {
				return nil, err
			}
		}
		x.Args[i] = e
	}
	return x, nil
}

// accessShareLock is LockStmt.Mode for ACCESS SHARE (PostgreSQL's
// AccessShareLock).
const accessShareLock = 1

// bindLockTable binds LOCK TABLE: each relation must exist, and the
// session needs SELECT on it, as PostgreSQL checks ACCESS SHARE.
func (b *Binder) bindLockTable(s *pg_query.LockStmt) (Statement, error) {
	if s.Mode != accessShareLock {
		return nil, pgerr.NotSupported("LOCK TABLE in a mode other than ACCESS SHARE").
			WithDetail("cairn has no table locks: a transaction's snapshot keeps the tables it reads as they were, but nothing keeps other sessions from writing them.")
	}
	for _, n := range s.Relations {
		rv := n.GetRangeVar()
		if v := b.lookupView(rv.Schemaname, rv.Relname); v != nil {
			if _, _, err := b.bindView(v, rv.Relname, nil); err != nil {
				return nil, err
			}
			continue
		}
		def, err := b.rangeVarTable(rv)
		if err != nil {
			return nil, pgerr.From(err).WithPosition(rv.Location + 1)
		}
		b.need(def, catalog.PrivSelect)
	}
	return &LockTable{}, nil
}

// indexOfConstraint reports whether name, in schema, is the index of a
// table's primary key or unique constraint, which the catalog keeps with
// the table rather than among its indexes.
func (b *Binder) indexOfConstraint(schema, name string) bool {
	for _, t := range b.Catalog.Tables {
		if t.Schema != schema {
			continue
		}
		if len(t.PrimaryKey) > 0 && t.PrimaryKeyConstraint() == name {
			return true
		}
		for _, u := range t.Uniques {
			if u.Name == name {
				return true
			}
		}
	}
	return false
}
