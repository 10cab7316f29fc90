package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-db/cairn/wire"
)

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient connects the SDK's own client over transport.
func mcpClient(t *testing.T, transport sdk.Transport) (*sdk.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "cairn-test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, transport, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// call calls a tool and decodes its structured result into out; it
// returns the tool error's text ("" when the call succeeded).
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "protocol error: " + err.Error()
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return "tool error: " + b.String()
	}
	if out != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, raw, err)
		}
	}
	return ""
}

// exerciseTools drives every memory tool through cs, as an agent would.
func exerciseTools(t *testing.T, cs *sdk.ClientSession, ws string) {
	t.Helper()
	tools := map[string]bool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tool.Name)
		}
		tools[tool.Name] = true
	}
	for _, name := range []string{"memory_remember", "memory_recall", "memory_read", "memory_list", "memory_forget", "trace_store", "trace_search", "sql_query"} {
		if !tools[name] {
			t.Errorf("tool %s missing; have %v", name, tools)
		}
	}

	type remembered struct {
		ID        int64
		Path, URI string
		Duplicate bool
		Redacted  []struct {
			Kind  string
			Count int
		}
	}
	var a, b, dup, sec remembered
	if e := call(t, cs, "memory_remember", map[string]any{"text": "The billing service retries webhooks three times.", "kind": "fact", "tags": []string{"billing", "webhooks"}, "repo": "api", "metadata": map[string]any{"source": "test"}}, &a); e != "" {
		t.Fatal(e)
	}
	call(t, cs, "memory_remember", map[string]any{"text": "Run the frontend with pnpm dev", "scope": "team"}, &b)
	call(t, cs, "memory_remember", map[string]any{"text": "  the billing service retries WEBHOOKS three times ", "kind": "fact", "repo": "api"}, &dup)
	if !dup.Duplicate || dup.ID != a.ID || a.Duplicate {
		t.Errorf("near-duplicate: first %+v, second %+v", a, dup)
	}
	call(t, cs, "memory_remember", map[string]any{"text": "ci uses password=s3cret and key AKIAIOSFODNN7EXAMPLE"}, &sec)
	if len(sec.Redacted) != 2 {
		t.Errorf("redacted %+v", sec.Redacted)
	}
	if a.URI != "cairn://"+ws+"/project/fact/"+itoa(a.ID) {
		t.Errorf("uri %s", a.URI)
	}

	var rec struct {
		Mode string
		Hits []struct {
			ID           int64
			Text         string
			Score        float64
			KeywordScore float64 `json:"keyword_score"`
			VectorScore  *float64
		}
	}
	if e := call(t, cs, "memory_recall", map[string]any{"query": "webhooks retries"}, &rec); e != "" {
		t.Fatal(e)
	}
	if rec.Mode != "keyword" || len(rec.Hits) != 1 || rec.Hits[0].ID != a.ID || rec.Hits[0].Score <= 0 || rec.Hits[0].VectorScore != nil {
		t.Errorf("recall: %+v", rec)
	}
	call(t, cs, "memory_recall", map[string]any{"query": "webhooks", "scope": "team"}, &rec)
	if len(rec.Hits) != 0 {
		t.Errorf("scope filter: %+v", rec)
	}

	var m struct {
		ID       int64
		Text     string
		Metadata map[string]any
	}
	for _, ref := range []string{itoa(a.ID), a.Path, a.URI} {
		m.ID = 0
		if e := call(t, cs, "memory_read", map[string]any{"ref": ref}, &m); e != "" || m.ID != a.ID || m.Metadata["source"] != "test" {
			t.Errorf("read %s: %s %+v", ref, e, m)
		}
	}
	if e := call(t, cs, "memory_read", map[string]any{"ref": "project/note/99999"}, nil); !strings.Contains(e, "no such memory") {
		t.Errorf("read missing: %q", e)
	}
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: a.URI})
	if err != nil || !strings.Contains(res.Contents[0].Text, "webhooks") {
		t.Errorf("resource %s: %v %+v", a.URI, err, res)
	}
	// A URI of the template that names no memory here (a missing id, an id
	// past int8, another workspace) is "resource not found", not an
	// internal error (JSON-RPC code 0 before).
	for _, uri := range []string{"cairn://public/project/note/99999", "cairn://public/project/note/999999999999999999999",
		"cairn://elsewhere/project/note/1"} {
		_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeResourceNotFound {
			t.Errorf("resource %s: %v, want a resource-not-found error", uri, err)
		}
	}

	var list struct{ Memories []struct{ ID int64 } }
	call(t, cs, "memory_list", map[string]any{"prefix": "team/"}, &list)
	if len(list.Memories) != 1 || list.Memories[0].ID != b.ID {
		t.Errorf("list team/: %+v", list)
	}

	// Bad arguments: wrong types, out of range, unknown scope, empty.
	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_remember", map[string]any{"text": 42}},
		{"memory_remember", map[string]any{"text": "x", "scope": "galaxy"}},
		{"memory_remember", map[string]any{"text": "   "}},
		{"memory_recall", map[string]any{"query": "x", "limit": 500}},
		{"memory_recall", map[string]any{"query": "x", "since": "yesterday-ish"}},
		{"memory_recall", map[string]any{}},
		{"memory_forget", map[string]any{}},
		{"memory_forget", map[string]any{"scope": ""}},
		{"trace_store", map[string]any{"agent": "a", "action": "b", "result": "maybe"}},
		{"sql_query", map[string]any{"sql": "DELETE FROM memories"}},
		{"sql_query", map[string]any{"sql": "CREATE TABLE evil (a int)"}},
	} {
		if e := call(t, cs, bad.tool, bad.args, nil); e == "" {
			t.Errorf("%s %v succeeded", bad.tool, bad.args)
		}
	}

	// Forget: a filter matching several needs confirm, and never widens.
	if e := call(t, cs, "memory_forget", map[string]any{"scope": "project"}, nil); !strings.Contains(e, "matches 2 memories") {
		t.Errorf("forget without confirm: %q", e)
	}
	var fr struct{ Deleted int64 }
	if e := call(t, cs, "memory_forget", map[string]any{"scope": "team", "confirm": true}, &fr); e != "" || fr.Deleted != 1 {
		t.Errorf("forget team: %q %+v", e, fr)
	}
	if e := call(t, cs, "memory_forget", map[string]any{"id": a.ID}, &fr); e != "" || fr.Deleted != 1 {
		t.Errorf("forget id: %q %+v", e, fr)
	}
	var sq struct {
		Columns []string
		Rows    [][]any
	}
	if e := call(t, cs, "sql_query", map[string]any{"sql": "SELECT count(*) AS n FROM memories"}, &sq); e != "" || len(sq.Rows) != 1 || sq.Rows[0][0] != float64(1) {
		t.Errorf("sql_query after forgets: %q %+v", e, sq)
	}

	var tr struct{ ID int64 }
	if e := call(t, cs, "trace_store", map[string]any{"agent": "claude-code", "action": "ran the migrations", "reasoning": "schema drift", "result": "failure", "tool_output": "ERROR: relation users exists"}, &tr); e != "" {
		t.Fatal(e)
	}
	var ts struct {
		Mode   string
		Traces []struct {
			ID    int64
			Score *float64
		}
	}
	call(t, cs, "trace_search", map[string]any{"query": "migrations", "result": "failure"}, &ts)
	if ts.Mode != "keyword" || len(ts.Traces) != 1 || ts.Traces[0].ID != tr.ID || ts.Traces[0].Score == nil {
		t.Errorf("trace_search: %+v", ts)
	}
	call(t, cs, "trace_search", map[string]any{"agent": "nobody"}, &ts)
	if len(ts.Traces) != 0 {
		t.Errorf("trace_search agent filter: %+v", ts)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestMCPOverHTTP drives /mcp with the SDK's streamable client, with the
// right token, a wrong one and none.
func TestMCPOverHTTP(t *testing.T) {
	ts := startServer(t, "")
	api := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret-token", MCPSQL: true})
	if _, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: api.base + "/mcp", DisableStandaloneSSE: true}); err == nil {
		t.Error("connected without a token")
	}
	if _, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: api.base + "/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer{"wrong"}}}); err == nil {
		t.Error("connected with a wrong token")
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, `[1,2`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_recall","arguments":"not an object"}}`} {
		req, _ := http.NewRequest("POST", api.base+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer s3cret-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), `"error"`) && !strings.Contains(string(b), `"isError":true`) {
			t.Errorf("bad request %s: %d %s", body, resp.StatusCode, b)
		}
	}
	cs, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: api.base + "/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer{"s3cret-token"}}})
	if err != nil {
		t.Fatal(err)
	}
	exerciseTools(t, cs, "public")

	// Another workspace sees none of public's memories, and what it
	// stores is a plain table of its schema.
	cs2, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: api.base + "/workspaces/team_a/mcp", DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer{"s3cret-token"}}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Memories []any }
	if e := call(t, cs2, "memory_list", map[string]any{}, &list); e != "" || len(list.Memories) != 0 {
		t.Errorf("unknown workspace list: %q %+v", e, list)
	}
	call(t, cs2, "memory_remember", map[string]any{"text": "workspace a only"}, nil)
	var n int
	if err := ts.connect(t).QueryRow(context.Background(), "SELECT count(*) FROM team_a.memories").Scan(&n); err != nil || n != 1 {
		t.Errorf("team_a.memories: %d %v", n, err)
	}
}

