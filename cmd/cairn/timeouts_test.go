package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/wire"
)

func TestTimeoutFlags(t *testing.T) {
	env := map[string]string{"CAIRN_AUTHENTICATION_TIMEOUT": "30s", "CAIRN_WRITE_TIMEOUT": "5m"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseConfig(nil, getenv, io.Discard, io.Discard)
	if err != nil || cfg.authenticationTimeout != "30s" || cfg.writeTimeout != "5m" {
		t.Fatalf("environment: %+v, %v", cfg, err)
	}
	cfg, err = parseConfig([]string{"--authentication-timeout", "2s", "--write-timeout=90s"}, getenv, io.Discard, io.Discard)
	if err != nil || cfg.authenticationTimeout != "2s" || cfg.writeTimeout != "90s" {
		t.Fatalf("flags over environment: %+v, %v", cfg, err)
	}
	for in, want := range map[string]time.Duration{"": 0, "90s": 90 * time.Second, " 2m ": 2 * time.Minute, "1h30m": 90 * time.Minute} {
		if got, err := parseTimeout(in); err != nil || got != want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "-1s", "30", "soon"} {
		if _, err := parseTimeout(bad); err == nil {
			t.Errorf("parseTimeout(%q) succeeded", bad)
		}
	}
	var stderr strings.Builder
	if code := run(context.Background(), []string{"--data-dir", t.TempDir(), "--write-timeout", "-1s"}, io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--write-timeout") {
		t.Errorf("bad --write-timeout: exit %d, %q", code, stderr.String())
	}
}

// TestAuthenticationTimeoutFlag starts the server as main does with a
// short --authentication-timeout: a connection that never sends its
// start-up packet is dropped after it.
func TestAuthenticationTimeoutFlag(t *testing.T) {
	var logs syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "off",
			"--authentication-timeout", "300ms", "--write-timeout", "1m"}, io.Discard, &logs)
	}()
	defer func() {
		stop()
		if code := <-exited; code != 0 {
			t.Errorf("exit code %d:\n%s", code, logs.String())
		}
	}()
	re := regexp.MustCompile(`listening postgres=(127\.0\.0\.1:\d+)`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no listening line:\n%s", logs.String())
		}
		m = re.FindStringSubmatch(logs.String())
	}
	nc, err := net.Dial("tcp", m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	start := time.Now()
	nc.SetReadDeadline(start.Add(10 * time.Second))
	io.Copy(io.Discard, nc) // until the server closes it
	if took := time.Since(start); took < 250*time.Millisecond || took > 5*time.Second {
		t.Errorf("silent connection closed after %v, want about 300ms", took)
	}
}

// startHTTPServer serves the HTTP API over a fresh data directory with the
// server main builds (newHTTPServer), under timeouts t; it returns the
// address.
func startHTTPServer(t *testing.T, timeouts httpTimeouts) string {
	t.Helper()
	ts := startServer(t, "")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	base, cancel := context.WithCancel(context.Background())
	hs := newHTTPServer(base, wire.HTTPHandler(ts.srv.Engine, wire.HTTPOptions{Logger: log, BodyTimeout: timeouts.read}), log, timeouts)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(l)
	t.Cleanup(func() {
		cancel()
		hs.Close()
	})
	return l.Addr().String()
}

// TestHTTPSlowBody: a client that trickles a request body a byte at a
// time is cut off once the read timeout has passed, instead of holding
// its connection, goroutine and buffer for as long as it likes.
func TestHTTPSlowBody(t *testing.T) {
	addr := startHTTPServer(t, httpTimeouts{readHeader: time.Second, read: 500 * time.Millisecond, idle: time.Second})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const size = 1 << 20
	fmt.Fprintf(nc, "POST /workspaces/w/tables/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", size)
	start := time.Now()
	trickled := make(chan time.Duration, 1)
	go func() {
		// A byte every 20 ms would take almost six hours for the body.
		for i := 1; i < size; i++ {
			if _, err := nc.Write([]byte(" ")); err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		trickled <- time.Since(start)
	}()
	nc.SetReadDeadline(start.Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("trickled body answered %s", resp.Status)
		}
	}
	// The answer (or the close) comes once the read timeout has passed,
	// and the connection is closed: the trickling writes fail.
	if took := time.Since(start); took < 400*time.Millisecond || took > 5*time.Second {
		t.Errorf("trickling client cut off after %v, want about 500ms", took)
	}
	select {
	case took := <-trickled:
		if took > 8*time.Second {
			t.Errorf("writes went on for %v", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server still reads the trickled body after 10s")
	}
}

// TestHTTPQueryOutlivesReadTimeout: the read timeout bounds reading a
// request, not running it: a query that takes longer than the timeout
// after its body has arrived completes, and the kept-alive connection
// then closes after the idle timeout.
func TestHTTPQueryOutlivesReadTimeout(t *testing.T) {
	addr := startHTTPServer(t, httpTimeouts{readHeader: time.Second, read: 300 * time.Millisecond, idle: 500 * time.Millisecond})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// Three batches of generate_series' rows, each sleeping 0.4s on its
	// last row: the executor looks at the request's context between them.
	body := `{"query": "SELECT count(pg_sleep(CASE WHEN g % 8192 = 0 THEN 0.4 ELSE 0 END)) AS n FROM generate_series(1, 24576) g"}`
	fmt.Fprintf(nc, "POST /workspaces/w/tables/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(got), `"rows":[[24576]]`) {
		t.Fatalf("query longer than the read timeout: %s %s", resp.Status, got)
	}
	start := time.Now()
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("idle connection: %v, want closed", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("idle connection closed after %v, want about 500ms", took)
	}
}

// TestWindowAggregateTimesOut runs an aggregate over a running window
// frame whose every row's result is built from the whole frame so far:
// its quadratic loop did not look at the statement's context, so neither
// statement_timeout nor a cancel (nor the client leaving) stopped it, and
// 20,000 rows held a core for minutes. It ends at statement_timeout now.
func TestWindowAggregateTimesOut(t *testing.T) {
	ts := startServer(t, "")
	ctx := context.Background()
	conn := ts.connect(t)
	if _, err := conn.Exec(ctx, "SET statement_timeout = 200"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var n int64
	err := conn.QueryRow(ctx, "SELECT sum(length(s::text)) FROM (SELECT jsonb_agg(g) OVER (ORDER BY g) s FROM generate_series(1, 10000) g) q").Scan(&n)
	if sqlState(err) != "57014" {
		t.Errorf("got %d, %v; want 57014", n, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("ended after %v, statement_timeout 200ms", d)
	}
}
