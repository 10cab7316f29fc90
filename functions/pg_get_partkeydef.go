package functions

// pg_get_partkeydef(table_oid): the PARTITION BY clause of a partitioned
// table (RANGE (at), LIST (region), ...), which DBeaver's navigator reads
// for every table it lists (pg_catalog.pg_get_partkeydef(c.oid) next to
// pg_get_expr(c.relpartbound, c.oid)), and
// pg_get_partition_constraintdef(table_oid), a partition's implicit
// constraint, which psql's \d+ reads. cairn has no partitioned tables,
// so both are NULL for every OID, as PostgreSQL answers for a table that
// is not partitioned and for an OID that names no table. So is
// pg_get_statisticsobjdef(oid), the CREATE STATISTICS of an extended
// statistics object (psql's \d reads it), of which cairn has none.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	none := func(*Context, []any) (any, error) { return nil, nil }
	Register(allStable(
		fn("pg_get_partkeydef", targs(types.OidT), tText, none),
		fn("pg_get_partition_constraintdef", targs(types.OidT), tText, none),
		fn("pg_get_statisticsobjdef", targs(types.OidT), tText, none),
	)...)
}
