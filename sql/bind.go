package sql

import (
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// Binder resolves parse trees against a catalog snapshot. A Binder binds
// one statement; Params is both input (types the client declared, Unknown
// where it did not) and output (types inferred from context).
type Binder struct {
	Catalog    *catalog.Catalog
	SearchPath []string
	// PLBodies, when set, keeps the PL/pgSQL bodies calls compile (see
	// PLBodies); nil compiles each call's body anew.
	PLBodies *PLBodies
	// Location is the session's TimeZone (nil: UTC). A constant cast at
	// bind time that depends on it (a literal read as timestamptz, a
	// timestamptz constant written as text or date) is computed in it, as
	// PostgreSQL reads a literal when it parses the statement.
	Location *time.Location
	// Now is the transaction's current time, which the literals 'now',
	// 'today', 'tomorrow' and 'yesterday' read when they are cast at bind
	// time (zero: they are 0A000).
	Now time.Time
	// DateStyle and Floats are the session's DateStyle and
	// extra_float_digits, which the same constants follow: an ambiguous
	// date literal is read in DateStyle's field order, a constant date
	// or float cast to text is written in them.
	DateStyle types.DateStyle
	Floats    types.FloatStyle
	// ByteaEscape and IntervalStyle are the session's bytea_output =
	// escape and IntervalStyle, which a constant bytea or interval cast
	// to text is written in.
	ByteaEscape   bool
	IntervalStyle types.IntervalStyle
	Params        []types.T
	// paramsUsed marks the parameters the statement refers to.
	paramsUsed []bool
	// NoParams makes $n an error (a simple-protocol query has no
	// parameters).
	NoParams bool
	// Prepared gives the parameter types of the session's prepared
	// statement name, for EXECUTE's arguments (nil: none known).
	Prepared func(name string) ([]types.T, bool)
	// Role is the OID of the role the statement runs as, whose row-level
	// security policies filter the tables it reads (policy.go); 0, no
	// role, is bound by them all. RowSecurityOff is row_security = off:
	// a statement they would filter fails instead.
	Role           uint32
	RowSecurityOff bool
	// NoIndexScans and NoBitmapScans are the session's enable_indexscan
	// and enable_bitmapscan turned off: the statement is planned without
	// the searches of vector indexes (VectorTopK, HybridCandidates, index
	// scans in PostgreSQL's terms) or without trigram-index filters
	// (TrigramScan, bitmap scans there). `SET enable_indexscan = off` is
	// how pgvector's users ask for exact nearest neighbours.
	NoIndexScans, NoBitmapScans bool
	// NoBodyChecks is check_function_bodies off (pg_dump's restores set
	// it): CREATE FUNCTION does not bind the body, whose names may be of
	// objects created later.
	NoBodyChecks bool
	// TempSchema is the session's schema of temporary relations
	// (pg_temp_<pid>), whether or not it exists yet; "" where the session
	// can have none (temp.go). Once it exists the session puts it on
	// SearchPath where the search_path setting names pg_temp, else first,
	// as PostgreSQL searches it.
	TempSchema string
	// CreateInTemp is set when the search path names pg_temp before any
	// schema that exists: an unqualified CREATE makes a temporary
	// relation there, as in PostgreSQL.
	CreateInTemp bool
	// clause names the clause being bound where aggregates are not
	// allowed ("WHERE", "JOIN conditions", ...).
	clause string
	// srfs counts the set-returning function calls bound at the current
	// query level (a subquery's are its own), so that CASE and COALESCE
	// can refuse one among their arguments, as PostgreSQL does.
	srfs int

	ctes []map[string]*cteDef
	// topWith is the statement's top-level WITH clause while it is bound,
	// when it has data-modifying queries (the only place they may be);
	// modifying are those bound so far (modifying_with.go).
	topWith   *pg_query.WithClause
	modifying []modifyingAccess
	// procedural is set once a call of a PL/pgSQL function is bound
	// (Query.Procedural).
	procedural bool
	aggs       []*aggCollector
	// corrs maps the scope a subquery expression is bound in to the
	// correlation of that subquery, while its plan is bound.
	corrs map[*scope]*correlation
	// outerRefs counts the outer references bound so far (OuterRef
	// chains outerColumn built): a WITH query whose binding adds some
	// reads an enclosing query's values (cteDef.correlated).
	outerRefs int
	// view is the system catalog view of Catalog (catalogView).
	view *syscat.View
	// windows is the WINDOW clause of the query level being bound.
	windows []*pg_query.Node
	// accesses are the privileges the statement needs (Accesses).
	accesses []Access
	// colUses are the columns of each table (by OID, then attnum) the
	// statement references, for column privileges (useCol).
	colUses map[uint32]map[int16]bool
	// expanding lists the views (schema.name) whose queries are being
	// bound, outermost first, to catch a view that reads itself.
	expanding []string
	// storedExpr names the kind of expression a table or domain keeps
	// that is being bound ("check constraint", "DEFAULT expression"),
	// through any clause nested in it: PostgreSQL evaluates those without
	// a query around them and refuses subqueries in them.
	storedExpr string
	// trace, when set, notes what the statement's names resolve to
	// (FollowRename).
	trace *bindTrace
	// policyTables lists the tables whose policy expressions are being
	// bound, to catch a policy whose subqueries read its own table.
	policyTables []uint64
	// consts are the statement's constants in place of its template's
	// (constant).
	consts map[*pg_query.A_Const]*pg_query.A_Const
	// inlineDepth is how deeply SQL function calls being inlined nest
	// (function.go).
	inlineDepth int
	// exprDepth is how deeply the expressions being bound nest, SQL
	// function bodies inlined into them included (maxExprDepth).
	exprDepth int
	// expansions counts the views and SQL function calls expanded into
	// the statement so far, shared with the binders of the views'
	// queries (expand).
	expansions *int
	// insertSelect is the SELECT that INSERT ... SELECT reads, while it is
	// bound, and insertTypes the types of the columns it fills: an
	// untyped literal in its select list takes its column's type instead
	// of text (bindTargets), as PostgreSQL leaves those unresolved for
	// INSERT to coerce.
	insertSelect *pg_query.SelectStmt
	insertTypes  []types.T
	// setOpLeaves are the simple SELECTs under a UNION, INTERSECT or
	// EXCEPT being bound: their select lists' untyped literals and
	// parameters stay unresolved until the set operation gives them the
	// other inputs' type (SELECT $1 UNION SELECT 1 has an int4
	// parameter), as in PostgreSQL.
	setOpLeaves map[*pg_query.SelectStmt]bool
}

type cteDef struct {
	plan Node
	cols []string
	// correlated marks a WITH query that reads an enclosing query's
	// values: its plan's outer references are relative to the query
	// level it was bound for (outer), so a reference from a deeper level
	// (a subquery of the WITH's query) binds sel again there, seeing the
	// WITH queries it saw at its definition (withs: not itself nor the
	// later ones of its WITH clause).
	correlated bool
	sel        *pg_query.SelectStmt
	outer      *scope
	withs      []map[string]*cteDef
	// modifying is the data-modifying query the CTE is (plan is its
	// CTEScan), or nil.
	modifying *ModifyingCTE
	// shared is the query computed once for all its readers, or nil
	// (materializeCTE).
	shared *SharedCTE
}

// Query is a bound statement that runs as a plan (SELECT, INSERT, UPDATE,
// DELETE, MERGE, EXPLAIN).
type Query struct {
	Plan Node
	// Procedural marks a plan that calls PL/pgSQL functions of CREATE
	// FUNCTION, whose statements may write: the session runs it to
	// completion in a transaction that commits, as a data-modifying one.
	Procedural bool
}

// Statement is a bound statement: a *Query (a plan), a *Copy, or one of
// the utility statements of utility.go. The interface is sealed; a type
// switch over the kinds is how the session runs one. A Statement belongs to
// the portal it was bound for and is immutable.
type Statement interface {
	statement()
}

// Bind binds one parsed statement against the binder's catalog.
func (b *Binder) Bind(p *Parsed) (Statement, error) {
	b.expansions = new(int)
	if p.consts == nil {
		return b.bindStatement(p.node)
	}
	fresh := *b
	b.consts = p.consts
	st, err := b.bindStatement(p.node)
	if err == nil {
		return st, nil
	}
	// The error's position was taken from the template's tree, whose
	// text may place things elsewhere: bind the query parsed afresh.
	*b = fresh
	b.expansions = new(int)
	tree, perr := parse(p.query)
	if perr != nil || len(tree.Stmts) != 1 {
		return nil, err
	}
	return b.bindStatement(tree.Stmts[0].Stmt)
}

// constant is c as this query spells it: the query's own constant where
// the statement's tree is a template's (Parsed.consts).
func (b *Binder) constant(c *pg_query.A_Const) *pg_query.A_Const {
	if own := b.consts[c]; own != nil {
		return own
	}
	return c
}

// topWith is w when it holds data-modifying queries, else nil.
func topWith(w *pg_query.WithClause) *pg_query.WithClause {
	if hasModifying(w) {
		return w
	}
	return nil
}

// query is the Query of a SELECT, INSERT, UPDATE, DELETE or MERGE plan, run after
// the data-modifying queries of its WITH clause, if any.
func (b *Binder) query(plan Node) (Statement, error) {
	b.topWith = nil
	plan, err := b.withModifying(plan)
	b.modifying = nil
	if err != nil {
		return nil, err
	}
	return &Query{Plan: plan, Procedural: b.procedural}, nil
}

// bindStatement binds a statement's parse tree.
func (b *Binder) bindStatement(n *pg_query.Node) (Statement, error) {
	defer func() { b.topWith, b.modifying = nil, nil }()
	switch s := n.Node.(type) {
	case *pg_query.Node_SelectStmt:
		if into := s.SelectStmt.IntoClause; into != nil {
			// SELECT ... INTO t is CREATE TABLE t AS SELECT ...
			sel := proto.Clone(s.SelectStmt).(*pg_query.SelectStmt)
			sel.IntoClause = nil
			return b.bindCreateTableAs(&pg_query.CreateTableAsStmt{Query: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, Into: into, Objtype: pg_query.ObjectType_OBJECT_TABLE})
		}
		b.topWith = topWith(s.SelectStmt.WithClause)
		plan, err := b.bindSelect(s.SelectStmt, nil)
		if err != nil {
			return nil, err
		}
		return b.query(PruneColumns(regAsText(plan)))
	case *pg_query.Node_InsertStmt:
		b.topWith = topWith(s.InsertStmt.WithClause)
		plan, err := b.bindInsert(s.InsertStmt)
		if err != nil {
			return nil, err
		}
		return b.query(PruneColumns(plan))
	case *pg_query.Node_UpdateStmt:
		b.topWith = topWith(s.UpdateStmt.WithClause)
		plan, err := b.bindUpdate(s.UpdateStmt)
		if err != nil {
			return nil, err
		}
		return b.query(plan)
	case *pg_query.Node_DeleteStmt:
		b.topWith = topWith(s.DeleteStmt.WithClause)
		plan, err := b.bindDelete(s.DeleteStmt)
		if err != nil {
			return nil, err
		}
		return b.query(plan)
	case *pg_query.Node_MergeStmt:
		b.topWith = topWith(s.MergeStmt.WithClause)
		plan, err := b.bindMerge(s.MergeStmt)
		if err != nil {
			return nil, err
		}
		return b.query(plan)
	case *pg_query.Node_ExplainStmt:
		return b.bindExplain(s.ExplainStmt)
	case *pg_query.Node_CopyStmt:
		return b.bindCopy(s.CopyStmt)
	}
	return b.bindUtility(n)
}

func (b *Binder) bindExplain(s *pg_query.ExplainStmt) (Statement, error) {
	analyze := false
	format := ExplainText
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "analyze":
			analyze = d.Arg == nil || defBool(d.Arg)
		case "verbose", "costs", "buffers", "timing", "summary", "settings", "wal":
		case "format":
			v := defString(d.Arg)
			f, ok := parseExplainFormat(v)
			if !ok {
				return nil, pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized value for EXPLAIN option \"format\": \"%s\"", v)
			}
			format = f
		default:
			return nil, pgerr.New(pgerrcode.SyntaxError, "unrecognized EXPLAIN option \"%s\"", d.Defname)
		}
	}
	inner, err := b.bindStatement(s.Query)
	if err != nil {
		return nil, err
	}
	if x, ok := inner.(*Execute); ok {
		x.Explain, x.Analyze, x.ExplainFormat = true, analyze, format
		return x, nil
	}
	q, ok := inner.(*Query)
	if !ok {
		return nil, pgerr.NotSupported("EXPLAIN of a utility statement")
	}
	return &Query{Plan: &Explain{Input: q.Plan, Analyze: analyze, Format: format}, Procedural: q.Procedural}, nil
}