// TestMCPOverStdio runs `cairn mcp` as Claude Code does and drives it
// with the SDK's CommandTransport.
func TestMCPOverStdio(t *testing.T) {
	ts := startServer(t, "")
	cmd := exec.Command(cairnBinary(t), "mcp", "--url", "postgres://cairn@"+ts.Addr+"/cairn?sslmode=disable", "--allow-sql")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcpClient(t, &sdk.CommandTransport{Command: cmd})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	exerciseTools(t, cs, "public")
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("close: %v", err)
	}
	noPanic(t, stderr.String())

	// Without --allow-sql there is no sql_query; without a server, cairn mcp fails at once.
	cs, err = mcpClient(t, &sdk.CommandTransport{Command: exec.Command(cairnBinary(t), "mcp", "--url", "postgres://cairn@"+ts.Addr+"/cairn")})
	if err != nil {
		t.Fatal(err)
	}
	if e := call(t, cs, "sql_query", map[string]any{"sql": "SELECT 1"}, nil); e == "" {
		t.Error("sql_query is on without --allow-sql")
	}
	out, err := exec.Command(cairnBinary(t), "mcp", "--url", "postgres://cairn@127.0.0.1:1/cairn").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitError || !strings.Contains(string(out), "cannot reach a cairn server") {
		t.Errorf("mcp without a server: %v %s", err, out)
	}
}

