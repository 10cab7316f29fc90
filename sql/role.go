package sql

import (
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// Role statements: CREATE / ALTER / DROP ROLE (and USER, GROUP), GRANT and
// REVOKE of role membership. The binder only reads them; who may run them
// and what the names refer to is decided by exec against the catalog of
// the transaction, since CURRENT_USER and the roles change under it.

// RoleSpec names a role: Name, or one of the keywords "current_user",
// "current_role", "session_user" and "public" in Keyword.
type RoleSpec struct {
	Name    string
	Keyword string
}

// String is the role as an error message names it.
func (r RoleSpec) String() string {
	if r.Keyword != "" {
		return strings.ToUpper(r.Keyword)
	}
	return r.Name
}

// RoleOptions are the options of CREATE and ALTER ROLE; nil means not
// given.
type RoleOptions struct {
	Superuser, Inherit, CreateRole, CreateDB, Login, BypassRLS *bool
	ConnLimit                                                  *int
	// Password is PASSWORD '...' (a password, or a SCRAM verifier to
	// keep as it is); PasswordNull is PASSWORD NULL.
	Password     *string
	PasswordNull bool
	// ValidUntil is VALID UNTIL's text (a timestamptz, or 'infinity').
	ValidUntil *string
	// InRoles (IN ROLE), Members (ROLE) and Admins (ADMIN) are CREATE
	// ROLE's memberships.
	InRoles, Members, Admins []RoleSpec
	// SysID is set when SYSID was given, which PostgreSQL ignores with a
	// notice.
	SysID bool
}

// CreateRole is CREATE ROLE / USER / GROUP (User: LOGIN by default).
type CreateRole struct {
	Name string
	User bool
	Opts RoleOptions
}

// AlterRole is ALTER ROLE name [WITH] options.
type AlterRole struct {
	Role RoleSpec
	Opts RoleOptions
}

// RenameRole is ALTER ROLE name RENAME TO new.
type RenameRole struct {
	Name, NewName string
}

// AlterRoleSet is ALTER ROLE name SET param = value (Set.Reset for RESET,
// Set.Name "all" for RESET ALL): the role's default for the parameter,
// applied when it logs in.
type AlterRoleSet struct {
	Role RoleSpec
	Set  *Set
}

// DropRole is DROP ROLE [IF EXISTS] names.
type DropRole struct {
	Roles    []RoleSpec
	IfExists bool
}

// GrantRole is GRANT roles TO members [WITH ADMIN OPTION] (Revoke false)
// or REVOKE [ADMIN OPTION FOR] roles FROM members (Revoke true).
type GrantRole struct {
	Roles, Members []RoleSpec
	Admin          bool
	Revoke         bool
	Grantor        *RoleSpec
}

func roleSpec(n *pg_query.RoleSpec) RoleSpec {
	switch n.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return RoleSpec{Keyword: "current_role"}
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_USER:
		return RoleSpec{Keyword: "current_user"}
	case pg_query.RoleSpecType_ROLESPEC_SESSION_USER:
		return RoleSpec{Keyword: "session_user"}
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return RoleSpec{Keyword: "public"}
	}
	return RoleSpec{Name: n.Rolename}
}

func roleSpecs(ns []*pg_query.Node) []RoleSpec {
	out := make([]RoleSpec, 0, len(ns))
	for _, n := range ns {
		if r := n.GetRoleSpec(); r != nil {
			out = append(out, roleSpec(r))
		} else if p := n.GetAccessPriv(); p != nil {
			out = append(out, RoleSpec{Name: p.PrivName}) // GRANT's role list
		} else {
			out = append(out, RoleSpec{Name: defString(n)})
		}
	}
	return out
}

func conflictingOption(loc int32) error {
	e := pgerr.New(pgerrcode.SyntaxError, "conflicting or redundant options")
	if loc >= 0 {
		e = e.WithPosition(loc + 1)
	}
	return e
}

