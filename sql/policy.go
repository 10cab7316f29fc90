package sql

// Row-level security, with PostgreSQL 15's rules (rowsecurity.c): when a
// table's row security is on and binds the role a statement reads it as
// (catalog.RowSecurityApplies), the USING expressions of the policies
// that apply filter the rows it reads, updates and deletes, and the WITH
// CHECK expressions (or USING) check the rows it inserts and updates.
// Permissive policies are OR'ed, restrictive ones AND'ed to them; with no
// permissive policy nothing passes. The filter is a Filter right over the
// table's Scan, so it holds wherever the table is read, and the plans
// that answer from an index take it as their row filter.

import (
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CreatePolicy is CREATE POLICY: Policy with its roles still to resolve
// (Roles; none means PUBLIC).
type CreatePolicy struct {
	Table  *catalog.TableDef
	Policy catalog.PolicyDef
	Roles  []RoleSpec
}

func (*CreatePolicy) statement() {}

// AlterPolicy is ALTER POLICY: with NewName, RENAME TO; otherwise the
// roles (nil: unchanged), USING and WITH CHECK (nil: unchanged) given.
type AlterPolicy struct {
	Table        *catalog.TableDef
	Name         string
	NewName      string
	Roles        []RoleSpec
	Using, Check *string
}

func (*AlterPolicy) statement() {}

// DropPolicy is DROP POLICY [IF EXISTS] name ON table; Table is nil when
// IF EXISTS found no table called Missing.
type DropPolicy struct {
	Table    *catalog.TableDef
	Name     string
	IfExists bool
	Missing  string
}

func (*DropPolicy) statement() {}

// PolicyCheck is one condition new rows of an INSERT or UPDATE must meet
// under row-level security (PostgreSQL's WithCheckOption): over the
// table's columns; a row it finds false or NULL fails the statement with
// 42501. Name is the restrictive policy it comes from, "" for the
// permissive policies OR'ed together.
type PolicyCheck struct {
	Name string
	Cond Expr
}

// policyCmds are CREATE POLICY's FOR commands.
var policyCmds = map[string]string{
	"all": catalog.PolicyAll, "select": catalog.PolicySelect, "insert": catalog.PolicyInsert,
	"update": catalog.PolicyUpdate, "delete": catalog.PolicyDelete,
}

func (b *Binder) bindCreatePolicy(s *pg_query.CreatePolicyStmt) (Statement, error) {
	def, err := b.rangeVarTable(s.Table)
	if err != nil {
		return nil, err
	}
	b.needOwner(def)
	p := catalog.PolicyDef{Name: s.PolicyName, Cmd: policyCmds[s.CmdName], Restrictive: !s.Permissive}
	if p.Cmd == "" {
		return nil, pgerr.New(pgerrcode.InternalError, "unrecognized policy command")
	}
	if err := checkPolicyClauses(p.Cmd, s.Qual != nil, s.WithCheck != nil); err != nil {
		return nil, err
	}
	if def.Policy(p.Name) != nil {
		return nil, policyExists(p.Name, def.Name)
	}
	if p.Using, err = b.policyText(def, s.Qual); err != nil {
		return nil, err
	}
	if p.Check, err = b.policyText(def, s.WithCheck); err != nil {
		return nil, err
	}
	return &CreatePolicy{Table: def, Policy: p, Roles: roleSpecs(s.Roles)}, nil
}

func (b *Binder) bindAlterPolicy(s *pg_query.AlterPolicyStmt) (Statement, error) {
	def, err := b.rangeVarTable(s.Table)
	if err != nil {
		return nil, err
	}
	b.needOwner(def)
	p := def.Policy(s.PolicyName)
	if p == nil {
		return nil, policyMissing(s.PolicyName, def.Name)
	}
	if err := checkPolicyClauses(p.Cmd, s.Qual != nil, s.WithCheck != nil); err != nil {
		return nil, err
	}
	a := &AlterPolicy{Table: def, Name: p.Name}
	if len(s.Roles) > 0 {
		a.Roles = roleSpecs(s.Roles)
	}
	for _, c := range []struct {
		n   *pg_query.Node
		out **string
	}{{s.Qual, &a.Using}, {s.WithCheck, &a.Check}} {
		if c.n == nil {
			continue
		}
		text, err := b.policyText(def, c.n)
		if err != nil {
			return nil, err
		}
		*c.out = &text
	}
	return a, nil
}

// bindRenamePolicy binds ALTER POLICY name ON table RENAME TO new.
func (b *Binder) bindRenamePolicy(s *pg_query.RenameStmt) (Statement, error) {
	def, err := b.rangeVarTable(s.Relation)
	if err != nil {
		return nil, err
	}
	b.needOwner(def)
	if def.Policy(s.Subname) == nil {
		return nil, policyMissing(s.Subname, def.Name)
	}
	if def.Policy(s.Newname) != nil {
		return nil, policyExists(s.Newname, def.Name)
	}
	return &AlterPolicy{Table: def, Name: s.Subname, NewName: s.Newname}, nil
}

// bindDropPolicy binds DROP POLICY; its object is the table's name
// followed by the policy's.
func (b *Binder) bindDropPolicy(s *pg_query.DropStmt) (Statement, error) {
	if len(s.Objects) != 1 {
		return nil, pgerr.NotSupported("DROP POLICY of several policies")
	}
	if s.Behavior == pg_query.DropBehavior_DROP_CASCADE {
		return nil, pgerr.NotSupported("DROP POLICY ... CASCADE")
	}
	names := strList(s.Objects[0].GetList().GetItems())
	rv := &pg_query.RangeVar{Relname: names[len(names)-2]}
	if len(names) > 2 {
		rv.Schemaname = names[len(names)-3]
	}
	d := &DropPolicy{Name: names[len(names)-1], IfExists: s.MissingOk}
	def, err := b.rangeVarTable(rv)
	if err != nil {
		if s.MissingOk && pgerr.Code(err) == pgerrcode.UndefinedTable {
			d.Missing = rv.Relname
			return d, nil
		}
		return nil, err
	}
	b.accesses = append(b.accesses, Access{Table: def, Owner: true, Relation: true})
	d.Table = def
	if def.Policy(d.Name) == nil && !s.MissingOk {
		return nil, policyMissing(d.Name, def.Name)
	}
	return d, nil
}

// checkPolicyClauses refuses the clauses a policy for cmd cannot have:
// WITH CHECK on SELECT and DELETE, USING on INSERT.
func checkPolicyClauses(cmd string, using, check bool) error {
	if check && (cmd == catalog.PolicySelect || cmd == catalog.PolicyDelete) {
		return pgerr.New(pgerrcode.SyntaxError, "WITH CHECK cannot be applied to SELECT or DELETE")
	}
	if using && cmd == catalog.PolicyInsert {
		return pgerr.New(pgerrcode.SyntaxError, "only WITH CHECK expression allowed for INSERT")
	}
	return nil
}

func policyExists(name, table string) error {
	return pgerr.New(pgerrcode.DuplicateObject, "policy \"%s\" for table \"%s\" already exists", name, table)
}

func policyMissing(name, table string) error {
	return pgerr.New(pgerrcode.UndefinedObject, "policy \"%s\" for table \"%s\" does not exist", name, table)
}

// policyText checks that n (nil for none) is a boolean expression over
// def's columns a policy can hold, and returns its SQL text.
func (b *Binder) policyText(def *catalog.TableDef, n *pg_query.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	text, err := policyDeparse(n)
	if err != nil {
		return "", err
	}
	// Checked as a superuser, whom no policy binds: creating a policy
	// reads no table, so it needs no privilege on its subqueries' tables
	// and the policies of those (or of def) do not apply.
	role, accesses := b.Role, len(b.accesses)
	b.Role = catalog.BootstrapRoleOID
	_, err = b.bindPolicyExpr(def, text)
	b.Role, b.accesses = role, b.accesses[:accesses]
	if err != nil {
		return "", err
	}
	return text, nil
}

// bindPolicyExpr binds a policy expression's text over def's columns.
// The tables its subqueries read are read as the statement's role (their
// privileges checked, their policies applied); a policy whose subqueries
// read its own table, directly or through other policies, is 42P17.
func (b *Binder) bindPolicyExpr(def *catalog.TableDef, text string) (Expr, error) {
	if slices.Contains(b.policyTables, def.ID) {
		return nil, pgerr.New(pgerrcode.InvalidObjectDefinition, "infinite recursion detected in policy for relation \"%s\"", def.Name)
	}
	n, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	pb := &Binder{Catalog: b.Catalog, SearchPath: b.SearchPath, Location: b.Location, Now: b.Now, DateStyle: b.DateStyle, Floats: b.Floats, NoParams: true,
		Role: b.Role, RowSecurityOff: b.RowSecurityOff, expanding: b.expanding, policyTables: append(slices.Clone(b.policyTables), def.ID),
		expansions: b.expansions}
	e, err := pb.bindCondition(&scope{cols: tableCols(def, def.Name)}, n, "POLICY")
	if err != nil {
		// A position would point into the policy's text, not the query's.
		pe := *pgerr.From(err)
		pe.Position = 0
		return nil, &pe
	}
	b.accesses = append(b.accesses, pb.Accesses()...)
	return e, nil
}

// rowSecurity reports whether def's policies bind the statement, which
// reads def as b.Role; under row_security = off that is an error.
func (b *Binder) rowSecurity(def *catalog.TableDef) (bool, error) {
	if !b.Catalog.RowSecurityApplies(def, b.Role) {
		return false, nil
	}
	if b.RowSecurityOff {
		e := pgerr.New(pgerrcode.InsufficientPrivilege, "query would be affected by row-level security policy for table \"%s\"", def.Name)
		if def.ForceRowSecurity && b.Catalog.Reaches(b.Role, catalog.OwnerOID(def.Owner), true) {
			e = e.WithHint("To disable the policy for the table's owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.")
		}
		return false, e
	}
	return true, nil
}

// policiesFor are def's policies for cmd (or ALL) that apply to b.Role,
// permissive and restrictive.
func (b *Binder) policiesFor(def *catalog.TableDef, cmd string) (permissive, restrictive []*catalog.PolicyDef) {
	for i := range def.Policies {
		p := &def.Policies[i]
		if (p.Cmd != cmd && p.Cmd != catalog.PolicyAll) || !b.Catalog.AppliesTo(p, b.Role) {
			continue
		}
		if p.Restrictive {
			restrictive = append(restrictive, p)
		} else {
			permissive = append(permissive, p)
		}
	}
	return permissive, restrictive
}

// securityQual is the condition, over def's columns, that rows a
// statement reads of def for cmd must meet: the restrictive policies'
// USING expressions and the OR of the permissive ones' (false without
// any).
func (b *Binder) securityQual(def *catalog.TableDef, cmd string) (Expr, error) {
	perm, restr := b.policiesFor(def, cmd)
	var perms []Expr
	for _, p := range perm {
		if p.Using == "" {
			continue
		}
		e, err := b.bindPolicyExpr(def, p.Using)
		if err != nil {
			return nil, err
		}
		perms = append(perms, e)
	}
	var conds []Expr
	for _, p := range restr {
		if p.Using == "" {
			continue
		}
		e, err := b.bindPolicyExpr(def, p.Using)
		if err != nil {
			return nil, err
		}
		conds = append(conds, e)
	}
	switch len(perms) {
	case 0:
		return &Const{Value: false, T: types.BoolT}, nil
	case 1:
		conds = append(conds, perms[0])
	default:
		conds = append(conds, &BoolOp{Op: Or, Args: perms})
	}
	return andAll(conds), nil
}

// securityFilter puts def's security qualification for cmd over plan (a
// scan of def whose first columns are def's) when row-level security
// binds the statement.
func (b *Binder) securityFilter(def *catalog.TableDef, plan Node, cmd string) (Node, error) {
	on, err := b.rowSecurity(def)
	if err != nil || !on {
		return plan, err
	}
	cond, err := b.securityQual(def, cmd)
	if err != nil {
		return nil, err
	}
	return &Filter{Input: plan, Cond: cond}, nil
}

// policyChecks are the checks of new rows of def written by cmd (INSERT
// or UPDATE): each policy's WITH CHECK, or its USING where it has none
// (only USING when useUsing: the SELECT policies a statement that reads
// back its rows must also pass).
func (b *Binder) policyChecks(def *catalog.TableDef, cmd string, useUsing bool) ([]PolicyCheck, error) {
	perm, restr := b.policiesFor(def, cmd)
	text := func(p *catalog.PolicyDef) string {
		if p.Check != "" && !useUsing {
			return p.Check
		}
		return p.Using
	}
	var perms []Expr
	for _, p := range perm {
		if t := text(p); t != "" {
			e, err := b.bindPolicyExpr(def, t)
			if err != nil {
				return nil, err
			}
			perms = append(perms, e)
		}
	}
	var out []PolicyCheck
	switch len(perms) {
	case 0:
		out = append(out, PolicyCheck{Cond: &Const{Value: false, T: types.BoolT}})
	case 1:
		out = append(out, PolicyCheck{Cond: perms[0]})
	default:
		out = append(out, PolicyCheck{Cond: &BoolOp{Op: Or, Args: perms}})
	}
	for _, p := range restr {
		if t := text(p); t != "" {
			e, err := b.bindPolicyExpr(def, t)
			if err != nil {
				return nil, err
			}
			out = append(out, PolicyCheck{Name: p.Name, Cond: e})
		}
	}
	return out, nil
}

// writeChecks are the policy checks of the new rows an INSERT or UPDATE
// (cmd) writes to def, with those of SELECT when the statement reads the
// table (RETURNING, WHERE, SET reading columns); nil when row-level
// security does not bind it.
func (b *Binder) writeChecks(def *catalog.TableDef, cmd string, reads bool) ([]PolicyCheck, error) {
	on, err := b.rowSecurity(def)
	if err != nil || !on {
		return nil, err
	}
	checks, err := b.policyChecks(def, cmd, false)
	if err != nil || !reads {
		return checks, err
	}
	sel, err := b.policyChecks(def, catalog.PolicySelect, true)
	return append(checks, sel...), err
}

// policyDeparse is the SQL text a policy (or a generated column) keeps of
// expression n: as pg_get_expr shows it (pg_policies, psql's \d), an
// operator or boolean expression in parentheses.
func policyDeparse(n *pg_query.Node) (string, error) {
	text, err := DeparseExpr(n)
	if err != nil {
		return "", err
	}
	switch n.Node.(type) {
	case *pg_query.Node_AExpr, *pg_query.Node_BoolExpr, *pg_query.Node_NullTest, *pg_query.Node_BooleanTest:
		text = "(" + text + ")"
	}
	return text, nil
}

// PolicyUses reports whether a policy expression's text (see PolicyDef)
// reads the column called column.
func PolicyUses(text, column string) bool {
	n, err := ParseExpr(text)
	return err == nil && len(columnNames(n, column)) > 0
}

// RenamePolicyColumn is a policy expression's text with its references to
// column old made to column new (ALTER TABLE ... RENAME COLUMN), as
// PostgreSQL's policies, kept as trees, follow a rename.
func RenamePolicyColumn(text, old, new string) (string, error) {
	return renameColumnRefs(text, old, new, policyDeparse)
}

// RenameColumnRefs is RenamePolicyColumn for an expression printed as
// DeparseExpr prints it (a trigger's WHEN condition).
func RenameColumnRefs(text, old, new string) (string, error) {
	return renameColumnRefs(text, old, new, DeparseExpr)
}

// renameColumnRefs renames column old to new in the expression text,
// printing the result with deparse when it changed.
func renameColumnRefs(text, old, new string, deparse func(*pg_query.Node) (string, error)) (string, error) {
	if text == "" {
		return "", nil
	}
	n, err := ParseExpr(text)
	if err != nil {
		return "", err
	}
	names := columnNames(n, old)
	if len(names) == 0 {
		return text, nil
	}
	for _, s := range names {
		s.Sval = new
	}
	return deparse(n)
}

// columnNames are the column names in n's column references that are
// called name, outside subqueries (whose references are mostly to the
// tables they read; a correlated one to the policy's table is not seen).
func columnNames(n *pg_query.Node, name string) []*pg_query.String {
	var out []*pg_query.String
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg_query.SubLink); ok {
			return
		}
		if ref, ok := m.Interface().(*pg_query.ColumnRef); ok && len(ref.Fields) > 0 {
			if s := ref.Fields[len(ref.Fields)-1].GetString_(); s != nil && s.Sval == name {
				out = append(out, s)
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i, l := 0, v.List(); i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case !fd.IsMap() && fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(n.ProtoReflect())
	return out
}
