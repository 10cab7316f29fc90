package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/wire"
)

// deepStatement is one construct nested or chained 100,000 times, with
// what PostgreSQL 15 answers for it (asked of a real PostgreSQL 15).
type deepStatement struct {
	name  string
	query string
	// code is PostgreSQL's SQLSTATE; "" when the statement runs, and then
	// its one value is want.
	code string
	want string
}

const deepN = 100_000

func nest(open, inner, close string) string {
	return strings.Repeat(open, deepN) + inner + strings.Repeat(close, deepN)
}

func deepStatements() []deepStatement {
	in := make([]string, deepN)
	for i := range in {
		in[i] = fmt.Sprint(i)
	}
	return []deepStatement{
		{"parentheses", "SELECT " + nest("(", "1", ")"), "42601", ""},
		{"plus chain", "SELECT 1" + strings.Repeat("+1", deepN), "54001", ""},
		{"concat chain", "SELECT 'a'" + strings.Repeat("||'a'", deepN), "54001", ""},
		{"AND chain", "SELECT (true" + strings.Repeat(" AND true", deepN) + ")::text", "", "true"},
		{"OR chain", "SELECT (false" + strings.Repeat(" OR false", deepN) + " OR true)::text", "", "true"},
		{"unary minus", "SELECT " + strings.Repeat("- ", deepN) + "1", "42601", ""},
		{"NOT", "SELECT " + strings.Repeat("NOT ", deepN) + "true", "42601", ""},
		{"CASE", "SELECT " + nest("CASE WHEN true THEN ", "1", " END"), "42601", ""},
		{"subquery", "SELECT " + nest("(SELECT ", "1", ")"), "42601", ""},
		{"ARRAY constructor", "SELECT " + nest("ARRAY[", "1", "]"), "42601", ""},
		{"function call", "SELECT " + nest("abs(", "1", ")"), "42601", ""},
		{"cast chain", "SELECT 1" + strings.Repeat("::int", deepN), "54001", ""},
		{"UNION chain", "SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", deepN), "54001", ""},
		{"WHERE parentheses", "SELECT 1 WHERE " + nest("(", "true", ")"), "42601", ""},
		{"jsonb literal", "SELECT '" + nest("[", "1", "]") + "'::jsonb", "54001", ""},
		{"jsonb object literal", "SELECT '" + nest(`{"a":`, "1", "}") + "'::jsonb", "54001", ""},
		{"array literal", "SELECT '" + nest("{", "1", "}") + "'::int[]", "54000", ""},
		{"IN list", "SELECT (99999 IN (" + strings.Join(in, ",") + "))::text", "", "true"},
		{"chain in UPDATE", "UPDATE deep SET a = 1" + strings.Repeat("*1", deepN), "54001", ""},
		{"chain in DDL", "CREATE TABLE deep2 (a int DEFAULT 1" + strings.Repeat("-1", deepN) + ")", "54001", ""},
	}
}

// TestDeepStatements sends every deeply nested or chained form over the
// simple protocol, the extended protocol and the HTTP API. Each answers
// PostgreSQL's SQLSTATE (or runs, where PostgreSQL runs it), and the server
// and a bystander session keep working: before the depth guard a plus chain
// killed the process from inside the C parser.
func TestDeepStatements(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	bystander := ts.connect(t)
	if _, err := conn.Exec(ctx, "CREATE TABLE deep (a int)"); err != nil {
		t.Fatal(err)
	}
	api := startHTTP(t, ts, wire.HTTPOptions{})
	for _, st := range deepStatements() {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeDescribeExec} {
			var got string
			err := conn.QueryRow(ctx, st.query, mode).Scan(&got)
			if st.code == "" {
				if err != nil || got != st.want {
					t.Errorf("%s (%v): %q, %v; want %s", st.name, mode, got, err, st.want)
				}
			} else if code := sqlState(err); code != st.code {
				t.Errorf("%s (%v): SQLSTATE %q (%v), want %s", st.name, mode, code, err, st.code)
			}
		}
		status, _, body := api.do("POST", "/workspaces/public/tables/query", map[string]any{"query": st.query})
		if st.code == "" {
			if status != http.StatusOK || !strings.Contains(string(body), st.want) {
				t.Errorf("%s over HTTP: %d %.200s", st.name, status, body)
			}
		} else if status != http.StatusBadRequest || !strings.Contains(string(body), `"sqlstate":"`+st.code+`"`) {
			t.Errorf("%s over HTTP: %d %.200s, want 400 with %s", st.name, status, body, st.code)
		}
		var one int
		if err := bystander.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("bystander after %s: %v", st.name, err)
		}
	}
}

