package functions

// pg_stat_get_numscans(oid): how many index scans the statistics collector
// counted on a relation, which DBeaver's index list shows
// (pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans), and
// the other per-relation counters pgAdmin and monitoring queries read
// (live and dead tuples, rows inserted, updated and deleted, blocks read
// and hit, vacuum and analyze counts). cairn keeps no such statistics,
// so each is 0 for every OID, as PostgreSQL answers for a relation it has
// no statistics for; the times of the last vacuum and analyze are NULL,
// as for a relation never vacuumed (cairn has no VACUUM to run).

import "github.com/cairn-db/cairn/sql/types"

func init() {
	zero := func(*Context, []any) (any, error) { return int64(0), nil }
	never := func(*Context, []any) (any, error) { return nil, nil }
	var fns []*Overload
	for _, name := range []string{"numscans", "tuples_returned", "tuples_fetched", "tuples_inserted", "tuples_updated",
		"tuples_deleted", "tuples_hot_updated", "live_tuples", "dead_tuples", "mod_since_analyze", "ins_since_vacuum",
		"blocks_fetched", "blocks_hit", "vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count"} {
		fns = append(fns, fn("pg_stat_get_"+name, targs(types.OidT), tInt8, zero))
	}
	for _, name := range []string{"last_vacuum_time", "last_autovacuum_time", "last_analyze_time", "last_autoanalyze_time"} {
		fns = append(fns, fn("pg_stat_get_"+name, targs(types.OidT), types.TimestampTZT, never))
	}
	Register(allStable(fns...)...)
}
