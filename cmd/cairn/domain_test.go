package main

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDomainPgx drives domains through pgx over a real socket: the base
// type's OID in RowDescription for a domain column and a cast to a
// domain (as PostgreSQL sends it), the domain's DEFAULT, NOT NULL and
// CHECK on INSERT, UPDATE, COPY (binary and text) and casts, and all of it again
// after the server is killed with SIGKILL and restarted, ALTER DOMAIN's
// changes included.
func TestDomainPgx(t *testing.T) {
	dir := t.TempDir()
	p := startLogged(t, dir)
	ctx := context.Background()
	conn := p.connect(t)
	mustExec(t, conn, `CREATE SCHEMA app`)
	mustExec(t, conn, `CREATE DOMAIN app.email AS text CHECK (VALUE ~ '^[^@]+@[^@]+$')`)
	mustExec(t, conn, `CREATE DOMAIN posint AS integer NOT NULL DEFAULT 1 CHECK (VALUE > 0)`)
	mustExec(t, conn, `CREATE TABLE users (id int PRIMARY KEY, mail app.email, n posint)`)
	mustExec(t, conn, `INSERT INTO users (id, mail) VALUES (1, 'a@b')`)
	mustExec(t, conn, `ALTER DOMAIN posint ADD CONSTRAINT small CHECK (VALUE < 100)`)

	rows, err := conn.Query(ctx, `SELECT mail, n, 'x@y'::app.email FROM users`)
	if err != nil {
		t.Fatal(err)
	}
	var oids []uint32
	for _, f := range rows.FieldDescriptions() {
		oids = append(oids, f.DataTypeOID)
	}
	rows.Close()
	if want := []uint32{25, 23, 25}; !reflect.DeepEqual(oids, want) {
		t.Errorf("RowDescription type OIDs %v, want the base types' %v", oids, want)
	}

	fails := func(c *pgx.Conn, q, state, msg string, args ...any) {
		t.Helper()
		_, err := c.Exec(ctx, q, args...)
		if sqlState(err) != state || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %s %s", q, err, state, msg)
		}
	}
	check := func(c *pgx.Conn) {
		t.Helper()
		fails(c, `INSERT INTO users VALUES (9, 'nope', 2)`, "23514", `value for domain app.email violates check constraint "email_check"`)
		fails(c, `INSERT INTO users VALUES ($1, $2, $3)`, "23502", `domain posint does not allow null values`, 9, "q@r", nil)
		fails(c, `UPDATE users SET n = 100`, "23514", `value for domain posint violates check constraint "small"`)
		fails(c, `SELECT 0::posint`, "23514", `value for domain posint violates check constraint "posint_check"`)
		_, err := c.CopyFrom(ctx, pgx.Identifier{"users"}, []string{"id", "mail", "n"}, pgx.CopyFromRows([][]any{{9, "bad", 1}}))
		if sqlState(err) != "23514" {
			t.Errorf("COPY FROM (binary) of a value the domain's CHECK refuses: %v, want 23514", err)
		}
		_, err = c.PgConn().CopyFrom(ctx, strings.NewReader("9\tq@r\t\\N\n"), `COPY users (id, mail, n) FROM STDIN`)
		if sqlState(err) != "23502" || !strings.Contains(err.Error(), "domain posint does not allow null values") {
			t.Errorf("COPY FROM (text) of a NULL for a NOT NULL domain: %v, want 23502", err)
		}
		var n int
		if err := c.QueryRow(ctx, `SELECT n FROM users WHERE id = 1`).Scan(&n); err != nil || n != 1 {
			t.Errorf("the domain's DEFAULT: %d %v, want 1", n, err)
		}
		var names []string
		r, err := c.Query(ctx, `SELECT conname::text FROM pg_constraint WHERE contypid = 'posint'::regtype ORDER BY 1`)
		if err == nil {
			names, err = pgx.CollectRows(r, pgx.RowTo[string])
		}
		if err != nil || !reflect.DeepEqual(names, []string{"posint_check", "small"}) {
			t.Errorf("the domain's constraints: %v %v", names, err)
		}
	}
	check(conn)

	p.kill()
	p = startLogged(t, dir)
	conn = p.connect(t)
	check(conn)
	mustExec(t, conn, `INSERT INTO users (id, mail) VALUES (2, 'c@d')`)
	fails(conn, `DROP DOMAIN posint`, "2BP01", `cannot drop type posint because other objects depend on it`)
	mustExec(t, conn, `DROP DOMAIN posint CASCADE`)
	mustExec(t, conn, `DROP TABLE users`)
	mustExec(t, conn, `DROP DOMAIN app.email`)
	noPanic(t, p.log())
}

// TestDomainAddConstraintFencesWriters: while a transaction's ALTER
// DOMAIN ... ADD CONSTRAINT is open, another's insert into a table of the
// domain waits for it, then meets the new constraint (it would otherwise
// commit a value the constraint's check of the rows there never saw).
func TestDomainAddConstraintFencesWriters(t *testing.T) {
	p := startLogged(t, t.TempDir())
	ctx := context.Background()
	a, b := p.connect(t), p.connect(t)
	mustExec(t, a, `CREATE DOMAIN pi AS int CHECK (VALUE > 0)`)
	mustExec(t, a, `CREATE TABLE ct (x pi)`)
	mustExec(t, a, `INSERT INTO ct VALUES (1)`)
	mustExec(t, a, `BEGIN`)
	mustExec(t, a, `ALTER DOMAIN pi ADD CONSTRAINT lt5 CHECK (VALUE < 5)`)
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, `INSERT INTO ct VALUES (6)`)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the insert ended while the ALTER DOMAIN was open: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	mustExec(t, a, `COMMIT`)
	if err := <-done; sqlState(err) != "23514" || !strings.Contains(err.Error(), `"lt5"`) {
		t.Fatalf("the insert after the ALTER DOMAIN committed: %v, want 23514 on lt5", err)
	}
	noPanic(t, p.log())
}
