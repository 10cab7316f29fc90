package functions

// pg_get_userbyid(role_oid): the name of a role, as psql's \d, \dp and
// \l print owners and grantees. An OID that names no role gives
// PostgreSQL's text for an unknown role. A login name that is no role
// acts as the bootstrap superuser, so that superuser's OID gives that
// name (the catalog answers, see RoleCatalog.RoleName); without a
// catalog that knows roles, every OID is the session's user.

import (
	"strconv"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(allStable(fn("pg_get_userbyid", targs(types.OidT), types.NameT, func(ctx *Context, a []any) (any, error) {
		return roleNameOf(ctx, a[0].(int64)), nil
	}))...)
}

// roleNameOf is the name of the role with OID oid as pg_get_userbyid
// gives it (acldefault names owners the same way).
func roleNameOf(ctx *Context, oid int64) string {
	unknown := "unknown (OID=" + strconv.FormatInt(oid, 10) + ")"
	if ctx == nil || ctx.Session == nil {
		return unknown
	}
	rc, ok := ctx.Catalog.(RoleCatalog)
	if !ok {
		return ctx.Session.User()
	}
	if name, ok := rc.RoleName(oid); ok {
		return name
	}
	return unknown
}
