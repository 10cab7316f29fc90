package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Table privileges over real logins: a non-superuser role is refused
// (42501) until granted, a statement it prepared while it held the grant
// is refused after the REVOKE (the binding is checked again, not reused),
// and grants and owners survive a restart.
func TestPrivilegesLogin(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret")
	admin, err := s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatalf("bootstrap superuser: %v", err)
	}
	exec := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"CREATE ROLE bob LOGIN PASSWORD 'bob-pw-123'",
		"CREATE SCHEMA ws",
		"CREATE TABLE ws.notes (id int, body text)",
		"INSERT INTO ws.notes VALUES (1, 'hello')",
	} {
		exec(admin, q)
	}
	bob, err := s.pgConnect("host=127.0.0.1 user=bob password=bob-pw-123")
	if err != nil {
		t.Fatalf("bob: %v", err)
	}
	if _, err := bob.Exec(ctx, "SELECT * FROM ws.notes"); sqlState(err) != "42501" {
		t.Fatalf("bob without USAGE: %v, want 42501", err)
	}
	exec(admin, "GRANT USAGE ON SCHEMA ws TO bob")
	exec(admin, "GRANT SELECT ON ws.notes TO bob")
	const q = "SELECT body FROM ws.notes WHERE id = $1"
	var body string
	if err := bob.QueryRow(ctx, q, 1).Scan(&body); err != nil || body != "hello" {
		t.Fatalf("bob after GRANT: %q, %v", body, err)
	}
	if _, err := bob.Exec(ctx, "INSERT INTO ws.notes VALUES (2, 'x')"); sqlState(err) != "42501" {
		t.Fatalf("INSERT with SELECT only: %v, want 42501", err)
	}
	exec(admin, "REVOKE SELECT ON ws.notes FROM bob")
	// pgx runs q again from its statement cache: the same prepared
	// statement must now be refused.
	if err := bob.QueryRow(ctx, q, 1).Scan(&body); sqlState(err) != "42501" {
		t.Fatalf("prepared statement after REVOKE: %v, want 42501", err)
	}
	if _, err := bob.Exec(ctx, "CREATE SCHEMA bobs"); sqlState(err) != "42501" {
		t.Fatalf("CREATE SCHEMA as a non-superuser: %v, want 42501", err)
	}
	exec(admin, "GRANT SELECT, INSERT ON ws.notes TO bob WITH GRANT OPTION")
	exec(admin, "ALTER TABLE ws.notes OWNER TO bob")
	bob.Close(ctx)
	admin.Close(ctx)
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}

	s = startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret")
	defer s.stop()
	bob, err = s.pgConnect("host=127.0.0.1 user=bob password=bob-pw-123")
	if err != nil {
		t.Fatalf("bob after restart: %v", err)
	}
	defer bob.Close(ctx)
	var owner, acl string
	if err := bob.QueryRow(ctx, "SELECT pg_get_userbyid(relowner), array_to_string(relacl, ',') FROM pg_class WHERE relname = 'notes'").Scan(&owner, &acl); err != nil {
		t.Fatal(err)
	}
	if owner != "bob" || acl != "bob=a*r*wdDxt/bob" {
		t.Fatalf("after restart: owner %q, relacl %q", owner, acl)
	}
	exec(bob, "INSERT INTO ws.notes VALUES (2, 'mine')")
	admin, err = s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	exec(admin, "GRANT USAGE ON SCHEMA ws TO bob")
	_, err = admin.Exec(ctx, "DROP ROLE bob")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "2BP01" || pgErr.Detail != "privileges for schema ws\nowner of table ws.notes" {
		t.Fatalf("DROP ROLE of an owner: %v (detail %q), want 2BP01", err, pgErr.Detail)
	}
	exec(bob, "DROP TABLE ws.notes")
}

// TestPasswordWithoutHTTPTokenWarns: --password protects the PostgreSQL
// port only; a server that also serves the HTTP API without a token says
// so at start, and one with a token (or without the HTTP API) does not.
func TestPasswordWithoutHTTPTokenWarns(t *testing.T) {
	const warning = "the HTTP API asks no token"
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "127.0.0.1:0", "--password", "boot-s3cret")
	if !strings.Contains(s.logs.String(), warning) {
		t.Errorf("no warning about the open HTTP API:\n%s", s.logs.String())
	}
	for _, args := range [][]string{{"--http", "127.0.0.1:0", "--http-token", "tok"}, {"--http", "off"}} {
		s := startRun(t, append([]string{"--data-dir", t.TempDir(), "--password", "boot-s3cret"}, args...)...)
		if strings.Contains(s.logs.String(), warning) {
			t.Errorf("%v: warned about the HTTP API:\n%s", args, s.logs.String())
		}
	}
}
