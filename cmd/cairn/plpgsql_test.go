package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/storage/objstore/objstoretest"
)

// noticeConn connects to ts with pgx, collecting the notices the server sends
// as "SEVERITY CODE message".
func noticeConn(t *testing.T, ts *testServer) (*pgx.Conn, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var notices []string
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Severity+" "+n.Code+" "+n.Message)
		mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := notices
		notices = nil
		return out
	}
}

// TestDoRaiseNotices: RAISE NOTICE, INFO and WARNING in a DO block reach
// the client as NoticeResponses, in order, with their % arguments
// formatted (NULL as <NULL>) and their SQLSTATEs; RAISE EXCEPTION is the
// statement's error, with its ERRCODE, DETAIL and HINT.
func TestDoRaiseNotices(t *testing.T) {
	ts := startServer(t, "")
	conn, notices := noticeConn(t, ts)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `DO $$
		DECLARE n int := 2; s text; r record;
		BEGIN
			RAISE NOTICE 'n=% s=% pct=%%', n, s;
			FOR r IN SELECT x, x * 10 AS y FROM generate_series(1, 2) x LOOP
				RAISE INFO 'row % %', r.x, r.y;
			END LOOP;
			RAISE WARNING 'careful' USING ERRCODE = 'P0001';
			BEGIN
				PERFORM 1 / 0;
			EXCEPTION WHEN division_by_zero THEN
				RAISE NOTICE 'caught % (%)', SQLSTATE, SQLERRM;
			END;
		END $$`); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"NOTICE 00000 n=2 s=<NULL> pct=%",
		"INFO 00000 row 1 10",
		"INFO 00000 row 2 20",
		"WARNING P0001 careful",
		"NOTICE 00000 caught 22012 (division by zero)",
	}
	if got := notices(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, err := conn.Exec(ctx, `DO $$ BEGIN RAISE EXCEPTION 'bad %', 'thing' USING DETAIL = 'the detail', HINT = 'the hint', ERRCODE = 'check_violation'; END $$`)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23514" || pe.Message != "bad thing" || pe.Detail != "the detail" || pe.Hint != "the hint" {
		t.Fatalf("RAISE EXCEPTION: %#v", err)
	}
}

// TestDoCancel: an endless LOOP in a DO block ends with 57014 under
// statement_timeout and at pg_cancel_backend, and the session goes on;
// what the block wrote is undone.
func TestDoCancel(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, _ := noticeConn(t, ts)
	b, _ := noticeConn(t, ts)
	if _, err := a.Exec(ctx, `CREATE TABLE spin (n int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, `SET statement_timeout = 200`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := a.Exec(ctx, `DO $$ BEGIN INSERT INTO spin VALUES (1); LOOP END LOOP; END $$`)
	if sqlState(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("endless loop under statement_timeout: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the timeout took %v", took)
	}
	if _, err := a.Exec(ctx, `SET statement_timeout = 0`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := a.Exec(ctx, `DO $$ DECLARE i int := 0; BEGIN LOOP i := i + 1; BEGIN PERFORM 1; EXCEPTION WHEN others THEN NULL; END; END LOOP; END $$`)
		done <- err
	}()
	waitActivity(t, b, a.PgConn().PID(), "the DO block running", inState("active", "LOOP"))
	var ok bool
	if err := b.QueryRow(ctx, `SELECT pg_cancel_backend($1)`, int32(a.PgConn().PID())).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend: %v %v", ok, err)
	}
	select {
	case err := <-done:
		// WHEN OTHERS does not catch a cancel, as in PostgreSQL.
		if sqlState(err) != "57014" {
			t.Fatalf("cancelled DO block: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the DO block still runs 10s after pg_cancel_backend")
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM spin`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows left by the failed blocks: %d %v", n, err)
	}
}

// TestFunctionsPersist: functions are in the catalog: after a restart
// they are still called, listed in pg_proc, and dropped.
func TestFunctionsPersist(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	ctx := context.Background()
	conn := ts.connect(t)
	if _, err := conn.Exec(ctx, `CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT x * 2 $$`); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	ts.stop()
	ts = startServer(t, dir)
	conn = ts.connect(t)
	var n int
	var src string
	if err := conn.QueryRow(ctx, `SELECT twice(21), prosrc FROM pg_proc WHERE proname = 'twice'`).Scan(&n, &src); err != nil || n != 42 || src != " SELECT x * 2 " {
		t.Fatalf("after restart: %d %q %v", n, src, err)
	}
	if _, err := conn.Exec(ctx, `DROP FUNCTION twice(int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT twice(1)`); sqlState(err) != "42883" {
		t.Fatalf("dropped function: %v", err)
	}
}