// FinishParams gives every parameter the statement refers to whose type
// nothing determined the type text, as PostgreSQL does for an
// unknown-typed parameter. A parameter left untyped that the statement
// never refers to ($2 of "SELECT $1::int, $3::int", or one more type
// than the statement has parameters given as 0) is 42P18, as in
// PostgreSQL's Parse: nothing could give it a type.
func (b *Binder) FinishParams() error {
	for i, t := range b.Params {
		if t.Family != types.Unknown && t.Family != types.Null {
			continue
		}
		if i >= len(b.paramsUsed) || !b.paramsUsed[i] {
			return pgerr.New(pgerrcode.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
		}
		b.Params[i] = types.TextT
	}
	return nil
}

// lookupTable finds a table by (optional) schema and name, following the
// search path for unqualified names.
func (b *Binder) lookupTable(schema, name string) (*catalog.TableDef, error) {
	schema, err := b.schemaName(schema)
	if err != nil {
		return nil, err
	}
	if schema != "" {
		// pg_catalog and information_schema exist without being user
		// schemas: a relation missing there is 42P01 (as for a client
		// reading a statistics view cairn lacks), not 3F000.
		if _, ok := b.Catalog.Schemas[schema]; !ok && schema != "pg_catalog" && schema != "information_schema" {
			return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
		if t := b.Catalog.Table(schema, name); t != nil {
			return t, nil
		}
		if b.Catalog.View(schema, name) != nil {
			return nil, viewNotTable(name)
		}
		return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name)
	}
	for _, s := range b.SearchPath {
		if t := b.Catalog.Table(s, name); t != nil {
			return t, nil
		}
		if b.Catalog.View(s, name) != nil {
			return nil, viewNotTable(name)
		}
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", name)
}

// viewNotTable is the error for a view named where only a table will do
// (ALTER TABLE, DROP TABLE, TRUNCATE, ...).
func viewNotTable(name string) error {
	return pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is a view", name).
		WithHint("Use DROP VIEW to remove a view.")
}

// CreationSchema is the schema a CREATE of the relation name puts it in:
// the schema it names, else the first existing schema of the search path.
// The built-in schemas take no new relations: pg_catalog's are system
// catalogs (42501, as PostgreSQL refuses them), and information_schema's
// views are computed by cairn, not stored in a schema of the catalog.
func (b *Binder) CreationSchema(schema, name string) (string, error) {
	if catalog.IsTempSchema(schema) && schema != b.TempSchema {
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "cannot create relations in temporary schemas of other sessions")
	}
	switch schema {
	case "":
	case "pg_catalog":
		return "", pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied to create \"%s.%s\"", schema, name).
			WithDetail("System catalog modifications are currently disallowed.")
	case "information_schema":
		return "", pgerr.NotSupported("creating relations in information_schema (cairn computes its views)")
	default:
		return schema, nil
	}
	if b.CreateInTemp && b.TempSchema != "" {
		return b.TempSchema, nil
	}
	for _, s := range b.SearchPath {
		if _, ok := b.Catalog.Schemas[s]; ok && s != b.TempSchema {
			return s, nil
		}
	}
	return "", pgerr.New(pgerrcode.InvalidSchemaName, "no schema has been selected to create in")
}

