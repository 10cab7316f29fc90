package sql

// Domains (CREATE DOMAIN): a base type with NOT NULL and CHECK
// constraints. A column of a domain holds the base type and records the
// domain (catalog.ColumnDef.Domain); writes to it and casts to the domain
// check its constraints through a DomainCheck.

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// CreateDomain is CREATE DOMAIN schema.name AS base ...; Def's OIDs are
// given when it is stored.
type CreateDomain struct {
	Schema, Name string
	Def          catalog.DomainDef
}

// AlterDomainKind says what an AlterDomain does.
type AlterDomainKind int

// The kinds of ALTER DOMAIN cairn carries out.
const (
	// SetDomainDefault is SET DEFAULT Default, or DROP DEFAULT ("").
	SetDomainDefault AlterDomainKind = iota
	// SetDomainNotNull is SET NOT NULL (NotNull) or DROP NOT NULL.
	SetDomainNotNull
	// AddDomainCheck is ADD [CONSTRAINT name] CHECK (...) [NOT VALID].
	AddDomainCheck
	// DropDomainConstraint is DROP CONSTRAINT [IF EXISTS] Constraint.
	DropDomainConstraint
	// ValidateDomainConstraint is VALIDATE CONSTRAINT Constraint.
	ValidateDomainConstraint
	// RenameDomainConstraint is RENAME CONSTRAINT Constraint TO NewName.
	RenameDomainConstraint
	// RenameDomain is RENAME TO NewName.
	RenameDomain
	// DomainOwner is OWNER TO Owner.
	DomainOwner
)

// AlterDomain is ALTER DOMAIN on domain Schema.Name.
type AlterDomain struct {
	Schema, Name string
	Kind         AlterDomainKind
	Default      string
	NotNull      bool
	Check        catalog.DomainCheck
	Constraint   string
	NewName      string
	MissingOk    bool
	Owner        RoleSpec
}

func (*CreateDomain) statement() {}
func (*AlterDomain) statement()  {}

// DomainCheck is a value of a domain's base type checked against the
// domain's constraints, as a cast to the domain and a write to a column
// of it check it: 23502 for a NULL when the domain is NOT NULL, 23514
// for a value a CHECK finds false.
type DomainCheck struct {
	// Arg is the value; nil where the checks run on a table's column
	// (exec's constraints).
	Arg     Expr
	Domain  string
	NotNull bool
	Checks  []DomainCond
	T       types.T
}

// DomainCond is one CHECK of a domain, bound over a one-column batch that
// holds the values checked (VALUE is column 0).
type DomainCond struct {
	Name string
	Cond Expr
}

func (e *DomainCheck) Type() types.T { return e.T }

func (e *DomainCheck) String() string { return e.Arg.String() + "::" + e.Domain }

// lookupDomain is the user type names name if it is a domain (nil if it
// names none, or an enum); types are looked up as typeFromName does.
func (b *Binder) lookupDomain(tn *pg_query.TypeName) *catalog.TypeDef {
	names := strList(tn.Names)
	if len(names) > 1 && names[len(names)-2] == "pg_catalog" {
		return nil
	}
	if _, builtin := types.Named(strings.ToLower(names[len(names)-1])); builtin && len(names) == 1 {
		return nil
	}
	td, err := b.lookupType(names)
	if err != nil || td.Domain == nil {
		return nil
	}
	return td
}

// refuseDomain is 0A000 naming what when tn names a domain: where a
// value is declared of a type (a parameter, a function's result, a
// PL/pgSQL variable) cairn keeps the base type alone, and PostgreSQL
// would check the domain's constraints.
func (b *Binder) refuseDomain(tn *pg_query.TypeName, what string) error {
	if td := b.lookupDomain(tn); td != nil {
		return pgerr.NotSupported("%s of domain %s (cairn checks domains on casts and table columns only)", what, td.Name)
	}
	return nil
}

// domainBinder binds expressions of domain td (its CHECKs and DEFAULT)
// with td's schema first on the path, as tableExprBinder does for a
// table's.
func domainBinder(cat *catalog.Catalog, td *catalog.TypeDef) *Binder {
	return tableExprBinder(cat, &catalog.TableDef{Schema: td.Schema})
}

// bindDomainCond binds the text of a CHECK of a domain over base, with
// VALUE the batch's column 0.
func (b *Binder) bindDomainCond(base types.T, n *pg_query.Node) (Expr, error) {
	sc := &scope{cols: []Col{{Name: "value", T: base}}}
	return b.bindCondition(sc, n, "CHECK")
}

