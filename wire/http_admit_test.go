package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// startHTTP serves the HTTP API with opts over a real socket and returns
// its client.
func startHTTP(t *testing.T, opts HTTPOptions) *httpClient {
	t.Helper()
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, opts))
	t.Cleanup(hs.Close)
	return &httpClient{t, hs.URL}
}

// sendHead opens a connection to c's server and sends the head of a
// /tables/query request whose body has size bytes, and the body's first
// byte.
func (c *httpClient) sendHead(size int) net.Conn {
	c.t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(c.url, "http://"))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { nc.Close() })
	fmt.Fprintf(nc, "POST /workspaces/w/tables/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", size)
	return nc
}

// TestHTTPSlowBodiesHoldNoSlot: clients that trickle their bodies, more
// of them than --http-max-concurrency, do not keep another client's
// query out: a request takes its slot once its body is in. They held a
// slot each while their bodies came, for up to the server's ten-minute
// read timeout, and every other request got 503.
func TestHTTPSlowBodiesHoldNoSlot(t *testing.T) {
	const slots = 4
	c := startHTTP(t, HTTPOptions{MaxConcurrency: slots})
	var trickling []net.Conn
	for range 2 * slots {
		trickling = append(trickling, c.sendHead(1<<20))
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			for _, nc := range trickling {
				nc.Write([]byte(" "))
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // the trickling requests are being read
	for range 3 {
		start := time.Now()
		if got := c.ok("/workspaces/w/tables/query", `{"query": "SELECT 1"}`); !strings.Contains(got, `"rows":[[1]]`) {
			t.Fatalf("query beside trickling bodies: %s", got)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("query beside trickling bodies took %v", took)
		}
	}
}

// TestHTTPStalledBody: a body whose next bytes do not come within the
// idle timeout, or that is not all there within the body timeout, gets a
// 408 with 57P05 and its connection closed; a statement that runs longer
// than either, once its body is in, is not cut off by them.
func TestHTTPStalledBody(t *testing.T) {
	c := startHTTP(t, HTTPOptions{BodyIdleTimeout: 300 * time.Millisecond, BodyTimeout: time.Second})
	expect408 := func(what string, nc net.Conn, start time.Time, least time.Duration) {
		t.Helper()
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(nc)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"sqlstate":"57P05"`) || !resp.Close {
			t.Errorf("%s: %s close=%v %s", what, resp.Status, resp.Close, b)
		}
		if took < least || took > 5*time.Second {
			t.Errorf("%s: answered after %v, want about %v", what, took, least)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("%s: connection after the 408: %v, want closed", what, err)
		}
	}

	nc := c.sendHead(100)
	expect408("stalled body", nc, time.Now(), 250*time.Millisecond)

	nc = c.sendHead(100)
	start := time.Now()
	go func() {
		for range 99 {
			if _, err := nc.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	expect408("trickled body", nc, start, 900*time.Millisecond)

	if got := c.ok("/workspaces/w/tables/query", `{"query": "SELECT pg_sleep(1.5), 1 AS one"}`); !strings.Contains(got, `,1]]`) {
		t.Errorf("statement longer than the body timeouts: %s", got)
	}
}

// TestHTTPUnreadAnswersHoldNoSlot: clients that ask for large answers and
// never read them, as many as --http-max-concurrency, lose their
// connections after the write timeout, and their slots with them: they
// kept every slot for as long as they kept their connections, and every
// other request got 503.
func TestHTTPUnreadAnswersHoldNoSlot(t *testing.T) {
	const slots = 2
	c := startHTTP(t, HTTPOptions{MaxConcurrency: slots, WriteTimeout: 300 * time.Millisecond})
	body := `{"query": "SELECT repeat('x', 1000000) FROM generate_series(1, 24)"}`
	var unread []net.Conn
	for range slots {
		nc, err := net.Dial("tcp", strings.TrimPrefix(c.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		fmt.Fprintf(nc, "POST /workspaces/w/tables/query HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		unread = append(unread, nc)
	}
	// The statements run and their answers fill the sockets' buffers.
	time.Sleep(time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, got := c.post("/workspaces/w/tables/query", `{"query": "SELECT 1"}`)
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("query beside unread answers: %d %s", status, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// An unread connection was dropped: reading it ends before the end
	// of its answer. (Another may have been read in time.)
	cut := 0
	for _, nc := range unread {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := io.Copy(io.Discard, nc)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("unread answer: %d bytes, %v", n, err)
		}
		if n < 24_000_000 {
			cut++
		}
	}
	if cut == 0 {
		t.Error("every unread answer was written whole")
	}
}

// TestHTTPKeepAliveAfterWriteTimeout: the write deadline of an answer
// does not outlive its request (net/http clears it): the next request on
// the kept-alive connection, longer after it than the write timeout, is
// answered, one whose answer is not paced (/health, a 401) too.
func TestHTTPKeepAliveAfterWriteTimeout(t *testing.T) {
	c := startHTTP(t, HTTPOptions{Token: "tok", WriteTimeout: 200 * time.Millisecond})
	nc, err := net.Dial("tcp", strings.TrimPrefix(c.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	body := `{"query": "SELECT 1"}`
	query := fmt.Sprintf("POST /workspaces/w/tables/query HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer tok\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	for _, req := range []struct {
		send   string
		status int
		want   string
	}{
		{query, 200, `"rows":[[1]]`},
		{"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n", 200, `"ok"`},
		{query, 200, `"rows":[[1]]`},
		{"GET /workspaces HTTP/1.1\r\nHost: localhost\r\n\r\n", 401, `"UNAUTHORIZED"`},
	} {
		time.Sleep(400 * time.Millisecond)
		fmt.Fprint(nc, req.send)
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%.40q: %v", req.send, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != req.status || !strings.Contains(string(got), req.want) {
			t.Fatalf("%.40q: %s %s", req.send, resp.Status, got)
		}
	}
}

// TestHTTPBodyBudget: the bytes of the bodies read and not yet answered
// stay within as many bodies of the largest size as there are slots: a
// body beyond that gets 503 with 53300, and the bytes are free again once
// a request ends. Bodies are read before their requests take slots, so
// nothing else bounded how many the server buffered at once. Announced
// lengths, not yet sent, keep no one out.
func TestHTTPBodyBudget(t *testing.T) {
	c := startHTTP(t, HTTPOptions{MaxConcurrency: 2, MaxBodyBytes: 1000})
	query := func() (int, string) { return c.post("/workspaces/w/tables/query", `{"query": "SELECT 1"}`) }
	// Two bodies announced at the limit, one byte of each sent.
	var slow []net.Conn
	for range 2 {
		slow = append(slow, c.sendHead(1000))
	}
	time.Sleep(200 * time.Millisecond)
	if status, got := query(); status != 200 {
		t.Fatalf("query beside announced bodies: %d %s", status, got)
	}
	// Most of their bytes sent, they fill the budget.
	for _, nc := range slow {
		nc.Write([]byte(strings.Repeat(" ", 998)))
	}
	time.Sleep(200 * time.Millisecond)
	c.fail("/workspaces/w/tables/query", `{"query": "SELECT 1"}`, 503, "SERVICE_UNAVAILABLE", "53300", "too many concurrent HTTP requests")
	// One of them going away gives its bytes back.
	slow[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, got := query()
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("query after a buffered body went away: %d %s", status, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
