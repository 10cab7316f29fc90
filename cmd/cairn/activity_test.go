package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cairn-db/cairn/wire"
)

// activityRow is what the tests read of a pg_stat_activity row.
type activityRow struct {
	pid                                  int32
	user, db, app, state, query, backend string
	clientAddr, waitType, wait           *string
	clientPort                           *int32
	backendStart, xactStart, queryStart  *time.Time
	stateChange                          *time.Time
	leaderPID                            *int32
	queryID                              *int64
}

// activityOf reads pid's row of pg_stat_activity through conn; ok is
// false when there is none.
func activityOf(t *testing.T, conn *pgx.Conn, pid uint32) (r activityRow, ok bool) {
	t.Helper()
	err := conn.QueryRow(context.Background(), `SELECT pid, usename, datname, application_name, state, query, backend_type,
		host(client_addr), wait_event_type, wait_event, client_port, backend_start, xact_start, query_start, state_change, leader_pid, query_id
		FROM pg_stat_activity WHERE pid = $1`, int32(pid)).Scan(
		&r.pid, &r.user, &r.db, &r.app, &r.state, &r.query, &r.backend,
		&r.clientAddr, &r.waitType, &r.wait, &r.clientPort, &r.backendStart, &r.xactStart, &r.queryStart, &r.stateChange, &r.leaderPID, &r.queryID)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false
	}
	if err != nil {
		t.Fatalf("reading pg_stat_activity: %v", err)
	}
	return r, true
}

// waitActivity polls pid's row until cond holds, failing after 5s.
func waitActivity(t *testing.T, conn *pgx.Conn, pid uint32, what string, cond func(r activityRow, ok bool) bool) activityRow {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, ok := activityOf(t, conn, pid)
		if cond(r, ok) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d: waited 5s for %s; last row %+v (present %v)", pid, what, r, ok)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func inState(state, query string) func(activityRow, bool) bool {
	return func(r activityRow, ok bool) bool { return ok && r.state == state && strings.Contains(r.query, query) }
}

