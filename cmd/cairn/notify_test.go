package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/exec/session"
)

// TestListenNotify checks LISTEN/NOTIFY across sessions as PostgreSQL
// delivers them: a session waiting idle for its client gets a
// notification at once (pgx's WaitForNotification), one in a transaction
// block only after it ends, notifications go out at commit and never
// after a rollback, a transaction's duplicates collapse, UNLISTEN stops
// them, bad channel names and payloads are 22023, and a read-only
// transaction may notify.
func TestListenNotify(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	heard := make(chan string, 16)
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { heard <- n.Channel + ":" + n.Payload }
	listener, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close(ctx) })
	sender := ts.connect(t)
	mustExec(t, listener, `LISTEN jobs`)
	wait := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case got := <-heard:
				if got != w {
					t.Fatalf("notification %q, want %q", got, w)
				}
				continue
			default:
			}
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := listener.PgConn().WaitForNotification(wctx)
			cancel()
			if err != nil {
				t.Fatalf("waiting for %q: %v", w, err)
			}
			if got := <-heard; got != w {
				t.Fatalf("notification %q, want %q", got, w)
			}
		}
	}
	none := func() {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		listener.PgConn().WaitForNotification(wctx)
		select {
		case got := <-heard:
			t.Fatalf("unexpected notification %q", got)
		default:
		}
	}

	// Idle listener: delivered while it waits.
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(100 * time.Millisecond)
		mustExec(t, sender, `NOTIFY jobs, 'first'`)
	}()
	wait("jobs:first")
	<-done

	// Sent in a transaction: at its commit, once per distinct payload, in
	// order; a rolled-back one never.
	mustExec(t, sender, `BEGIN`)
	mustExec(t, sender, `NOTIFY jobs, 'a'`)
	mustExec(t, sender, `SELECT pg_notify('jobs', 'b')`)
	mustExec(t, sender, `NOTIFY jobs, 'a'`)
	mustExec(t, sender, `NOTIFY other, 'not listened'`)
	none()
	mustExec(t, sender, `COMMIT`)
	wait("jobs:a", "jobs:b")
	mustExec(t, sender, `BEGIN`)
	mustExec(t, sender, `NOTIFY jobs, 'rolled back'`)
	mustExec(t, sender, `ROLLBACK`)
	none()

	// A listener in a transaction block hears nothing until it ends.
	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `NOTIFY jobs, 'after your commit'`)
	res := listener.PgConn().Exec(ctx, `SELECT 1`)
	if _, err := res.ReadAll(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, listener, `SELECT 2`)
	select {
	case got := <-heard:
		t.Fatalf("heard %q inside a transaction block", got)
	default:
	}
	mustExec(t, listener, `COMMIT`)
	wait("jobs:after your commit")

	// ROLLBACK TO SAVEPOINT takes back what was sent after the savepoint.
	mustExec(t, sender, `BEGIN`)
	mustExec(t, sender, `NOTIFY jobs, 'kept'`)
	mustExec(t, sender, `SAVEPOINT s`)
	mustExec(t, sender, `NOTIFY jobs, 'undone'`)
	mustExec(t, sender, `ROLLBACK TO SAVEPOINT s`)
	mustExec(t, sender, `COMMIT`)
	wait("jobs:kept")
	none()

	// UNLISTEN stops them; a LISTEN rolled back never starts.
	mustExec(t, listener, `UNLISTEN jobs`)
	mustExec(t, sender, `NOTIFY jobs, 'unheard'`)
	mustExec(t, listener, `BEGIN; LISTEN jobs; ROLLBACK`)
	mustExec(t, sender, `NOTIFY jobs, 'unheard too'`)
	none()

	for _, bad := range []string{`SELECT pg_notify('', 'x')`, `SELECT pg_notify(repeat('c', 64), 'x')`,
		`SELECT pg_notify('jobs', repeat('p', 8000))`, `SELECT pg_notify(NULL, 'x')`} {
		if _, err := sender.Exec(ctx, bad); sqlState(err) != "22023" {
			t.Errorf("%s: %v, want 22023", bad, err)
		}
	}

	// NOTIFY and pg_notify in a read-only transaction go out, as in
	// PostgreSQL; a NULL payload is an empty one.
	mustExec(t, listener, `LISTEN jobs`)
	mustExec(t, sender, `BEGIN READ ONLY; NOTIFY jobs, 'read only'; SELECT pg_notify('jobs', NULL); COMMIT`)
	wait("jobs:read only", "jobs:")
}

