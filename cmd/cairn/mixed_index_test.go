package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/storage"
)

// TestMixedUniqueIndexConcurrent has two transactions insert the same key
// of a unique index mixing a column and an expression (Django's
// UniqueConstraint(Lower('email'), 'tenant')): the second waits for the
// first and fails with 23505 naming both keys when it commits, or goes
// through when it rolls back; the same email under another tenant waits
// for nothing, and ON CONFLICT on the keys waits and then does nothing.
func TestMixedUniqueIndexConcurrent(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	a, b := ts.connect(t), ts.connect(t)
	mustExec(t, a, `CREATE TABLE mc (id serial, email text, tenant_id int)`)
	mustExec(t, a, `CREATE UNIQUE INDEX mc_lower_tenant ON mc (lower(email), tenant_id)`)
	async := func(conn *pgx.Conn, sql string) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := conn.Exec(ctx, sql)
			done <- err
		}()
		return done
	}
	waits := func(what string, done chan error) {
		t.Helper()
		select {
		case err := <-done:
			t.Fatalf("%s did not wait: %v", what, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
	for k, commit := range []bool{true, false} {
		mustExec(t, a, `BEGIN`)
		mustExec(t, a, fmt.Sprintf(`INSERT INTO mc (email, tenant_id) VALUES ('Same%d@X', 7)`, k))
		done := async(b, fmt.Sprintf(`INSERT INTO mc (email, tenant_id) VALUES ('same%d@x', 7)`, k))
		waits("the second insert", done)
		if commit {
			mustExec(t, a, `COMMIT`)
			wantUnique(t, "after the first committed", <-done, "mc_lower_tenant", fmt.Sprintf("Key (lower(email), tenant_id)=(same%d@x, 7) already exists.", k))
		} else {
			mustExec(t, a, `ROLLBACK`)
			if err := <-done; err != nil {
				t.Errorf("after the first rolled back: %v", err)
			}
		}
	}
	// Another tenant's key, or a NULL one, waits for nothing.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `INSERT INTO mc (email, tenant_id) VALUES ('q', 1), ('n', NULL)`)
	mustExec(t, b, `INSERT INTO mc (email, tenant_id) VALUES ('Q', 2), ('N', NULL)`)
	done := async(b, `INSERT INTO mc (email, tenant_id) VALUES ('Q', 1) ON CONFLICT (tenant_id, lower(email)) DO NOTHING`)
	waits("ON CONFLICT on a key another transaction holds", done)
	mustExec(t, a, `COMMIT`)
	if err := <-done; err != nil {
		t.Errorf("ON CONFLICT DO NOTHING after the first committed: %v", err)
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT count(*) FROM mc WHERE lower(email) = 'q' AND tenant_id = 1`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows of (q, 1), %v", n, err)
	}
	// Two upserts of one key at once: one inserts, the other updates.
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `INSERT INTO mc (email, tenant_id) VALUES ('up', 3) ON CONFLICT (lower(email), tenant_id) DO UPDATE SET id = mc.id + 1000`)
	done = async(b, `INSERT INTO mc (email, tenant_id) VALUES ('UP', 3) ON CONFLICT (lower(email), tenant_id) DO UPDATE SET id = mc.id + 1000`)
	waits("a concurrent upsert", done)
	mustExec(t, a, `COMMIT`)
	if err := <-done; err != nil {
		t.Fatalf("the second upsert: %v", err)
	}
	var email string
	var id int
	if err := a.QueryRow(ctx, `SELECT email, id FROM mc WHERE tenant_id = 3`).Scan(&email, &id); err != nil || email != "up" || id < 1000 {
		t.Errorf("after two upserts: %q %d %v", email, id, err)
	}
}

// TestMixedUniqueIndexRestart writes rows under unique indexes mixing
// columns and expressions (one partial), some flushed to segments by a
// checkpoint and some only in the WAL, and restarts the server: the
// indexes are as pg_get_indexdef printed them and hold against both
// kinds of rows, with PostgreSQL's DETAIL.
func TestMixedUniqueIndexRestart(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	conn := ts.connect(t)
	mustExec(t, conn, `CREATE TABLE mr (id int PRIMARY KEY, email text, tenant_id int, ref jsonb, deleted_at timestamptz)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX mr_lower_tenant ON mr (lower(email), tenant_id)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX mr_ref ON mr (tenant_id, (ref ->> 'r')) WHERE deleted_at IS NULL`)
	mustExec(t, conn, `INSERT INTO mr SELECT i, 'User' || i || '@x', i % 10, jsonb_build_object('r', 'r' || i), CASE WHEN i % 2 = 0 THEN now() END FROM generate_series(1, 3000) i`)
	if err := ts.db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `INSERT INTO mr VALUES (5001, 'Wal@X', 4, '{"r": "w"}', NULL)`)
	defs := func(conn *pgx.Conn) string {
		var s string
		if err := conn.QueryRow(context.Background(), `SELECT string_agg(indexdef, E'\n' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'mr'`).Scan(&s); err != nil {
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
	for _, want := range []string{
		`CREATE UNIQUE INDEX mr_lower_tenant ON public.mr USING btree (lower(email), tenant_id)`,
		`CREATE UNIQUE INDEX mr_ref ON public.mr USING btree (tenant_id, ((ref ->> 'r'::text))) WHERE (deleted_at IS NULL)`,
	} {
		if !strings.Contains(before, want) {
			t.Errorf("index definitions:\n%s\nwant %s", before, want)
		}
	}
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO mr VALUES (9001, 'USER11@X', 1, '{}', NULL)`)
	wantUnique(t, "a flushed row's key", err, "mr_lower_tenant", "Key (lower(email), tenant_id)=(user11@x, 1) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO mr VALUES (9002, 'wal@x', 4, '{}', now())`)
	wantUnique(t, "a WAL row's key", err, "mr_lower_tenant", "Key (lower(email), tenant_id)=(wal@x, 4) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO mr VALUES (9003, 'other', 3, '{"r": "r13"}', NULL)`)
	wantUnique(t, "a flushed row's partial key", err, "mr_ref", "Key (tenant_id, (ref ->> 'r'::text))=(3, r13) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO mr VALUES (9004, 'other', 4, '{"r": "w"}', NULL)`)
	wantUnique(t, "a WAL row's partial key", err, "mr_ref", "Key (tenant_id, (ref ->> 'r'::text))=(4, w) already exists.")
	// Another tenant, or a row outside the predicate, conflicts with nothing.
	mustExec(t, conn, `INSERT INTO mr VALUES (9005, 'user11@x', 2, '{"r": "r12"}', NULL), (9006, 'x', 4, '{"r": "w"}', now())`)
	// DROP INDEX takes the rule away.
	mustExec(t, conn, `DROP INDEX mr_lower_tenant`)
	mustExec(t, conn, `INSERT INTO mr VALUES (9007, 'USER11@X', 1, '{}', NULL)`)
}

// TestMixedUniqueIndexCopy loads COPYs of thousands of rows into a table
// with a unique index mixing a column and an expression: a row repeating
// a committed key or an earlier row's fails the whole COPY with 23505,
// leaving nothing; the same emails under other tenants load. It runs
// again with a spill threshold small enough that the COPY writes its rows
// to segments of its own.
func TestMixedUniqueIndexCopy(t *testing.T) {
	t.Run("in memory", func(t *testing.T) { testMixedUniqueIndexCopy(t, startServer(t, "")) })
	t.Run("spilled", func(t *testing.T) {
		testMixedUniqueIndexCopy(t, startServerOpts(t, t.TempDir(), storage.Options{SpillBytes: 32 << 10}))
	})
}

func testMixedUniqueIndexCopy(t *testing.T, ts *testServer) {
	conn := ts.connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE mcp (id int, email text, tenant_id int)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX mcp_key ON mcp (lower(email), tenant_id)`)
	mustExec(t, conn, `INSERT INTO mcp VALUES (0, 'Taken', 1)`)
	rows := func(tenant int, extra string) string {
		var b strings.Builder
		for i := 1; i <= 6000; i++ {
			fmt.Fprintf(&b, "%d\tU%d\t%d\n", i, i, tenant)
		}
		return b.String() + extra
	}
	count := func() int {
		var c int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM mcp`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct{ name, data, detail string }{
		{"a committed key", rows(1, "9999\ttaken\t1\n"), "Key (lower(email), tenant_id)=(taken, 1) already exists."},
		{"an earlier row's key", rows(1, "9999\tu17\t1\n"), "Key (lower(email), tenant_id)=(u17, 1) already exists."},
	} {
		pe := copyErr(conn, `COPY mcp FROM STDIN`, c.data)
		wantUnique(t, c.name, errOf(pe), "mcp_key", c.detail)
		if got := count(); got != 1 {
			t.Fatalf("%s: %d rows after the failed COPY", c.name, got)
		}
	}
	for _, data := range []string{rows(1, ""), rows(2, "9999\ttaken\t2\n")} {
		if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data), `COPY mcp FROM STDIN`); err != nil {
			t.Fatal(err)
		}
	}
	if got := count(); got != 12002 {
		t.Errorf("%d rows, want 12002", got)
	}
}

// TestMixedUniqueIndexKill9 writes rows under a unique index mixing a
// column and an expression through a server it then SIGKILLs: the next
// one, recovering from the WAL, has the index and enforces it on the
// recovered rows, a row that moved out of a key before the crash
// included.
func TestMixedUniqueIndexKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the server binary")
	}
	dir := t.TempDir()
	p := startProcess(t, dir)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE mk (id int PRIMARY KEY, email text, tenant_id int)`)
	mustExec(t, conn, `CREATE UNIQUE INDEX mk_key ON mk (lower(email), tenant_id)`)
	mustExec(t, conn, `INSERT INTO mk SELECT i, 'U' || i, i % 3 FROM generate_series(1, 500) i`)
	mustExec(t, conn, `UPDATE mk SET tenant_id = 9 WHERE id = 1`)
	p.kill()

	p = startProcess(t, dir)
	conn = p.connect(t)
	ctx := context.Background()
	_, err := conn.Exec(ctx, `INSERT INTO mk VALUES (1001, 'u7', 1)`)
	wantUnique(t, "a key after recovery", err, "mk_key", "Key (lower(email), tenant_id)=(u7, 1) already exists.")
	_, err = conn.Exec(ctx, `INSERT INTO mk VALUES (1002, 'u1', 9)`)
	wantUnique(t, "a moved key after recovery", err, "mk_key", "Key (lower(email), tenant_id)=(u1, 9) already exists.")
	// u1 left tenant 1 before the crash; u7 is free under another tenant.
	mustExec(t, conn, `INSERT INTO mk VALUES (1003, 'u1', 1), (1004, 'u7', 2)`)
}
