package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// slowLines are the log_min_duration_statement lines of a server log.
func slowLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, " msg=duration ") {
			out = append(out, l)
		}
	}
	return out
}

// waitSlowLine waits for a slow statement line that contains want.
func waitSlowLine(t *testing.T, p *logProcess, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, l := range slowLines(p.log()) {
			if strings.Contains(l, want) {
				return l
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no slow statement line with %q in the log:\n%s", want, p.log())
	return ""
}

// TestLogMinDurationStatement: --log-min-duration-statement writes the
// statements that ran at least that long to the server log, with their
// duration, text and plan; a session's SET changes it for that session
// only, RESET returns to the server's value, and a bad value is refused
// at start and by SET.
func TestLogMinDurationStatement(t *testing.T) {
	ctx := context.Background()
	p := startLogged(t, t.TempDir(), "--log-min-duration-statement", "150ms")
	a, b := p.connect(t), p.connect(t)
	mustExec(t, a, `CREATE TABLE slow (id int PRIMARY KEY, note text)`)
	mustExec(t, a, `INSERT INTO slow VALUES (1, 'one'), (2, 'two')`)

	var show string
	if err := a.QueryRow(ctx, `SHOW log_min_duration_statement`).Scan(&show); err != nil || show != "150ms" {
		t.Fatalf("SHOW log_min_duration_statement: %q %v", show, err)
	}
	mustExec(t, a, `SELECT id, pg_sleep(0.2) FROM slow WHERE id = 1`)
	line := waitSlowLine(t, p, "pg_sleep(0.2)")
	for _, want := range []string{"level=INFO", "duration_ms=", `plan="`, "Index Scan using slow_pkey on slow"} {
		if !strings.Contains(line, want) {
			t.Errorf("the slow statement's line lacks %q: %s", want, line)
		}
	}
	if ms := durationOf(t, line); ms < 200 || ms > 10000 {
		t.Errorf("logged duration %v ms for a 200 ms statement: %s", ms, line)
	}
	// A fast statement is not logged, in either session.
	mustExec(t, b, `SELECT note FROM slow WHERE id = 2`)
	mustExec(t, a, `SELECT note FROM slow WHERE id = 1`)

	// 0 logs every statement of the session that sets it.
	mustExec(t, b, `SET log_min_duration_statement = 0`)
	mustExec(t, b, `SELECT count(*) FROM slow WHERE note <> 'x'`)
	line = waitSlowLine(t, p, "SELECT count(*) FROM slow")
	if !strings.Contains(line, "Aggregate") || !strings.Contains(line, " -> ") {
		t.Errorf("the plan summary of an aggregate: %s", line)
	}
	for _, l := range slowLines(p.log()) {
		if strings.Contains(l, "WHERE id = 2") || strings.Contains(l, "note FROM slow WHERE id = 1") {
			t.Errorf("a fast statement was logged before the session asked for all: %s", l)
		}
	}
	// A failed statement is logged with its error.
	if _, err := b.Exec(ctx, `SELECT 1/0`); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1/0: %v", err)
	}
	if line := waitSlowLine(t, p, "SELECT 1/0"); !strings.Contains(line, "err=") {
		t.Errorf("the failed statement's line has no error: %s", line)
	}
	mustExec(t, b, `RESET log_min_duration_statement`)
	if err := b.QueryRow(ctx, `SHOW log_min_duration_statement`).Scan(&show); err != nil || show != "150ms" {
		t.Fatalf("SHOW after RESET: %q %v", show, err)
	}
	var setting, resetVal string
	if err := b.QueryRow(ctx, `SELECT setting, reset_val FROM pg_settings WHERE name = 'log_min_duration_statement'`).Scan(&setting, &resetVal); err != nil || setting != "150" || resetVal != "150" {
		t.Fatalf("pg_settings: %q %q %v", setting, resetVal, err)
	}
	if _, err := b.Exec(ctx, `SET log_min_duration_statement = -2`); sqlState(err) != "22023" {
		t.Fatalf("SET log_min_duration_statement = -2: %v", err)
	}
	mustExec(t, b, `SET log_min_duration_statement = '2s'`)
	if err := b.QueryRow(ctx, `SHOW log_min_duration_statement`).Scan(&show); err != nil || show != "2s" {
		t.Fatalf("SHOW after SET '2s': %q %v", show, err)
	}
	noPanic(t, p.log())

	bad := startLogged(t, t.TempDir(), "--log-min-duration-statement", "-5")
	if code := bad.wait(30 * time.Second); code != 2 || !strings.Contains(bad.log(), "outside the valid range") {
		t.Fatalf("--log-min-duration-statement -5: exit %d\n%s", code, bad.log())
	}
}

// durationOf is the duration_ms of a slow statement line.
func durationOf(t *testing.T, line string) float64 {
	t.Helper()
	_, rest, _ := strings.Cut(line, "duration_ms=")
	v, _, _ := strings.Cut(rest, " ")
	var ms float64
	if _, err := fmt.Sscan(v, &ms); err != nil {
		t.Fatalf("duration_ms in %s: %v", line, err)
	}
	return ms
}
