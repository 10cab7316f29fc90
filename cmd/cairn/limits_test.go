package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestIdleTimeouts checks idle_in_transaction_session_timeout and
// idle_session_timeout end the session with PostgreSQL's FATAL errors,
// count only the time the server waits for the next query, and each
// apply only in its own transaction state.
func TestIdleTimeouts(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	connect := func(settings ...string) *pgx.Conn {
		t.Helper()
		c := ts.connect(t)
		for _, q := range settings {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return c
	}
	const wait = 600 * time.Millisecond

	inTx := connect("SET idle_in_transaction_session_timeout = '200ms'", "BEGIN")
	outside := connect("SET idle_session_timeout = 200")
	var shown string
	if err := outside.QueryRow(ctx, "SHOW idle_session_timeout").Scan(&shown); err != nil || shown != "200ms" {
		t.Errorf("SHOW idle_session_timeout = %q, %v", shown, err)
	}
	// Each timeout leaves the other state alone.
	idleOnly := connect("SET idle_session_timeout = '200ms'", "BEGIN")
	txOnly := connect("SET idle_in_transaction_session_timeout = '200ms'")
	time.Sleep(wait)

	if _, err := inTx.Exec(ctx, "SELECT 1"); sqlState(err) != "25P03" || !strings.Contains(err.Error(), "terminating connection due to idle-in-transaction timeout") {
		t.Errorf("idle in transaction: %v, want FATAL 25P03", err)
	}
	if _, err := outside.Exec(ctx, "SELECT 1"); sqlState(err) != "57P05" || !strings.Contains(err.Error(), "terminating connection due to idle-session timeout") {
		t.Errorf("idle session: %v, want FATAL 57P05", err)
	}
	for name, c := range map[string]*pgx.Conn{"idle_session_timeout in a transaction": idleOnly, "idle_in_transaction_session_timeout outside one": txOnly} {
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A running statement is not idle.
	running := connect("SET idle_session_timeout = '300ms'")
	if _, err := running.Exec(ctx, "SELECT pg_sleep(0.6)"); err != nil {
		t.Errorf("statement longer than idle_session_timeout: %v", err)
	}
	if _, err := running.Exec(ctx, "SELECT 1"); err != nil {
		t.Errorf("right after a long statement: %v", err)
	}
}

// TestRoleStatementTimeout checks ALTER ROLE ... SET statement_timeout is
// the role's default from its next login on (57014 past it), shows in
// pg_db_role_setting and psql's \drds, and goes with RESET.
func TestRoleStatementTimeout(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	admin := ts.connect(t)
	for _, q := range []string{"CREATE ROLE agent LOGIN", "ALTER ROLE agent SET statement_timeout = '150ms'"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	as := func() *pgx.Conn {
		t.Helper()
		c, err := pgx.Connect(ctx, strings.Replace(ts.connString(), "user=cairn", "user=agent", 1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	agent := as()
	var shown string
	if err := agent.QueryRow(ctx, "SHOW statement_timeout").Scan(&shown); err != nil || shown != "150ms" {
		t.Errorf("agent's statement_timeout %q, %v", shown, err)
	}
	if _, err := agent.Exec(ctx, "SELECT pg_sleep(2)"); sqlState(err) != "57014" || !strings.Contains(err.Error(), "canceling statement due to statement timeout") {
		t.Errorf("past the role's statement_timeout: %v, want 57014", err)
	}
	if err := admin.QueryRow(ctx, "SELECT setdatabase::int8::text || ' ' || array_to_string(setconfig, ',') FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = 'agent'").Scan(&shown); err != nil || shown != "0 statement_timeout=150ms" {
		t.Errorf("pg_db_role_setting: %q, %v", shown, err)
	}
	out, err := psqlRun(t, ts.connString(), "", `\drds`)
	if err != nil || !strings.Contains(out, "agent") || !strings.Contains(out, "statement_timeout=150ms") {
		t.Errorf("\\drds: %v\n%s", err, out)
	}
	if _, err := admin.Exec(ctx, "ALTER ROLE agent RESET statement_timeout"); err != nil {
		t.Fatal(err)
	}
	if err := as().QueryRow(ctx, "SHOW statement_timeout").Scan(&shown); err != nil || shown != "0" {
		t.Errorf("after RESET: %q, %v", shown, err)
	}
}

// TestHTTPLimitFlags starts the server as main does with --http-tokens
// and --http-max-concurrency 1: a role's token works, a second request
// while one runs gets 503 with Retry-After and 53300 (health checks
// still answer), and a wrong token is logged with the peer address.
func TestHTTPLimitFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("cairn token-boot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--http-token", "token-boot"}, {"--http-max-concurrency", "0"}} {
		var stderr strings.Builder
		args := append([]string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--http-tokens", file}, bad...)
		if code := run(context.Background(), args, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), bad[0]) {
			t.Errorf("%v: exit %d, %q", bad, code, stderr.String())
		}
	}
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "127.0.0.1:0", "--http-tokens", file, "--http-max-concurrency", "1")
	post := func(token, query string) (int, http.Header, string) {
		req, _ := http.NewRequest("POST", "http://"+s.http+"/workspaces/w/tables/query", strings.NewReader(`{"query": "`+query+`"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, nil, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	if status, _, body := post("token-boot", "SELECT current_user"); status != 200 || !strings.Contains(body, `[["cairn"]]`) {
		t.Fatalf("token from the file: %d %s", status, body)
	}
	done := make(chan int)
	go func() {
		status, _, _ := post("token-boot", "SELECT pg_sleep(1.5)")
		done <- status
	}()
	pg, err := s.pgConnect("host=127.0.0.1 user=cairn")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := pg.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cairn-http' AND state = 'active'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow request never ran")
		}
	}
	status, header, body := post("token-boot", "SELECT 1")
	var e struct{ SQLState string }
	json.Unmarshal([]byte(body), &e)
	if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || e.SQLState != "53300" {
		t.Errorf("request beyond --http-max-concurrency: %d %v %s", status, header, body)
	}
	if resp, err := http.Get("http://" + s.http + "/health"); err != nil || resp.StatusCode != 200 {
		t.Errorf("/health while busy: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if got := <-done; got != 200 {
		t.Errorf("slow request: %d", got)
	}
	if status, _, body := post("wrong-token", "SELECT 1"); status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d %s", status, body)
	}
	if !regexp.MustCompile(`msg="http authentication failed" remote=127\.0\.0\.1:\d+`).MatchString(s.logs.String()) {
		t.Errorf("failed HTTP authentication not logged with the peer:\n%s", s.logs.String())
	}
}
