package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/storage"
)

// pgErr is err's PostgreSQL error, nil when it is none.
func pgErr(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// wantUnique checks that err is 23505 on constraint name with detail.
func wantUnique(t *testing.T, what string, err error, name, detail string) {
	t.Helper()
	pe := pgErr(err)
	if pe == nil || pe.Code != "23505" || pe.Message != fmt.Sprintf("duplicate key value violates unique constraint %q", name) || pe.Detail != detail {
		t.Errorf("%s: got %v, want 23505 on %s (%s)", what, err, name, detail)
	}
}

// TestComputedUniqueIndexRestart creates unique partial and expression
// indexes and a non-unique partial one, writes rows (some flushed to
// segments by a checkpoint, some only in the WAL), and restarts the
// server: the catalog keeps the indexes as pg_get_indexdef prints them,
// and uniqueness holds inside the predicate and not outside it, against
// both kinds of rows.
func TestComputedUniqueIndexRestart(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE acct (id int PRIMARY KEY, email text, deleted_at timestamptz)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX acct_live ON acct (email) WHERE deleted_at IS NULL`)
	mustExec(t, conn, `CREATE UNIQUE INDEX acct_lower ON acct (lower(email))`)
	mustExec(t, conn, `CREATE INDEX acct_recent ON acct (id) WHERE deleted_at IS NOT NULL`)
	mustExec(t, conn, `INSERT INTO acct SELECT i, 'user' || i || '@x', CASE WHEN i % 2 = 0 THEN now() END FROM generate_series(1, 3000) i`)
	if err := ts.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `INSERT INTO acct VALUES (5001, 'wal@x', NULL), (5002, 'gone@x', now())`)
	defs := func(conn *pgx.Conn) string {
		var s string
		if err := conn.QueryRow(context.Background(), `SELECT string_agg(indexdef, E'\n' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'acct'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := defs(conn)
	conn.Close(context.Background())
	ts.stop()

	ts = startServer(t, dir)
	conn = ts.connect(t)
	if after := defs(conn); after != before {
		t.Errorf("index definitions after restart:\n%s\nbefore:\n%s", after, before)
	}
	if !strings.Contains(before, `CREATE UNIQUE INDEX acct_live ON public.acct USING btree (email) WHERE (deleted_at IS NULL)`) {
		t.Errorf("index definitions:\n%s", before)
	}
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO acct VALUES (9001, 'USER1@X', NULL)`)
	wantUnique(t, "expression key of a flushed row", err, "acct_lower", "Key (lower(email))=(user1@x) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO acct VALUES (9002, 'Wal@X', now())`)
	wantUnique(t, "expression key of a WAL row", err, "acct_lower", "Key (lower(email))=(wal@x) already exists.")
	// Outside the partial index's predicate a repeated email is fine as
	// long as the expression index allows it: drop that one first.
	mustExec(t, conn, `DROP INDEX acct_lower`)
	mustExec(t, conn, `INSERT INTO acct VALUES (9003, 'user2@x', now()), (9004, 'gone@x', NULL)`)
	_, err = conn.Exec(ctx, `INSERT INTO acct VALUES (9005, 'user3@x', NULL)`)
	wantUnique(t, "partial key of a flushed row", err, "acct_live", "Key (email)=(user3@x) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO acct VALUES (9006, 'wal@x', NULL)`)
	wantUnique(t, "partial key of a WAL row", err, "acct_live", "Key (email)=(wal@x) already exists.")
	// A row leaving the predicate frees its key.
	mustExec(t, conn, `UPDATE acct SET deleted_at = now() WHERE id = 3`)
	mustExec(t, conn, `INSERT INTO acct VALUES (9007, 'user3@x', NULL)`)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM acct WHERE email = 'user3@x'`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d rows of user3@x, %v", n, err)
	}
}

// TestComputedUniqueIndexCopy loads COPYs of thousands of rows into a
// table with a unique partial index and a unique expression index: a
// row repeating a key inside the predicate, of a committed row or of an
// earlier row of the COPY, fails the whole COPY with 23505 and leaves
// nothing; repeats outside the predicate load. It runs again with a
// spill threshold small enough that the COPY writes its rows to segments
// of its own, whose keys the commit reads back.
func TestComputedUniqueIndexCopy(t *testing.T) {
	t.Run("in memory", func(t *testing.T) { testComputedUniqueIndexCopy(t, startServer(t, "")) })
	t.Run("spilled", func(t *testing.T) {
		testComputedUniqueIndexCopy(t, startServerOpts(t, t.TempDir(), storage.Options{SpillBytes: 32 << 10}))
	})
}

func testComputedUniqueIndexCopy(t *testing.T, ts *testServer) {
	conn := ts.connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE cp (id int, email text, active bool, ref jsonb)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX cp_active ON cp (email) WHERE active`)
	mustExec(t, conn, `CREATE UNIQUE INDEX cp_ref ON cp ((ref ->> 'r'))`)
	mustExec(t, conn, `INSERT INTO cp VALUES (0, 'taken', true, '{"r": "taken"}')`)
	rows := func(n int, extra string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%d\tu%d\t%t\t{\"r\": \"r%d\"}\n", i, (i+1)/2, i%2 == 0, i)
		}
		return b.String() + extra
	}
	const n = 6000
	count := func() int {
		var c int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM cp`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		name, data, con, detail string
	}{
		{"a committed key inside the predicate", rows(n, "9999\ttaken\ttrue\t{}\n"), "cp_active", "Key (email)=(taken) already exists."},
		{"an earlier row's key inside the predicate", rows(n, "9999\tu2\ttrue\t{}\n"), "cp_active", "Key (email)=(u2) already exists."},
		{"a committed expression key", "9999\tx\tfalse\t{\"r\": \"taken\"}\n" + rows(n, ""), "cp_ref", "Key ((ref ->> 'r'::text))=(taken) already exists."},
		{"an earlier row's expression key", rows(n, "9999\tx\tfalse\t{\"r\": \"r17\"}\n"), "cp_ref", "Key ((ref ->> 'r'::text))=(r17) already exists."},
	} {
		pe := copyErr(conn, `COPY cp FROM STDIN`, c.data)
		wantUnique(t, c.name, errOf(pe), c.con, c.detail)
		if got := count(); got != 1 {
			t.Fatalf("%s: %d rows after the failed COPY", c.name, got)
		}
	}
	// Each email twice: once active, once not; "taken" again inactive.
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(rows(n, "9999\ttaken\tfalse\t{}\n")), `COPY cp FROM STDIN`); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != n+2 {
		t.Errorf("%d rows, want %d", got, n+2)
	}
}

// errOf is pe as an error (nil for none).
func errOf(pe *pgconn.PgError) error {
	if pe == nil {
		return nil
	}
	return pe
}

// TestComputedUniqueIndexConcurrent has two transactions insert the same
// key of a unique expression index and of a unique partial index: the
// second waits for the first, and fails with 23505 when it commits or
// goes through when it rolls back; a row outside the predicate waits for
// nothing.
func TestComputedUniqueIndexConcurrent(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE cc (id serial, email text, active bool)`)
	mustExec(t, a, `CREATE UNIQUE INDEX cc_lower ON cc (lower(email))`)
	mustExec(t, a, `CREATE UNIQUE INDEX cc_active ON cc (email) WHERE active`)
	insertAsync := func(conn *pgx.Conn, sql string) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := conn.Exec(ctx, sql)
			done <- err
		}()
		return done
	}
	for i, c := range []struct {
		first, second string
		con, detail   string
	}{
		{`INSERT INTO cc (email, active) VALUES ('Same%d', false)`, `INSERT INTO cc (email, active) VALUES ('SAME%d', false)`, "cc_lower", "Key (lower(email))=(same%d) already exists."},
		{`INSERT INTO cc (email, active) VALUES ('p%d', true)`, `INSERT INTO cc (email, active) VALUES ('p%d', true)`, "cc_active", "Key (email)=(p%d) already exists."},
	} {
		for _, commit := range []bool{true, false} {
			k := 2*i + map[bool]int{true: 0, false: 1}[commit]
			mustExec(t, a, `BEGIN`)
			mustExec(t, a, fmt.Sprintf(c.first, k))
			done := insertAsync(b, fmt.Sprintf(c.second, k))
			select {
			case err := <-done:
				t.Fatalf("the second insert did not wait: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			if commit {
				mustExec(t, a, `COMMIT`)
				wantUnique(t, "after the first committed", <-done, c.con, fmt.Sprintf(c.detail, k))
			} else {
				mustExec(t, a, `ROLLBACK`)
				if err := <-done; err != nil {
					t.Errorf("after the first rolled back: %v", err)
				}
			}
		}
	}
	// Outside the predicate (and under another expression key) nothing waits.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `INSERT INTO cc (email, active) VALUES ('q', false)`)
	done := insertAsync(b, `INSERT INTO cc (email, active) VALUES ('q', NULL) ON CONFLICT (lower(email)) DO NOTHING`)
	select {
	case <-done:
		t.Fatal("ON CONFLICT on a key another transaction holds did not wait")
	case <-time.After(300 * time.Millisecond):
	}
	mustExec(t, a, `COMMIT`)
	if err := <-done; err != nil {
		t.Errorf("ON CONFLICT DO NOTHING after the first committed: %v", err)
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM cc WHERE email = 'q'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows of q, %v", n, err)
	}
}

