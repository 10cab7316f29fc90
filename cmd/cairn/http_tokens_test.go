package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-db/cairn/wire"
	"github.com/cairn-db/cairn/wire/httpauth"
)

// TestHTTPTokenWorkspaces gives two roles a workspace each and a token
// each (one by its SHA-256, as a tokens file may hold it): every endpoint
// serves a token its own workspace and refuses the other one with 403 and
// 42501, the superuser's token reaches both, and a token whose role does
// not exist gets nothing.
func TestHTTPTokenWorkspaces(t *testing.T) {
	ts := startServer(t, "")
	conn := ts.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE ROLE wa LOGIN", "CREATE ROLE wb LOGIN",
		"CREATE SCHEMA a AUTHORIZATION wa", "CREATE SCHEMA b AUTHORIZATION wb",
		"CREATE TABLE b.notes (id int, body text)", "ALTER TABLE b.notes OWNER TO wb",
		"INSERT INTO b.notes VALUES (1, 'b secret')",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# role token\nwa token-a\nwb sha256:"+sha256Hex("token-b")+"\nghost token-ghost\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := &httpauth.Tokens{}
	if err := tokens.Load(file); err != nil {
		t.Fatal(err)
	}
	opts := wire.HTTPOptions{Token: "token-super", Tokens: tokens, MCPSQL: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	hs := httptest.NewServer(wire.HTTPHandler(ts.srv.Engine, opts))
	t.Cleanup(hs.Close)
	as := func(token string) *httpAPI { return &httpAPI{t: t, base: hs.URL, token: token} }
	a, b, super := as("token-a"), as("token-b"), as("token-super")

	// Each role works in its own workspace: an ingest creates a's table.
	a.expect("POST", "/workspaces/a/tables/notes/ingest", map[string]any{"id": []int{7}, "body": []string{"a note"}}, http.StatusOK, `{"row_count":1,"table_name":"notes"}`)
	if got := a.query("a", "SELECT body FROM notes"); len(got.Rows) != 1 || got.Rows[0][0] != "a note" {
		t.Errorf("a reads a: %+v", got)
	}
	if got := b.query("b", "SELECT current_user, body FROM notes"); len(got.Rows) != 1 || got.Rows[0][0] != "wb" {
		t.Errorf("b reads b as wb: %+v", got)
	}
	if got := super.query("b", "SELECT current_user, count(*) FROM a.notes"); got.Rows[0][0] != "cairn" {
		t.Errorf("superuser: %+v", got)
	}

	// a cannot reach b through any endpoint.
	denied := func(c *httpAPI, method, path string, body any) {
		t.Helper()
		status, _, out := c.do(method, path, body)
		var e struct{ SQLState, Error string }
		json.Unmarshal(out, &e)
		if status != http.StatusForbidden || e.SQLState != "42501" {
			t.Errorf("%s %s: %d %s, want 403 42501", method, path, status, out)
		}
	}
	denied(a, "POST", "/workspaces/b/tables/query", map[string]any{"query": "SELECT * FROM notes"})
	denied(a, "POST", "/workspaces/a/tables/query", map[string]any{"query": "SELECT * FROM b.notes"})
	denied(a, "POST", "/workspaces/a/tables/query", map[string]any{"query": "DELETE FROM b.notes"})
	denied(a, "POST", "/workspaces/b/tables/query/batch", map[string]any{"query": "INSERT INTO notes VALUES ($1, $2)", "params_batch": [][]any{{2, "x"}}})
	denied(a, "POST", "/workspaces/a/tables/query/batch", map[string]any{"query": "INSERT INTO b.notes VALUES ($1, $2)", "params_batch": [][]any{{2, "x"}}})
	denied(a, "GET", "/workspaces/b/tables", nil)
	denied(a, "DELETE", "/workspaces/b/tables/notes", nil)
	denied(a, "POST", "/workspaces/b/tables/notes/ingest", map[string]any{"id": []int{3}})
	denied(a, "POST", "/workspaces/b/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	denied(b, "GET", "/workspaces/a/tables", nil)

	// Hivemind's account endpoints answer for the token's role and list
	// only the workspaces it may use.
	a.expect("GET", "/me", nil, http.StatusOK, `{"id":"wa","name":"wa"}`)
	a.expect("GET", "/workspaces", nil, http.StatusOK, `{"data":[{"id":"default","name":"default"},{"id":"a","name":"a"},{"id":"public","name":"public"}]}`)
	b.expect("GET", "/organizations/cairn/members", nil, http.StatusOK, `{"members":[{"user_id":"wb","name":"wb","role":"ADMIN"}]}`)

	// MCP with the SDK's client: a's own workspace works, b's is refused
	// at connect, and sql_query cannot name b's table from a.
	mcpAs := func(token, ws string) (*sdk.ClientSession, error) {
		return mcpClient(t, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/workspaces/" + ws + "/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer{token}}})
	}
	if _, err := mcpAs("token-a", "b"); err == nil || !strings.Contains(err.Error(), "403") && !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("MCP into b with a's token: %v", err)
	}
	cs, err := mcpAs("token-a", "a")
	if err != nil {
		t.Fatal(err)
	}
	if e := call(t, cs, "memory_remember", map[string]any{"text": "a remembers"}, nil); e != "" {
		t.Errorf("memory_remember in a: %s", e)
	}
	if e := call(t, cs, "sql_query", map[string]any{"sql": "SELECT body FROM b.notes"}, nil); !strings.Contains(e, "permission denied for schema b") {
		t.Errorf("sql_query on b.notes from a: %q", e)
	}
	var owner string
	if err := conn.QueryRow(ctx, "SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = 'a.memories'::regclass").Scan(&owner); err != nil || owner != "wa" {
		t.Errorf("a.memories owner %q, %v", owner, err)
	}

	// The explorer: a's token logs in as wa, lists a's tables and not
	// b's, and b's table is refused.
	if status, _, page := a.do("GET", "/ui/", nil); status != http.StatusOK || !strings.Contains(string(page), "/ui/tables/a/notes") || strings.Contains(string(page), "/ui/tables/b/") {
		t.Errorf("ui overview with a's token: %d %s", status, page)
	}
	status, _, page := a.do("GET", "/ui/tables/b/notes", nil)
	if status != http.StatusForbidden || !strings.Contains(string(page), "42501") {
		t.Errorf("ui b.notes with a's token: %d %s", status, page)
	}
	if status, _, page := a.do("GET", "/ui/tables/a/notes", nil); status != http.StatusOK || !strings.Contains(string(page), "a note") {
		t.Errorf("ui a.notes with a's token: %d %s", status, page)
	}
	cookieClient := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cookieClient.Get(hs.URL + "/ui/?token=token-b")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "cairn_ui_session" {
			session = c
		}
	}
	if session == nil || strings.Contains(session.Value, "token-b") {
		t.Fatalf("login cookie: %+v", resp.Cookies())
	}
	req, _ := http.NewRequest("GET", hs.URL+"/ui/tables/a/notes", nil)
	req.AddCookie(session)
	if resp, err := cookieClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("ui a.notes with b's cookie: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// A token in the URL only logs in, with GET: a POST carrying one is
	// not let in.
	if resp, err := cookieClient.Post(hs.URL+"/ui/activity/1/cancel?token=token-a", "application/x-www-form-urlencoded", nil); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("ui POST with ?token=: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// Nothing changed in b.
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM b.notes").Scan(&n); err != nil || n != 1 {
		t.Errorf("b.notes: %d rows, %v", n, err)
	}

	// A token of a role that does not exist, and a wrong token.
	ghost := as("token-ghost")
	status, _, out := ghost.do("POST", "/workspaces/a/tables/query", map[string]any{"query": "SELECT 1"})
	if status != http.StatusForbidden || !strings.Contains(string(out), `"sqlstate":"28000"`) {
		t.Errorf("ghost: %d %s", status, out)
	}
	if status, _, out := as("token-c").do("GET", "/workspaces/a/tables", nil); status != http.StatusUnauthorized {
		t.Errorf("wrong token: %d %s", status, out)
	}
}

