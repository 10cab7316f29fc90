package functions

// pg_relation_size(regclass [, fork]), pg_table_size(regclass),
// pg_indexes_size(regclass), pg_total_relation_size(regclass) and
// pg_database_size(name | oid): the disk space a relation or the database
// uses, which psql's \dt+ and \l+ and BI tools' table lists show, read
// from the files on disk through Context.Catalog's DiskUsage (0 where the
// catalog cannot tell, as in tests without storage). NULL, as in
// PostgreSQL, for an OID no relation (or database) has.
//
// The relation functions are declared on regclass, as in PostgreSQL, so
// that a relation's name ('mytable'), its OID (pg_class.oid) and a number
// all resolve to them (oid and integers convert to regclass implicitly).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

// regclassT is the type of the functions' relation parameter.
var regclassT = types.T{Family: types.RegClass, Mod: -1}

// RelationSize is the disk space of one relation, in bytes: for a table
// its main data (Main), what else it stores that is no index (Other) and
// all its indexes (Indexes); for an index its files are Main.
type RelationSize struct {
	Main, Other, Indexes int64
}

// DiskUsage is the optional part of a Context.Catalog that the size
// functions read. RelationSize's ok is false for an OID no relation has;
// DatabaseSize's for a database that does not exist (by name when oid is
// 0, else by OID).
type DiskUsage interface {
	RelationSize(oid int64) (RelationSize, bool)
	DatabaseSize(name string, oid int64) (int64, bool)
}

// relationExists reports whether oid names a relation; without a catalog
// to ask, any OID is taken to.
func relationExists(ctx *Context, oid int64) bool {
	if ctx == nil || ctx.Catalog == nil {
		return true
	}
	_, ok := ctx.Catalog.Name(types.RegClass, oid)
	return ok
}

// relationSize returns the disk space of relation oid, ok false when no
// relation has it; without a catalog every OID is a relation of size 0.
func relationSize(ctx *Context, oid int64) (RelationSize, bool) {
	if ctx == nil || ctx.Catalog == nil {
		return RelationSize{}, true
	}
	if d, ok := ctx.Catalog.(DiskUsage); ok {
		return d.RelationSize(oid)
	}
	return RelationSize{}, relationExists(ctx, oid)
}

// sizeFunc makes a size function of a relation's RelationSize.
func sizeFunc(f func(RelationSize) int64) func(*Context, []any) (any, error) {
	return func(ctx *Context, a []any) (any, error) {
		s, ok := relationSize(ctx, a[0].(int64))
		if !ok {
			return nil, nil
		}
		return f(s), nil
	}
}

// databaseSize is pg_database_size by name (oid 0) or OID.
func databaseSize(ctx *Context, name string, oid int64) (any, error) {
	var d DiskUsage
	if ctx != nil {
		d, _ = ctx.Catalog.(DiskUsage)
	}
	if d == nil {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_database_size outside a session is not supported")
	}
	n, ok := d.DatabaseSize(name, oid)
	switch {
	case ok:
		return n, nil
	case oid != 0:
		return nil, nil
	}
	return nil, pgerr.New(pgerrcode.InvalidCatalogName, "database %q does not exist", name)
}

func init() {
	Register(allVolatile(
		fn("pg_relation_size", targs(regclassT), tInt8, sizeFunc(func(s RelationSize) int64 { return s.Main })),
		fn("pg_relation_size", targs(regclassT, tText), tInt8, func(ctx *Context, a []any) (any, error) {
			s, ok := relationSize(ctx, a[0].(int64))
			if !ok {
				return nil, nil // before the fork is looked at, as in PostgreSQL
			}
			switch a[1].(string) {
			case "main":
				return s.Main, nil
			case "fsm", "vm", "init":
				return int64(0), nil // cairn keeps no free space or visibility maps
			}
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid fork name").
				WithHint(`Valid fork names are "main", "fsm", "vm", and "init".`)
		}),
		fn("pg_table_size", targs(regclassT), tInt8, sizeFunc(func(s RelationSize) int64 { return s.Main + s.Other })),
		fn("pg_indexes_size", targs(regclassT), tInt8, sizeFunc(func(s RelationSize) int64 { return s.Indexes })),
		fn("pg_total_relation_size", targs(regclassT), tInt8, sizeFunc(func(s RelationSize) int64 { return s.Main + s.Other + s.Indexes })),
		fn("pg_database_size", targs(types.NameT), tInt8, func(ctx *Context, a []any) (any, error) {
			return databaseSize(ctx, a[0].(string), 0)
		}),
		fn("pg_database_size", targs(types.OidT), tInt8, func(ctx *Context, a []any) (any, error) {
			if a[0].(int64) == 0 {
				return nil, nil
			}
			return databaseSize(ctx, "", a[0].(int64))
		}),
	)...)
}
