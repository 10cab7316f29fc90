package wire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
