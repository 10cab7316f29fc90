package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// wantCode is err as a server error, failing the test when it is none
// or its SQLSTATE is not code.
func wantCode(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	pe := pgErr(err)
	if pe == nil || pe.Code != code {
		t.Fatalf("error %v, want SQLSTATE %s", err, code)
	}
	return pe
}

// TestNullsNotDistinctEnforced covers UNIQUE NULLS NOT DISTINCT where the
// logic tests cannot reach: PostgreSQL 15's DETAIL of a duplicate NULL
// key (INSERT, COPY, a constraint added over such rows), a second
// session inserting the NULL key another one inserted and has not
// committed (it waits, then fails, or succeeds after a ROLLBACK), and the
// index rebuilt from the data after kill -9 and a restart, ON CONFLICT
// included.
func TestNullsNotDistinctEnforced(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startLogged(t, dir)
	conn := p.connect(t)
	mustExec(t, conn, `CREATE TABLE nd (id int PRIMARY KEY, a int, b text, UNIQUE NULLS NOT DISTINCT (a, b))`)
	mustExec(t, conn, `INSERT INTO nd VALUES (1, NULL, NULL), (2, 1, NULL)`)

	_, err := conn.Exec(ctx, `INSERT INTO nd VALUES (3, NULL, NULL)`)
	if pe := wantCode(t, err, "23505"); pe.Detail != "Key (a, b)=(null, null) already exists." || pe.ConstraintName != "nd_a_b_key" {
		t.Errorf("INSERT: detail %q, constraint %q", pe.Detail, pe.ConstraintName)
	}
	_, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("4\t1\t\\N\n"), `COPY nd FROM STDIN`)
	if pe := wantCode(t, err, "23505"); pe.Detail != "Key (a, b)=(1, null) already exists." {
		t.Errorf("COPY: detail %q", pe.Detail)
	}
	_, err = conn.PgConn().CopyFrom(ctx, strings.NewReader("5\t2\t\\N\n6\t2\t\\N\n"), `COPY nd FROM STDIN`)
	wantCode(t, err, "23505")
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("5\t2\t\\N\n6\t\\N\tx\n"), `COPY nd FROM STDIN`); err != nil {
		t.Fatalf("COPY of new keys with NULLs: %v", err)
	}

	mustExec(t, conn, `CREATE TABLE nd2 (a int)`)
	mustExec(t, conn, `INSERT INTO nd2 VALUES (NULL), (NULL)`)
	_, err = conn.Exec(ctx, `ALTER TABLE nd2 ADD CONSTRAINT nd2_a UNIQUE NULLS NOT DISTINCT (a)`)
	if pe := wantCode(t, err, "23505"); pe.Message != `could not create unique index "nd2_a"` || pe.Detail != "Key (a)=(null) is duplicated." {
		t.Errorf("ADD CONSTRAINT: %q, detail %q", pe.Message, pe.Detail)
	}

	// Two sessions: the second waits for the first's uncommitted NULL key.
	other := p.connect(t)
	race := func(end string) error {
		t.Helper()
		mustExec(t, conn, `BEGIN`)
		mustExec(t, conn, `INSERT INTO nd VALUES (10, 7, NULL)`)
		done := make(chan error, 1)
		go func() {
			_, err := other.Exec(ctx, `INSERT INTO nd VALUES (11, 7, NULL)`)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("the second insert did not wait for the first transaction: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		mustExec(t, conn, end)
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("the second insert still waits after " + end)
		}
		return nil
	}
	if err := race("ROLLBACK"); err != nil {
		t.Fatalf("after the first transaction rolled back: %v", err)
	}
	mustExec(t, conn, `DELETE FROM nd WHERE id = 11`)
	wantCode(t, race("COMMIT"), "23505")

	p.kill()
	p = startLogged(t, dir)
	conn = p.connect(t)
	_, err = conn.Exec(ctx, `INSERT INTO nd VALUES (20, NULL, NULL)`)
	wantCode(t, err, "23505")
	_, err = conn.Exec(ctx, `INSERT INTO nd VALUES (21, NULL, 'x')`)
	wantCode(t, err, "23505")
	tag, err := conn.Exec(ctx, `INSERT INTO nd VALUES (22, 7, NULL) ON CONFLICT (a, b) DO NOTHING`)
	if err != nil || tag.RowsAffected() != 0 {
		t.Fatalf("ON CONFLICT DO NOTHING after the restart: %v, %d rows", err, tag.RowsAffected())
	}
	var id int
	if err := conn.QueryRow(ctx, `INSERT INTO nd VALUES (23, NULL, NULL) ON CONFLICT (a, b) DO UPDATE SET b = 'was null' RETURNING id`).Scan(&id); err != nil || id != 1 {
		t.Fatalf("ON CONFLICT DO UPDATE after the restart: id %d, %v", id, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO nd VALUES (24, NULL, NULL)`); err != nil {
		t.Fatalf("the NULL key freed by the update: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM nd`).Scan(&n); err != nil || n != 6 {
		t.Fatalf("rows after the restart: %d, %v", n, err)
	}
	noPanic(t, p.log())
}
