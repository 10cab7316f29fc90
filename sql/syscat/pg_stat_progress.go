package syscat

// Progress is a running COPY's or CREATE INDEX's row of
// pg_stat_progress_copy or pg_stat_progress_create_index.
type Progress struct {
	PID int32
	// Copy marks a COPY (else a CREATE INDEX); Command is PostgreSQL's
	// ("COPY FROM", "COPY TO", "CREATE INDEX"), Type a COPY's ("PIPE":
	// STDIN or STDOUT) and Phase a CREATE INDEX's.
	Copy                 bool
	Command, Type, Phase string
	// Relid is the table's OID, IndexRelid the index's.
	Relid, IndexRelid int64
	// Bytes and BytesTotal are a COPY's bytes processed and expected (0:
	// unknown, as from STDIN), Tuples and Excluded its rows processed and
	// excluded by WHERE; TuplesTotal a CREATE INDEX's rows to index and
	// Tuples those indexed.
	Bytes, BytesTotal, Tuples, Excluded, TuplesTotal int64
}

func init() {
	// PostgreSQL 15's columns.
	register("pg_catalog", "pg_stat_progress_copy", 0, "pid int4, datid oid, datname name, relid oid, command text, type text, bytes_processed int8, bytes_total int8, tuples_processed int8, tuples_excluded int8", func(v *View) [][]any {
		var rows [][]any
		for _, p := range v.Progress {
			if p.Copy {
				rows = append(rows, []any{int64(p.PID), int64(DatabaseOID), v.Database, p.Relid, p.Command, p.Type, p.Bytes, p.BytesTotal, p.Tuples, p.Excluded})
			}
		}
		return rows
	})
	// VACUUM has nothing to do in cairn (Vacuum), so never a row; nor
	// has ANALYZE or CLUSTER, and cairn takes no base backups.
	register("pg_catalog", "pg_stat_progress_analyze", 0, "pid int4, datid oid, datname name, relid oid, phase text, sample_blks_total int8, sample_blks_scanned int8, ext_stats_total int8, ext_stats_computed int8, child_tables_total int8, child_tables_done int8, current_child_table_relid oid", nil)
	register("pg_catalog", "pg_stat_progress_cluster", 0, "pid int4, datid oid, datname name, relid oid, command text, phase text, cluster_index_relid oid, heap_tuples_scanned int8, heap_tuples_written int8, heap_blks_total int8, heap_blks_scanned int8, index_rebuild_count int8", nil)
	register("pg_catalog", "pg_stat_progress_basebackup", 0, "pid int4, phase text, backup_total int8, backup_streamed int8, tablespaces_total int8, tablespaces_streamed int8", nil)
	register("pg_catalog", "pg_stat_progress_vacuum", 0, "pid int4, datid oid, datname name, relid oid, phase text, heap_blks_total int8, heap_blks_scanned int8, heap_blks_vacuumed int8, index_vacuum_count int8, max_dead_tuples int8, num_dead_tuples int8", nil)
	register("pg_catalog", "pg_stat_progress_create_index", 0, "pid int4, datid oid, datname name, relid oid, index_relid oid, command text, phase text, lockers_total int8, lockers_done int8, current_locker_pid int8, blocks_total int8, blocks_done int8, tuples_total int8, tuples_done int8, partitions_total int8, partitions_done int8", func(v *View) [][]any {
		var rows [][]any
		for _, p := range v.Progress {
			if !p.Copy {
				rows = append(rows, []any{int64(p.PID), int64(DatabaseOID), v.Database, p.Relid, p.IndexRelid, p.Command, p.Phase,
					int64(0), int64(0), int64(0), int64(0), int64(0), p.TuplesTotal, p.Tuples, int64(0), int64(0)})
			}
		}
		return rows
	})
}