func (b *Binder) rangeVarTable(rv *pg_query.RangeVar) (*catalog.TableDef, error) {
	return b.lookupTable(rv.Schemaname, rv.Relname)
}

// writeTarget is rangeVarTable for the table an INSERT, UPDATE or DELETE
// writes ("insert into", "update", "delete from": verb). A view there
// with an INSTEAD OF trigger for the statement is iv, whose trigger runs
// in place of each row's write: def is then its
// catalog.ViewDef.TriggerTable. Another view is written through (w, not
// nil), when it is automatically updatable: def is the table under it
// (or the TriggerTable of the view under it whose INSTEAD OF trigger
// runs, w.instead).
func (b *Binder) writeTarget(rv *pg_query.RangeVar, verb string) (def *catalog.TableDef, w *writableView, iv *catalog.ViewDef, err error) {
	def, err = b.rangeVarTable(rv)
	if pgerr.Code(err) == pgerrcode.WrongObjectType {
		if v := b.lookupView(rv.Schemaname, rv.Relname); v != nil {
			if v.InsteadOf(verbCommand(verb)) {
				return v.TriggerTable(), nil, v, nil
			}
			if w, err = b.writableView(v, verb, true); err != nil {
				return nil, nil, nil, err
			}
			return w.table, w, nil, nil
		}
	}
	if err != nil {
		return nil, nil, nil, pgerr.From(err).WithPosition(rv.Location + 1)
	}
	return def, nil, nil, nil
}

