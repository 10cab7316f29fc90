package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRelationSizesFromDisk: after a restart has flushed a table to
// segments, pg_relation_size is its segment and manifest files' bytes,
// pg_indexes_size its text index files', pg_total_relation_size the sum,
// and pg_database_size every file of the data directory, each as the files
// on disk say.
func TestRelationSizesFromDisk(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	c := ts.connect(t)
	mustExec(t, c, `CREATE TABLE docs (id int PRIMARY KEY, body text)`)
	mustExec(t, c, `INSERT INTO docs SELECT g, 'document number ' || g FROM generate_series(1, 5000) g`)
	c.Close(context.Background())
	ts.stop()

	var main, indexes, all int64
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		all += info.Size()
		if strings.Contains(path, string(filepath.Separator)+"tables"+string(filepath.Separator)) {
			if strings.HasSuffix(path, ".bm25") {
				indexes += info.Size()
			} else {
				main += info.Size()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if main == 0 || indexes == 0 {
		t.Fatalf("after a restart docs has %d bytes of segments and %d of text index", main, indexes)
	}

	ts = startServer(t, dir)
	c = ts.connect(t)
	var rel, table, idx, total, pkey, db int64
	if err := c.QueryRow(context.Background(), `SELECT pg_relation_size('docs'), pg_table_size('docs'), pg_indexes_size('docs'),
		pg_total_relation_size('docs'), pg_relation_size('docs_pkey'), pg_database_size(current_database())`).Scan(&rel, &table, &idx, &total, &pkey, &db); err != nil {
		t.Fatal(err)
	}
	if rel != main || table != main || idx != indexes || total != main+indexes || pkey != 0 {
		t.Errorf("relation %d table %d indexes %d total %d pkey %d; the files hold %d of data and %d of index", rel, table, idx, total, pkey, main, indexes)
	}
	// The database's files: those above, the catalog and the WAL (which
	// a reopen may have checkpointed away).
	if db <= main+indexes {
		t.Errorf("pg_database_size %d, the tables' files alone %d (all files %d before the restart)", db, main+indexes, all)
	}
}

// TestStatUserTablesCounts: pg_stat_user_tables counts the scans, index
// lookups and rows written of each table, and pg_stat_database the
// transactions and tuples, as the statements run.
func TestStatUserTablesCounts(t *testing.T) {
	ts := startServer(t, "")
	c := ts.connect(t)
	ctx := context.Background()
	mustExec(t, c, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	mustExec(t, c, `CREATE TABLE quiet (id int)`)
	mustExec(t, c, `INSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g`)
	mustExec(t, c, `UPDATE t SET v = 'y' WHERE id <= 10`)
	mustExec(t, c, `DELETE FROM t WHERE id > 95`)
	mustExec(t, c, `BEGIN`)
	mustExec(t, c, `INSERT INTO t VALUES (1000, 'z')`)
	mustExec(t, c, `ROLLBACK`)
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 95 {
		t.Fatalf("count %d, %v", n, err)
	}
	var v string
	if err := c.QueryRow(ctx, `SELECT v FROM t WHERE id = 5`).Scan(&v); err != nil || v != "y" {
		t.Fatalf("row 5: %q, %v", v, err)
	}

	var seqScan, seqRead, idxScan, idxFetch, ins, upd, del, live int64
	if err := c.QueryRow(ctx, `SELECT seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_del, n_live_tup
		FROM pg_stat_user_tables WHERE relname = 't'`).Scan(&seqScan, &seqRead, &idxScan, &idxFetch, &ins, &upd, &del, &live); err != nil {
		t.Fatal(err)
	}
	// UPDATE, DELETE and count(*) scan the table: 100 + 100 + 95 rows.
	if seqScan != 3 || seqRead != 295 || idxScan != 1 || idxFetch != 1 {
		t.Errorf("seq_scan %d seq_tup_read %d idx_scan %d idx_tup_fetch %d, want 3, 295, 1, 1", seqScan, seqRead, idxScan, idxFetch)
	}
	// The rolled back insert counts, as in PostgreSQL.
	if ins != 101 || upd != 10 || del != 5 || live != 95 {
		t.Errorf("n_tup_ins %d n_tup_upd %d n_tup_del %d n_live_tup %d, want 101, 10, 5, 95", ins, upd, del, live)
	}
	var quietScans int64
	var quietIdx *int64
	if err := c.QueryRow(ctx, `SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relname = 'quiet'`).Scan(&quietScans, &quietIdx); err != nil {
		t.Fatal(err)
	}
	if quietScans != 0 || quietIdx != nil {
		t.Errorf("quiet: seq_scan %d idx_scan %v, want 0 and NULL (no index)", quietScans, quietIdx)
	}

	var commits, rollbacks, inserted, updated, deleted, backends int64
	if err := c.QueryRow(ctx, `SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, numbackends
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&commits, &rollbacks, &inserted, &updated, &deleted, &backends); err != nil {
		t.Fatal(err)
	}
	// CREATE x2, INSERT, UPDATE, DELETE, count, lookup; one ROLLBACK.
	if commits < 7 || rollbacks != 1 || inserted != 101 || updated != 10 || deleted != 5 || backends != 1 {
		t.Errorf("xact_commit %d xact_rollback %d tup_inserted %d tup_updated %d tup_deleted %d numbackends %d",
			commits, rollbacks, inserted, updated, deleted, backends)
	}
}

// TestPgStatStatements: after CREATE EXTENSION pg_stat_statements, the
// view sums the calls, rows and times of each statement under its
// normalised text (constants as $n), whether sent as text or prepared
// with parameters, and pg_stat_statements_reset() empties it.
func TestPgStatStatements(t *testing.T) {
	ts := startServer(t, "")
	c := ts.connect(t)
	ctx := context.Background()
	mustExec(t, c, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	mustExec(t, c, `CREATE TABLE kv (k int PRIMARY KEY, v text)`)
	mustExec(t, c, `INSERT INTO kv SELECT g, 'v' FROM generate_series(1, 10) g`)
	mustExec(t, c, `SELECT pg_stat_statements_reset()`)
	for i := 1; i <= 3; i++ {
		mustExec(t, c, `SELECT v FROM kv WHERE k = `+string(rune('0'+i)))
	}
	mustExec(t, c, `SELECT * FROM kv WHERE k < 5`)
	var calls, rows int64
	var total, mean, minT, maxT, stddev float64
	var id int64
	if err := c.QueryRow(ctx, `SELECT queryid, calls, rows, total_exec_time, mean_exec_time, min_exec_time, max_exec_time, stddev_exec_time
		FROM pg_stat_statements WHERE query = 'SELECT v FROM kv WHERE k = $1'`).Scan(&id, &calls, &rows, &total, &mean, &minT, &maxT, &stddev); err != nil {
		t.Fatal(err)
	}
	if calls != 3 || rows != 3 || id == 0 || total <= 0 || minT > mean || mean > maxT || stddev < 0 || mean*3 < total*0.999 || mean*3 > total*1.001 {
		t.Errorf("queryid %d calls %d rows %d total %g mean %g min %g max %g stddev %g", id, calls, rows, total, mean, minT, maxT, stddev)
	}
	if err := c.QueryRow(ctx, `SELECT calls, rows FROM pg_stat_statements WHERE query = 'SELECT * FROM kv WHERE k < $1'`).Scan(&calls, &rows); err != nil || calls != 1 || rows != 4 {
		t.Errorf("range query: calls %d rows %d, %v", calls, rows, err)
	}
	mustExec(t, c, `SELECT pg_stat_statements_reset()`)
	var n int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_statements WHERE query LIKE '%kv%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after reset %d statements on kv, %v", n, err)
	}
}

// TestPgStatStatementsPerRole: pg_stat_statements keeps each role's
// executions of a statement apart (userid), shows another role's only by
// their counts (queryid NULL, query "<insufficient privilege>") unless
// the viewer is a superuser, and only a superuser may reset it (42501),
// as the extension does. Every role used to read every statement's text
// and could empty the view for all.
func TestPgStatStatementsPerRole(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	admin := ts.connect(t)
	mustExec(t, admin, `CREATE TABLE shared (k int)`)
	mustExec(t, admin, `CREATE ROLE agent LOGIN`)
	mustExec(t, admin, `GRANT SELECT ON shared TO agent`)
	agent, err := pgx.Connect(ctx, strings.Replace(ts.connString(), "user=cairn", "user=agent", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close(ctx)
	mustExec(t, admin, `SELECT pg_stat_statements_reset()`)
	mustExec(t, admin, `SELECT count(*) FROM shared WHERE k = 1`)
	mustExec(t, agent, `SELECT count(*) FROM shared WHERE k = 2`)
	mustExec(t, agent, `SELECT count(*) FROM shared WHERE k = 3`)
	mustExec(t, admin, `SELECT k FROM shared WHERE k > 7`)

	read := func(conn *pgx.Conn) []string {
		t.Helper()
		rows, err := conn.Query(ctx, `SELECT u.rolname || ' ' || calls || ' ' || coalesce(s.query, 'NULL') || ' ' || (queryid IS NULL)
			FROM pg_stat_statements s JOIN pg_roles u ON u.oid = s.userid
			WHERE s.query LIKE '%shared%' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got, want := strings.Join(read(agent), "; "), "agent 2 SELECT count(*) FROM shared WHERE k = $1 false"; got != want {
		t.Errorf("agent sees %s, want %s", got, want)
	}
	var hidden, shown int64
	if err := agent.QueryRow(ctx, `SELECT count(*) FILTER (WHERE query = '<insufficient privilege>' AND queryid IS NULL), count(*) FILTER (WHERE query <> '<insufficient privilege>')
		FROM pg_stat_statements WHERE userid <> (SELECT oid FROM pg_roles WHERE rolname = 'agent')`).Scan(&hidden, &shown); err != nil || hidden < 2 || shown != 0 {
		t.Errorf("agent sees %d of the superuser's statements hidden, %d shown (%v); want 2 or more, 0", hidden, shown, err)
	}
	if got, want := strings.Join(read(admin), "; "), "agent 2 SELECT count(*) FROM shared WHERE k = $1 false; cairn 1 SELECT count(*) FROM shared WHERE k = $1 false; cairn 1 SELECT k FROM shared WHERE k > $1 false"; got != want {
		t.Errorf("the superuser sees %s, want %s", got, want)
	}
	if _, err := agent.Exec(ctx, `SELECT pg_stat_statements_reset()`); sqlState(err) != "42501" {
		t.Errorf("agent's pg_stat_statements_reset(): %v, want 42501", err)
	}
	if got := read(admin); len(got) != 3 {
		t.Errorf("after agent's reset the superuser sees %q", got)
	}
}

// TestXactCountsAutocommitReads: every autocommit read is a transaction
// of pg_stat_database (and cairn_transactions_total), whichever path it
// takes: a simple or extended protocol SELECT, EXPLAIN ANALYZE, COPY TO,
// a held cursor; one that fails counts as rolled back.
func TestXactCountsAutocommitReads(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	c := ts.connect(t)
	mustExec(t, c, `CREATE TABLE xr (n int)`)
	mustExec(t, c, `INSERT INTO xr VALUES (0), (1)`)
	xacts := func() (commits, rollbacks int64) {
		t.Helper()
		if err := c.QueryRow(ctx, `SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()`).Scan(&commits, &rollbacks); err != nil {
			t.Fatal(err)
		}
		return commits, rollbacks
	}
	commits0, rollbacks0 := xacts()
	for range 3 {
		if _, err := c.Exec(ctx, `SELECT n FROM xr`, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := c.QueryRow(ctx, `SELECT count(*) FROM xr WHERE n >= $1`, 0).Scan(&n); err != nil || n != 2 {
			t.Fatalf("count: %d %v", n, err)
		}
	}
	mustExec(t, c, `EXPLAIN ANALYZE SELECT * FROM xr`)
	if _, err := c.PgConn().CopyTo(ctx, io.Discard, `COPY xr TO STDOUT`); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, `DECLARE held CURSOR WITH HOLD FOR SELECT n FROM xr`)
	mustExec(t, c, `CLOSE held`)
	if _, err := c.Exec(ctx, `SELECT 1 / n FROM xr`); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1 / n: %v", err)
	}
	commits, rollbacks := xacts()
	// 3 + 3 SELECTs, EXPLAIN ANALYZE, COPY, the held cursor, CLOSE
	// (a utility statement: no transaction counted), and the first
	// reading of the view itself.
	if commits-commits0 != 10 || rollbacks-rollbacks0 != 1 {
		t.Errorf("after 9 reads and a failed one: %d more commits, %d more rollbacks", commits-commits0, rollbacks-rollbacks0)
	}
}
