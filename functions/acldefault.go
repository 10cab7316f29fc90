package functions

// acldefault(type, owner_oid): the ACL an object of a kind has while no
// GRANT or REVOKE has touched it (what a NULL relacl, nspacl, proacl...
// stands for), in aclitem[] text form: PUBLIC's privileges, then the
// owner's. pg_dump compares each object's ACL with it to write only the
// GRANTs and REVOKEs that differ. The kinds are PostgreSQL's
// abbreviations: c column, r relation, s sequence, d database, f
// function, l language, L large object, n schema, t tablespace, F
// foreign-data wrapper, S foreign server, T type, p parameter.

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// aclDefaults are the privilege letters of PUBLIC and of the owner in
// each kind's default ACL (PostgreSQL's acldefault), in aclitem's order.
var aclDefaults = map[string][2]string{
	"c": {"", ""},
	"r": {"", "arwdDxt"},
	"s": {"", "rwU"},
	"d": {"Tc", "CTc"},
	"f": {"X", "X"},
	"l": {"U", "U"},
	"L": {"", "rw"},
	"n": {"", "UC"},
	"t": {"", "C"},
	"F": {"", "U"},
	"S": {"", "U"},
	"T": {"U", "U"},
	"p": {"", "sA"},
}

func init() {
	Register(allStable(fn("acldefault", targs(types.InternalCharT, types.OidT), types.ArrayOf(types.TextT, 1), func(ctx *Context, a []any) (any, error) {
		kind := a[0].(string)
		privs, ok := aclDefaults[kind]
		if !ok {
			return nil, pgerr.New(pgerrcode.InternalError, "unrecognized object type abbreviation: %s", kind)
		}
		owner := roleNameOf(ctx, a[1].(int64))
		var items []any
		if privs[0] != "" {
			items = append(items, "="+privs[0]+"/"+owner)
		}
		if privs[1] != "" {
			items = append(items, owner+"="+privs[1]+"/"+owner)
		}
		return types.NewArray(types.TextT, items...), nil
	}))...)
}