// triggerView is the view whose INSTEAD OF trigger a write runs: iv, the
// view written, or the one under the view w writes through; nil for none.
func triggerView(w *writableView, iv *catalog.ViewDef) *catalog.ViewDef {
	if w != nil {
		return w.instead
	}
	return iv
}

// needTarget records that the statement needs privs on what it writes
// (columns: positions in def.Columns): the table def, the view w writes
// through, or the view iv whose INSTEAD OF trigger runs. It returns the
// index of the access to the table or view written among b's.
func (b *Binder) needTarget(def *catalog.TableDef, w *writableView, iv *catalog.ViewDef, privs catalog.Priv, columns ...int) int {
	switch {
	case w != nil:
		return b.needThrough(w, privs, columns...)
	case iv != nil:
		b.accesses = append(b.accesses, Access{View: iv, Privs: privs})
	default:
		b.need(def, privs, columns...)
	}
	return len(b.accesses) - 1
}

// tableCols returns the output columns of a scan of all of def's columns.
func tableCols(def *catalog.TableDef, alias string) []Col {
	cols := make([]Col, len(def.Columns))
	for i, c := range def.Columns {
		cols[i] = Col{Name: c.Name, T: c.Type, TableOID: TableOID(def.ID), Attnum: int16(i + 1), Table: alias}
	}
	return cols
}

