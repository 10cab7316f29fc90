package syscat

// pg_stat_statements: what the pg_stat_statements extension shows, in
// PostgreSQL 15's columns (the extension's version 1.10): calls, times in
// milliseconds and rows of each normalised statement, per role that ran
// it (userid). Planning
// is not timed apart (plans 0, its times 0), nor are block, WAL or JIT
// counts kept: 0, as the extension reports them with tracking off.
//
// cairn lists it in pg_catalog, where its name resolves without the
// extension's schema on the search path.

import "github.com/cockroachdb/apd/v3"

// StatementStat is one row of pg_stat_statements; times are in
// milliseconds.
type StatementStat struct {
	UserID                        uint32 // the current role of its executions
	QueryID                       int64
	Query                         string
	Calls, Rows                   int64
	Total, Min, Max, Mean, Stddev float64
}

func init() {
	register("pg_catalog", "pg_stat_statements", 0, "userid oid, dbid oid, toplevel bool, queryid int8, query text, plans int8, total_plan_time float8, min_plan_time float8, max_plan_time float8, mean_plan_time float8, stddev_plan_time float8, calls int8, total_exec_time float8, min_exec_time float8, max_exec_time float8, mean_exec_time float8, stddev_exec_time float8, rows int8, shared_blks_hit int8, shared_blks_read int8, shared_blks_dirtied int8, shared_blks_written int8, local_blks_hit int8, local_blks_read int8, local_blks_dirtied int8, local_blks_written int8, temp_blks_read int8, temp_blks_written int8, blk_read_time float8, blk_write_time float8, temp_blk_read_time float8, temp_blk_write_time float8, wal_records int8, wal_fpi int8, wal_bytes numeric, jit_functions int8, jit_generation_time float8, jit_inlining_count int8, jit_inlining_time float8, jit_optimization_count int8, jit_optimization_time float8, jit_emission_count int8, jit_emission_time float8", func(v *View) [][]any {
		rows := make([][]any, 0, len(v.Statements))
		z, zf := int64(0), float64(0)
		viewer := v.Cat.RoleByOID(v.roleOID(v.User))
		for _, s := range v.Statements {
			// As the extension: another role's statements show only
			// their counts, unless the viewer is a superuser.
			var queryID, query any = s.QueryID, s.Query
			if s.UserID != viewer.OID && !viewer.Superuser {
				queryID, query = nil, "<insufficient privilege>"
			}
			rows = append(rows, []any{int64(s.UserID), int64(DatabaseOID), true, queryID, query, z, zf, zf, zf, zf, zf,
				s.Calls, s.Total, s.Min, s.Max, s.Mean, s.Stddev, s.Rows,
				z, z, z, z, z, z, z, z, z, z, zf, zf, zf, zf, z, z, apd.New(0, 0), z, zf, z, zf, z, zf, z, zf})
		}
		return rows
	})
}
