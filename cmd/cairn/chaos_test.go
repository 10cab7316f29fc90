package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestChaos drives many concurrent pgx sessions, each with session
// settings of its own, through a random mix of writes, searches, COPY,
// transactions with savepoints, row locks, prepared statements, DDL,
// cancellations, statement timeouts and abrupt disconnects, all on a few
// shared tables of one server (a child process, built with -race when
// the test is). It checks that:
//
//   - the server never exits and logs no panic, internal error or data race;
//   - every error a client gets is one the operation may give (a
//     serialization failure, a deadlock, a lock timeout, a cancel, the
//     constraint violation it provoked), never XX000;
//   - a session's settings never show in another session's results (its
//     timestamptz text, float text, bytea text, search_path, and the
//     application_name pg_stat_activity shows for its pid);
//   - each session's rows are exactly those its ledger says it committed,
//     read back by key, by a filtered vector search and at the end, also
//     after the server is killed with SIGKILL and started again on the
//     same data directory; the UNIQUE and FOREIGN KEY invariants hold and
//     no increment of a row locked FOR UPDATE is lost.
//
// The default run is small (a fixed seed, 16 sessions, 40 operations
// each). CAIRN_CHAOS_OPS sets the operations per session,
// CAIRN_CHAOS_SEED the seed and CAIRN_CHAOS_WORKERS the sessions (12 to
// 24 is what it was written for), e.g.
//
//	CAIRN_CHAOS_OPS=400 CAIRN_CHAOS_SEED=7 go test -race ./cmd/cairn -run TestChaos
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run skipped in -short mode")
	}
	ops := chaosEnv(t, "CAIRN_CHAOS_OPS", 40)
	seed := chaosEnv(t, "CAIRN_CHAOS_SEED", 1)
	workers := chaosEnv(t, "CAIRN_CHAOS_WORKERS", 16)
	t.Logf("seed %d, %d sessions, %d operations each", seed, workers, ops)

	dir := t.TempDir()
	p := startChaosServer(t, dir)
	ctx := context.Background()
	setup := p.connect(t)
	for _, q := range []string{
		`CREATE TABLE parents (id bigserial PRIMARY KEY, name text UNIQUE NOT NULL, hits int NOT NULL DEFAULT 0)`,
		`INSERT INTO parents (name) SELECT 'p' || g FROM generate_series(1, 8) g`,
		`CREATE TABLE mem (id bigserial PRIMARY KEY, k text UNIQUE NOT NULL, owner int NOT NULL,
			parent bigint REFERENCES parents (id), body text, meta jsonb, embedding float4[],
			n int NOT NULL DEFAULT 0 CHECK (n >= 0))`,
		`CREATE TABLE scratch (id bigserial PRIMARY KEY, note text)`,
		`CREATE TABLE counters (k text PRIMARY KEY, n bigint NOT NULL)`,
	} {
		mustExec(t, setup, q)
	}
	for _, s := range chaosSchemas {
		mustExec(t, setup, fmt.Sprintf(`CREATE SCHEMA %s; CREATE TABLE %[1]s.whoami (name text); INSERT INTO %[1]s.whoami VALUES ('%[1]s')`, s))
	}

	run := &chaosRun{t: t, p: p, pids: map[uint32]string{}}
	ws := make([]*chaosWorker, workers)
	for i := range ws {
		ws[i] = newChaosWorker(run, i, seed)
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, ops)
		}()
	}
	stopMon := make(chan struct{})
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		run.monitor(ctx, stopMon)
	}()
	wg.Wait()
	close(stopMon)
	<-monDone

	for _, w := range ws {
		if w.conn != nil {
			w.conn.Close(ctx)
		}
	}
	run.checkLog()
	if t.Failed() {
		return
	}
	var ops0 [chaosNOps]int
	for _, w := range ws {
		for i, n := range w.done {
			ops0[i] += n
		}
	}
	t.Logf("operations that succeeded: %v", chaosOpCounts(ops0[:]))

	run.verify(ctx, setup, ws, "after the run")
	setup.Close(ctx)
	p.kill()
	p2 := startChaosServer(t, dir)
	run.p = p2
	after := p2.connect(t)
	run.verify(ctx, after, ws, "after kill -9 and restart")
	run.checkLog()
}

// chaosSchemas are the schemas sessions put first in their search_path;
// each has a table whoami holding its own name.
var chaosSchemas = []string{"sa", "sb", "sc"}

// chaosEnv reads a positive integer from the environment, def if unset.
func chaosEnv(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

var (
	chaosBuildOnce sync.Once
	chaosBin       string
	chaosBuildErr  error
)

// chaosBinary builds the cairn binary for TestChaos: with the race
// detector when the test binary has it, so that races in the server show
// in its log.
func chaosBinary(t testing.TB) string {
	race := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				race = true
			}
		}
	}
	if !race {
		return cairnBinary(t)
	}
	chaosBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-race-bin")
		if err != nil {
			chaosBuildErr = err
			return
		}
		chaosBin = filepath.Join(dir, "cairn")
		out, err := exec.Command("go", "build", "-race", "-o", chaosBin, ".").CombinedOutput()
		if err != nil {
			chaosBuildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if chaosBuildErr != nil {
		t.Fatalf("build cairn -race: %v", chaosBuildErr)
	}
	return chaosBin
}

// startChaosServer starts the server (see chaosBinary) on dir.
func startChaosServer(t *testing.T, dir string) *logProcess {
	t.Helper()
	// Small segments: flushes, compactions and vector index builds run
	// during the run, under the statements.
	p := startLoggedBin(t, chaosBinary(t), dir, "--flush-rows", "300")
	if p.addr == "" {
		t.Fatalf("server did not start:\n%s", p.log())
	}
	return p
}

// chaosRun is what the sessions of one run share.
type chaosRun struct {
	t *testing.T
	p *logProcess

	mu       sync.Mutex
	pids     map[uint32]string // backend pid -> the application_name its session set
	hits     atomic.Int64      // committed increments of parents.hits
	counters atomic.Int64      // committed increments of counters.n
}

