package wire

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/wire/httpauth"
)

// TestHTTPQueryHugeTimeout: a timeout_ms too long for a time.Duration
// bounds nothing; it once wrapped to a negative duration, and the
// statement failed at once with 57014.
func TestHTTPQueryHugeTimeout(t *testing.T) {
	c := newHTTPClient(t)
	for _, ms := range []string{"9223372036854775807", "9223372036855", "9223372036854"} {
		if got := c.ok("/workspaces/w/tables/query", `{"query": "SELECT 1", "timeout_ms": `+ms+`}`); !strings.Contains(got, `"rows":[[1]]`) {
			t.Errorf("timeout_ms %s: %s", ms, got)
		}
	}
	c.fail("/workspaces/w/tables/query/batch", `{"query": "SELECT pg_sleep(5)", "params_batch": [[]], "timeout_ms": 50}`, 500, "QUERY_ERROR", "57014", "statement timeout")
	if got := c.ok("/workspaces/w/tables/query/batch", `{"query": "SELECT 1", "params_batch": [[]], "timeout_ms": 9223372036854775807}`); got != `{"row_count":1}` {
		t.Errorf("batch: %s", got)
	}
}

// TestHTTPMCPDisconnectCancels: an MCP client that goes away cancels
// the statement of its tool call, as it does a /tables/query one; the
// MCP SDK's own context for the call outlived the HTTP request, leaving
// the statement running with its session.
func TestHTTPMCPDisconnectCancels(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{MCPSQL: true}))
	t.Cleanup(hs.Close)
	c := &httpClient{t, hs.URL}
	running := func() string {
		return c.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cairn-mcp' AND query LIKE '%pg_sleep%'")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/mcp", strings.NewReader(
			`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sql_query", "arguments": {"sql": "SELECT pg_sleep(60)"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for running() != "[[1]]" {
		if time.Now().After(deadline) {
			t.Fatal("the tool call's statement never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the canceled request got an answer")
	}
	for running() != "[[0]]" {
		if time.Now().After(deadline) {
			t.Fatal("the tool call's statement still runs after its client went away")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPMCPBatchOneSessionAtATime: the calls of one JSON-RPC batch run
// one at a time, each in a session of its own, so that one request holds
// one session as --http-max-concurrency counts it; the SDK ran them all
// at once, and a batch of 300 took every connection slot (53300).
func TestHTTPMCPBatchOneSessionAtATime(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{MCPSQL: true}))
	t.Cleanup(hs.Close)
	c := &httpClient{t, hs.URL}

	const calls = 6
	var batch []string
	for i := range calls {
		batch = append(batch, fmt.Sprintf(`{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "sql_query", "arguments": {"sql": "SELECT pg_sleep(0.1)"}}}`, i))
	}
	done := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", hs.URL+"/mcp", strings.NewReader("["+strings.Join(batch, ",")+"]"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	most := 0
	for {
		select {
		case answer := <-done:
			if !strings.HasPrefix(answer, "200 ") || strings.Count(answer, `"pg_sleep"`) != calls || strings.Contains(answer, "isError") {
				t.Fatalf("batch answer: %.500s", answer)
			}
			if most != 1 {
				t.Fatalf("the batch held %d sessions at once, want 1", most)
			}
			return
		default:
		}
		var n int
		fmt.Sscanf(c.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cairn-mcp'"), "[[%d]]", &n)
		most = max(most, n)
	}
}

// TestHTTPIngestRowLevelSecurity: an ingest into a table with row-level
// security, which COPY FROM refuses, loads its rows with INSERTs, whose
// policies apply; the refused COPY aborted the ingest's transaction, and
// every ingest into such a table failed with 25P02.
func TestHTTPIngestRowLevelSecurity(t *testing.T) {
	ts := startServer(t)
	tokens := &httpauth.Tokens{}
	tokens.Add("writer", "writer-token")
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{Token: "admin-token", Tokens: tokens}))
	t.Cleanup(hs.Close)
	post := func(token, path, body string) (int, string) {
		req, _ := http.NewRequest("POST", hs.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	for _, q := range []string{
		"CREATE ROLE writer LOGIN", "CREATE SCHEMA w",
		"CREATE TABLE w.notes (id bigint, owner text, v int CHECK (v > 0))",
		"ALTER TABLE w.notes ENABLE ROW LEVEL SECURITY",
		"CREATE POLICY own ON w.notes USING (owner = current_user) WITH CHECK (owner = current_user)",
		"GRANT USAGE ON SCHEMA w TO writer", "GRANT SELECT, INSERT ON w.notes TO writer",
	} {
		if status, b := post("admin-token", "/workspaces/w/tables/query", fmt.Sprintf(`{"query": %q}`, q)); status != 200 {
			t.Fatalf("%s: %d %s", q, status, b)
		}
	}
	for _, tc := range []struct {
		body, want string
		status     int
	}{
		{`{"id": [1, 2], "owner": ["writer", "writer"], "v": [1, 2]}`, `{"table_name":"notes","row_count":2}`, 200},
		{`{"id": [3], "owner": ["cairn"], "v": [1]}`, `new row violates row-level security policy for table \"notes\"`, 403},
		{`{"id": [4], "owner": ["writer"], "v": [0]}`, `violates check constraint \"notes_v_check\"`, 400},
	} {
		if status, b := post("writer-token", "/workspaces/w/tables/notes/ingest", tc.body); status != tc.status || !strings.Contains(b, tc.want) {
			t.Errorf("ingest %s: %d %s, want %d %s", tc.body, status, b, tc.status, tc.want)
		}
	}
	if status, b := post("writer-token", "/workspaces/w/tables/query/batch", `{"query": "INSERT INTO notes (id, owner, v) VALUES ($1, $2, $3)", "params_batch": [[5, "writer", 5]]}`); status != 200 {
		t.Errorf("batch: %d %s", status, b)
	}
	if _, b := post("admin-token", "/workspaces/w/tables/query", `{"query": "SELECT id FROM notes ORDER BY id"}`); !strings.Contains(b, `"rows":[[1],[2],[5]]`) {
		t.Errorf("rows: %s", b)
	}
}

