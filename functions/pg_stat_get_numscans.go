package functions

// pg_stat_get_numscans(oid): how many index scans the statistics collector
// counted on a relation, which DBeaver's index list shows
// (pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans).
// cairn keeps no such statistics, so it is 0 for every OID, as PostgreSQL
// answers for a relation it has no statistics for.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(allStable(fn("pg_stat_get_numscans", targs(types.OidT), tInt8, func(*Context, []any) (any, error) {
		return int64(0), nil
	}))...)
}