// TestDeepParameters sends deeply nested values as parameters, in text and
// binary form and as HTTP JSON: the value parsers refuse them with
// PostgreSQL's errors instead of recursing without bound.
func TestDeepParameters(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	deepJSON := nest("[", "1", "]")
	var s string
	err := conn.QueryRow(ctx, "SELECT $1::jsonb::text", deepJSON).Scan(&s)
	if code := sqlState(err); code != "54001" {
		t.Errorf("deep jsonb parameter: %q (%v), want 54001", code, err)
	}
	err = conn.QueryRow(ctx, "SELECT $1::text::jsonb::text", pgx.QueryExecModeSimpleProtocol, deepJSON).Scan(&s)
	if code := sqlState(err); code != "54001" {
		t.Errorf("deep jsonb text parameter: %q (%v), want 54001", code, err)
	}
	err = conn.QueryRow(ctx, "SELECT $1::text::int[]::text", nest("{", "1", "}")).Scan(&s)
	if code := sqlState(err); code != "54000" {
		t.Errorf("deep array parameter: %q (%v), want 54000", code, err)
	}
	api := startHTTP(t, ts, wire.HTTPOptions{})
	body := `{"query": "SELECT $1::jsonb", "params": [` + deepJSON + `]}`
	status, _, out := api.do("POST", "/workspaces/public/tables/query", body)
	if status != http.StatusBadRequest {
		t.Errorf("deep JSON parameter over HTTP: %d %.200s, want 400", status, out)
	}
	if err := conn.QueryRow(ctx, "SELECT 'ok'").Scan(&s); err != nil || s != "ok" {
		t.Fatalf("after deep parameters: %q %v", s, err)
	}
}

// TestDeepRecursionThroughExpressions calls PL/pgSQL functions that call
// themselves from the bottom of a 3,000-term sum: each level's evaluation
// recursed 3,000 deep before the next call, and 700 levels (under the 800
// PL/pgSQL levels allowed) passed Go's 1 GB stack, a fatal error that
// killed the server. The nesting of evaluations is now counted across
// the levels: 54001, as PostgreSQL's stack depth limit, and the session
// and a bystander go on. Ordinary recursion 790 deep still runs.
func TestDeepRecursionThroughExpressions(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	bystander := ts.connect(t)
	chain := strings.Repeat("+1", 3000)
	for _, q := range []string{
		"CREATE FUNCTION dg(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN IF n <= 0 THEN RETURN 0; END IF; RETURN dg(n-1)" + chain + "; END $$",
		"CREATE FUNCTION dh(n int) RETURNS int LANGUAGE plpgsql AS $$ DECLARE x int; BEGIN IF n <= 0 THEN RETURN 0; END IF; SELECT dh(n-1)" + chain + " INTO x; RETURN x; END $$",
		"CREATE FUNCTION cnt(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN IF n <= 0 THEN RETURN 0; END IF; RETURN 1 + (SELECT cnt(n - 1)); END $$",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT dg(3)").Scan(&n); err != nil || n != 9000 {
		t.Fatalf("dg(3): %d, %v", n, err)
	}
	for _, q := range []string{"SELECT dg(700)", "SELECT dh(700)"} {
		if err := conn.QueryRow(ctx, q).Scan(&n); sqlState(err) != "54001" {
			t.Errorf("%s: %v, want 54001", q, err)
		}
	}
	if err := conn.QueryRow(ctx, "SELECT cnt(790)").Scan(&n); err != nil || n != 790 {
		t.Errorf("cnt(790): %d, %v", n, err)
	}
	if err := bystander.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
}

// TestDeepInlinedFunctions nests SQL functions whose bodies are long sums
// in one another: inlined, they made expressions deeper than any one
// statement's text can, and planning a tree 48,000 deep ran for half a minute
// (64 levels of 3,000 for many), deaf to statement_timeout and cancels.
// Binding now refuses expressions past 20,000 levels with 54001 at once.
func TestDeepInlinedFunctions(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	chain := strings.Repeat("+1", 4000)
	if _, err := conn.Exec(ctx, "CREATE FUNCTION q0(x int) RETURNS int LANGUAGE sql AS $$ SELECT x"+chain+" $$"); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 3; k++ {
		if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE FUNCTION q%d(x int) RETURNS int LANGUAGE sql AS $$ SELECT q%d(x)%s $$", k, k-1, chain)); err != nil {
			t.Fatalf("q%d: %v", k, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT q0(1)").Scan(&n); err != nil || n != 4001 {
		t.Fatalf("q0(1): %d, %v", n, err)
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, "SELECT q3(q3(q3(1)))"); sqlState(err) != "54001" {
		t.Errorf("SELECT q3(q3(q3(1))): %v, want 54001", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("SELECT q3(q3(q3(1))): refused after %v", d)
	}
}