// TestTriggers: the updated_at trigger every app schema has sets the
// column at each UPDATE (autocommit and in a transaction block, through
// pgx's extended protocol); a trigger's RAISE NOTICE reaches the client;
// the triggers survive a restart; a trigger that writes its own table
// ends with 54001 instead of recursing forever.
func TestTriggers(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	ctx := context.Background()
	conn, notices := noticeConn(t, ts)
	for _, q := range []string{
		`CREATE TABLE items (id int PRIMARY KEY, title text, updated_at timestamptz)`,
		`CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated_at = now(); RETURN NEW; END $$`,
		`CREATE TRIGGER items_touch BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION touch()`,
		`CREATE FUNCTION say() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE '% of %', TG_OP, NEW.id; RETURN NEW; END $$`,
		`CREATE TRIGGER items_say BEFORE INSERT ON items FOR EACH ROW EXECUTE PROCEDURE say()`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO items (id, title) VALUES ($1, 'a'), (2, 'b')`, 1); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(notices(), "; "); got != "NOTICE 00000 INSERT of 1; NOTICE 00000 INSERT of 2" {
		t.Fatalf("notices of the insert trigger: %s", got)
	}
	if _, err := conn.Exec(ctx, `UPDATE items SET title = $1 WHERE id = 1`, "a2"); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE items SET title = 'b2' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	var inTx time.Time
	if err := tx.QueryRow(ctx, `SELECT updated_at FROM items WHERE id = 2`).Scan(&inTx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var set int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM items WHERE updated_at IS NOT NULL AND updated_at > now() - interval '1 minute'`).Scan(&set); err != nil || set != 2 {
		t.Fatalf("rows touched: %d %v", set, err)
	}
	conn.Close(ctx)
	ts.stop()

	ts = startServer(t, dir)
	conn, _ = noticeConn(t, ts)
	if _, err := conn.Exec(ctx, `UPDATE items SET title = 'c', updated_at = NULL WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var null bool
	if err := conn.QueryRow(ctx, `SELECT updated_at IS NULL FROM items WHERE id = 1`).Scan(&null); err != nil || null {
		t.Fatalf("trigger after restart: null=%v %v", null, err)
	}
	var triggers int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'items'::regclass`).Scan(&triggers); err != nil || triggers != 2 {
		t.Fatalf("pg_trigger after restart: %d %v", triggers, err)
	}
	if _, err := conn.Exec(ctx, `CREATE FUNCTION again() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO items (id) VALUES (NEW.id + 1000); RETURN NEW; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TRIGGER items_again BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION again()`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO items (id) VALUES (5)`); sqlState(err) != "54001" {
		t.Fatalf("a trigger inserting into its own table: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM items`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows after the failed recursive insert: %d %v", n, err)
	}
}

// TestFunctionsSeveralServers: functions and triggers made on one server
// of a shared object store are in the catalog the others read: another
// server calls the function and runs the trigger, and sees them dropped.
func TestFunctionsSeveralServers(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	ctx := context.Background()
	objstoretest.Serve(t, "cairn-plpgsql")
	a := startProcess(t, t.TempDir(), "--storage", "s3://cairn-plpgsql/db").connect(t)
	b := startProcess(t, t.TempDir(), "--storage", "s3://cairn-plpgsql/db").connect(t)
	mustExec(t, a, `CREATE TABLE notes (id int PRIMARY KEY, body text, updated_at timestamptz)`)
	mustExec(t, a, `CREATE FUNCTION shout(s text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(s) || '!' $$`)
	mustExec(t, a, `CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.updated_at = now(); RETURN NEW; END $$`)
	mustExec(t, a, `CREATE TRIGGER notes_touch BEFORE INSERT OR UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION touch()`)
	mustExec(t, b, `INSERT INTO notes (id, body) VALUES (1, 'hi')`)
	var shouted string
	var touched bool
	if err := b.QueryRow(ctx, `SELECT shout(body), updated_at IS NOT NULL FROM notes WHERE id = 1`).Scan(&shouted, &touched); err != nil || shouted != "HI!" || !touched {
		t.Fatalf("server 1 with server 0's function and trigger: %q %v %v", shouted, touched, err)
	}
	mustExec(t, a, `DROP FUNCTION touch() CASCADE`)
	mustExec(t, b, `INSERT INTO notes (id, body) VALUES (2, 'quiet')`)
	if err := a.QueryRow(ctx, `SELECT updated_at IS NOT NULL FROM notes WHERE id = 2`).Scan(&touched); err != nil || touched {
		t.Fatalf("trigger dropped on server 0 still ran on server 1: %v %v", touched, err)
	}
}

