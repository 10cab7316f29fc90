package functions

// pg_has_role(user, role, mode) and pg_has_role(role, mode): whether a
// user (by name or OID; the current user when left out) is a member of a
// role. MEMBER asks for membership by any chain of grants (what SET ROLE
// needs), USAGE for the privileges the user holds without SET ROLE
// (through roles that INHERIT), and either WITH ADMIN OPTION (or WITH
// GRANT OPTION) whether the user may grant the role. A superuser has
// them all. As in PostgreSQL, an unknown role name is 42704 and an
// unknown OID is a member of nothing.

import (
	"strings"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// RoleCatalog is the part of a Catalog that pg_has_role asks (sql/syscat's
// View implements it).
type RoleCatalog interface {
	// HasRole answers pg_has_role for the role OIDs member and role;
	// usage asks for USAGE rather than MEMBER, admin for the admin
	// option. An OID that names no role has no membership (false).
	HasRole(member, role int64, usage, admin bool) bool
	// RoleName is the name of the role with OID oid as the session sees
	// it (pg_get_userbyid); ok is false when no role has it.
	RoleName(oid int64) (string, bool)
}

// roleMode parses pg_has_role's mode list as PostgreSQL's
// convert_role_priv_string: usage or member, admin when WITH ADMIN (or
// GRANT) OPTION is asked.
func roleMode(list string) (usage, admin bool, err error) {
	for _, chunk := range strings.Split(list, ",") {
		chunk = strings.Trim(chunk, " \t\n\v\f\r")
		switch asciiUpper(chunk) {
		case "USAGE":
			usage = true
		case "MEMBER":
		case "USAGE WITH GRANT OPTION", "USAGE WITH ADMIN OPTION", "MEMBER WITH GRANT OPTION", "MEMBER WITH ADMIN OPTION":
			admin = true
		default:
			return false, false, pgerr.New(pgerrcode.InvalidParameterValue, "unrecognized privilege type: \"%s\"", chunk)
		}
	}
	return usage, admin, nil
}

// roleOID is the OID of a pg_has_role argument: an OID as it is, a name
// looked up (42704 when no role has it).
func roleOID(ctx *Context, a any) (int64, error) {
	if name, ok := a.(string); ok {
		// Quoted, so that regrole's input takes the name as it is.
		oid, err := ctx.Catalog.Lookup(types.RegRole, `"`+strings.ReplaceAll(name, `"`, `""`)+`"`)
		if err != nil {
			return 0, pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", name)
		}
		return oid, nil
	}
	return a.(int64), nil
}

func init() {
	name, oid := types.NameT, types.OidT
	eval := func(ctx *Context, a []any) (any, error) {
		if ctx == nil {
			return nil, pgerr.NotSupported("pg_has_role outside a session")
		}
		rc, ok := ctx.Catalog.(RoleCatalog)
		if !ok {
			return nil, pgerr.NotSupported("pg_has_role outside a session")
		}
		var member int64
		var err error
		if len(a) == 3 {
			member, err = roleOID(ctx, a[0])
		} else {
			member, err = roleOID(ctx, sessionUser(ctx))
		}
		if err != nil {
			return nil, err
		}
		role, err := roleOID(ctx, a[len(a)-2])
		if err != nil {
			return nil, err
		}
		usage, admin, err := roleMode(a[len(a)-1].(string))
		if err != nil {
			return nil, err
		}
		return rc.HasRole(member, role, usage, admin), nil
	}
	for _, user := range [][]types.T{nil, {name}, {oid}} {
		for _, role := range []types.T{name, oid} {
			Register(allStable(fn("pg_has_role", append(append([]types.T(nil), user...), role, tText), tBool, eval))...)
		}
	}
}
