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
		unknown := "unknown (OID=" + strconv.FormatInt(a[0].(int64), 10) + ")"
		if ctx == nil || ctx.Session == nil {
			return unknown, nil
		}
		rc, ok := ctx.Catalog.(RoleCatalog)
		if !ok {
			return ctx.Session.User(), nil
		}
		if name, ok := rc.RoleName(a[0].(int64)); ok {
			return name, nil
		}
		return unknown, nil
	}))...)
}