// regAsText makes the reg* columns of a query's result text, and arrays
// of them text arrays: a regclass prints as the relation's name, which
// only the catalog knows, so the value is converted where the statement
// still has one (clients see a text or text[] column).
func regAsText(plan Node) Node {
	cols := plan.Columns()
	var exprs []Expr
	for i, c := range cols {
		to, ok := regTextType(c.T)
		if !ok {
			continue
		}
		if exprs == nil {
			exprs = make([]Expr, len(cols))
			for j, cc := range cols {
				exprs[j] = &ColumnRef{Index: j, Name: cc.Name, T: cc.T}
			}
		}
		exprs[i] = &Cast{Arg: exprs[i], To: to, Explicit: true}
	}
	if exprs == nil {
		return plan
	}
	out := make([]Col, len(cols))
	for i, c := range cols {
		out[i] = Col{Name: c.Name, T: exprs[i].Type(), Hidden: c.Hidden}
	}
	return &Project{Input: plan, Exprs: exprs, Out: out}
}

// regTextType is the type a result column of type t goes out as when t
// holds values of reg* types other than oid: text for one, text[] for an
// array of them; ok is false for any other type.
func regTextType(t types.T) (to types.T, ok bool) {
	switch {
	case isReg(t):
		return types.TextT, true
	case isRegArray(t):
		return types.ArrayOf(types.TextT, t.Dims), true
	}
	return types.T{}, false
}