// cli runs a memory command of the binary against ts and returns its
// stdout, stderr and exit code.
func cli(t *testing.T, ts *testServer, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(cairnBinary(t), args...)
	cmd.Env = append(cmd.Environ(), "CAIRN_URL=postgres://cairn@"+ts.Addr+"/cairn?sslmode=disable")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestMemoryCLI(t *testing.T) {
	ts := startServer(t, "")
	expect := func(wantCode int, wantOut string, args ...string) string {
		t.Helper()
		out, errs, code := cli(t, ts, args...)
		if code != wantCode || !strings.Contains(out+errs, wantOut) {
			t.Errorf("cairn %s: exit %d (want %d), want %q in:\n%s%s", strings.Join(args, " "), code, wantCode, wantOut, out, errs)
		}
		return out
	}
	expect(0, "remembered 1 (project/fact/1)", "remember", "Deploys go out on Tuesdays", "--kind", "fact", "--tags", "deploy,ops", "--repo", "infra")
	expect(0, "already remembered as 1", "remember", "deploys go out on tuesdays.", "--repo", "infra", "--kind", "fact")
	expect(0, "(user/note/", "remember", "I like short commit messages", "--scope", "user", "--meta", `{"from":"cli"}`)
	expect(0, "redacted 1 private-key", "remember", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----")
	expect(0, "Deploys go out on Tuesdays", "recall", "tuesdays deploys")
	out := expect(0, `"hits"`, "recall", "deploys", "--json", "--tags", "ops", "--since", "1h")
	var rec struct{ Hits []struct{ ID int64 } }
	if err := json.Unmarshal([]byte(out), &rec); err != nil || len(rec.Hits) != 1 || rec.Hits[0].ID != 1 {
		t.Errorf("recall --json: %v %s", err, out)
	}
	expect(0, "no memories match", "recall", "deploys", "--scope", "team")
	expect(0, "I like short commit messages", "memories", "--prefix", "user/")
	expect(0, "stored trace 1", "trace", "store", "--agent", "codex", "--action", "bumped the go version", "--result", "success", "--tags", "deps")
	expect(0, "bumped the go version", "trace", "search", "go version")

	// Usage errors: exit 2 before any connection.
	expect(2, "missing text to remember", "remember")
	expect(2, "--meta must be a JSON object", "remember", "x", "--meta", "[1")
	expect(2, "flag provided but not defined", "recall", "x", "--bogus")
	expect(2, "invalid value", "recall", "x", "--limit", "ten")
	expect(2, "forget needs an id or at least one --where", "forget")
	expect(2, "want key=value with a value", "forget", "--where", "scope=")
	expect(2, "unknown key", "forget", "--where", "color=red")
	expect(2, "unknown trace command", "trace", "list")
	expect(0, "Examples:", "recall", "--help")
	// Server-side refusals: exit 1; a wide filter without --yes: exit 3.
	expect(1, "invalid scope", "remember", "x", "--scope", "galaxy")
	expect(1, "invalid result", "trace", "store", "--agent", "a", "--action", "b", "--result", "meh")
	expect(1, "no such memory", "forget", "999")
	expect(3, "matches 2 memories", "forget", "--where", "scope=project")
	expect(0, "forgot 2 memories", "forget", "--where", "scope=project", "--yes")
	expect(0, "forgot 1 memories", "forget", "--where", "scope=user")
	expect(0, "no memories", "memories")
}