// TestNotifyQueue checks the bound on notifications not yet sent, as
// PostgreSQL's NOTIFY queue: a listener that sits in an open transaction
// holds what is sent to it, senders are warned past half full and then
// fail with 54000 (a COMMIT that would overflow the queue is rolled
// back), pg_notification_queue_usage() shows the fill, and the listener's
// COMMIT gets every notification that went out and empties the queue.
// A transaction whose own notifications exceed the queue fails even with
// no one listening, and many distinct notifications in one transaction
// take linear time (each used to be checked against all before it).
func TestNotifyQueue(t *testing.T) {
	ctx := context.Background()
	ts := startServerWith(t, "", session.Options{NotifyQueueBytes: 1 << 20})
	var heard atomic.Int64
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotification = func(*pgconn.PgConn, *pgconn.Notification) { heard.Add(1) }
	listener, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close(ctx) })
	var warnings []string
	scfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	scfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.Severity == "WARNING" {
			warnings = append(warnings, n.Message+" / "+n.Detail)
		}
	}
	sender, err := pgx.ConnectConfig(ctx, scfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Close(ctx) })
	usage := func() float64 {
		t.Helper()
		var u float64
		if err := sender.QueryRow(ctx, `SELECT pg_notification_queue_usage()`).Scan(&u); err != nil {
			t.Fatal(err)
		}
		return u
	}

	mustExec(t, listener, `LISTEN c`)
	mustExec(t, listener, `BEGIN`)
	mustExec(t, listener, `SELECT 1`)
	sent := 0
	var full error
	for i := 0; i < 1000 && full == nil; i++ {
		if _, full = sender.Exec(ctx, `SELECT pg_notify('c', $1::int::text || repeat('x', 7000))`, i); full == nil {
			sent++
		}
	}
	if sqlState(full) != "54000" || !strings.Contains(full.Error(), "too many notifications in the NOTIFY queue") {
		t.Fatalf("after %d notifications of 7000 bytes to a listener in a transaction: %v, want 54000", sent, full)
	}
	if sent < 100 || sent > 150 {
		t.Errorf("%d notifications of 7000 bytes fit a 1 MiB queue", sent)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "NOTIFY queue is 5") ||
		!strings.Contains(warnings[0], fmt.Sprintf("PID %d ", listener.PgConn().PID())) {
		t.Errorf("warnings %q, want one at half full naming the listener's PID %d", warnings, listener.PgConn().PID())
	}
	if u := usage(); u < 0.9 || u > 1 {
		t.Errorf("pg_notification_queue_usage() %v with the queue full", u)
	}
	// An explicit transaction fails at its COMMIT, rolled back.
	mustExec(t, sender, `CREATE TABLE t (i int)`)
	mustExec(t, sender, `BEGIN`)
	mustExec(t, sender, `INSERT INTO t VALUES (1)`)
	mustExec(t, sender, `NOTIFY c, 'at commit'`)
	mustExec(t, sender, `SELECT pg_notify('c', repeat('y', 7000))`)
	if _, err := sender.Exec(ctx, `COMMIT`); sqlState(err) != "54000" {
		t.Fatalf("COMMIT with the queue full: %v, want 54000", err)
	}
	var n int
	if err := sender.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows of the failed commit: %d, %v", n, err)
	}
	if heard.Load() != 0 {
		t.Fatalf("the listener in a transaction heard %d", heard.Load())
	}

	// The listener's COMMIT sends it everything that went out, and
	// frees the queue.
	mustExec(t, listener, `COMMIT`)
	if got := heard.Load(); got != int64(sent) {
		t.Errorf("listener heard %d notifications, %d were sent", got, sent)
	}
	if u := usage(); u != 0 {
		t.Errorf("pg_notification_queue_usage() %v once the listener took everything", u)
	}
	mustExec(t, sender, `NOTIFY c, 'room again'`)

	// A listener that goes away frees what it held.
	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `SELECT pg_notify('c', i::text || repeat('x', 5000)) FROM generate_series(1, 50) i`)
	if u := usage(); u < 0.2 {
		t.Errorf("pg_notification_queue_usage() %v with 250 kB held", u)
	}
	listener.Close(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for usage() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if u := usage(); u != 0 {
		t.Errorf("pg_notification_queue_usage() %v after the listener disconnected", u)
	}

	// One transaction's notifications beyond the queue, no one listening.
	if _, err := sender.Exec(ctx, `SELECT pg_notify('nobody', i::text || repeat('x', 7000)) FROM generate_series(1, 200) i`); sqlState(err) != "54000" {
		t.Errorf("1.4 MB of notifications in one statement: %v, want 54000", err)
	}
	// Many distinct small ones: linear, deduplicated.
	start := time.Now()
	mustExec(t, sender, `BEGIN`)
	mustExec(t, sender, `SELECT pg_notify('nobody', (i % 5000)::text) FROM generate_series(1, 10000) i`)
	mustExec(t, sender, `SELECT pg_notify('nobody', i::text) FROM generate_series(1, 5000) i`)
	mustExec(t, sender, `COMMIT`)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("15000 notifications in one transaction took %v", d)
	}
}

