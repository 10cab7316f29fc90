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