// isReg reports whether t is a reg* type other than oid (regclass,
// regtype, ...), whose values are read and printed as names.
func isReg(t types.T) bool { return t.IsOID() && t.Family != types.Oid }

// isRegArray reports whether t is an array of such a type.
func isRegArray(t types.T) bool {
	return t.Family == types.ArrayFamily && t.Elem != nil && isReg(*t.Elem)
}

// TableOID is the OID clients see for a table (syscat.TableOID).
func TableOID(id uint64) uint32 { return uint32(syscat.TableOID(id)) }

func defBool(n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_Boolean:
		return v.Boolean.Boolval
	case *pg_query.Node_String_:
		s := strings.ToLower(v.String_.Sval)
		return s == "true" || s == "on" || s == "1"
	case *pg_query.Node_Integer:
		return v.Integer.Ival != 0
	}
	return true
}

func defString(n *pg_query.Node) string {
	if n == nil {
		return ""
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_String_:
		return v.String_.Sval
	case *pg_query.Node_Integer:
		return itoa(int64(v.Integer.Ival))
	case *pg_query.Node_Float:
		return v.Float.Fval
	case *pg_query.Node_Boolean:
		if v.Boolean.Boolval {
			return "true"
		}
		return "false"
	case *pg_query.Node_TypeName:
		return nameOf(v.TypeName.Names)
	case *pg_query.Node_AConst:
		return constText(v.AConst)
	}
	return ""
}

func constText(c *pg_query.A_Const) string {
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Sval:
		return v.Sval.Sval
	case *pg_query.A_Const_Ival:
		return itoa(int64(v.Ival.Ival))
	case *pg_query.A_Const_Fval:
		return v.Fval.Fval
	case *pg_query.A_Const_Boolval:
		if v.Boolval.Boolval {
			return "true"
		}
		return "false"
	}
	return ""
}