// TestUnlistenPending checks that notifications already sent to a session
// in a transaction block are dropped when that block's UNLISTEN commits,
// as PostgreSQL checks the channel when it reads its queue, and kept when
// the block lists the channel again or rolls back; pg_listening_channels()
// lists the channels.
func TestUnlistenPending(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	var heard []string
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { heard = append(heard, n.Channel+":"+n.Payload) }
	listener, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close(ctx) })
	sender := ts.connect(t)
	check := func(want ...string) {
		t.Helper()
		mustExec(t, listener, `SELECT 1`)
		if strings.Join(heard, ",") != strings.Join(want, ",") {
			t.Errorf("heard %q, want %q", heard, want)
		}
		heard = nil
	}
	channels := func(want string) {
		t.Helper()
		var got string
		if err := listener.QueryRow(ctx, `SELECT coalesce(string_agg(c, ',' ORDER BY c), '') FROM pg_listening_channels() c`, pgx.QueryExecModeSimpleProtocol).Scan(&got); err != nil || got != want {
			t.Errorf("pg_listening_channels() %q (%v), want %q", got, err, want)
		}
	}
	mustExec(t, listener, `LISTEN c`)
	mustExec(t, listener, `LISTEN d`)
	channels("c,d")
	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `NOTIFY c, 'x'`)
	mustExec(t, sender, `NOTIFY d, 'y'`)
	mustExec(t, listener, `UNLISTEN c`)
	mustExec(t, listener, `COMMIT`)
	check("d:y")

	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `NOTIFY d, 'z'`)
	mustExec(t, listener, `UNLISTEN *`)
	mustExec(t, listener, `COMMIT`)
	check()

	mustExec(t, listener, `LISTEN d`)
	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `NOTIFY d, 'kept'`)
	mustExec(t, listener, `UNLISTEN *`)
	mustExec(t, listener, `LISTEN d`)
	mustExec(t, listener, `COMMIT`)
	check("d:kept")

	mustExec(t, listener, `BEGIN`)
	mustExec(t, sender, `NOTIFY d, 'rolled back unlisten'`)
	mustExec(t, listener, `UNLISTEN d`)
	mustExec(t, listener, `ROLLBACK`)
	check("d:rolled back unlisten")
	channels("d")
	mustExec(t, listener, `DISCARD ALL`)
	channels("")
}

// TestNotifyQueueChurn checks that notifications sent while listeners
// come and go (some of them closing in an open transaction, holding
// what reached them) leave nothing counted in the queue once those
// sessions are gone: a notification handed to a session as it ended
// stayed counted, and such leftovers would fill the queue for good.
func TestNotifyQueueChurn(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, "")
	sender := ts.connect(t)
	stop := make(chan struct{})
	sent := make(chan error, 1)
	go func() {
		conn, err := pgx.Connect(ctx, ts.connString())
		if err != nil {
			sent <- err
			return
		}
		defer conn.Close(ctx)
		for i := 0; ; i++ {
			select {
			case <-stop:
				sent <- nil
				return
			default:
			}
			if _, err := conn.Exec(ctx, `SELECT pg_notify('churn', $1::int::text)`, i); err != nil {
				sent <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for k := 0; k < 15; k++ {
				conn, err := pgx.Connect(ctx, ts.connString())
				if err != nil {
					errs <- err
					return
				}
				_, err = conn.Exec(ctx, `LISTEN churn`)
				if err == nil && (w+k)%2 == 0 {
					_, err = conn.Exec(ctx, `BEGIN`)
				}
				if err == nil {
					_, err = conn.Exec(ctx, `SELECT 1`)
				}
				conn.Close(ctx)
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var u float64
	for {
		if err := sender.QueryRow(ctx, `SELECT pg_notification_queue_usage()`).Scan(&u); err != nil {
			t.Fatal(err)
		}
		if u == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if u != 0 {
		t.Errorf("pg_notification_queue_usage() %v with no session listening", u)
	}
}
