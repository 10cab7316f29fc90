package syscat

// The statistics views of replication, with PostgreSQL 15's columns and
// no rows: cairn has no standbys, replication slots, WAL receiver or
// logical subscriptions. Monitoring dashboards (Grafana's, pgAdmin's,
// exporters) read them and must find them, empty as on a primary with
// none. inet and pg_lsn columns are text here, xid ones oid (cairn has
// neither type), as in pg_stat_activity.
func init() {
	register("pg_catalog", "pg_stat_replication", 0, "pid int4, usesysid oid, usename name, application_name text, client_addr inet, client_hostname text, client_port int4, backend_start timestamptz, backend_xmin oid, state text, sent_lsn text, write_lsn text, flush_lsn text, replay_lsn text, write_lag interval, flush_lag interval, replay_lag interval, sync_priority int4, sync_state text, reply_time timestamptz", nil)
	register("pg_catalog", "pg_replication_slots", 0, "slot_name name, plugin name, slot_type text, datoid oid, database name, temporary bool, active bool, active_pid int4, xmin oid, catalog_xmin oid, restart_lsn text, confirmed_flush_lsn text, wal_status text, safe_wal_size int8, two_phase bool", nil)
	register("pg_catalog", "pg_stat_wal_receiver", 0, "pid int4, status text, receive_start_lsn text, receive_start_tli int4, written_lsn text, flushed_lsn text, received_tli int4, last_msg_send_time timestamptz, last_msg_receipt_time timestamptz, latest_end_lsn text, latest_end_time timestamptz, slot_name text, sender_host text, sender_port int4, conninfo text", nil)
	register("pg_catalog", "pg_stat_subscription", 0, "subid oid, subname name, pid int4, relid oid, received_lsn text, last_msg_send_time timestamptz, last_msg_receipt_time timestamptz, latest_end_lsn text, latest_end_time timestamptz", nil)
}
