package functions

// pg_get_partkeydef(table_oid): the PARTITION BY clause of a partitioned
// table (RANGE (at), LIST (region), ...), which DBeaver's navigator reads
// for every table it lists (pg_catalog.pg_get_partkeydef(c.oid) next to
// pg_get_expr(c.relpartbound, c.oid)). cairn has no partitioned tables,
// so it is NULL for every OID, as PostgreSQL answers for a table that is
// not partitioned and for an OID that names no table.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(allStable(fn("pg_get_partkeydef", targs(types.OidT), tText, func(*Context, []any) (any, error) {
		return nil, nil
	}))...)
}