// failf reports a broken invariant (safe from any goroutine).
func (r *chaosRun) failf(format string, args ...any) {
	r.t.Errorf(format, args...)
}

// checkLog fails the test when the server's log shows a panic, an internal
// error, a data race or the server's exit.
func (r *chaosRun) checkLog() {
	r.t.Helper()
	log := r.p.log()
	for _, s := range []string{"panic", "internal error", "DATA RACE", "fatal error:"} {
		if i := strings.Index(log, s); i >= 0 {
			line, _, _ := strings.Cut(log[strings.LastIndexByte(log[:i], '\n')+1:], "\n")
			lo, hi := max(0, i-2000), min(len(log), i+6000)
			r.t.Errorf("the server log shows %q in %q:\n%s", s, line, log[lo:hi])
		}
	}
	select {
	case <-r.p.done:
		r.t.Errorf("the server exited: %v\n%s", r.p.err, log[max(0, len(log)-8000):])
	default:
	}
}

// monitor reads pg_stat_activity until stop, checking that each
// session's pid shows the application_name that session set.
func (r *chaosRun) monitor(ctx context.Context, stop chan struct{}) {
	conn, err := pgx.Connect(ctx, r.p.connString())
	if err != nil {
		r.failf("monitor: connect: %v", err)
		return
	}
	defer conn.Close(ctx)
	for {
		select {
		case <-stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		// Only sessions registered before the query are checked: a row
		// may show a session still setting its application_name.
		r.mu.Lock()
		pids := maps.Clone(r.pids)
		r.mu.Unlock()
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		rows, err := conn.Query(qctx, `SELECT pid, application_name, coalesce(state, ''), coalesce(query, '') FROM pg_stat_activity`)
		if err != nil {
			cancel()
			r.failf("monitor: pg_stat_activity: %v", err)
			return
		}
		for rows.Next() {
			var pid int32
			var app, state, query string
			if err := rows.Scan(&pid, &app, &state, &query); err != nil {
				r.failf("monitor: scan: %v", err)
				break
			}
			if want, ok := pids[uint32(pid)]; ok && app != want {
				r.failf("pg_stat_activity: pid %d shows application_name %q, its session set %q (state %q, query %q)", pid, app, want, state, query)
			}
		}
		err = rows.Err()
		cancel()
		if err != nil {
			r.failf("monitor: pg_stat_activity: %v", err)
			return
		}
	}
}

// verify checks every session's ledger and the tables' invariants.
func (r *chaosRun) verify(ctx context.Context, conn *pgx.Conn, ws []*chaosWorker, when string) {
	t := r.t
	t.Helper()
	total := 0
	for _, w := range ws {
		got := map[string]int{}
		rows, err := conn.Query(ctx, `SELECT k, n FROM mem WHERE owner = $1`, w.id)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			got[k] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		total += len(w.ledger)
		for k, n := range w.ledger {
			if g, ok := got[k]; !ok {
				t.Errorf("%s: session %d committed %s (n=%d) but it is missing", when, w.id, k, n)
			} else if g != n {
				t.Errorf("%s: session %d committed %s with n=%d, it reads n=%d", when, w.id, k, n, g)
			}
		}
		for k, n := range got {
			if _, ok := w.ledger[k]; !ok {
				t.Errorf("%s: row %s (n=%d) of session %d was never committed (or was deleted)", when, k, n, w.id)
			}
		}
	}
	var count, distinct, ids, orphans, hits, counters int64
	err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT k), count(DISTINCT id),
		(SELECT count(*) FROM mem m WHERE m.parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM parents p WHERE p.id = m.parent)),
		(SELECT sum(hits) FROM parents), (SELECT coalesce(sum(n), 0) FROM counters) FROM mem`).Scan(&count, &distinct, &ids, &orphans, &hits, &counters)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if count != int64(total) || distinct != count || ids != count || orphans != 0 {
		t.Errorf("%s: %d rows (%d distinct keys, %d distinct ids, %d orphans), the ledgers hold %d", when, count, distinct, ids, orphans, total)
	}
	if counters != r.counters.Load() {
		t.Errorf("%s: counters.n sums to %d, %d increments were committed", when, counters, r.counters.Load())
	}
	if hits != r.hits.Load() {
		t.Errorf("%s: parents.hits sums to %d, %d increments were committed", when, hits, r.hits.Load())
	}
	t.Logf("%s: %d rows, %d hits as committed", when, count, hits)
}

// chaosSettings are a session's own settings.
type chaosSettings struct {
	schema, tz, dateStyle, timeout, iso, app, bytea string
	floatDigits                                     int
}

func (s chaosSettings) params() map[string]string {
	return map[string]string{
		"search_path":                   s.schema + ", public",
		"TimeZone":                      s.tz,
		"DateStyle":                     s.dateStyle,
		"statement_timeout":             s.timeout,
		"default_transaction_isolation": s.iso,
		"application_name":              s.app,
		"extra_float_digits":            strconv.Itoa(s.floatDigits),
		"bytea_output":                  s.bytea,
	}
}

// chaosProbe is what a session's settings show in its results.
type chaosProbe struct {
	searchPath, tz, dateStyle, timeout, iso, app, floatDigits, bytea string
	ts, float, bytes, whoami                                         string
}

const chaosProbeSQL = `SELECT current_setting('search_path'), current_setting('TimeZone'),
	current_setting('DateStyle'), current_setting('statement_timeout'),
	current_setting('default_transaction_isolation'), current_setting('application_name'),
	current_setting('extra_float_digits'), current_setting('bytea_output'),
	'2024-01-15 12:34:56.5+00'::timestamptz::text, 0.1::float4::text, '\x01ff'::bytea::text,
	(SELECT name FROM whoami)`

// The kinds of operation a session does, with their weights.
const (
	opInsert = iota
	opUpsert
	opUpdate
	opDelete
	opGet
	opSearch
	opCopyBinary
	opCopyText
	opSavepoints
	opLockParent
	opPrepared
	opCtxCancel
	opCancelBackend
	opTimeout
	opDisconnectTx
	opDisconnectCopy
	opProbe
	opDDL
	opViolations
	opCounter
	opTemp
	opNotify
	opBatch
	opStreamCancel
	opCursor
	opCopyTimeout
	chaosNOps
)

var chaosOpNames = [chaosNOps]string{"insert", "upsert", "update", "delete", "get", "search",
	"copy-binary", "copy-text", "savepoints", "lock-parent", "prepared", "ctx-cancel",
	"cancel-backend", "statement-timeout", "disconnect-tx", "disconnect-copy", "probe", "ddl", "violations",
	"counter", "temp", "notify", "batch", "stream-cancel", "cursor", "copy-timeout"}

var chaosWeights = [chaosNOps]int{14, 8, 10, 5, 8, 8, 3, 3, 8, 6, 4, 2, 2, 2, 2, 2, 5, 4, 3, 6, 3, 3, 3, 2, 3, 2}

func chaosOpCounts(n []int) string {
	var b strings.Builder
	for i, c := range n {
		fmt.Fprintf(&b, "%s=%d ", chaosOpNames[i], c)
	}
	return b.String()
}

// chaosWorker is one session and its ledger: the key and n of each of
// its rows it knows committed (only this session writes rows whose
// owner is its id).
type chaosWorker struct {
	r        *chaosRun
	id       int
	rng      *rand.Rand
	set      chaosSettings
	viaSet   bool // settings sent with SET after connecting, not in the start-up packet
	cancelRq bool // a cancelled context sends a CancelRequest rather than closing the connection
	conn     *pgx.Conn
	base     chaosProbe // what the probe showed right after connecting
	hasBase  bool
	ledger   map[string]int
	seq      int
	done     [chaosNOps]int
	prepared bool
}

func newChaosWorker(r *chaosRun, i, seed int) *chaosWorker {
	rng := rand.New(rand.NewSource(int64(seed)*1000 + int64(i)))
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	return &chaosWorker{
		r: r, id: i, rng: rng, ledger: map[string]int{},
		viaSet: i%2 == 1, cancelRq: i%3 == 0,
		set: chaosSettings{
			schema:      chaosSchemas[i%len(chaosSchemas)],
			tz:          pick("UTC", "Asia/Tokyo", "America/New_York", "Asia/Kolkata", "Europe/Berlin", "Australia/Adelaide"),
			dateStyle:   pick("ISO, MDY", "SQL, DMY", "Postgres, MDY", "German, DMY", "ISO, YMD"),
			timeout:     pick("0", "60s", "90s"),
			iso:         pick("read committed", "repeatable read"),
			app:         fmt.Sprintf("chaos-%d", i),
			bytea:       pick("hex", "escape"),
			floatDigits: rng.Intn(5) - 1,
		},
	}
}

var chaosExecModes = []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol}

// connect opens a session with the worker's settings.
func (w *chaosWorker) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(w.r.p.connString())
	if err != nil {
		return nil, err
	}
	// Sessions speak the protocol in each of pgx's ways.
	cfg.DefaultQueryExecMode = chaosExecModes[w.id%len(chaosExecModes)]
	if w.cancelRq {
		cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
		}
	}
	if !w.viaSet {
		for k, v := range w.set.params() {
			cfg.RuntimeParams[k] = v
		}
	}
	// A session hears only the channel it listens on.
	own := fmt.Sprintf("chaos_%d", w.id)
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) {
		if n.Channel != own || n.Payload != "to "+own {
			w.r.failf("session %d (listening on %s) got a notification on %s: %q", w.id, own, n.Channel, n.Payload)
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if w.viaSet {
		for k, v := range w.set.params() {
			if _, err := conn.Exec(ctx, `SELECT set_config($1, $2, false)`, k, v); err != nil {
				conn.Close(ctx)
				return nil, fmt.Errorf("SET %s: %w", k, err)
			}
		}
	}
	if _, err := conn.Exec(ctx, "LISTEN "+own); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("LISTEN: %w", err)
	}
	w.r.mu.Lock()
	w.r.pids[conn.PgConn().PID()] = w.set.app
	w.r.mu.Unlock()
	return conn, nil
}

// run does n random operations.
func (w *chaosWorker) run(ctx context.Context, n int) {
	var err error
	if w.conn, err = w.connect(ctx); err != nil {
		w.r.failf("session %d: connect: %v", w.id, err)
		return
	}
	w.probe(ctx)
	total := 0
	for _, x := range chaosWeights {
		total += x
	}
	for range n {
		x := w.rng.Intn(total)
		op := 0
		for ; x >= chaosWeights[op]; op++ {
			x -= chaosWeights[op]
		}
		if w.conn == nil || w.conn.IsClosed() {
			if w.conn, err = w.connect(ctx); err != nil {
				w.r.failf("session %d: reconnect: %v", w.id, err)
				return
			}
			w.prepared = false
		}
		if w.do(ctx, op) {
			w.done[op]++
		}
	}
}

// key returns a new key of this session.
func (w *chaosWorker) key() string {
	w.seq++
	return fmt.Sprintf("w%d-%d", w.id, w.seq)
}

// anyKey is one of this session's committed keys, or a new one.
func (w *chaosWorker) anyKey() string {
	if len(w.ledger) == 0 {
		return w.key()
	}
	keys := make([]string, 0, len(w.ledger))
	for k := range w.ledger {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[w.rng.Intn(len(keys))]
}

func (w *chaosWorker) vec() []float32 {
	v := make([]float32, 4)
	for i := range v {
		v[i] = w.rng.Float32() + 0.01
	}
	return v
}

func (w *chaosWorker) parent() any {
	if w.rng.Intn(4) == 0 {
		return nil
	}
	return int64(1 + w.rng.Intn(8))
}

var chaosWords = []string{"oom", "parquet", "deadlock", "retry", "timeout", "vector", "cache", "flush"}

func (w *chaosWorker) body() string {
	return chaosWords[w.rng.Intn(len(chaosWords))] + " " + chaosWords[w.rng.Intn(len(chaosWords))]
}

// chaosRetryable are the SQLSTATEs any statement may get under concurrency:
// serialization failures, deadlocks, lock timeouts. Such a statement
// (or its transaction) did not commit.
var chaosRetryable = []string{"40001", "40P01", "55P03"}

// check reports err unless it is nil or has one of the allowed
// SQLSTATEs (chaosRetryable ones always allowed); it returns whether err was
// nil.
func (w *chaosWorker) check(op string, err error, allowed ...string) bool {
	if err == nil {
		return true
	}
	code := sqlState(err)
	if code != "" && (slices.Contains(chaosRetryable, code) || slices.Contains(allowed, code)) {
		return false
	}
	w.r.failf("session %d: %s: unexpected error (SQLSTATE %q): %v", w.id, op, code, err)
	return false
}

// rollback ends a transaction block the operation left open.
func (w *chaosWorker) rollback(ctx context.Context) {
	if w.conn.IsClosed() {
		return
	}
	if _, err := w.conn.Exec(ctx, "ROLLBACK"); err != nil {
		w.check("ROLLBACK", err)
	}
}

// do runs one operation; it returns whether it succeeded (or failed as
// it was meant to).
func (w *chaosWorker) do(ctx context.Context, op int) bool {
	c := w.conn
	switch op {
	case opInsert:
		k := w.key()
		_, err := c.Exec(ctx, `INSERT INTO public.mem (k, owner, parent, body, meta, embedding) VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
			k, w.id, w.parent(), w.body(), fmt.Sprintf(`{"w": %d, "k": %q}`, w.id, k), w.vec())
		if w.check("insert", err) {
			w.ledger[k] = 0
			return true
		}
	case opUpsert:
		k := w.anyKey()
		if w.rng.Intn(3) == 0 {
			k = w.key()
		}
		var n int
		err := c.QueryRow(ctx, `INSERT INTO public.mem AS m (k, owner, body, embedding) VALUES ($1, $2, $3, $4)
			ON CONFLICT (k) DO UPDATE SET n = m.n + 1, body = excluded.body RETURNING n`,
			k, w.id, w.body(), w.vec()).Scan(&n)
		if w.check("upsert", err) {
			want := 0
			if old, ok := w.ledger[k]; ok {
				want = old + 1
			}
			if n != want {
				w.r.failf("session %d: upsert %s returned n=%d, want %d", w.id, k, n, want)
			}
			w.ledger[k] = n
			return true
		}
	case opUpdate:
		k := w.anyKey()
		tag, err := c.Exec(ctx, `UPDATE public.mem SET n = n + 1, meta = jsonb_set(coalesce(meta, '{}'), '{u}', to_jsonb(n + 1)) WHERE k = $1`, k)
		if w.check("update", err) {
			old, ok := w.ledger[k]
			if ok != (tag.RowsAffected() == 1) {
				w.r.failf("session %d: update %s touched %d rows, ledger has it: %v", w.id, k, tag.RowsAffected(), ok)
			}
			if ok {
				w.ledger[k] = old + 1
			}
			return true
		}
	case opDelete:
		k := w.anyKey()
		tag, err := c.Exec(ctx, `DELETE FROM public.mem WHERE k = $1`, k)
		if w.check("delete", err) {
			_, ok := w.ledger[k]
			if ok != (tag.RowsAffected() == 1) {
				w.r.failf("session %d: delete %s touched %d rows, ledger has it: %v", w.id, k, tag.RowsAffected(), ok)
			}
			delete(w.ledger, k)
			return true
		}
	case opGet:
		return w.get(ctx, c, w.anyKey(), "get")
	case opSearch:
		return w.search(ctx, c)
	case opCopyBinary, opCopyText:
		return w.copy(ctx, c, op == opCopyText)
	case opSavepoints:
		return w.savepoints(ctx, c)
	case opLockParent:
		return w.lockParent(ctx, c)
	case opPrepared:
		return w.preparedGet(ctx, c)
	case opCtxCancel:
		return w.ctxCancel(ctx, c)
	case opCancelBackend:
		return w.cancelBackend(ctx, c)
	case opTimeout:
		return w.statementTimeout(ctx, c)
	case opDisconnectTx:
		return w.disconnectTx(ctx)
	case opDisconnectCopy:
		return w.disconnectCopy(ctx)
	case opProbe:
		return w.probe(ctx)
	case opDDL:
		return w.ddl(ctx, c)
	case opViolations:
		return w.violations(ctx, c)
	case opCounter:
		return w.counter(ctx, c)
	case opTemp:
		return w.temp(ctx, c)
	case opNotify:
		return w.notify(ctx, c)
	case opBatch:
		return w.batch(ctx, c)
	case opStreamCancel:
		return w.streamCancel(ctx, c)
	case opCursor:
		return w.cursor(ctx, c)
	case opCopyTimeout:
		return w.copyTimeout(ctx, c)
	}
	return false
}

