package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestListenNotify checks LISTEN/NOTIFY across sessions as PostgreSQL
// delivers them: a session waiting idle for its client gets a
// notification at once (pgx's WaitForNotification), one in a transaction
// block only after it ends, notifications go out at commit and never
// after a rollback, a transaction's duplicates collapse, UNLISTEN stops
// them, and bad channel names and payloads are 22023.
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
		`SELECT pg_notify('jobs', repeat('p', 8000))`} {
		if _, err := sender.Exec(ctx, bad); sqlState(err) != "22023" {
			t.Errorf("%s: %v, want 22023", strings.SplitN(bad, "(", 2)[0], err)
		}
	}
	if _, err := sender.Exec(ctx, `BEGIN READ ONLY; NOTIFY jobs; COMMIT`); sqlState(err) != "25006" {
		t.Errorf("NOTIFY in a read-only transaction: %v, want 25006", err)
	}
}