// TestFunctionsKill9: a function and a trigger acknowledged before the
// server is killed (SIGKILL) are there after it starts again.
func TestFunctionsKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	ctx := context.Background()
	dir := t.TempDir()
	p := startProcess(t, dir)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE k9 (id int, v text)`)
	mustExec(t, conn, `CREATE FUNCTION k9_tag(x text) RETURNS text LANGUAGE sql AS $$ SELECT 'k9:' || x $$`)
	mustExec(t, conn, `CREATE FUNCTION k9_fill() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.v := k9_tag(NEW.id::text); RETURN NEW; END $$`)
	mustExec(t, conn, `CREATE TRIGGER k9_fill BEFORE INSERT ON k9 FOR EACH ROW EXECUTE FUNCTION k9_fill()`)
	p.kill()
	conn = startProcess(t, dir).connect(t)
	mustExec(t, conn, `INSERT INTO k9 (id) VALUES (7)`)
	var v string
	if err := conn.QueryRow(ctx, `SELECT v FROM k9`).Scan(&v); err != nil || v != "k9:7" {
		t.Fatalf("after kill -9: %q %v", v, err)
	}
}

// TestPLFunctionWritesFromSelect: a PL/pgSQL function that writes, called
// by autocommit SELECTs of four pgx connections at once, counts every call
// once (each SELECT commits what its calls wrote, the UPDATEs of the one
// row serialised); a SELECT failing after some calls leaves nothing; a
// portal read 2 rows at a time (Execute with a row limit) streams its rows
// and commits all of its calls' writes when its rows are all sent.
func TestPLFunctionWritesFromSelect(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE ctr (k int PRIMARY KEY, n int)`)
	mustExec(t, conn, `INSERT INTO ctr VALUES (1, 0)`)
	mustExec(t, conn, `CREATE FUNCTION bump(x int) RETURNS int LANGUAGE plpgsql AS $$
		DECLARE r int;
		BEGIN
			UPDATE ctr SET n = n + x WHERE k = 1 RETURNING n INTO r;
			RETURN r;
		END $$`)
	const workers, calls = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		c := ts.connect(t)
		wg.Go(func() {
			for range calls {
				var n int
				if err := c.QueryRow(ctx, `SELECT bump(1)`).Scan(&n); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT n FROM ctr`).Scan(&n); err != nil || n != workers*calls {
		t.Fatalf("n = %d (%v), want %d", n, err, workers*calls)
	}

	// A failure after two calls: the statement's transaction rolls back.
	if _, err := conn.Exec(ctx, `SELECT bump(1), 1 / (g - 3) FROM generate_series(1, 3) g`); err == nil {
		t.Fatal("division by zero was not reported")
	}
	if err := conn.QueryRow(ctx, `SELECT n FROM ctr`).Scan(&n); err != nil || n != workers*calls {
		t.Fatalf("after a failed SELECT n = %d (%v), want %d", n, err, workers*calls)
	}

	// A portal executed with a row limit, outside a block: its rows
	// stream, and its calls' writes commit once they are all sent.
	rc := dialStarted(t, ts.Addr)
	rc.send(&pgproto3.Parse{Query: "SELECT bump(10) FROM generate_series(1, 5)"}, &pgproto3.Bind{},
		&pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Sync{})
	want := []string{"ParseComplete", "BindComplete",
		fmt.Sprintf("DataRow %d", workers*calls+10), fmt.Sprintf("DataRow %d", workers*calls+20), "PortalSuspended",
		fmt.Sprintf("DataRow %d", workers*calls+30), fmt.Sprintf("DataRow %d", workers*calls+40), "PortalSuspended",
		fmt.Sprintf("DataRow %d", workers*calls+50), "CommandComplete", "ReadyForQuery I"}
	if got := rc.readUntilReady(); !slices.Equal(got, want) {
		t.Fatalf("portal:\n got %q\nwant %q", got, want)
	}
	if err := conn.QueryRow(ctx, `SELECT n FROM ctr`).Scan(&n); err != nil || n != workers*calls+50 {
		t.Fatalf("after the portal n = %d (%v), want %d", n, err, workers*calls+50)
	}
}