// get reads one of the session's keys and checks it against the ledger.
func (w *chaosWorker) get(ctx context.Context, c *pgx.Conn, k, op string) bool {
	var n, owner int
	err := c.QueryRow(ctx, `SELECT n, owner FROM public.mem WHERE k = $1`, k).Scan(&n, &owner)
	want, ok := w.ledger[k]
	if errors.Is(err, pgx.ErrNoRows) {
		if ok {
			w.r.failf("session %d: %s: committed key %s not found", w.id, op, k)
		}
		return true
	}
	if !w.check(op, err) {
		return false
	}
	if !ok || n != want || owner != w.id {
		w.r.failf("session %d: %s %s: n=%d owner=%d, ledger: %d (has it: %v)", w.id, op, k, n, owner, want, ok)
	}
	return true
}

// search runs a filtered vector, cosine-distance or hybrid search over
// the session's own rows: it must return min(5, rows) of them.
func (w *chaosWorker) search(ctx context.Context, c *pgx.Conn) bool {
	var q string
	args := []any{w.id, w.vec()}
	switch w.rng.Intn(3) {
	case 0:
		q = `SELECT k FROM public.mem WHERE owner = $1 ORDER BY embedding <#> $2 LIMIT 5`
	case 1:
		q = `SELECT k FROM public.mem WHERE owner = $1 ORDER BY embedding::vector <=> $2::float4[]::vector LIMIT 5`
	default:
		q = `SELECT k FROM public.mem WHERE owner = $1
			ORDER BY (embedding, body)::deeplake_hybrid_record <#> deeplake_hybrid_record($2::float4[], $3, 0.5, 0.5) DESC LIMIT 5`
		args = append(args, w.body())
	}
	rows, err := c.Query(ctx, q, args...)
	if err != nil {
		return w.check("search", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if !w.check("search", err) {
		return false
	}
	if len(keys) != min(5, len(w.ledger)) {
		w.r.failf("session %d: search returned %d rows, the session has %d: %q", w.id, len(keys), len(w.ledger), q)
	}
	for _, k := range keys {
		if _, ok := w.ledger[k]; !ok {
			w.r.failf("session %d: search returned %s, not committed", w.id, k)
		}
	}
	return true
}

// copy writes a few rows with COPY FROM, binary (pgx's CopyFrom) or text.
func (w *chaosWorker) copy(ctx context.Context, c *pgx.Conn, text bool) bool {
	var keys []string
	var rows [][]any
	for range 1 + w.rng.Intn(20) {
		k := w.key()
		keys = append(keys, k)
		rows = append(rows, []any{k, int32(w.id), w.parent(), w.body(), w.vec()})
	}
	var err error
	if text {
		var b strings.Builder
		for _, r := range rows {
			parent := `\N`
			if r[2] != nil {
				parent = fmt.Sprint(r[2])
			}
			v := r[4].([]float32)
			fmt.Fprintf(&b, "%s\t%d\t%s\t%s\t{%g,%g,%g,%g}\n", r[0], r[1], parent, r[3], v[0], v[1], v[2], v[3])
		}
		_, err = c.PgConn().CopyFrom(ctx, strings.NewReader(b.String()),
			`COPY public.mem (k, owner, parent, body, embedding) FROM STDIN`)
	} else {
		_, err = c.CopyFrom(ctx, pgx.Identifier{"public", "mem"}, []string{"k", "owner", "parent", "body", "embedding"}, pgx.CopyFromRows(rows))
	}
	if !w.check("copy", err) {
		return false
	}
	for _, k := range keys {
		w.ledger[k] = 0
	}
	return true
}

// savepoints runs a transaction block whose ROLLBACK TO undoes part of
// its work, and at times rolls back or fails as a whole.
func (w *chaosWorker) savepoints(ctx context.Context, c *pgx.Conn) bool {
	a, b, cc := w.key(), w.key(), w.key()
	var upd string
	if len(w.ledger) > 0 {
		upd = w.anyKey()
	}
	abort := w.rng.Intn(4) == 0
	steps := []struct {
		sql  string
		args []any
	}{
		{"BEGIN", nil},
		{`INSERT INTO public.mem (k, owner, parent, embedding) VALUES ($1, $2, $3, $4)`, []any{a, w.id, w.parent(), w.vec()}},
		{"SAVEPOINT s1", nil},
		{`INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`, []any{b, w.id, w.vec()}},
		{`UPDATE public.mem SET n = n + 10 WHERE k = $1`, []any{a}},
		{"ROLLBACK TO SAVEPOINT s1", nil},
		{"SAVEPOINT s2", nil},
		{`INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`, []any{b, w.id, w.vec()}},
		{`INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`, []any{b, w.id, w.vec()}}, // 23505
		{"ROLLBACK TO s2", nil},
		{`INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`, []any{cc, w.id, w.vec()}},
		{"RELEASE s2", nil},
		{`UPDATE public.mem SET n = n + 1 WHERE k = $1`, []any{upd}},
	}
	for i, s := range steps {
		_, err := c.Exec(ctx, s.sql, s.args...)
		if i == 8 {
			if code := sqlState(err); code != "23505" {
				if slices.Contains(chaosRetryable, code) {
					w.rollback(ctx)
					return false
				}
				w.r.failf("session %d: savepoints: duplicate key gave %v, want 23505", w.id, err)
				w.rollback(ctx)
				return false
			}
			continue
		}
		if !w.check("savepoints: "+s.sql, err) {
			w.rollback(ctx)
			return false
		}
	}
	// Inside the block the session sees its own work.
	if !w.get(ctx, c, b, "savepoints: read b") {
		w.rollback(ctx)
		return false
	}
	end := "COMMIT"
	if abort {
		end = "ROLLBACK"
	}
	if _, err := c.Exec(ctx, end); !w.check("savepoints: "+end, err) {
		return false
	}
	if !abort {
		w.ledger[a] = 0
		w.ledger[cc] = 0
		if upd != "" {
			w.ledger[upd]++
		}
	}
	return true
}

// lockParent increments a parents row's hits under SELECT FOR UPDATE;
// no increment may be lost.
func (w *chaosWorker) lockParent(ctx context.Context, c *pgx.Conn) bool {
	id := int64(1 + w.rng.Intn(8))
	tx, err := c.Begin(ctx)
	if !w.check("lock-parent: BEGIN", err) {
		return false
	}
	defer tx.Rollback(ctx)
	var hits int
	err = tx.QueryRow(ctx, `SELECT hits FROM public.parents WHERE id = $1 FOR UPDATE`, id).Scan(&hits)
	if !w.check("lock-parent: SELECT FOR UPDATE", err) {
		return false
	}
	if _, err := tx.Exec(ctx, `UPDATE public.parents SET hits = $2 WHERE id = $1`, id, hits+1); !w.check("lock-parent: UPDATE", err) {
		return false
	}
	if err := tx.Commit(ctx); !w.check("lock-parent: COMMIT", err) {
		return false
	}
	w.r.hits.Add(1)
	return true
}

// preparedGet reuses a named prepared statement across other sessions'
// DDL; a changed result type is 0A000, as in PostgreSQL, and the
// statement is prepared again.
func (w *chaosWorker) preparedGet(ctx context.Context, c *pgx.Conn) bool {
	if !w.prepared {
		c.Deallocate(ctx, "chaos_get") // prepared before DDL changed its result
		if _, err := c.Prepare(ctx, "chaos_get", `SELECT * FROM public.mem WHERE k = $1`); !w.check("prepare", err) {
			return false
		}
		w.prepared = true
	}
	k := w.anyKey()
	rows, err := c.Query(ctx, "chaos_get", k)
	if err != nil {
		w.prepared = false
		return w.check("prepared", err, "0A000")
	}
	n := 0
	for rows.Next() {
		n++
		vals, err := rows.Values()
		if err != nil {
			w.r.failf("session %d: prepared: %v", w.id, err)
		} else if len(vals) < 8 || vals[1] != k {
			w.r.failf("session %d: prepared: got %v for %s", w.id, vals, k)
		}
	}
	if err := rows.Err(); err != nil {
		w.prepared = false
		return w.check("prepared", err, "0A000")
	}
	if _, ok := w.ledger[k]; ok != (n == 1) {
		w.r.failf("session %d: prepared: %d rows for %s, ledger has it: %v", w.id, n, k, ok)
	}
	return true
}

// ctxCancel cancels a transaction's long statement through its context:
// the transaction's insert must never appear.
func (w *chaosWorker) ctxCancel(ctx context.Context, c *pgx.Conn) bool {
	k := w.key()
	if _, err := c.Exec(ctx, "BEGIN"); !w.check("ctx-cancel: BEGIN", err) {
		return false
	}
	if _, err := c.Exec(ctx, `INSERT INTO public.mem (k, owner) VALUES ($1, $2)`, k, w.id); !w.check("ctx-cancel: INSERT", err) {
		w.rollback(ctx)
		return false
	}
	qctx, cancel := context.WithTimeout(ctx, time.Duration(20+w.rng.Intn(100))*time.Millisecond)
	q := `SELECT pg_sleep(10)`
	if w.rng.Intn(2) == 0 {
		q = `SELECT count(*) FROM generate_series(1, 100000000)`
	}
	_, err := c.Exec(qctx, q)
	cancel()
	if err == nil {
		w.r.failf("session %d: ctx-cancel: %s was not cancelled", w.id, q)
	} else if code := sqlState(err); code != "" && code != "57014" {
		w.r.failf("session %d: ctx-cancel: %v", w.id, err)
	}
	w.rollback(ctx)
	return true
}

// cancelBackend cancels the session's long statement with
// pg_cancel_backend from another session: 57014, and the session goes on.
func (w *chaosWorker) cancelBackend(ctx context.Context, c *pgx.Conn) bool {
	ctl, err := pgx.Connect(ctx, w.r.p.connString())
	if err != nil {
		w.r.failf("session %d: cancel-backend: connect: %v", w.id, err)
		return false
	}
	defer ctl.Close(ctx)
	pid := c.PgConn().PID()
	done := make(chan error, 1)
	go func() {
		_, err := c.Exec(ctx, `SELECT pg_sleep(20)`)
		done <- err
	}()
	for {
		select {
		case err := <-done:
			if sqlState(err) != "57014" {
				w.r.failf("session %d: cancel-backend: pg_sleep ended with %v, want 57014", w.id, err)
				return false
			}
			return true
		case <-time.After(30 * time.Millisecond):
		}
		var ok bool
		if err := ctl.QueryRow(ctx, `SELECT pg_cancel_backend($1)`, int32(pid)).Scan(&ok); err != nil {
			w.r.failf("session %d: pg_cancel_backend: %v", w.id, err)
		}
	}
}

// statementTimeout lets statement_timeout end a statement, alone and in
// a transaction whose insert must then never appear.
func (w *chaosWorker) statementTimeout(ctx context.Context, c *pgx.Conn) bool {
	if w.rng.Intn(2) == 0 {
		if _, err := c.Exec(ctx, `SET statement_timeout = '60ms'`); !w.check("timeout: SET", err) {
			return false
		}
		_, err := c.Exec(ctx, `SELECT pg_sleep(5)`)
		if sqlState(err) != "57014" {
			w.r.failf("session %d: statement_timeout: %v, want 57014", w.id, err)
		}
		_, err = c.Exec(ctx, fmt.Sprintf(`SET statement_timeout = '%s'`, w.set.timeout))
		return w.check("timeout: SET back", err)
	}
	k := w.key()
	if _, err := c.Exec(ctx, "BEGIN"); !w.check("timeout: BEGIN", err) {
		return false
	}
	if _, err := c.Exec(ctx, `INSERT INTO public.mem (k, owner) VALUES ($1, $2)`, k, w.id); !w.check("timeout: INSERT", err) {
		w.rollback(ctx)
		return false
	}
	if _, err := c.Exec(ctx, "SET LOCAL statement_timeout = '60ms'"); !w.check("timeout: SET LOCAL", err) {
		w.rollback(ctx)
		return false
	}
	_, err := c.Exec(ctx, `SELECT pg_sleep(5)`)
	if sqlState(err) != "57014" {
		w.r.failf("session %d: SET LOCAL statement_timeout: %v, want 57014", w.id, err)
	}
	_, err = c.Exec(ctx, "COMMIT") // ends the failed block: a rollback
	return w.check("timeout: COMMIT of the failed block", err)
}

// disconnectTx drops a connection in the middle of a transaction block
// (at times in the middle of a statement): its insert never appears.
func (w *chaosWorker) disconnectTx(ctx context.Context) bool {
	c, err := w.connect(ctx)
	if err != nil {
		w.r.failf("session %d: disconnect-tx: connect: %v", w.id, err)
		return false
	}
	k := w.key()
	if _, err := c.Exec(ctx, "BEGIN"); !w.check("disconnect-tx: BEGIN", err) {
		c.Close(ctx)
		return false
	}
	_, err = c.Exec(ctx, `INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`, k, w.id, w.vec())
	if !w.check("disconnect-tx: INSERT", err) {
		c.Close(ctx)
		return false
	}
	if w.rng.Intn(2) == 0 {
		// Mid-statement: the statement is sent, the reply never read.
		fe := c.PgConn().Frontend()
		fe.Send(&pgproto3.Query{String: `SELECT pg_sleep(1), count(*) FROM public.mem`})
		fe.Flush()
		time.Sleep(time.Duration(w.rng.Intn(20)) * time.Millisecond)
	}
	c.PgConn().Conn().Close()
	c.Close(ctx)
	return true
}

// disconnectCopy drops a connection in the middle of a COPY FROM: none
// of its rows appears.
func (w *chaosWorker) disconnectCopy(ctx context.Context) bool {
	c, err := w.connect(ctx)
	if err != nil {
		w.r.failf("session %d: disconnect-copy: connect: %v", w.id, err)
		return false
	}
	defer c.Close(ctx)
	var b strings.Builder
	for range 50 {
		fmt.Fprintf(&b, "%s\t%d\tcut short\n", w.key(), w.id)
	}
	src := &cutReader{data: []byte(b.String()), cut: w.rng.Intn(b.Len()), conn: c.PgConn()}
	_, err = c.PgConn().CopyFrom(ctx, src, `COPY public.mem (k, owner, body) FROM STDIN`)
	if err == nil {
		w.r.failf("session %d: disconnect-copy: the COPY succeeded", w.id)
	}
	return true
}

// cutReader yields data up to cut, then closes the connection under the
// COPY and fails.
type cutReader struct {
	data []byte
	cut  int
	conn *pgconn.PgConn
	pos  int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.pos >= r.cut {
		r.conn.Conn().Close()
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, r.data[r.pos:r.cut])
	r.pos += n
	return n, nil
}

// probe checks that the session's results show its own settings only.
func (w *chaosWorker) probe(ctx context.Context) bool {
	var p chaosProbe
	var args []any
	if w.rng.Intn(2) == 0 {
		args = append(args, pgx.QueryExecModeSimpleProtocol)
	}
	err := w.conn.QueryRow(ctx, chaosProbeSQL, args...).Scan(&p.searchPath, &p.tz, &p.dateStyle, &p.timeout,
		&p.iso, &p.app, &p.floatDigits, &p.bytea, &p.ts, &p.float, &p.bytes, &p.whoami)
	if !w.check("probe", err) {
		return false
	}
	if p.app != w.set.app || p.whoami != w.set.schema || p.tz != w.set.tz || p.dateStyle != w.set.dateStyle ||
		p.bytea != w.set.bytea || p.floatDigits != strconv.Itoa(w.set.floatDigits) || p.iso != w.set.iso {
		w.r.failf("session %d: settings %+v show %+v", w.id, w.set, p)
	}
	if !w.hasBase {
		w.base, w.hasBase = p, true
	} else if p != w.base {
		w.r.failf("session %d: its results changed from %+v to %+v", w.id, w.base, p)
	}
	return true
}

// ddl changes the shared tables or the scratch ones while others use them.
func (w *chaosWorker) ddl(ctx context.Context, c *pgx.Conn) bool {
	var qs []string
	switch w.rng.Intn(9) {
	case 0:
		i := w.rng.Intn(6)
		qs = []string{fmt.Sprintf(`ALTER TABLE public.mem ADD COLUMN IF NOT EXISTS extra%d int DEFAULT %d`, i, i)}
	case 1:
		qs = []string{`CREATE INDEX IF NOT EXISTS mem_owner ON public.mem (owner)`}
	case 2:
		qs = []string{`DROP INDEX IF EXISTS public.mem_owner`}
	case 3:
		qs = []string{`CREATE INDEX IF NOT EXISTS mem_emb ON public.mem USING hnsw (embedding)`}
	case 4:
		qs = []string{`DROP INDEX IF EXISTS public.mem_emb`}
	case 5:
		qs = []string{`INSERT INTO public.scratch (note) SELECT 'n' || g FROM generate_series(1, 50) g`, `TRUNCATE public.scratch`}
	case 6:
		t := fmt.Sprintf("public.tmp_%d", w.id)
		qs = []string{fmt.Sprintf(`CREATE TABLE %s (id int PRIMARY KEY, p bigint REFERENCES public.parents (id))`, t),
			fmt.Sprintf(`INSERT INTO %s VALUES (1, 1), (2, NULL)`, t), fmt.Sprintf(`DROP TABLE %s`, t)}
	case 7:
		if w.rng.Intn(2) == 0 {
			qs = []string{`VACUUM public.mem`}
		} else {
			qs = []string{fmt.Sprintf(`ALTER TABLE public.mem DROP COLUMN IF EXISTS extra%d`, w.rng.Intn(6))}
		}
	default:
		qs = []string{`CHECKPOINT`}
	}
	for _, q := range qs {
		// 42P07/42710: a concurrent CREATE INDEX IF NOT EXISTS of the
		// same name may lose, as in PostgreSQL (23505 there).
		if _, err := c.Exec(ctx, q); !w.check("ddl: "+q, err, "42P07", "42710", "23505") {
			return false
		}
	}
	return true
}

// violations provokes the constraint errors the tables must give.
func (w *chaosWorker) violations(ctx context.Context, c *pgx.Conn) bool {
	k := w.key()
	_, err := c.Exec(ctx, `INSERT INTO public.mem (k, owner, parent) VALUES ($1, $2, 999)`, k, w.id)
	if code := sqlState(err); code != "23503" && !slices.Contains(chaosRetryable, code) {
		w.r.failf("session %d: FK violation gave %v, want 23503", w.id, err)
	}
	if len(w.ledger) > 0 {
		_, err = c.Exec(ctx, `UPDATE public.mem SET n = -1 WHERE k = $1`, w.anyKey())
		if code := sqlState(err); code != "23514" && !slices.Contains(chaosRetryable, code) {
			w.r.failf("session %d: CHECK violation gave %v, want 23514", w.id, err)
		}
		_, err = c.Exec(ctx, `INSERT INTO public.mem (k, owner) VALUES ($1, $2)`, w.anyKey(), w.id)
		if code := sqlState(err); code != "23505" && !slices.Contains(chaosRetryable, code) {
			w.r.failf("session %d: UNIQUE violation gave %v, want 23505", w.id, err)
		}
	}
	// Deleting a referenced parent fails 23503; one not referenced is
	// deleted, and the block is rolled back either way.
	tx, err := c.Begin(ctx)
	if !w.check("violations: BEGIN", err) {
		return false
	}
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `DELETE FROM public.parents WHERE id = $1`, 1+w.rng.Intn(8))
	return w.check("violations: DELETE parent", err, "23503") || sqlState(err) == "23503"
}

// counter increments one of a few counters all sessions share, with
// INSERT ... ON CONFLICT DO UPDATE: no increment may be lost.
func (w *chaosWorker) counter(ctx context.Context, c *pgx.Conn) bool {
	_, err := c.Exec(ctx, `INSERT INTO public.counters AS t VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = t.n + 1`,
		fmt.Sprintf("c%d", w.rng.Intn(4)))
	if w.check("counter", err) {
		w.r.counters.Add(1)
		return true
	}
	return false
}

// temp writes and reads a temporary table of the session's own, named as
// every session's is: it holds this session's rows only.
func (w *chaosWorker) temp(ctx context.Context, c *pgx.Conn) bool {
	for _, q := range []string{`CREATE TEMP TABLE IF NOT EXISTS tt (w int)`, fmt.Sprintf(`INSERT INTO tt VALUES (%d)`, w.id)} {
		if _, err := c.Exec(ctx, q); !w.check("temp: "+q, err) {
			return false
		}
	}
	rows, err := c.Query(ctx, `SELECT DISTINCT w FROM tt`)
	if err != nil {
		return w.check("temp: SELECT", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if !w.check("temp: SELECT", err) {
		return false
	}
	if len(got) != 1 || int(got[0]) != w.id {
		w.r.failf("session %d: its temporary table holds rows of sessions %v", w.id, got)
	}
	return true
}

// notify sends a notification to another session's channel.
func (w *chaosWorker) notify(ctx context.Context, c *pgx.Conn) bool {
	ch := fmt.Sprintf("chaos_%d", w.rng.Intn(24))
	_, err := c.Exec(ctx, `SELECT pg_notify($1, $2)`, ch, "to "+ch)
	return w.check("notify", err)
}

// batch sends a pipeline of inserts, one a duplicate key, in one implicit
// transaction: the error rolls back the inserts before it, and those
// after it do not run.
func (w *chaosWorker) batch(ctx context.Context, c *pgx.Conn) bool {
	if len(w.ledger) == 0 {
		return false
	}
	a, b := w.key(), w.key()
	bt := &pgx.Batch{}
	ins := `INSERT INTO public.mem (k, owner, embedding) VALUES ($1, $2, $3)`
	bt.Queue(ins, a, w.id, w.vec())
	bt.Queue(ins, w.anyKey(), w.id, w.vec())
	bt.Queue(ins, b, w.id, w.vec())
	err := c.SendBatch(ctx, bt).Close()
	if code := sqlState(err); code != "23505" && !slices.Contains(chaosRetryable, code) {
		w.r.failf("session %d: batch with a duplicate key: %v, want 23505", w.id, err)
		return false
	}
	return w.get(ctx, c, a, "batch: rolled-back insert") && w.get(ctx, c, b, "batch: insert after the error")
}

// streamCancel cancels a query through its context while its rows stream
// to the client.
func (w *chaosWorker) streamCancel(ctx context.Context, c *pgx.Conn) bool {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := c.Query(qctx, `SELECT m.k, g FROM public.mem m, generate_series(1, 3000) g`)
	if err != nil {
		return w.check("stream-cancel", err, "57014")
	}
	n := 0
	for rows.Next() {
		if n++; n == 100 {
			cancel()
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil && sqlState(err) != "" && sqlState(err) != "57014" {
		w.r.failf("session %d: stream-cancel: %v", w.id, err)
	}
	return true
}

// cursor reads the session's rows through a cursor, a few at a time,
// inside a transaction block.
func (w *chaosWorker) cursor(ctx context.Context, c *pgx.Conn) bool {
	tx, err := c.Begin(ctx)
	if !w.check("cursor: BEGIN", err) {
		return false
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf(`DECLARE cur CURSOR FOR SELECT k FROM public.mem WHERE owner = %d ORDER BY k`, w.id)); !w.check("cursor: DECLARE", err) {
		return false
	}
	var got []string
	for {
		rows, err := tx.Query(ctx, `FETCH 7 FROM cur`)
		if err != nil {
			return w.check("cursor: FETCH", err)
		}
		ks, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if !w.check("cursor: FETCH", err) {
			return false
		}
		if len(ks) == 0 {
			break
		}
		got = append(got, ks...)
	}
	if len(got) != len(w.ledger) {
		w.r.failf("session %d: cursor read %d rows, the session has %d", w.id, len(got), len(w.ledger))
	}
	for _, k := range got {
		if _, ok := w.ledger[k]; !ok {
			w.r.failf("session %d: cursor read %s, not committed", w.id, k)
		}
	}
	return w.check("cursor: COMMIT", tx.Commit(ctx))
}

// slowRows is a pgx.CopyFromSource that waits before its rows.
type slowRows struct {
	rows  [][]any
	i     int
	delay time.Duration
}

func (s *slowRows) Next() bool {
	if s.i == 0 {
		time.Sleep(s.delay)
	}
	s.i++
	return s.i <= len(s.rows)
}
func (s *slowRows) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *slowRows) Err() error             { return nil }

// copyTimeout lets statement_timeout end a COPY FROM whose data comes
// late: 57014, and none of its rows appears.
func (w *chaosWorker) copyTimeout(ctx context.Context, c *pgx.Conn) bool {
	for _, q := range []string{"BEGIN", "SET LOCAL statement_timeout = '30ms'"} {
		if _, err := c.Exec(ctx, q); !w.check("copy-timeout: "+q, err) {
			w.rollback(ctx)
			return false
		}
	}
	src := &slowRows{delay: time.Duration(w.rng.Intn(120)) * time.Millisecond}
	for range 3 {
		src.rows = append(src.rows, []any{w.key(), int32(w.id)})
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"public", "mem"}, []string{"k", "owner"}, src)
	if err != nil && sqlState(err) != "57014" {
		w.r.failf("session %d: copy-timeout: %v, want 57014 or success", w.id, err)
	}
	w.rollback(ctx)
	return err != nil
}
