package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Roles over real logins: SCRAM against each role's verifier, the login
// refusals with PostgreSQL's SQLSTATEs, connection limits, SET ROLE, and
// the roles surviving a restart with no password on disk in plain text.
func TestRolesLogin(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret", "--max-connections", "8", "--log-connections")
	admin, err := s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatalf("bootstrap superuser: %v", err)
	}
	for _, q := range []string{
		"CREATE ROLE alice LOGIN PASSWORD 'alice-pw-123' CONNECTION LIMIT 2",
		"CREATE ROLE shy NOLOGIN PASSWORD 'shy-pw-123'",
		"CREATE ROLE old LOGIN PASSWORD 'old-pw-123' VALID UNTIL '2001-01-01'",
		"CREATE ROLE team",
		"GRANT team TO alice",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	admin.Close(ctx)

	alice, err := s.pgConnect("host=127.0.0.1 user=alice password=alice-pw-123")
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	var cu, su string
	if err := alice.QueryRow(ctx, "SELECT current_user, session_user").Scan(&cu, &su); err != nil || cu != "alice" || su != "alice" {
		t.Fatalf("current_user %q session_user %q: %v", cu, su, err)
	}
	if _, err := alice.Exec(ctx, "SET ROLE team"); err != nil {
		t.Fatal(err)
	}
	if err := alice.QueryRow(ctx, "SELECT current_user, session_user").Scan(&cu, &su); err != nil || cu != "team" || su != "alice" {
		t.Fatalf("after SET ROLE: current_user %q session_user %q: %v", cu, su, err)
	}
	if _, err := alice.Exec(ctx, "SET ROLE cairn"); sqlState(err) != "42501" {
		t.Fatalf("SET ROLE to a role alice is not a member of: %v, want 42501", err)
	}
	if _, err := alice.Exec(ctx, "RESET ROLE"); err != nil {
		t.Fatal(err)
	}
	var sysid, roleOID uint32
	if err := alice.QueryRow(ctx, "SELECT usesysid, (SELECT oid FROM pg_roles WHERE rolname = 'alice') FROM pg_stat_activity WHERE pid = pg_backend_pid()").Scan(&sysid, &roleOID); err != nil || sysid != roleOID {
		t.Fatalf("pg_stat_activity.usesysid %d, alice's OID %d: %v", sysid, roleOID, err)
	}
	if _, err := alice.Exec(ctx, "SELECT * FROM pg_authid"); sqlState(err) != "42501" {
		t.Fatalf("pg_authid as a non-superuser: %v, want 42501", err)
	}

	for _, c := range []struct{ name, settings, state string }{
		{"wrong password", "user=alice password=nope", "28P01"},
		{"unknown user", "user=nobody password=alice-pw-123", "28P01"},
		{"old login name once roles exist", "user=agent password=boot-s3cret", "28P01"},
		{"NOLOGIN", "user=shy password=shy-pw-123", "28000"},
		{"VALID UNTIL passed", "user=old password=old-pw-123", "28P01"},
	} {
		conn, err := s.pgConnect("host=127.0.0.1 " + c.settings)
		if err == nil {
			conn.Close(ctx)
		}
		if sqlState(err) != c.state {
			t.Errorf("%s: %v, want %s", c.name, err, c.state)
		}
	}
	if !regexp.MustCompile(`msg="connection authorized" remote=127\.0\.0\.1:\d+ user=alice database=cairn`).MatchString(s.logs.String()) {
		t.Errorf("--log-connections did not log alice's login:\n%s", s.logs.String())
	}
	if !strings.Contains(s.logs.String(), `password authentication failed" user=alice host=127.0.0.1`) {
		t.Errorf("failed authentication not logged with the peer:\n%s", s.logs.String())
	}

	// CONNECTION LIMIT 2: alice holds one, a second is admitted, a third is 53300.
	second, err := s.pgConnect("host=127.0.0.1 user=alice password=alice-pw-123")
	if err != nil {
		t.Fatalf("second alice connection: %v", err)
	}
	if _, err := s.pgConnect("host=127.0.0.1 user=alice password=alice-pw-123"); sqlState(err) != "53300" {
		t.Fatalf("third alice connection: %v, want 53300", err)
	}
	second.Close(ctx)
	alice.Close(ctx)

	// max_connections 8, 3 reserved: 5 ordinary sessions, then 53300 for
	// them while superusers still get in.
	if _, err := admin.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("closed connection answered")
	}
	admin, err = s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE ROLE many LOGIN PASSWORD 'many-pw-123'"); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i := 0; i < 6; i++ {
		c, err := s.pgConnect("host=127.0.0.1 user=many password=many-pw-123")
		if err != nil {
			if sqlState(err) != "53300" {
				t.Fatalf("burst: %v", err)
			}
			refused++
			continue
		}
		defer c.Close(ctx)
	}
	if refused != 2 { // admin holds one of the 5 ordinary slots
		t.Errorf("burst of 6 with 4 ordinary slots free: %d refused, want 2", refused)
	}
	super, err := s.pgConnect("host=127.0.0.1 user=cairn password=boot-s3cret")
	if err != nil {
		t.Fatalf("superuser in a reserved slot: %v", err)
	}
	super.Close(ctx)

	// Restart: the roles and their verifiers are still there.
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s = startRun(t, "--data-dir", dir, "--http", "off", "--password", "boot-s3cret")
	again, err := s.pgConnect("host=127.0.0.1 user=alice password=alice-pw-123")
	if err != nil {
		t.Fatalf("alice after restart: %v", err)
	}
	var member bool
	if err := again.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE r.rolname = 'team')").Scan(&member); err != nil || !member {
		t.Fatalf("membership after restart: %v %v", member, err)
	}
	again.Close(ctx)
	s.stop()

	// No password is on disk in plain text (WAL, catalog, segments).
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, pw := range []string{"alice-pw-123", "shy-pw-123", "boot-s3cret", "many-pw-123"} {
			if bytes.Contains(b, []byte(pw)) {
				t.Errorf("%s holds the password %q", path, pw)
			}
		}
		return nil
	})
}

