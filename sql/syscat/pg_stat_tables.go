package syscat

// pg_stat_user_tables, pg_statio_user_tables and pg_stat_database: the
// engine's activity counters (kept in memory since the server started) in
// PostgreSQL 15's columns. What cairn has no such thing for is NULL:
// vacuum and analyze times and counts (a compaction is neither), HOT
// updates (0: cairn never updates in place), per-table block reads (its
// cache is per column chunk; pg_stat_database has the database's),
// temporary files, conflicts, checksums and session times.

import (
	"maps"
	"slices"
)

// TableStat is one table's counters, as pg_stat_user_tables names them;
// Live and Dead are the rows its latest committed state holds and the
// deleted rows its files still keep.
type TableStat struct {
	SeqScan, SeqTupRead, IdxScan, IdxTupFetch int64
	Inserted, Updated, Deleted                int64
	Live, Dead                                int64
}

// IndexRef names an index by its table and name.
type IndexRef struct {
	Table uint64
	Name  string
}

// IndexStat is one index's counters, as pg_stat_user_indexes names them:
// the searches through it and the live rows they fetched (idx_tup_read
// and idx_tup_fetch both: cairn's index entries point at rows it reads
// at once).
type IndexStat struct {
	Scan, TupFetch int64
}

// DatabaseStat is the database's row of pg_stat_database (tuple counts
// are the sums of TableStats).
type DatabaseStat struct {
	Commits, Rollbacks int64
	// BlocksRead and BlocksHit are the column cache's misses and hits.
	BlocksRead, BlocksHit int64
}

func init() {
	// The _all_ views list the system catalogs too in PostgreSQL; cairn
	// counts nothing for those, so they show the user tables' rows
	// (pgAdmin's statistics tab reads pg_stat_all_tables joined to
	// pg_statio_all_tables).
	const statCols = "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8"
	const statioCols = "relid oid, schemaname name, relname name, heap_blks_read int8, heap_blks_hit int8, idx_blks_read int8, idx_blks_hit int8, toast_blks_read int8, toast_blks_hit int8, tidx_blks_read int8, tidx_blks_hit int8"
	register("pg_catalog", "pg_stat_user_tables", 0, statCols, tableStatRows)
	register("pg_catalog", "pg_stat_all_tables", 0, statCols, tableStatRows)
	register("pg_catalog", "pg_statio_user_tables", 0, statioCols, tableStatioRows)
	register("pg_catalog", "pg_statio_all_tables", 0, statioCols, tableStatioRows)
	// Index searches are counted per index (a key lookup, a btree,
	// trigram, vector or hybrid index's search) and per table
	// (pg_stat_user_tables' idx_scan, with BM25 searches, which no
	// index of the catalog backs); there are no block counts (pgAdmin's
	// index statistics tab joins them).
	const indexStatCols = "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_scan int8, idx_tup_read int8, idx_tup_fetch int8"
	const indexStatioCols = "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_blks_read int8, idx_blks_hit int8"
	register("pg_catalog", "pg_stat_user_indexes", 0, indexStatCols, indexStatRows)
	register("pg_catalog", "pg_stat_all_indexes", 0, indexStatCols, indexStatRows)
	register("pg_catalog", "pg_statio_user_indexes", 0, indexStatioCols, indexStatioRows)
	register("pg_catalog", "pg_statio_all_indexes", 0, indexStatioCols, indexStatioRows)
	// The _sys_ views list only the system catalogs, which cairn keeps no
	// counts for.
	register("pg_catalog", "pg_stat_sys_tables", 0, statCols, nil)
	register("pg_catalog", "pg_statio_sys_tables", 0, statioCols, nil)
	register("pg_catalog", "pg_stat_sys_indexes", 0, indexStatCols, nil)
	register("pg_catalog", "pg_statio_sys_indexes", 0, indexStatioCols, nil)
	// The _xact_ views count the current transaction's work, which cairn
	// does not track per transaction: each user table shows zeros.
	const xactCols = "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8"
	xactRows := func(v *View) [][]any {
		rows := make([][]any, 0, len(v.tables))
		for _, t := range v.tables {
			var idxScan, idxFetch any
			if v.hasIndex(t) {
				idxScan, idxFetch = int64(0), int64(0)
			}
			rows = append(rows, []any{TableOID(t.ID), t.Schema, t.Name, int64(0), int64(0), idxScan, idxFetch, int64(0), int64(0), int64(0), int64(0)})
		}
		return rows
	}
	register("pg_catalog", "pg_stat_xact_user_tables", 0, xactCols, xactRows)
	register("pg_catalog", "pg_stat_xact_all_tables", 0, xactCols, xactRows)
	register("pg_catalog", "pg_stat_xact_sys_tables", 0, xactCols, nil)
	register("pg_catalog", "pg_stat_xact_user_functions", 0, "funcid oid, schemaname name, funcname name, calls int8, total_time float8, self_time float8", nil)
	// Sequences' block reads: cairn reads sequences from no blocks.
	const seqioCols = "relid oid, schemaname name, relname name, blks_read int8, blks_hit int8"
	seqioRows := func(v *View) [][]any {
		var rows [][]any
		for _, key := range slices.Sorted(maps.Keys(v.Cat.Sequences)) {
			s := v.Cat.Sequences[key]
			rows = append(rows, []any{SequenceOID(s.Schema, s.Name), s.Schema, s.Name, int64(0), int64(0)})
		}
		return rows
	}
	register("pg_catalog", "pg_statio_user_sequences", 0, seqioCols, seqioRows)
	register("pg_catalog", "pg_statio_all_sequences", 0, seqioCols, seqioRows)
	register("pg_catalog", "pg_statio_sys_sequences", 0, seqioCols, nil)
	// cairn keeps no column statistics and counts no function calls
	// (PostgreSQL's track_functions is off by default, which leaves
	// pg_stat_user_functions empty too).
	register("pg_catalog", "pg_stats", 0, "schemaname name, tablename name, attname name, inherited bool, null_frac float4, avg_width int4, n_distinct float4, most_common_vals text, most_common_freqs float4[], histogram_bounds text, correlation float4, most_common_elems text, most_common_elem_freqs float4[], elem_count_histogram float4[]", nil)
	register("pg_catalog", "pg_stat_user_functions", 0, "funcid oid, schemaname name, funcname name, calls int8, total_time float8, self_time float8", nil)
	register("pg_catalog", "pg_stat_database", 0, "datid oid, datname name, numbackends int4, xact_commit int8, xact_rollback int8, blks_read int8, blks_hit int8, tup_returned int8, tup_fetched int8, tup_inserted int8, tup_updated int8, tup_deleted int8, conflicts int8, temp_files int8, temp_bytes int8, deadlocks int8, checksum_failures int8, checksum_last_failure timestamptz, blk_read_time float8, blk_write_time float8, session_time float8, active_time float8, idle_in_transaction_time float8, sessions int8, sessions_abandoned int8, sessions_fatal int8, sessions_killed int8, stats_reset timestamptz", func(v *View) [][]any {
		var sum TableStat
		for _, s := range v.TableStats {
			sum.SeqTupRead += s.SeqTupRead
			sum.IdxTupFetch += s.IdxTupFetch
			sum.Inserted += s.Inserted
			sum.Updated += s.Updated
			sum.Deleted += s.Deleted
		}
		d := v.DatabaseStats
		return [][]any{{int64(DatabaseOID), v.Database, int64(len(v.Activity)), d.Commits, d.Rollbacks, d.BlocksRead, d.BlocksHit,
			sum.SeqTupRead + sum.IdxTupFetch, sum.IdxTupFetch, sum.Inserted, sum.Updated, sum.Deleted,
			int64(0), int64(0), int64(0), int64(0), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}}
	})
}