// TestHTTPDuplicateFields: a request body that names a field twice (in
// any case, as encoding/json matches names) is a 400; the last one was
// taken silently. Names repeated inside a value are the value's own.
func TestHTTPDuplicateFields(t *testing.T) {
	c := newHTTPClient(t)
	const query = "/workspaces/w/tables/query"
	c.ok(query, `{"query": "CREATE TABLE d (a int)"}`)
	c.fail(query, `{"query": "SELECT 1", "query": "DROP TABLE d"}`, 400, "BAD_REQUEST", "08P01", `field "query" appears twice`)
	c.fail(query, `{"query": "SELECT $1::int", "params": [1], "PARAMS": [2]}`, 400, "BAD_REQUEST", "08P01", `field "PARAMS" appears twice`)
	c.fail(query+"/batch", `{"query": "SELECT 1", "params_batch": [[]], "Query": "DROP TABLE d"}`, 400, "BAD_REQUEST", "08P01", `field "Query" appears twice`)
	if got := c.query("SELECT count(*) FROM d"); got != "[[0]]" {
		t.Fatalf("table d: %s", got)
	}
	if got := c.ok(query, `{"query": "SELECT $1::jsonb", "params": [{"a": 1, "a": 2}]}`); !strings.Contains(got, `"rows":[[{"a": 2}]]`) {
		t.Errorf("jsonb parameter with a repeated name: %s", got)
	}
	c.fail(query, `{"query": "SELECT 1", "x": [}`, 400, "BAD_REQUEST", "08P01", "invalid JSON in request body")
}

// TestHTTPMCPRefusesBadText: an MCP body that is not UTF-8, or holds
// half a surrogate pair, is refused as the other endpoints refuse one;
// the SDK's decoder replaced both with U+FFFD, and memory_remember
// stored text the client never sent.
func TestHTTPMCPRefusesBadText(t *testing.T) {
	c := startHTTP(t, HTTPOptions{})
	call := func(text string) (int, string) {
		body := `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_remember", "arguments": {"text": "` + text + `"}}}`
		req, _ := http.NewRequest("POST", c.url+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		return c.do(req)
	}
	for text, sqlstate := range map[string]string{"inv\xff\xfeutf": "22021", `half \ud800 pair`: "08P01", `low \udc00 half`: "08P01"} {
		if status, got := call(text); status != http.StatusBadRequest || !strings.Contains(got, `"sqlstate":"`+sqlstate+`"`) {
			t.Errorf("memory_remember %q: %d %s", text, status, got)
		}
	}
	if status, got := call(`pair \ud83d\ude00 whole`); status != http.StatusOK || strings.Contains(got, "isError") {
		t.Fatalf("memory_remember of a whole pair: %d %s", status, got)
	}
	if got := c.query("SELECT text FROM public.memories"); got != `[["pair 😀 whole"]]` {
		t.Errorf("memories: %s", got)
	}
}

// TestHTTPTableNameNotUTF8: a table name in the path that is not UTF-8,
// or holds a NUL, is 22021 in a 400, as it is in a query's text; an
// ingest got the parser's 42601 about the statement built around it.
func TestHTTPTableNameNotUTF8(t *testing.T) {
	c := startHTTP(t, HTTPOptions{})
	for _, name := range []string{"a%FFb", "a%00b", "%C3"} {
		c.fail("/workspaces/w/tables/"+name+"/ingest", `{"x": [1]}`, 400, "BAD_REQUEST", "22021", "invalid byte sequence")
		req, _ := http.NewRequest("DELETE", c.url+"/workspaces/w/tables/"+name, nil)
		if status, b := c.do(req); status != 400 || !strings.Contains(b, `"sqlstate":"22021"`) {
			t.Errorf("DELETE %s: %d %s", name, status, b)
		}
	}
	if got := c.ok("/workspaces/w/tables/%C3%A9t%C3%A9/ingest", `{"x": [1]}`); got != `{"table_name":"été","row_count":1}` {
		t.Errorf("ingest into été: %s", got)
	}
}