// A role's password over TLS with channel binding (SCRAM-SHA-256-PLUS),
// through pgx and psql; a wrong password is still 28P01.
func TestRoleChannelBinding(t *testing.T) {
	ctx := context.Background()
	pki := newTestPKI(t)
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "off", "--password", "boot-s3cret",
		"--tls-cert", pki.certFile, "--tls-key", pki.keyFile, "--log-disconnections")
	admin, err := s.pgConnect("host=localhost user=cairn password=boot-s3cret sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE bound LOGIN PASSWORD 'bound-pw-1' IN ROLE pg_x_missing"); sqlState(err) != "42704" {
		t.Fatalf("IN ROLE of a missing role: %v, want 42704", err)
	}
	if _, err := admin.Exec(ctx, "CREATE ROLE bound LOGIN PASSWORD 'bound-pw-1'"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	tlsBound := "host=localhost sslmode=verify-full sslrootcert=" + pki.caFile + " channel_binding=require "
	conn, err := s.pgConnect(tlsBound + "user=bound password=bound-pw-1")
	if err != nil {
		t.Fatalf("role with channel binding: %v", err)
	}
	usesTLS(t, conn)
	var cu string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&cu); err != nil || cu != "bound" {
		t.Fatalf("current_user %q: %v", cu, err)
	}
	conn.Close(ctx)
	if _, err := s.pgConnect(tlsBound + "user=bound password=wrong"); sqlState(err) != "28P01" {
		t.Fatalf("wrong password with channel binding: %v, want 28P01", err)
	}
	out, err := psqlRun(t, "host=localhost port="+s.port()+" user=bound dbname=cairn sslmode=verify-full sslrootcert="+pki.caFile+" channel_binding=require", "bound-pw-1", "SELECT current_user")
	if err != nil || !strings.Contains(out, "bound") {
		t.Fatalf("psql with channel binding: %v\n%s", err, out)
	}
	if !strings.Contains(s.logs.String(), "msg=disconnection") {
		t.Errorf("--log-disconnections logged nothing:\n%s", s.logs.String())
	}
}