// TestPgStatActivity: two sessions see each other in pg_stat_activity,
// idle, active while a statement runs, idle in a transaction (aborted
// or not), waiting for advisory and row locks; pg_backend_pid() is the
// pid the connection announced and the row shows; psql's usual query and
// HTTP API requests are there too.
func TestPgStatActivity(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	apid, bpid := a.PgConn().PID(), b.PgConn().PID()
	if apid == bpid {
		t.Fatalf("two connections share pid %d", apid)
	}
	var own int32
	if err := a.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&own); err != nil || uint32(own) != apid {
		t.Fatalf("pg_backend_pid() = %d, %v; BackendKeyData said %d", own, err, apid)
	}
	mustExec(t, a, `SET application_name = 'alpha'`)

	// a is idle, its last statement shown; b sees itself active.
	r := waitActivity(t, b, apid, "idle", inState("idle", "SET application_name = 'alpha'"))
	if r.user != "cairn" || r.db != "cairn" || r.app != "alpha" || r.backend != "client backend" ||
		r.clientAddr == nil || *r.clientAddr != "127.0.0.1" || r.clientPort == nil || *r.clientPort <= 0 ||
		r.backendStart == nil || r.queryStart == nil || r.stateChange == nil || r.xactStart != nil ||
		r.waitType != nil || r.wait != nil || r.leaderPID != nil || r.queryID != nil {
		t.Errorf("idle session's row: %+v", r)
	}
	if time.Since(*r.backendStart) > time.Minute || r.stateChange.Before(*r.queryStart) {
		t.Errorf("times of the idle session: backend_start %v query_start %v state_change %v", r.backendStart, r.queryStart, r.stateChange)
	}
	self, ok := activityOf(t, b, bpid)
	if !ok || self.state != "active" || !strings.Contains(self.query, "FROM pg_stat_activity") || self.xactStart == nil {
		t.Errorf("the reading session's own row: %+v (present %v)", self, ok)
	}

	// Active while pg_sleep runs.
	done := make(chan error, 1)
	go func() {
		_, err := a.Exec(ctx, `SELECT pg_sleep(2)`)
		done <- err
	}()
	r = waitActivity(t, b, apid, "active pg_sleep", inState("active", "SELECT pg_sleep(2)"))
	if r.xactStart == nil || r.queryStart == nil || r.xactStart.After(*r.queryStart) || r.waitType != nil {
		t.Errorf("active session's row: %+v", r)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitActivity(t, b, apid, "idle after pg_sleep", inState("idle", "SELECT pg_sleep(2)"))

	// Idle in transaction, with the transaction's start; aborted after an
	// error; idle again after ROLLBACK.
	mustExec(t, a, `BEGIN`)
	began := time.Now()
	mustExec(t, a, `SELECT 1`)
	r = waitActivity(t, b, apid, "idle in transaction", inState("idle in transaction", "SELECT 1"))
	if r.xactStart == nil || r.xactStart.After(began) || r.queryStart.Before(*r.xactStart) {
		t.Errorf("idle in transaction: xact_start %v, query_start %v, BEGIN done at %v", r.xactStart, r.queryStart, began)
	}
	if _, err := a.Exec(ctx, `SELECT 1/0`); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1/0: %v", err)
	}
	waitActivity(t, b, apid, "aborted", inState("idle in transaction (aborted)", "SELECT 1/0"))
	mustExec(t, a, `ROLLBACK`)
	r = waitActivity(t, b, apid, "idle after ROLLBACK", inState("idle", "ROLLBACK"))
	if r.xactStart != nil {
		t.Errorf("xact_start after ROLLBACK: %v", r.xactStart)
	}

	// Lock waits: an advisory lock, then a row lock.
	c := ts.connect(t)
	cpid := c.PgConn().PID()
	mustExec(t, b, `SELECT pg_advisory_lock(7)`)
	go func() {
		_, err := c.Exec(ctx, `SELECT pg_advisory_lock(7)`)
		done <- err
	}()
	r = waitActivity(t, a, cpid, "advisory lock wait", inState("active", "pg_advisory_lock(7)"))
	for r.wait == nil {
		r = waitActivity(t, a, cpid, "advisory lock wait", inState("active", "pg_advisory_lock(7)"))
	}
	if *r.waitType != "Lock" || *r.wait != "advisory" {
		t.Errorf("advisory lock wait: %v / %v", *r.waitType, *r.wait)
	}
	mustExec(t, b, `SELECT pg_advisory_unlock(7)`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, `SELECT pg_advisory_unlock(7)`)
	mustExec(t, a, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	mustExec(t, a, `INSERT INTO t VALUES (1, 'x')`)
	mustExec(t, b, `BEGIN`)
	mustExec(t, b, `UPDATE t SET v = 'b' WHERE id = 1`)
	go func() {
		_, err := c.Exec(ctx, `UPDATE t SET v = 'c' WHERE id = 1`)
		done <- err
	}()
	r = waitActivity(t, a, cpid, "row lock wait", func(r activityRow, ok bool) bool {
		return ok && r.state == "active" && r.wait != nil
	})
	if *r.waitType != "Lock" || *r.wait != "transactionid" {
		t.Errorf("row lock wait: %v / %v", *r.waitType, *r.wait)
	}
	mustExec(t, b, `COMMIT`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r = waitActivity(t, a, cpid, "idle after the wait", inState("idle", "UPDATE t SET v = 'c'"))
	if r.wait != nil {
		t.Errorf("wait_event after the wait: %v", *r.wait)
	}

	// psql's query.
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	host, port, _ := strings.Cut(ts.Addr, ":")
	out, err := exec.Command(psql, "-X", "-A", "-t", "-h", host, "-p", port, "-U", "cairn", "-d", "cairn",
		"-c", `SELECT pid, usename, state, query FROM pg_stat_activity ORDER BY pid`).CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	for _, want := range []string{
		fmt.Sprintf("%d|cairn|idle|SELECT pid, usename, datname, application_name", apid), // a's last poll
		fmt.Sprintf("%d|cairn|idle|COMMIT", bpid),
		"|cairn|active|SELECT pid, usename, state, query FROM pg_stat_activity ORDER BY pid",
		fmt.Sprintf("%d|cairn|idle|UPDATE t SET v = 'c' WHERE id = 1", cpid),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("psql's pg_stat_activity lacks %q:\n%s", want, out)
		}
	}

	// An HTTP request's session is listed while it runs, as cairn-http.
	api := startHTTP(t, ts, wire.HTTPOptions{})
	httpDone := make(chan struct{})
	go func() {
		defer close(httpDone)
		api.query("ws", `SELECT pg_sleep(1)`)
	}()
	var hpid int32
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := a.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = 'cairn-http' AND state = 'active' AND query = 'SELECT pg_sleep(1)' AND client_addr = '127.0.0.1'`).Scan(&hpid)
		if err == nil {
			break
		}
		if !errors.Is(err, pgx.ErrNoRows) || time.Now().After(deadline) {
			t.Fatalf("the HTTP request's session: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	<-httpDone
	waitActivity(t, a, uint32(hpid), "the HTTP session gone", func(_ activityRow, ok bool) bool { return !ok })
}

// TestCancelTerminateBackend: pg_cancel_backend stops another session's
// statement with 57014 and leaves the session usable;
// pg_terminate_backend ends it with FATAL 57P01, running or idle, with
// or without waiting; an unknown pid gets false and PostgreSQL's warning;
// an HTTP request's statement is cancelled the same way.
func TestCancelTerminateBackend(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	b, takeNotices := noticeConn(t, ts)
	signal := func(sql string, args ...any) bool {
		t.Helper()
		var ok bool
		if err := b.QueryRow(ctx, sql, args...).Scan(&ok); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return ok
	}
	sleep := func(conn *pgx.Conn) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := conn.Exec(ctx, `SELECT pg_sleep(30)`)
			done <- err
		}()
		waitActivity(t, b, conn.PgConn().PID(), "pg_sleep running", inState("active", "pg_sleep(30)"))
		return done
	}
	within := func(done chan error, what string) error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the statement still runs after 5s", what)
			return nil
		}
	}

	// Cancel: 57014, and the session goes on.
	a := ts.connect(t)
	apid := a.PgConn().PID()
	done := sleep(a)
	if !signal(`SELECT pg_cancel_backend($1)`, int32(apid)) {
		t.Fatal("pg_cancel_backend returned false for a running session")
	}
	if err := within(done, "pg_cancel_backend"); sqlState(err) != "57014" || !strings.Contains(err.Error(), "canceling statement due to user request") {
		t.Fatalf("cancelled pg_sleep: %v", err)
	}
	var one int
	if err := a.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("session after pg_cancel_backend: %v", err)
	}
	// Cancelling an idle session does nothing to it.
	if !signal(`SELECT pg_cancel_backend($1)`, int32(apid)) {
		t.Fatal("pg_cancel_backend returned false for an idle session")
	}
	if err := a.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		t.Fatalf("idle session after pg_cancel_backend: %v", err)
	}

	// Terminate a running statement: FATAL 57P01, the session is gone.
	done = sleep(a)
	if !signal(`SELECT pg_terminate_backend($1)`, int32(apid)) {
		t.Fatal("pg_terminate_backend returned false for a running session")
	}
	err := within(done, "pg_terminate_backend")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" || pe.Message != "terminating connection due to administrator command" {
		t.Fatalf("terminated pg_sleep: %v", err)
	}
	waitActivity(t, b, apid, "the terminated session gone", func(_ activityRow, ok bool) bool { return !ok })
	if _, err := a.Exec(ctx, `SELECT 1`); err == nil {
		t.Fatal("a terminated connection still answers")
	}

	// Terminate an idle session, waiting for it to end.
	a = ts.connect(t)
	apid = a.PgConn().PID()
	if !signal(`SELECT pg_terminate_backend($1, 5000)`, int32(apid)) {
		t.Fatal("pg_terminate_backend with a timeout returned false for an idle session")
	}
	if _, ok := activityOf(t, b, apid); ok {
		t.Fatal("pg_terminate_backend(pid, 5000) returned before the session ended")
	}
	if _, err := a.Exec(ctx, `SELECT 1`); err == nil {
		t.Fatal("a terminated idle connection still answers")
	}

	// A session terminating itself.
	a = ts.connect(t)
	_, err = a.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`)
	if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" {
		t.Fatalf("pg_terminate_backend(pg_backend_pid()): %v", err)
	}

	// Unknown pids and a negative timeout, as PostgreSQL answers them.
	if signal(`SELECT pg_cancel_backend(1)`) || signal(`SELECT pg_terminate_backend(2)`) || signal(`SELECT pg_terminate_backend(3, 10)`) {
		t.Fatal("signalling an unknown pid returned true")
	}
	want := []string{"WARNING 01000 PID 1 is not a PostgreSQL backend process", "WARNING 01000 PID 2 is not a PostgreSQL backend process", "WARNING 01000 PID 3 is not a PostgreSQL backend process"}
	if notices := takeNotices(); fmt.Sprint(notices) != fmt.Sprint(want) {
		t.Errorf("warnings %q, want %q", notices, want)
	}
	if _, err := b.Exec(ctx, `SELECT pg_terminate_backend(1, -1)`); sqlState(err) != "22023" || !strings.Contains(err.Error(), `"timeout" must not be negative`) {
		t.Errorf("negative timeout: %v", err)
	}

	// An HTTP request's statement, cancelled by its pid.
	api := startHTTP(t, ts, wire.HTTPOptions{})
	type answer struct {
		status int
		body   string
	}
	httpDone := make(chan answer, 1)
	go func() {
		status, _, out := api.do("POST", "/workspaces/ws/tables/query", map[string]any{"query": "SELECT pg_sleep(30)"})
		httpDone <- answer{status, string(out)}
	}()
	var hpid int32
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := b.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = 'cairn-http' AND state = 'active'`).Scan(&hpid)
		if err == nil {
			break
		}
		if !errors.Is(err, pgx.ErrNoRows) || time.Now().After(deadline) {
			t.Fatalf("the HTTP request's session: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !signal(`SELECT pg_cancel_backend($1)`, hpid) {
		t.Fatal("pg_cancel_backend returned false for an HTTP session")
	}
	select {
	case ans := <-httpDone:
		if ans.status == http.StatusOK || !strings.Contains(ans.body, "57014") {
			t.Fatalf("cancelled HTTP request: %d %s", ans.status, ans.body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled HTTP request still runs after 5s")
	}
}

// TestDisconnectCancelsStatement: a client that goes away while its
// statement runs (the agent that gave up after 1.5 s) frees its session
// within a second or two instead of leaving the statement to run to its
// end, over the wire and over HTTP.
func TestDisconnectCancelsStatement(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	b := ts.connect(t)
	a := ts.connect(t)
	apid := a.PgConn().PID()
	go a.Exec(ctx, `SELECT pg_sleep(60)`)
	waitActivity(t, b, apid, "pg_sleep running", inState("active", "pg_sleep(60)"))
	gone := time.Now()
	a.PgConn().Conn().Close()
	waitActivity(t, b, apid, "the abandoned session gone", func(_ activityRow, ok bool) bool { return !ok })
	if d := time.Since(gone); d > 2*time.Second {
		t.Errorf("the abandoned session lasted %v after its client left", d)
	}

	// Over HTTP: a client that gives up after 300ms.
	api := startHTTP(t, ts, wire.HTTPOptions{})
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, "POST", api.base+"/workspaces/ws/tables/query", strings.NewReader(`{"query": "SELECT pg_sleep(60)"}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the HTTP request was answered: %d", resp.StatusCode)
	}
	gone = time.Now()
	var n int
	for {
		if err := b.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cairn-http'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if d := time.Since(gone); d > 2*time.Second {
			t.Fatalf("the abandoned HTTP request's session lasted %v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetrics: GET /metrics answers in the Prometheus text format, as the
// Prometheus client's own parser reads it, behind the API's token: the
// sessions by state, statements by kind with their latency histogram,
// searches by kind with theirs and the rows they examined, commits with
// the WAL's fsync latency and group commit batches, segments, compactions
// and index builds, goroutines and Go memory.
func TestMetrics(t *testing.T) {
	ts := startServer(t, "")
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE m (id int PRIMARY KEY)`)
	mustExec(t, a, `INSERT INTO m VALUES (1), (2)`)
	mustExec(t, a, `SELECT * FROM m`)
	mustExec(t, a, `SELECT * FROM m WHERE id = 2`)
	mustExec(t, b, `BEGIN`)
	mustExec(t, b, `SELECT 1`)

	// Searches of every kind over a table of segments.
	mustExec(t, a, `CREATE TABLE notes (id int PRIMARY KEY, body text, emb real[]) USING deeplake`)
	for i := 0; i < 12; i++ {
		mustExec(t, a, fmt.Sprintf(`INSERT INTO notes SELECT g, (ARRAY['fix','deploy','tune'])[1 + g %% 3] || ' parser ' || g, ARRAY[sin(g), cos(g), sin(g * 0.3)]::real[] FROM generate_series(%d, %d) g`, i*100+1, i*100+100))
		// A segment each: more than 8 make the worker compact them.
		if err := ts.db.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ts.db.Counters().Compactions == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no compaction of 12 segments")
		}
	}
	search := func(kind, query, plan string) {
		t.Helper()
		var lines []string
		rows, err := a.Query(context.Background(), "EXPLAIN "+query)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var l string
			rows.Scan(&l)
			lines = append(lines, l)
		}
		if err := rows.Err(); err != nil || !strings.Contains(strings.Join(lines, "\n"), plan) {
			t.Fatalf("the %s search's plan has no %q: %v %v", kind, plan, lines, err)
		}
		mustExec(t, a, query)
	}
	search("exact", `SELECT id FROM notes ORDER BY emb <#> '{1,0,0}' LIMIT 5`, "Seq Scan on notes")
	mustExec(t, a, `CREATE INDEX notes_hnsw ON notes USING hnsw (emb vector_cosine_ops)`)
	mustExec(t, a, `CREATE INDEX notes_trgm ON notes USING gin (body gin_trgm_ops)`)
	search("vector", `SELECT id FROM notes ORDER BY emb <#> '{1,0,0}' LIMIT 5`, "Vector Index Scan")
	search("bm25", `SELECT id, body <#> 'deploy parser' AS score FROM notes ORDER BY score LIMIT 5`, "Text Index Scan")
	search("hybrid", `SELECT id, (emb, body)::deeplake_hybrid_record <#> deeplake_hybrid_record('{1,0,0}'::real[], 'tune', 0.5, 0.5) AS score FROM notes ORDER BY score DESC LIMIT 5`, "Hybrid Index Scan")
	search("trigram", `SELECT id FROM notes WHERE body LIKE '%parser 77%'`, "notes_trgm")
	mustExec(t, a, `CREATE INDEX notes_body ON notes (body)`)
	search("btree", `SELECT id FROM notes WHERE body = 'x'`, "notes_body")

	api := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret"})
	open := &httpAPI{t: t, base: api.base}
	if status, _, _ := open.do("GET", "/metrics", nil); status != http.StatusUnauthorized {
		t.Fatalf("/metrics without the token: %d", status)
	}
	status, hdr, out := api.do("GET", "/metrics", nil)
	if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", status, hdr.Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, out)
	}
	value := func(name string, labels map[string]string) (float64, *dto.Metric) {
		t.Helper()
		f := families[name]
		if f == nil {
			t.Fatalf("/metrics has no %s", name)
		}
	next:
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue next
				}
			}
			switch {
			case m.Gauge != nil:
				return m.Gauge.GetValue(), m
			case m.Counter != nil:
				return m.Counter.GetValue(), m
			}
			return 0, m
		}
		t.Fatalf("/metrics has no %s%v", name, labels)
		return 0, nil
	}
	if v, _ := value("cairn_sessions", map[string]string{"state": "idle"}); v != 1 {
		t.Errorf("idle sessions: %v", v)
	}
	if v, _ := value("cairn_sessions", map[string]string{"state": "idle in transaction"}); v != 1 {
		t.Errorf("idle in transaction sessions: %v", v)
	}
	if v, _ := value("cairn_sessions", map[string]string{"state": "active"}); v != 0 {
		t.Errorf("active sessions: %v", v)
	}
	if v, _ := value("cairn_commits_total", nil); v < 2 {
		t.Errorf("commits after CREATE TABLE and INSERT: %v", v)
	}
	for kind, least := range map[string]uint64{"select": 2, "insert": 1, "ddl": 1, "transaction": 1} {
		_, m := value("cairn_statement_duration_seconds", map[string]string{"kind": kind})
		h := m.GetHistogram()
		if h == nil || h.GetSampleCount() < least || h.GetSampleSum() <= 0 || len(h.GetBucket()) == 0 {
			t.Errorf("%s statements' histogram: %v", kind, h)
		}
	}
	if v, _ := value("cairn_index_searches_total", map[string]string{"kind": "key"}); v < 1 {
		t.Errorf("key lookups after SELECT ... WHERE id = 2: %v", v)
	}
	if v, _ := value("cairn_index_searches_total", map[string]string{"kind": "vector"}); v != 1 {
		t.Errorf("vector index searches: %v", v)
	}
	if v, _ := value("cairn_transactions_total", map[string]string{"result": "commit"}); v < 2 {
		t.Errorf("transactions committed after CREATE TABLE and INSERT: %v", v)
	}
	if v, _ := value("cairn_cache_budget_bytes", nil); v <= 0 {
		t.Errorf("cache budget: %v", v)
	}
	value("cairn_cache_bytes", nil)
	value("cairn_cache_lookups_total", map[string]string{"result": "hit"})
	for kind, least := range map[string]float64{"exact": 1200, "vector": 5, "bm25": 5, "hybrid": 5, "trigram": 1, "btree": 0} {
		_, m := value("cairn_search_duration_seconds", map[string]string{"kind": kind})
		if h := m.GetHistogram(); h == nil || h.GetSampleCount() != 1 || h.GetSampleSum() <= 0 {
			t.Errorf("%s searches' histogram: %v", kind, h)
		}
		if v, _ := value("cairn_search_rows_total", map[string]string{"kind": kind}); v < least {
			t.Errorf("rows %s searches examined: %v, want at least %v", kind, v, least)
		}
	}
	_, m := value("cairn_wal_fsync_duration_seconds", nil)
	if h := m.GetHistogram(); h == nil || h.GetSampleCount() < 15 || h.GetSampleSum() <= 0 {
		t.Errorf("WAL fsyncs' histogram: %v", h)
	}
	_, m = value("cairn_group_commit_records", nil)
	if h := m.GetHistogram(); h == nil || h.GetSampleCount() < 15 || h.GetSampleSum() < float64(h.GetSampleCount()) {
		t.Errorf("group commit batches' histogram: %v", h)
	}
	if v, _ := value("cairn_segments", nil); v < 1 || v > 12 {
		t.Errorf("segments of a table of 1200 rows flushed every 100 rows, then compacted: %v", v)
	}
	if v, _ := value("cairn_index_builds_total", map[string]string{"kind": "vector"}); v < 1 {
		t.Errorf("vector index builds after CREATE INDEX over segments: %v", v)
	}
	if v, _ := value("cairn_index_builds_total", map[string]string{"kind": "trigram"}); v < 1 {
		t.Errorf("trigram index builds after CREATE INDEX over segments: %v", v)
	}
	if v, _ := value("cairn_index_builds_total", map[string]string{"kind": "btree"}); v < 1 {
		t.Errorf("btree key index builds after CREATE INDEX over segments: %v", v)
	}
	if v, _ := value("cairn_key_index_bytes", nil); v <= 0 {
		t.Errorf("key index memory: %v", v)
	}
	if v, _ := value("cairn_compactions_total", nil); v < 1 {
		t.Errorf("compactions: %v", v)
	}
	if v, _ := value("go_goroutines", nil); v < 1 {
		t.Errorf("go_goroutines: %v", v)
	}
	if v, _ := value("go_memstats_heap_alloc_bytes", nil); v <= 0 {
		t.Errorf("go_memstats_heap_alloc_bytes: %v", v)
	}
}