// BindDomainCheck binds the constraints of domain td over its base type
// (Arg left nil), for exec to check a column's new values. Messages name
// the domain as format_type does under search path path: qualified when
// the path does not find it.
func BindDomainCheck(cat *catalog.Catalog, td *catalog.TypeDef, path []string) (*DomainCheck, error) {
	b := domainBinder(cat, td)
	d := td.Domain
	name := td.Name
	if !slices.Contains(path, td.Schema) {
		name = ident.QualifiedName(td.Schema, td.Name)
	}
	out := &DomainCheck{Domain: name, NotNull: d.NotNull, T: d.Base}
	for _, c := range d.Checks {
		n, err := ParseExpr(c.Expr)
		if err != nil {
			return nil, err
		}
		cond, err := b.bindDomainCond(d.Base, n)
		if err != nil {
			return nil, err
		}
		out.Checks = append(out.Checks, DomainCond{Name: c.Name, Cond: cond})
	}
	return out, nil
}

// castToDomain is e (of td's base type) checked against domain td.
func (b *Binder) castToDomain(e Expr, td *catalog.TypeDef) (Expr, error) {
	d, err := BindDomainCheck(b.Catalog, td, b.SearchPath)
	if err != nil {
		return nil, err
	}
	d.Arg = e
	return d, nil
}

// domainDefault is the DEFAULT of the domain with OID oid ("" for none).
func domainDefault(cat *catalog.Catalog, oid uint32) string {
	if td := cat.DomainByOID(oid); td != nil {
		return td.Domain.Default
	}
	return ""
}

func (b *Binder) bindCreateDomain(s *pg_query.CreateDomainStmt) (Statement, error) {
	schema, name, err := b.newTypeName(s.Domainname)
	if err != nil {
		return nil, err
	}
	if cc := s.CollClause; cc != nil {
		if err := checkCollation(cc.Collname, cc.Location); err != nil {
			return nil, err
		}
	}
	base, err := b.typeFromName(s.TypeName)
	if err != nil {
		return nil, err
	}
	if base.Enum != nil || base.IsArray() && base.Elem.Enum != nil {
		return nil, pgerr.NotSupported("domains over enum types")
	}
	if inner := b.lookupDomain(s.TypeName); inner != nil {
		return nil, pgerr.NotSupported("domains over domains")
	}
	c := &CreateDomain{Schema: schema, Name: name, Def: catalog.DomainDef{Base: base}}
	var sawNull, sawNotNull, sawDefault bool
	for _, n := range s.Constraints {
		con := n.GetConstraint()
		switch con.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL, pg_query.ConstrType_CONSTR_NULL:
			notNull := con.Contype == pg_query.ConstrType_CONSTR_NOTNULL
			if notNull && sawNull || !notNull && sawNotNull {
				return nil, pgerr.New(pgerrcode.SyntaxError, "conflicting NULL/NOT NULL constraints")
			}
			sawNull, sawNotNull = sawNull || !notNull, sawNotNull || notNull
			c.Def.NotNull = notNull
		case pg_query.ConstrType_CONSTR_DEFAULT:
			if sawDefault {
				return nil, pgerr.New(pgerrcode.SyntaxError, "multiple default expressions")
			}
			sawDefault = true
			if c.Def.Default, err = b.domainDefaultText(name, base, con.RawExpr); err != nil {
				return nil, err
			}
		case pg_query.ConstrType_CONSTR_CHECK:
			if con.SkipValidation {
				return nil, pgerr.New(pgerrcode.SyntaxError, "CHECK constraints for domains cannot be marked NOT VALID")
			}
			chk, err := b.domainCheckDef(name, base, con, c.Def.Checks)
			if err != nil {
				return nil, err
			}
			c.Def.Checks = append(c.Def.Checks, chk)
		default:
			return nil, pgerr.NotSupported("%s constraints on domains", strings.TrimPrefix(con.Contype.String(), "CONSTR_"))
		}
	}
	return c, nil
}

// domainDefaultText checks that DEFAULT n of domain name over base binds
// (and is of the type), and gives its text to keep.
func (b *Binder) domainDefaultText(name string, base types.T, n *pg_query.Node) (string, error) {
	// Kept as a column's DEFAULT is, string literals with their cast.
	col := catalog.ColumnDef{Name: name, Type: base}
	if err := b.setDefault(&col, n); err != nil {
		return "", err
	}
	return col.Default, nil
}

// domainCheckDef binds CHECK constraint con of domain name over base, and
// names it <domain>_check (then _check1, ...) when unnamed, past the
// names in have.
func (b *Binder) domainCheckDef(name string, base types.T, con *pg_query.Constraint, have []catalog.DomainCheck) (catalog.DomainCheck, error) {
	if _, err := b.bindDomainCond(base, con.RawExpr); err != nil {
		return catalog.DomainCheck{}, err
	}
	text, err := DeparseExpr(con.RawExpr)
	if err != nil {
		return catalog.DomainCheck{}, err
	}
	taken := func(n string) bool {
		for _, h := range have {
			if h.Name == n {
				return true
			}
		}
		return false
	}
	cname := con.Conname
	if cname == "" {
		cname = name + "_check"
		for i := 1; taken(cname); i++ {
			cname = name + "_check" + itoa(int64(i))
		}
	} else if taken(cname) {
		return catalog.DomainCheck{}, pgerr.New(pgerrcode.DuplicateObject, "constraint \"%s\" for domain \"%s\" already exists", cname, name)
	}
	return catalog.DomainCheck{Name: cname, Expr: text, NotValid: con.SkipValidation}, nil
}