// roleOptions reads the option list of CREATE or ALTER ROLE. create
// allows the options only CREATE ROLE has (IN ROLE, ROLE, ADMIN).
func roleOptions(opts []*pg_query.Node, create bool) (RoleOptions, error) {
	var o RoleOptions
	seen := map[string]bool{}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if seen[d.Defname] {
			return o, conflictingOption(d.Location)
		}
		seen[d.Defname] = true
		flag := func(dst **bool) {
			v := defBool(d.Arg)
			*dst = &v
		}
		switch d.Defname {
		case "superuser":
			flag(&o.Superuser)
		case "inherit":
			flag(&o.Inherit)
		case "createrole":
			flag(&o.CreateRole)
		case "createdb":
			flag(&o.CreateDB)
		case "canlogin":
			flag(&o.Login)
		case "connectionlimit":
			v, err := strconv.Atoi(defString(d.Arg))
			if err != nil {
				return o, pgerr.New(pgerrcode.InvalidParameterValue, "invalid connection limit: %s", defString(d.Arg))
			}
			if v < -1 {
				return o, pgerr.New(pgerrcode.InvalidParameterValue, "invalid connection limit: %d", v)
			}
			o.ConnLimit = &v
		case "password":
			if d.Arg == nil {
				o.PasswordNull = true
			} else {
				v := defString(d.Arg)
				o.Password = &v
			}
		case "validUntil":
			v := defString(d.Arg)
			o.ValidUntil = &v
		case "addroleto", "rolemembers", "adminmembers":
			if !create {
				return o, pgerr.New(pgerrcode.SyntaxError, "option \"%s\" is not recognized", d.Defname)
			}
			list := roleSpecs(d.Arg.GetList().GetItems())
			switch d.Defname {
			case "addroleto":
				o.InRoles = list
			case "rolemembers":
				o.Members = list
			default:
				o.Admins = list
			}
		case "isreplication":
			if defBool(d.Arg) {
				return o, pgerr.NotSupported("REPLICATION").WithHint("cairn has no replication.")
			}
		case "bypassrls":
			flag(&o.BypassRLS)
		case "sysid":
			o.SysID = true
		default:
			return o, pgerr.NotSupported("role option %s", d.Defname)
		}
	}
	return o, nil
}

func bindCreateRole(s *pg_query.CreateRoleStmt) (Statement, error) {
	opts, err := roleOptions(s.Options, true)
	if err != nil {
		return nil, err
	}
	return &CreateRole{Name: s.Role, User: s.StmtType == pg_query.RoleStmtType_ROLESTMT_USER, Opts: opts}, nil
}

func bindAlterRole(s *pg_query.AlterRoleStmt) (Statement, error) {
	for _, n := range s.Options {
		if n.GetDefElem().GetDefname() == "rolemembers" { // ALTER GROUP ... ADD / DROP USER
			return nil, pgerr.NotSupported("ALTER GROUP ... ADD USER and DROP USER").WithHint("Use GRANT and REVOKE.")
		}
	}
	opts, err := roleOptions(s.Options, false)
	if err != nil {
		return nil, err
	}
	return &AlterRole{Role: roleSpec(s.Role), Opts: opts}, nil
}

func bindAlterRoleSet(s *pg_query.AlterRoleSetStmt) (Statement, error) {
	if s.Database != "" {
		return nil, pgerr.NotSupported("ALTER ROLE ... IN DATABASE")
	}
	if s.Role == nil {
		return nil, pgerr.NotSupported("ALTER ROLE ALL ... SET")
	}
	st, err := bindSet(s.Setstmt)
	if err != nil {
		return nil, err
	}
	set, ok := st.(*Set)
	if !ok || set.Local {
		return nil, pgerr.NotSupported("this form of ALTER ROLE ... SET")
	}
	return &AlterRoleSet{Role: roleSpec(s.Role), Set: set}, nil
}

func bindGrantRole(s *pg_query.GrantRoleStmt) (Statement, error) {
	g := &GrantRole{Roles: roleSpecs(s.GrantedRoles), Members: roleSpecs(s.GranteeRoles), Revoke: !s.IsGrant}
	for _, n := range s.Opt {
		d := n.GetDefElem()
		if d == nil || d.Defname != "admin" {
			return nil, pgerr.NotSupported("GRANT role WITH %s", strings.ToUpper(d.GetDefname()))
		}
		g.Admin = d.Arg == nil || defBool(d.Arg)
	}
	if s.Grantor != nil {
		r := roleSpec(s.Grantor)
		g.Grantor = &r
	}
	if s.Behavior == pg_query.DropBehavior_DROP_CASCADE {
		return nil, pgerr.NotSupported("REVOKE ... CASCADE of roles")
	}
	return g, nil
}

func (*CreateRole) statement()   {}
func (*AlterRole) statement()    {}
func (*RenameRole) statement()   {}
func (*AlterRoleSet) statement() {}
func (*DropRole) statement()     {}
func (*GrantRole) statement()    {}