// tableStatRows are pg_stat_user_tables' rows.
func tableStatRows(v *View) [][]any {
	rows := make([][]any, 0, len(v.tables))
	for _, t := range v.tables {
		s := v.TableStats[t.ID]
		// idx_scan and idx_tup_fetch are NULL for a table without
		// indexes, as in PostgreSQL.
		var idxScan, idxFetch any
		if v.hasIndex(t) {
			idxScan, idxFetch = s.IdxScan, s.IdxTupFetch
		}
		mod := s.Inserted + s.Updated + s.Deleted
		rows = append(rows, []any{TableOID(t.ID), t.Schema, t.Name, s.SeqScan, s.SeqTupRead, idxScan, idxFetch,
			s.Inserted, s.Updated, s.Deleted, int64(0), s.Live, s.Dead, mod, s.Inserted,
			nil, nil, nil, nil, int64(0), int64(0), int64(0), int64(0)})
	}
	return rows
}

// tableStatioRows are pg_statio_user_tables' rows: no per-table block
// counts.
func tableStatioRows(v *View) [][]any {
	rows := make([][]any, 0, len(v.tables))
	for _, t := range v.tables {
		rows = append(rows, []any{TableOID(t.ID), t.Schema, t.Name, nil, nil, nil, nil, nil, nil, nil, nil})
	}
	return rows
}

// indexStatRows are pg_stat_user_indexes' rows.
func indexStatRows(v *View) [][]any {
	rows := make([][]any, 0, len(v.indexes))
	for _, ix := range v.indexes {
		s := v.IndexStats[IndexRef{Table: ix.table.ID, Name: ix.name}]
		rows = append(rows, []any{TableOID(ix.table.ID), ix.oid, ix.schema, ix.table.Name, ix.name, s.Scan, s.TupFetch, s.TupFetch})
	}
	return rows
}

// indexStatioRows are pg_statio_user_indexes' rows.
func indexStatioRows(v *View) [][]any {
	rows := make([][]any, 0, len(v.indexes))
	for _, ix := range v.indexes {
		rows = append(rows, []any{TableOID(ix.table.ID), ix.oid, ix.schema, ix.table.Name, ix.name, nil, nil})
	}
	return rows
}
