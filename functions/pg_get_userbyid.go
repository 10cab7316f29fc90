package functions

// pg_get_userbyid(role_oid): the name of a role, as psql's \d and \l print
// owners. cairn has one role, the session's user, which owns every object
// (the owner columns of pg_class, pg_namespace, ... all hold its OID), so
// every OID names it. Without a session PostgreSQL's text for an unknown
// role is returned.

import (
	"strconv"

	"github.com/cairn-db/cairn/sql/types"
)

func init() {
	Register(allStable(fn("pg_get_userbyid", targs(types.OidT), types.NameT, func(ctx *Context, a []any) (any, error) {
		if ctx == nil || ctx.Session == nil {
			return "unknown (OID=" + strconv.FormatInt(a[0].(int64), 10) + ")", nil
		}
		return ctx.Session.User(), nil
	}))...)
}
