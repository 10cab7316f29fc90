package session

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage"
)

// Roles as a session sees them. The session user is the setting
// session_authorization and SET ROLE's role the setting role ("none" for
// none); the current user is the role, or else the session user. Keeping
// them as settings makes SET LOCAL ROLE, and a rollback of SET ROLE, work
// as for any parameter. A privilege check (a later step) reads
// currentRole.
//
// A session user that names no role (a client of the HTTP API, or a login
// name from before roles existed: see Engine.Credentials) acts as the
// bootstrap superuser.

// currentUser is current_user's name.
func (s *Session) currentUser() string {
	if r := s.get("role"); r != "" && r != "none" {
		return r
	}
	return s.get("session_authorization")
}

// roleNamed is the role name stands for in cat: the role of that name,
// or the bootstrap superuser for a name that is no role.
func roleNamed(cat *catalog.Catalog, name string) *catalog.RoleDef {
	if r := cat.Role(name); r != nil {
		return r
	}
	return cat.RoleByOID(catalog.BootstrapRoleOID)
}

// currentRole is the role privilege checks are made for.
func (s *Session) currentRole(cat *catalog.Catalog) *catalog.RoleDef {
	return roleNamed(cat, s.currentUser())
}

// setUser sets the session user (session == true) or the current role,
// reporting is_superuser and session_authorization as PostgreSQL does.
func (s *Session) setUser(cat *catalog.Catalog, name string, session bool) {
	if session {
		s.setValue("session_authorization", name)
		s.changed["session_authorization"] = name
		s.setValue("role", "none")
	} else {
		s.setValue("role", name)
	}
	super := "off"
	if s.currentRole(cat).Superuser {
		super = "on"
	}
	s.setValue("is_superuser", super)
	s.changed["is_superuser"] = super
}

