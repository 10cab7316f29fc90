package syscat

import (
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
)

// pg_catalog's views of the server itself that monitoring tools, pgAdmin
// and psql read, with PostgreSQL 15's columns: the background writer's
// and WAL archiver's counters (one row, zeros: cairn has neither
// process), recovery conflicts per database (none: cairn has no
// standbys), the roles as the old pg_group and pg_shadow views show them,
// the configuration files' contents (cairn reads no postgresql.conf nor
// pg_hba.conf, so both are empty), pg_config (the server's version
// alone: cairn is not built from PostgreSQL's tree), the versions of the
// built-in extensions, the rules of pg_rules (a view's ON SELECT rule is
// not listed there, and cairn has no others) and the dependencies of
// shared objects (pg_shdepend, empty as in a fresh cluster).

func init() {
	const pc = "pg_catalog"
	register(pc, "pg_stat_bgwriter", 0, "checkpoints_timed int8, checkpoints_req int8, checkpoint_write_time float8, checkpoint_sync_time float8, buffers_checkpoint int8, buffers_clean int8, maxwritten_clean int8, buffers_backend int8, buffers_backend_fsync int8, buffers_alloc int8, stats_reset timestamptz", func(v *View) [][]any {
		return [][]any{{int64(0), int64(0), float64(0), float64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), nil}}
	})
	register(pc, "pg_stat_archiver", 0, "archived_count int8, last_archived_wal text, last_archived_time timestamptz, failed_count int8, last_failed_wal text, last_failed_time timestamptz, stats_reset timestamptz", func(v *View) [][]any {
		return [][]any{{int64(0), nil, nil, int64(0), nil, nil, nil}}
	})
	register(pc, "pg_stat_database_conflicts", 0, "datid oid, datname name, confl_tablespace int8, confl_lock int8, confl_snapshot int8, confl_bufferpin int8, confl_deadlock int8", func(v *View) [][]any {
		return [][]any{{int64(DatabaseOID), v.Database, int64(0), int64(0), int64(0), int64(0), int64(0)}}
	})
	register(pc, "pg_group", 0, "groname name, grosysid oid, grolist oid[]", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			if r.Login {
				continue
			}
			var members []int64
			for _, m := range v.Cat.Members {
				if m.Role == r.OID {
					members = append(members, int64(m.Member))
				}
			}
			rows = append(rows, []any{r.Name, int64(r.OID), oids(members...)})
		}
		return rows
	})
	register(pc, "pg_shadow", 0, "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.Cat.RoleList() {
			if !r.Login {
				continue
			}
			bootstrap := r.OID == catalog.BootstrapRoleOID
			rows = append(rows, []any{r.Name, int64(r.OID), r.CreateDB, r.Superuser, bootstrap, bootstrap || r.BypassRLS, nullIfEmpty(r.Password), validUntil(r), roleConfig(r)})
		}
		return rows
	})
	// cairn writes no WAL of PostgreSQL's kind, keeps no SLRU caches,
	// replication slots, subscriptions or replication origins and
	// replays no WAL: the WAL and recovery prefetch counters are one row
	// of zeros, the others have no rows.
	register(pc, "pg_stat_wal", 0, "wal_records int8, wal_fpi int8, wal_bytes numeric, wal_buffers_full int8, wal_write int8, wal_sync int8, wal_write_time float8, wal_sync_time float8, stats_reset timestamptz", func(v *View) [][]any {
		return [][]any{{int64(0), int64(0), apd.New(0, 0), int64(0), int64(0), int64(0), float64(0), float64(0), nil}}
	})
	register(pc, "pg_stat_recovery_prefetch", 0, "stats_reset timestamptz, prefetch int8, hit int8, skip_init int8, skip_new int8, skip_fpw int8, skip_rep int8, wal_distance int4, block_distance int4, io_depth int4", func(v *View) [][]any {
		return [][]any{{nil, int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)}}
	})
	register(pc, "pg_stat_slru", 0, "name text, blks_zeroed int8, blks_hit int8, blks_read int8, blks_written int8, blks_exists int8, flushes int8, truncates int8, stats_reset timestamptz", nil)
	register(pc, "pg_stat_replication_slots", 0, "slot_name text, spill_txns int8, spill_count int8, spill_bytes int8, stream_txns int8, stream_count int8, stream_bytes int8, total_txns int8, total_bytes int8, stats_reset timestamptz", nil)
	register(pc, "pg_stat_subscription_stats", 0, "subid oid, subname name, apply_error_count int8, sync_error_count int8, stats_reset timestamptz", nil)
	register(pc, "pg_publication_tables", 0, "pubname name, schemaname name, tablename name, attnames name[], rowfilter text", nil)
	register(pc, "pg_replication_origin", 6000, "roident oid, roname text", nil)
	register(pc, "pg_ident_file_mappings", 0, "line_number int4, map_name text, sys_name text, pg_username text, error text", nil)
	register(pc, "pg_hba_file_rules", 0, "line_number int4, type text, database text[], user_name text[], address text, netmask text, auth_method text, options text[], error text", nil)
	register(pc, "pg_file_settings", 0, "sourcefile text, sourceline int4, seqno int4, name text, setting text, applied bool, error text", nil)
	register(pc, "pg_config", 0, "name text, setting text", func(v *View) [][]any {
		version, _, _ := strings.Cut(functions.Version, " (")
		return [][]any{{"VERSION", version}}
	})
	register(pc, "pg_available_extension_versions", 0, "name name, version text, installed bool, superuser bool, trusted bool, relocatable bool, schema name, requires name[], comment text", func(v *View) [][]any {
		var rows [][]any
		for _, e := range extensions {
			rows = append(rows, []any{e.name, e.version, true, true, false, false, e.schema, nil, e.comment})
		}
		return rows
	})
	register(pc, "pg_rules", 0, "schemaname name, tablename name, rulename name, definition text", nil)
	register(pc, "pg_shdepend", 1214, "dbid oid, classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, deptype \"char\"", nil)
}