// domainOf resolves a domain's possibly qualified name (42704 if it names
// no type, 42809 if a type that is no domain).
func (b *Binder) domainOf(names []string) (*catalog.TypeDef, error) {
	td, err := b.lookupType(names)
	if err != nil {
		return nil, err
	}
	if td.Domain == nil {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "%s is not a domain", td.Name)
	}
	return td, nil
}

func (b *Binder) bindAlterDomain(s *pg_query.AlterDomainStmt) (Statement, error) {
	td, err := b.domainOf(strList(s.TypeName))
	if err != nil {
		return nil, err
	}
	a := &AlterDomain{Schema: td.Schema, Name: td.Name, Constraint: s.Name, MissingOk: s.MissingOk}
	switch s.Subtype {
	case "T":
		a.Kind = SetDomainDefault
		if s.Def != nil {
			if a.Default, err = b.domainDefaultText(td.Name, td.Domain.Base, s.Def); err != nil {
				return nil, err
			}
		}
	case "N", "O":
		a.Kind, a.NotNull = SetDomainNotNull, s.Subtype == "O"
	case "C":
		con := s.Def.GetConstraint()
		if con == nil || con.Contype != pg_query.ConstrType_CONSTR_CHECK {
			if con != nil && con.Contype == pg_query.ConstrType_CONSTR_NOTNULL {
				return nil, pgerr.NotSupported("ALTER DOMAIN ... ADD NOT NULL (use SET NOT NULL)")
			}
			return nil, pgerr.NotSupported("ALTER DOMAIN ... ADD of constraints other than CHECK")
		}
		a.Kind = AddDomainCheck
		if a.Check, err = b.domainCheckDef(td.Name, td.Domain.Base, con, td.Domain.Checks); err != nil {
			return nil, err
		}
	case "X":
		// Nothing depends on a domain's CHECK: CASCADE and RESTRICT
		// both drop just the constraint.
		a.Kind = DropDomainConstraint
	case "V":
		a.Kind = ValidateDomainConstraint
	default:
		return nil, pgerr.NotSupported("ALTER DOMAIN subcommand %q", s.Subtype)
	}
	return a, nil
}

// bindRenameDomain binds ALTER DOMAIN name RENAME TO new and RENAME
// CONSTRAINT old TO new.
func (b *Binder) bindRenameDomain(s *pg_query.RenameStmt) (Statement, error) {
	var names []string
	if l := s.Object.GetList(); l != nil {
		names = strList(l.Items)
	} else {
		names = strList(s.Object.GetTypeName().GetNames())
	}
	td, err := b.domainOf(names)
	if err != nil {
		return nil, err
	}
	if s.RenameType == pg_query.ObjectType_OBJECT_DOMCONSTRAINT {
		return &AlterDomain{Schema: td.Schema, Name: td.Name, Kind: RenameDomainConstraint, Constraint: s.Subname, NewName: s.Newname}, nil
	}
	return &AlterDomain{Schema: td.Schema, Name: td.Name, Kind: RenameDomain, NewName: s.Newname}, nil
}

// bindDomainOwner binds ALTER DOMAIN name OWNER TO role.
func (b *Binder) bindDomainOwner(s *pg_query.AlterOwnerStmt) (Statement, error) {
	td, err := b.domainOf(strList(s.Object.GetList().GetItems()))
	if err != nil {
		return nil, err
	}
	return &AlterDomain{Schema: td.Schema, Name: td.Name, Kind: DomainOwner, Owner: roleSpec(s.Newowner)}, nil
}

// DomainViolations is a plan of at most one row of def whose column at
// position pos (of the domain) breaks the domain's CHECK check.
func (b *Binder) DomainViolations(def *catalog.TableDef, pos int, base types.T, check catalog.DomainCheck) (Node, error) {
	n, err := ParseExpr(check.Expr)
	if err != nil {
		return nil, err
	}
	cond, err := b.bindDomainCond(base, n)
	if err != nil {
		return nil, err
	}
	cond, err = transformExpr(cond, func(e Expr) (Expr, error) {
		if ref, ok := e.(*ColumnRef); ok && ref.Index == 0 {
			return columnRef(def, pos, 0), nil
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return firstRow(&Filter{Input: tableScan(def, false), Cond: &BoolOp{Op: Not, Args: []Expr{cond}}}), nil
}