// runSetRole is SET [LOCAL] ROLE, RESET ROLE, SET SESSION AUTHORIZATION
// and RESET SESSION AUTHORIZATION. SET ROLE needs the session user to
// be a member of the role; SET SESSION AUTHORIZATION needs the
// authenticated user to be a superuser (42501 otherwise).
func (s *Session) runSetRole(x *sql.Set) error {
	cat := s.catalog()
	if x.Name == "role" {
		name := strings.Trim(x.Value, "'")
		if x.Reset || strings.EqualFold(name, "none") {
			s.setUser(cat, "none", false)
			return nil
		}
		r := cat.Role(name)
		if r == nil {
			return pgerr.New(pgerrcode.InvalidParameterValue, "role \"%s\" does not exist", name)
		}
		if !cat.IsMemberOf(roleNamed(cat, s.get("session_authorization")).OID, r.OID, false) {
			return pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied to set role \"%s\"", name)
		}
		s.setUser(cat, name, false)
		return nil
	}
	if x.Local {
		return pgerr.NotSupported("SET LOCAL SESSION AUTHORIZATION")
	}
	name := strings.Trim(x.Value, "'")
	if x.Reset || strings.EqualFold(name, "default") {
		name = s.authUser
	}
	r := cat.Role(name)
	if r == nil && name != s.authUser {
		return pgerr.New(pgerrcode.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	if name != s.authUser && !roleNamed(cat, s.authUser).Superuser {
		return pgerr.New(pgerrcode.InsufficientPrivilege, "permission denied to set session authorization")
	}
	s.setUser(cat, name, true)
	return nil
}

// resolveRole is the role spec names in cat (42704 if none).
func (s *Session) resolveRole(cat *catalog.Catalog, spec sql.RoleSpec) (*catalog.RoleDef, error) {
	switch spec.Keyword {
	case "current_user", "current_role":
		return s.currentRole(cat), nil
	case "session_user":
		return roleNamed(cat, s.get("session_authorization")), nil
	case "public":
		return nil, pgerr.New(pgerrcode.UndefinedObject, "role \"public\" does not exist")
	}
	r := cat.Role(spec.Name)
	if r == nil {
		return nil, pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", spec.Name)
	}
	return r, nil
}

func denied(format string, args ...any) error {
	return pgerr.New(pgerrcode.InsufficientPrivilege, format, args...)
}

// checkRoleName refuses the names PostgreSQL reserves.
func checkRoleName(name string) error {
	if strings.HasPrefix(name, "pg_") {
		return pgerr.New(pgerrcode.ReservedName, "role name \"%s\" is reserved", name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	return nil
}

// applyRoleOptions sets r's attributes from o, hashing a password into its
// SCRAM verifier (a verifier given as the password is kept as it is,
// as psql's \password sends one).
func (s *Session) applyRoleOptions(r *catalog.RoleDef, o sql.RoleOptions) error {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	if o.SysID {
		s.notice("00000", "SYSID can no longer be specified")
	}
	set(&r.Superuser, o.Superuser)
	set(&r.Inherit, o.Inherit)
	set(&r.CreateRole, o.CreateRole)
	set(&r.CreateDB, o.CreateDB)
	set(&r.Login, o.Login)
	set(&r.BypassRLS, o.BypassRLS)
	if o.ConnLimit != nil {
		r.ConnLimit = *o.ConnLimit
	}
	switch {
	case o.PasswordNull:
		r.Password = ""
	case o.Password != nil && *o.Password == "":
		s.notice("00000", "empty string is not a valid password, clearing password")
		r.Password = ""
	case o.Password != nil:
		if _, ok := catalog.ParseSCRAMVerifier(*o.Password); ok {
			r.Password = *o.Password
			break
		}
		if strings.HasPrefix(*o.Password, "md5") && len(*o.Password) == 35 {
			return pgerr.NotSupported("an MD5 password hash").WithHint("cairn keeps SCRAM-SHA-256 verifiers only.")
		}
		v, err := catalog.SCRAMVerifier(*o.Password)
		if err != nil {
			return err
		}
		r.Password = v
	}
	if o.ValidUntil != nil {
		if strings.EqualFold(strings.TrimSpace(*o.ValidUntil), "infinity") {
			r.ValidUntil = nil
		} else {
			v, err := types.ParseTextOpts(*o.ValidUntil, types.TimestampTZT, &types.TextOptions{Location: s.Location(), Now: time.Now()})
			if err != nil {
				return err
			}
			t := time.UnixMicro(int64(v.(types.Timestamp))).UTC()
			r.ValidUntil = &t
		}
	}
	return nil
}

// runRole carries out a role statement in tx, with PostgreSQL 15's
// permission rules: superusers do anything; CREATEROLE roles create,
// alter and drop roles that are not superusers; any role changes its own
// password; membership is granted by those holding ADMIN OPTION.
func (s *Session) runRole(tx *storage.Tx, st sql.Statement) error {
	cat := tx.Catalog()
	me := s.currentRole(cat)
	switch x := st.(type) {
	case *sql.CreateRole:
		if err := checkRoleName(x.Name); err != nil {
			return err
		}
		if x.Opts.Superuser != nil && *x.Opts.Superuser && !me.Superuser {
			return denied("must be superuser to create superusers")
		}
		if x.Opts.BypassRLS != nil && *x.Opts.BypassRLS && !me.Superuser {
			return denied("must be superuser to create bypassrls users")
		}
		if !me.Superuser && !me.CreateRole {
			return denied("permission denied to create role")
		}
		if cat.Role(x.Name) != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "role \"%s\" already exists", x.Name)
		}
		r := &catalog.RoleDef{Name: x.Name, Inherit: true, Login: x.User, ConnLimit: -1}
		if err := s.applyRoleOptions(r, x.Opts); err != nil {
			return err
		}
		oid, err := tx.CreateRole(r)
		if err != nil {
			return err
		}
		r.OID = oid
		cat = tx.Catalog()
		for _, in := range x.Opts.InRoles {
			if err := s.grant(tx, me, in, sql.RoleSpec{Name: x.Name}, false); err != nil {
				return err
			}
		}
		for _, m := range x.Opts.Members {
			if err := s.grant(tx, me, sql.RoleSpec{Name: x.Name}, m, false); err != nil {
				return err
			}
		}
		for _, m := range x.Opts.Admins {
			if err := s.grant(tx, me, sql.RoleSpec{Name: x.Name}, m, true); err != nil {
				return err
			}
		}
		return nil
	case *sql.AlterRole:
		r, err := s.resolveRole(cat, x.Role)
		if err != nil {
			return err
		}
		onlyPassword := x.Opts.Superuser == nil && x.Opts.Inherit == nil && x.Opts.CreateRole == nil &&
			x.Opts.CreateDB == nil && x.Opts.Login == nil && x.Opts.ConnLimit == nil && x.Opts.ValidUntil == nil && x.Opts.BypassRLS == nil
		switch {
		case me.Superuser:
		case r.Superuser || x.Opts.Superuser != nil:
			return denied("must be superuser to alter superuser roles or change superuser attribute")
		case x.Opts.BypassRLS != nil:
			return denied("must be superuser to change bypassrls attribute")
		case me.CreateRole:
		case r.OID == me.OID && onlyPassword:
		default:
			return denied("permission denied")
		}
		n := r.Clone()
		if err := s.applyRoleOptions(n, x.Opts); err != nil {
			return err
		}
		return tx.AlterRole(n)
	case *sql.RenameRole:
		r := cat.Role(x.Name)
		if r == nil {
			return pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", x.Name)
		}
		switch r.Name {
		case s.get("session_authorization"):
			return pgerr.NotSupported("session user cannot be renamed")
		case s.currentUser():
			return pgerr.NotSupported("current user cannot be renamed")
		}
		if cat.Role(x.NewName) != nil {
			return pgerr.New(pgerrcode.DuplicateObject, "role \"%s\" already exists", x.NewName)
		}
		if err := checkRoleName(x.NewName); err != nil {
			return err
		}
		if r.Superuser && !me.Superuser {
			return denied("must be superuser to rename superusers")
		}
		if !me.Superuser && !me.CreateRole {
			return denied("permission denied to rename role")
		}
		n := r.Clone()
		n.Name = x.NewName // a SCRAM verifier does not depend on the name
		return tx.AlterRole(n)
	case *sql.AlterRoleSet:
		r, err := s.resolveRole(cat, x.Role)
		if err != nil {
			return err
		}
		switch {
		case me.Superuser:
		case r.Superuser:
			return denied("must be superuser to alter superusers")
		case me.CreateRole, r.OID == me.OID:
		default:
			return denied("permission denied")
		}
		n := r.Clone()
		if x.Set.Name == "all" {
			n.Config = nil
			return tx.AlterRole(n)
		}
		name := x.Set.Name
		st, ok := lookupSetting(name)
		if !ok {
			return unrecognized(name)
		}
		n.Config = slices.DeleteFunc(n.Config, func(c string) bool { return strings.HasPrefix(c, name+"=") })
		if !x.Set.Reset {
			if st.readOnly {
				return pgerr.New(pgerrcode.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed now", name)
			}
			if _, err := st.validate(x.Set.Value, st.def); err != nil {
				return err
			}
			n.Config = append(n.Config, name+"="+x.Set.Value) // as written, as PostgreSQL keeps it
			slices.Sort(n.Config)
		}
		return tx.AlterRole(n)
	case *sql.DropRole:
		for _, spec := range x.Roles {
			r := cat.Role(spec.Name)
			if spec.Keyword != "" {
				return pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", spec.String())
			}
			if r == nil {
				if x.IfExists {
					s.notice("00000", "role \"%s\" does not exist, skipping", spec.Name)
					continue
				}
				return pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", spec.Name)
			}
			switch {
			case r.Name == s.currentUser():
				return pgerr.New(pgerrcode.ObjectInUse, "current user cannot be dropped")
			case r.Name == s.get("session_authorization"):
				return pgerr.New(pgerrcode.ObjectInUse, "session user cannot be dropped")
			case r.OID == catalog.BootstrapRoleOID:
				return pgerr.New(pgerrcode.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", r.Name)
			case r.Superuser && !me.Superuser:
				return denied("must be superuser to drop superusers")
			case !me.Superuser && !me.CreateRole:
				return denied("permission denied to drop role")
			}
			if deps := s.roleDependents(cat, r.OID); len(deps) > 0 {
				return pgerr.New(pgerrcode.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", r.Name).
					WithDetail("%s", strings.Join(deps, "\n"))
			}
			if err := tx.DropRole(r.OID, r.Name); err != nil {
				return err
			}
			cat = tx.Catalog()
		}
		return nil
	case *sql.GrantRole:
		if x.Grantor != nil {
			return pgerr.NotSupported("GRANTED BY")
		}
		for _, role := range x.Roles {
			for _, m := range x.Members {
				var err error
				if x.Revoke {
					err = s.revoke(tx, me, role, m, x.Admin)
				} else {
					err = s.grant(tx, me, role, m, x.Admin)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	return nil
}

// mayAdmin reports whether me may grant and revoke membership in r:
// superusers, CREATEROLE roles (for roles that are not superusers), and
// holders of r WITH ADMIN OPTION.
func mayAdmin(cat *catalog.Catalog, me, r *catalog.RoleDef) error {
	switch {
	case me.Superuser:
		return nil
	case r.Superuser:
		return denied("must be superuser to alter superusers")
	case me.CreateRole, cat.HasAdminOf(me.OID, r.OID):
		return nil
	}
	return denied("must have admin option on role \"%s\"", r.Name)
}

// membershipRoles resolves the role and the member of a GRANT or REVOKE
// of membership and checks that me may administer the role.
func (s *Session) membershipRoles(cat *catalog.Catalog, me *catalog.RoleDef, roleSpec, memberSpec sql.RoleSpec) (r, m *catalog.RoleDef, err error) {
	if r, err = s.resolveRole(cat, roleSpec); err != nil {
		return nil, nil, err
	}
	if m, err = s.resolveRole(cat, memberSpec); err != nil {
		return nil, nil, err
	}
	if err := mayAdmin(cat, me, r); err != nil {
		return nil, nil, err
	}
	return r, m, nil
}

func (s *Session) grant(tx *storage.Tx, me *catalog.RoleDef, roleSpec, memberSpec sql.RoleSpec, admin bool) error {
	cat := tx.Catalog()
	r, m, err := s.membershipRoles(cat, me, roleSpec, memberSpec)
	if err != nil {
		return err
	}
	if r.OID == m.OID || cat.Reaches(r.OID, m.OID, false) {
		return pgerr.New(pgerrcode.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", r.Name, m.Name)
	}
	if i := cat.Membership(r.OID, m.OID); i >= 0 {
		if cat.Members[i].Admin || !admin {
			s.notice("00000", "role \"%s\" is already a member of role \"%s\"", m.Name, r.Name)
			return nil
		}
	}
	return tx.GrantRole(catalog.MemberDef{Role: r.OID, Member: m.OID, Grantor: me.OID, Admin: admin})
}

func (s *Session) revoke(tx *storage.Tx, me *catalog.RoleDef, roleSpec, memberSpec sql.RoleSpec, adminOnly bool) error {
	cat := tx.Catalog()
	r, m, err := s.membershipRoles(cat, me, roleSpec, memberSpec)
	if err != nil {
		return err
	}
	if cat.Membership(r.OID, m.OID) < 0 {
		s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "01000", Message: fmt.Sprintf("role \"%s\" is not a member of role \"%s\"", m.Name, r.Name)})
		return nil
	}
	return tx.RevokeRole(r.OID, m.OID, adminOnly)
}

// passwordLiteral is PASSWORD followed by a string constant (quoted,
// E'...' or dollar-quoted).
var passwordLiteral = regexp.MustCompile(`(?is)\bPASSWORD(\s+)([Ee]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'|\$[A-Za-z_0-9]*\$.*?\$[A-Za-z_0-9]*\$)`)

// redactPasswords is statement text as it may be shown or logged
// (pg_stat_activity, the log of a statement that panicked): a password
// of CREATE or ALTER ROLE replaced by '********', so that no password is
// kept or written anywhere in plain text.
func redactPasswords(text string) string {
	for i := 0; i+8 <= len(text); i++ {
		if text[i]|0x20 == 'p' && strings.EqualFold(text[i:i+8], "password") {
			return passwordLiteral.ReplaceAllString(text, "PASSWORD$1'********'")
		}
	}
	return text
}

// checkPasswordEncryption is password_encryption's check: PostgreSQL's
// values, of which cairn keeps scram-sha-256 only (md5 is 0A000). Clients
// that hash a password themselves (psql's \password) read it.
func checkPasswordEncryption(v string) (string, error) {
	v, err := checkEnum("password_encryption", "md5", "scram-sha-256")(v)
	if err == nil && v == "md5" {
		return "", pgerr.NotSupported("password_encryption md5").WithHint("cairn keeps SCRAM-SHA-256 verifiers only.")
	}
	return v, err
}