// nameOf joins a dotted name list ("pg_catalog", "int4") into its last
// part, which is what cairn resolves (schemas of built-ins are implicit).
func nameOf(names []*pg_query.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

// strList returns the string values of a list of String nodes.
func strList(names []*pg_query.Node) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, n.GetString_().GetSval())
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// CommandName is the name PostgreSQL gives a data-modifying or DDL
// statement in its command tag and in messages about it ("cannot execute
// CREATE TABLE in a read-only transaction"): INSERT, UPDATE, DELETE,
// CREATE TABLE, DROP INDEX, TRUNCATE TABLE, COMMENT, ... A query that
// only reads is SELECT (EXPLAIN for EXPLAIN); the utility statements
// whose tag depends on how they ran (BEGIN, SET, FETCH, ...) are named
// where they run.
func CommandName(st Statement) string {
	switch x := st.(type) {
	case *Query:
		plan := x.Plan
		if m, ok := plan.(*ModifyingWith); ok {
			plan = m.Input
		}
		switch plan.(type) {
		case *Insert:
			return "INSERT"
		case *Update:
			return "UPDATE"
		case *Delete:
			return "DELETE"
		case *Merge:
			return "MERGE"
		case *Explain:
			return "EXPLAIN"
		}
		return "SELECT"
	case *Copy:
		return "COPY"
	case *Do:
		return "DO"
	case *CreateFunction:
		return "CREATE FUNCTION"
	case *DropFunction:
		return "DROP FUNCTION"
	case *AlterFunctionOwner:
		return "ALTER FUNCTION"
	case *CreateTrigger:
		return "CREATE TRIGGER"
	case *RenameViewTrigger:
		return "ALTER TRIGGER"
	case *RenameView:
		return x.Tag
	case *DropTrigger:
		return "DROP TRIGGER"
	case *CreateSchema:
		return "CREATE SCHEMA"
	case *CreateRole:
		return "CREATE ROLE"
	case *AlterRole, *RenameRole, *AlterRoleSet:
		return "ALTER ROLE"
	case *DropRole:
		return "DROP ROLE"
	case *GrantRole:
		if x.Revoke {
			return "REVOKE ROLE"
		}
		return "GRANT ROLE"
	case *AlterDefaultPrivileges:
		return "ALTER DEFAULT PRIVILEGES"
	case *GrantPrivileges:
		if x.Revoke {
			return "REVOKE"
		}
		return "GRANT"
	case *DropSchema:
		return "DROP SCHEMA"
	case *AlterSchemaOwner:
		return "ALTER SCHEMA"
	case *AlterRelationOwner:
		return x.Tag
	case *CreatePolicy:
		return "CREATE POLICY"
	case *AlterPolicy:
		return "ALTER POLICY"
	case *DropPolicy:
		return "DROP POLICY"
	case *CreateTable:
		return "CREATE TABLE"
	case *CreateTableAs:
		return "CREATE TABLE AS"
	case *DropTable:
		return "DROP TABLE"
	case *AlterTable:
		if x.Index {
			return "ALTER INDEX"
		}
		if len(x.Cmds) == 1 && x.Cmds[0].Kind == RenameTrigger {
			return "ALTER TRIGGER"
		}
		return "ALTER TABLE"
	case *RenameIndex:
		return "ALTER INDEX"
	case *SetTableSchema:
		return "ALTER TABLE"
	case *SetSequenceSchema:
		return "ALTER SEQUENCE"
	case *Truncate:
		return "TRUNCATE TABLE"
	case *CreateIndex:
		return "CREATE INDEX"
	case *DropIndex:
		return "DROP INDEX"
	case *CreateSequence:
		return "CREATE SEQUENCE"
	case *CreateEnum:
		return "CREATE TYPE"
	case *AlterType:
		return "ALTER TYPE"
	case *DropType:
		if x.Domain {
			return "DROP DOMAIN"
		}
		return "DROP TYPE"
	case *CreateDomain:
		return "CREATE DOMAIN"
	case *AlterDomain:
		return "ALTER DOMAIN"
	case *AlterSequence:
		return "ALTER SEQUENCE"
	case *DropSequence:
		return "DROP SEQUENCE"
	case *CreateView:
		return "CREATE VIEW"
	case *DropView:
		return "DROP VIEW"
	case *CommentOn:
		return "COMMENT"
	case *CreateExtension:
		return "CREATE EXTENSION"
	}
	return "this statement"
}

// The kinds of Statement.
func (*Query) statement()             {}
func (*Copy) statement()              {}
func (*Transaction) statement()       {}
func (*Set) statement()               {}
func (*SetTransaction) statement()    {}
func (*SetConstraints) statement()    {}
func (*RenameIndex) statement()       {}
func (*Show) statement()              {}
func (*Prepare) statement()           {}
func (*Execute) statement()           {}
func (*Deallocate) statement()        {}
func (*Discard) statement()           {}
func (*NoOp) statement()              {}
func (*Listen) statement()            {}
func (*Notify) statement()            {}
func (*Vacuum) statement()            {}
func (*Checkpoint) statement()        {}
func (*LockTable) statement()         {}
func (*DeclareCursor) statement()     {}
func (*Fetch) statement()             {}
func (*CloseCursor) statement()       {}
func (*CreateSchema) statement()      {}
func (*DropSchema) statement()        {}
func (*CreateTable) statement()       {}
func (*CreateTableAs) statement()     {}
func (*DropTable) statement()         {}
func (*AlterTable) statement()        {}
func (*Truncate) statement()          {}
func (*CreateIndex) statement()       {}
func (*DropIndex) statement()         {}
func (*CreateSequence) statement()    {}
func (*AlterSequence) statement()     {}
func (*DropSequence) statement()      {}
func (*CreateView) statement()        {}
func (*DropView) statement()          {}
func (*RenameView) statement()        {}
func (*SetTableSchema) statement()    {}
func (*SetSequenceSchema) statement() {}
func (*CommentOn) statement()         {}
func (*CreateExtension) statement()   {}