// TestComputedUniqueIndexKill9 writes rows under a unique partial index
// and a unique expression index through a server it then SIGKILLs: the
// next one, recovering from the WAL, has the indexes and enforces them
// on the recovered rows.
func TestComputedUniqueIndexKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	dir := t.TempDir()
	p := startProcess(t, dir)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE kk (id int PRIMARY KEY, email text, deleted_at timestamptz)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX kk_live ON kk (email) WHERE deleted_at IS NULL`)
	mustExec(t, conn, `CREATE UNIQUE INDEX kk_lower ON kk (lower(email))`)
	mustExec(t, conn, `INSERT INTO kk SELECT i, 'u' || i, CASE WHEN i % 2 = 0 THEN now() END FROM generate_series(1, 500) i`)
	mustExec(t, conn, `UPDATE kk SET deleted_at = now() WHERE id = 1`)
	p.kill()

	p = startProcess(t, dir)
	conn = p.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO kk VALUES (1001, 'U7', now())`)
	wantUnique(t, "expression key after recovery", err, "kk_lower", "Key (lower(email))=(u7) already exists.")
	mustExec(t, conn, `DROP INDEX kk_lower`)
	_, err = conn.Exec(ctx, `INSERT INTO kk VALUES (1002, 'u9', NULL)`)
	wantUnique(t, "partial key after recovery", err, "kk_live", "Key (email)=(u9) already exists.")
	// u1 left the predicate before the crash, u2 was never in it.
	mustExec(t, conn, `INSERT INTO kk VALUES (1003, 'u1', NULL), (1004, 'u2', NULL)`)
}