// Without --password loopback clients are trusted as before, roles
// without a password included; a role with a password is still asked for
// it. A role's ALTER ROLE ... SET defaults apply at its login.
func TestRolesLoopbackTrust(t *testing.T) {
	ctx := context.Background()
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "off")
	admin, err := s.pgConnect("host=127.0.0.1 user=cairn")
	if err != nil {
		t.Fatalf("bootstrap superuser without a password: %v", err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{
		"CREATE ROLE open LOGIN",
		"CREATE ROLE locked LOGIN PASSWORD 'locked-pw-1'",
		"ALTER ROLE locked SET statement_timeout = '7s'",
		"ALTER ROLE locked PASSWORD 'locked-pw-1'",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	open, err := s.pgConnect("host=127.0.0.1 user=open")
	if err != nil {
		t.Fatalf("role without a password over loopback: %v", err)
	}
	// The admin's last statement, as another superuser session sees it,
	// has no password; a role without the admin's privileges does not see
	// it at all.
	admin2, err := s.pgConnect("host=127.0.0.1 user=cairn")
	if err != nil {
		t.Fatal(err)
	}
	defer admin2.Close(ctx)
	var query string
	if err := admin2.QueryRow(ctx, "SELECT query FROM pg_stat_activity WHERE usename = 'cairn' AND pid <> pg_backend_pid()").Scan(&query); err != nil ||
		query != "ALTER ROLE locked PASSWORD '********'" {
		t.Fatalf("pg_stat_activity shows %q: %v", query, err)
	}
	if err := open.QueryRow(ctx, "SELECT query FROM pg_stat_activity WHERE pid = $1", int32(admin.PgConn().PID())).Scan(&query); err != nil ||
		query != "<insufficient privilege>" {
		t.Fatalf("pg_stat_activity shows %q to another role: %v", query, err)
	}
	open.Close(ctx)
	if _, err := s.pgConnect("host=127.0.0.1 user=locked"); err == nil {
		t.Fatal("role with a password got in without it")
	}
	if _, err := s.pgConnect("host=127.0.0.1 user=locked password=nope"); sqlState(err) != "28P01" {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
	locked, err := s.pgConnect("host=127.0.0.1 user=locked password=locked-pw-1")
	if err != nil {
		t.Fatalf("role with its password: %v", err)
	}
	defer locked.Close(ctx)
	// As SET statement_timeout = '7s' shows it.
	var timeout, set string
	if err := locked.QueryRow(ctx, "SHOW statement_timeout").Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "SET statement_timeout = '7s'"); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(ctx, "SHOW statement_timeout").Scan(&set); err != nil || timeout != set {
		t.Fatalf("statement_timeout %q from ALTER ROLE SET, %q from SET: %v", timeout, set, err)
	}
	if _, err := s.pgConnect("host=127.0.0.1 user=stranger"); sqlState(err) != "28P01" {
		t.Fatalf("unknown user: %v, want 28P01", err)
	}
}

// Roles survive a SIGKILL of the real binary: a role created and altered
// just before the kill logs in after the restart with its last password.
func TestRolesKill9(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := startLogged(t, dir, "--password", "boot-s3cret")
	conn, err := pgx.Connect(ctx, "postgres://cairn:boot-s3cret@"+p.addr+"/cairn?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.log())
	}
	for _, q := range []string{
		"CREATE ROLE survivor LOGIN PASSWORD 'first-pw-1'",
		"ALTER ROLE survivor PASSWORD 'second-pw-2' CONNECTION LIMIT 4",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p.kill()
	p = startLogged(t, dir, "--password", "boot-s3cret")
	if _, err := pgx.Connect(ctx, "postgres://survivor:first-pw-1@"+p.addr+"/cairn?sslmode=disable"); sqlState(err) != "28P01" {
		t.Fatalf("old password after the crash: %v, want 28P01", err)
	}
	c, err := pgx.Connect(ctx, "postgres://survivor:second-pw-2@"+p.addr+"/cairn?sslmode=disable")
	if err != nil {
		t.Fatalf("survivor after the crash: %v\n%s", err, p.log())
	}
	defer c.Close(ctx)
	var limit int
	if err := c.QueryRow(ctx, "SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user").Scan(&limit); err != nil || limit != 4 {
		t.Fatalf("rolconnlimit %d: %v", limit, err)
	}
}