// sha256Hex is the hex SHA-256 of s, as `printf %s s | sha256sum` prints it.
func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestHTTPMCPSharedWorkspace: a role granted the rows of another role's
// memory tables, and nothing more, remembers and recalls through MCP
// (the SDK's client). Every write ran the tables' DDL, IF NOT EXISTS,
// which needs the table's ownership for its index and CREATE on the
// schema even when they exist, as in PostgreSQL: memory_remember failed
// with "must be owner of table memories".
func TestHTTPMCPSharedWorkspace(t *testing.T) {
	ts := startServer(t, "")
	conn := ts.connect(t)
	ctx := context.Background()
	opts := wire.HTTPOptions{Tokens: &httpauth.Tokens{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	opts.Tokens.Add("owner", "token-owner")
	opts.Tokens.Add("helper", "token-helper")
	hs := httptest.NewServer(wire.HTTPHandler(ts.srv.Engine, opts))
	t.Cleanup(hs.Close)
	mcpAs := func(token string) *sdk.ClientSession {
		cs, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/workspaces/team/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer{token}}})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, q := range []string{"CREATE ROLE owner LOGIN", "CREATE ROLE helper LOGIN", "CREATE SCHEMA team AUTHORIZATION owner"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if e := call(t, mcpAs("token-owner"), "memory_remember", map[string]any{"text": "the owner's note"}, nil); e != "" {
		t.Fatalf("owner's memory_remember: %s", e)
	}
	for _, q := range []string{
		"GRANT USAGE ON SCHEMA team TO helper",
		"GRANT SELECT, INSERT, UPDATE ON team.memories TO helper",
		"GRANT USAGE ON SEQUENCE team.memories_id_seq TO helper",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	helper := mcpAs("token-helper")
	if e := call(t, helper, "memory_remember", map[string]any{"text": "the helper's note"}, nil); e != "" {
		t.Fatalf("helper's memory_remember: %s", e)
	}
	var hits struct {
		Hits []struct{ Text string } `json:"hits"`
	}
	if e := call(t, helper, "memory_recall", map[string]any{"query": "note"}, &hits); e != "" || len(hits.Hits) != 2 {
		t.Errorf("helper's memory_recall: %s %+v", e, hits)
	}
	// Nothing the helper may not do was done: the tables are the owner's.
	var owner string
	if err := conn.QueryRow(ctx, "SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.oid = 'team.memories'::regclass").Scan(&owner); err != nil || owner != "owner" {
		t.Errorf("team.memories owner %q, %v", owner, err)
	}
}
