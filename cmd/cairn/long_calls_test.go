package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// TestLongCallsCancel: a single function call that works for seconds
// over one long value (to_tsvector over 10MB of words, ts_headline
// seeking covers among a million matching words, regexp_replace
// and regexp_matches with 20 million matches, regexp_split_to_array and
// regexp_split_to_table with 8 million, in a SELECT and in an
// UPDATE's SET) ends with 57014 soon after a client's
// CancelRequest or its statement_timeout, as PostgreSQL's does, instead
// of when the call returns; the session then runs its next statement.
func TestLongCallsCancel(t *testing.T) {
	ts := startServer(t, "")
	cfg, err := pgx.ParseConfig(ts.connString())
	if err != nil {
		t.Fatal(err)
	}
	// A cancelled context sends a CancelRequest (pgx's default closes
	// the connection instead).
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 10 * time.Second}
	}
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	const bound = 3 * time.Second // each call runs for well over it
	mustExec(t, conn, "CREATE TABLE long_text (b text)")
	mustExec(t, conn, "INSERT INTO long_text VALUES (repeat('ab', 20000000))")
	calls := []string{
		"SELECT length(to_tsvector(repeat('word ', 2000000)))",
		"SELECT length(ts_headline('english', repeat('fox dog ', 500000), to_tsquery('english', 'fox & cat')))",
		"SELECT length(regexp_replace(repeat('ab', 20000000), 'a', 'xy', 'g'))",
		"UPDATE long_text SET b = regexp_replace(b, 'a', 'xy', 'g')",
		"SELECT count(*) FROM regexp_matches(repeat('ab', 20000000), 'a', 'g')",
		"SELECT array_length(regexp_split_to_array(repeat('ab', 8000000), 'a'), 1)",
		"SELECT count(*) FROM regexp_split_to_table(repeat('ab', 8000000), 'a')",
	}
	works := func(after string) {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
			t.Fatalf("after %s: %d, %v", after, n, err)
		}
	}
	mustExec(t, conn, "SET statement_timeout = '200ms'")
	for _, q := range calls {
		start := time.Now()
		_, err := conn.Exec(ctx, q)
		var pe *pgconn.PgError
		if took := time.Since(start); !errors.As(err, &pe) || pe.Code != "57014" ||
			pe.Message != "canceling statement due to statement timeout" || took > bound {
			t.Errorf("%s under statement_timeout: %v after %s, want 57014 at once", q, err, took)
		}
		works(q)
	}
	mustExec(t, conn, "SET statement_timeout = 0")
	for _, q := range calls {
		cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		start := time.Now()
		_, err := conn.Exec(cctx, q)
		cancel()
		var pe *pgconn.PgError
		if took := time.Since(start); !errors.As(err, &pe) || pe.Code != "57014" ||
			pe.Message != "canceling statement due to user request" || took > bound {
			t.Errorf("%s cancelled: %v after %s, want 57014 at once", q, err, took)
		}
		works(q)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT length(b) FROM long_text").Scan(&n); err != nil || n != 40000000 {
		t.Errorf("the cancelled UPDATEs changed the row: length %d, %v", n, err)
	}
}