// TestActivityOfOtherRoles: a role sees the sessions of roles whose
// privileges it lacks in pg_stat_activity only by who they are (query
// "<insufficient privilege>", state and times NULL), and may not cancel
// or terminate them (42501), as in PostgreSQL: any role used to read a
// superuser's running statement, literals and all, and cancel it.
func TestActivityOfOtherRoles(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	admin := ts.connect(t)
	for _, q := range []string{"CREATE ROLE alice LOGIN", "CREATE ROLE bob LOGIN"} {
		mustExec(t, admin, q)
	}
	connectAs := func(role string) *pgx.Conn {
		t.Helper()
		conn, err := pgx.Connect(ctx, strings.Replace(ts.connString(), "user=cairn", "user="+role, 1))
		if err != nil {
			t.Fatalf("connect as %s: %v", role, err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		return conn
	}
	alice := connectAs("alice")
	sleep := func(conn *pgx.Conn, secret string) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := conn.Exec(ctx, `SELECT pg_sleep(30), '`+secret+`'`)
			done <- err
		}()
		waitActivity(t, admin, conn.PgConn().PID(), "pg_sleep running", inState("active", secret))
		return done
	}
	var query string
	var state, addr *string
	look := func(pid uint32) {
		t.Helper()
		if err := alice.QueryRow(ctx, `SELECT query, state, host(client_addr) FROM pg_stat_activity WHERE pid = $1`, int32(pid)).Scan(&query, &state, &addr); err != nil {
			t.Fatal(err)
		}
	}
	signal := func(fn string, pid uint32) error {
		var ok bool
		return alice.QueryRow(ctx, `SELECT `+fn+`($1)`, int32(pid)).Scan(&ok)
	}

	superSession := ts.connect(t)
	superDone := sleep(superSession, "super-secret")
	look(superSession.PgConn().PID())
	if query != "<insufficient privilege>" || state != nil || addr != nil {
		t.Errorf("alice sees the superuser's session as %q, state %v, client_addr %v", query, state, addr)
	}
	for fn, msg := range map[string]string{
		"pg_cancel_backend":    "must be a superuser to cancel superuser query",
		"pg_terminate_backend": "must be a superuser to terminate superuser process",
	} {
		if err := signal(fn, superSession.PgConn().PID()); sqlState(err) != "42501" || !strings.Contains(err.Error(), msg) {
			t.Errorf("alice's %s of a superuser's session: %v", fn, err)
		}
	}

	bob := connectAs("bob")
	bobDone := sleep(bob, "bob-secret")
	look(bob.PgConn().PID())
	if query != "<insufficient privilege>" {
		t.Errorf("alice sees bob's session as %q", query)
	}
	if err := signal("pg_cancel_backend", bob.PgConn().PID()); sqlState(err) != "42501" {
		t.Errorf("alice's pg_cancel_backend of bob's session: %v", err)
	}
	// A member of bob has his privileges: sees and cancels his statement.
	mustExec(t, admin, "GRANT bob TO alice")
	look(bob.PgConn().PID())
	if query != "SELECT pg_sleep(30), 'bob-secret'" || state == nil || *state != "active" {
		t.Errorf("bob's member alice sees his session as %q, state %v", query, state)
	}
	if err := signal("pg_cancel_backend", bob.PgConn().PID()); err != nil {
		t.Errorf("bob's member alice cancelling his statement: %v", err)
	}
	if err := <-bobDone; sqlState(err) != "57014" {
		t.Errorf("bob's statement after alice's cancel: %v", err)
	}
	// Her own session she always sees.
	look(alice.PgConn().PID())
	if !strings.Contains(query, "pg_stat_activity") {
		t.Errorf("alice sees her own session as %q", query)
	}

	var ok bool
	if err := admin.QueryRow(ctx, `SELECT pg_cancel_backend($1)`, int32(superSession.PgConn().PID())).Scan(&ok); err != nil || !ok {
		t.Fatalf("the superuser's pg_cancel_backend: %v, %v", ok, err)
	}
	if err := <-superDone; sqlState(err) != "57014" {
		t.Errorf("the superuser's statement after the cancel: %v", err)
	}
}
