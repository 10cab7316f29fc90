package functions

// pg_relation_size(regclass [, fork]), pg_table_size(regclass),
// pg_indexes_size(regclass) and pg_total_relation_size(regclass): the disk
// space a relation uses, which psql's \dt+ and BI tools' table lists show.
// cairn does not expose its storage's sizes yet, so they are 0 for every
// relation (NULL, as in PostgreSQL, for an OID that Context.Catalog knows
// no relation by).
//
// They are declared on regclass, as in PostgreSQL, so that a relation's
// name ('mytable'), its OID (pg_class.oid) and a number all resolve to
// them (oid and integers convert to regclass implicitly).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// regclassT is the type of the functions' relation parameter.
var regclassT = types.T{Family: types.RegClass, Mod: -1}

// relationExists reports whether oid names a relation; without a catalog
// to ask, any OID is taken to.
func relationExists(ctx *Context, oid int64) bool {
	if ctx == nil || ctx.Catalog == nil {
		return true
	}
	_, ok := ctx.Catalog.Name(types.RegClass, oid)
	return ok
}

func init() {
	size := func(ctx *Context, a []any) (any, error) {
		if !relationExists(ctx, a[0].(int64)) {
			return nil, nil
		}
		return int64(0), nil
	}
	Register(allVolatile(
		fn("pg_relation_size", targs(regclassT), tInt8, size),
		fn("pg_relation_size", targs(regclassT, tText), tInt8, func(ctx *Context, a []any) (any, error) {
			if !relationExists(ctx, a[0].(int64)) {
				return nil, nil // before the fork is looked at, as in PostgreSQL
			}
			switch a[1].(string) {
			case "main", "fsm", "vm", "init":
				return int64(0), nil
			}
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid fork name").
				WithHint(`Valid fork names are "main", "fsm", "vm", and "init".`)
		}),
		fn("pg_table_size", targs(regclassT), tInt8, size),
		fn("pg_indexes_size", targs(regclassT), tInt8, size),
		fn("pg_total_relation_size", targs(regclassT), tInt8, size),
	)...)
}
