package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// TestMalformedMessages checks that a message whose frame is wrong (an
// unknown type, a length out of bounds) or that has no place after
// start-up ends only its own connection, with FATAL 08P01.
func TestMalformedMessages(t *testing.T) {
	ts := startServer(t, func(s *Server) { s.MaxMessageSize = 1 << 20 })
	other := ts.rawConnect(t)

	oversized := []byte{'Q', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(oversized[1:], 2<<20)
	for name, raw := range map[string][]byte{
		"unknown type":     {'Z', 0, 0, 0, 4},
		"negative length":  {'Q', 0, 0, 0, 2},
		"huge length":      {'Q', 0xff, 0xff, 0xff, 0xf0},
		"oversized":        oversized,
		"password message": {'p', 0, 0, 0, 6, 'p', 0},
	} {
		rc := ts.rawConnect(t)
		rc.write(raw)
		expect(t, name, rc.readUntilClosed(), "ErrorResponse FATAL 08P01")
	}

	other.send(&pgproto3.Sync{})
	expect(t, "other connection", other.readUntilReady(), "ReadyForQuery I")
}

// TestMalformedBodies checks messages framed right whose bodies are
// malformed (a string without its terminator, a value running past the
// end, bytes left over): as in PostgreSQL 15, whose answers these are,
// each fails with ERROR 08P01 (26000 for a Bind of a statement that does
// not exist, looked up first), the session goes on, a Terminate with a
// body just ends it.
func TestMalformedBodies(t *testing.T) {
	ts := startServer(t)
	for _, tc := range []struct {
		name, message string
		raw           []byte
	}{
		{"bind without strings", "invalid string in message", []byte{'B', 0, 0, 0, 6, 'x', 'y'}},
		// pgproto3/v2 panics decoding a parameter length below -1.
		{"bind length -100", "unnamed prepared statement does not exist", []byte{'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x9c}},
		{"bind value past the end", "unnamed prepared statement does not exist", []byte{'B', 0, 0, 0, 16, 0, 0, 0, 0, 0, 1, 0, 0, 0, 100, 'a', 'b'}},
		{"unterminated query", "invalid string in message", []byte{'Q', 0, 0, 0, 7, 'a', 'b', 'c'}},
		{"query with bytes after", "invalid message format", []byte{'Q', 0, 0, 0, 8, 'a', 0, 'b', 'c'}},
		{"execute without max rows", "insufficient data left in message", []byte{'E', 0, 0, 0, 5, 0}},
		{"execute with bytes after", "invalid message format", []byte{'E', 0, 0, 0, 10, 0, 0, 0, 0, 0, 1}},
		{"parse with too few types", "insufficient data left in message", append(append([]byte{'P', 0, 0, 0, 16, 0}, "SELECT 1"...), 0, 0, 5)},
		{"describe without name", "invalid string in message", []byte{'D', 0, 0, 0, 5, 'S'}},
		{"describe of bad type", "invalid DESCRIBE message subtype 90", []byte{'D', 0, 0, 0, 6, 'Z', 0}},
		{"close of bad type", "invalid CLOSE message subtype 90", []byte{'C', 0, 0, 0, 6, 'Z', 0}},
		{"flush with a body", "invalid message format", []byte{'H', 0, 0, 0, 5, 0}},
		{"sync with a body", "invalid message format", []byte{'S', 0, 0, 0, 5, 0}},
		{"function call cut short", "insufficient data left in message", []byte{'F', 0, 0, 0, 6, 0, 0}},
	} {
		rc := ts.rawConnect(t)
		rc.write(tc.raw)
		var buf []byte
		buf, _ = (&pgproto3.Sync{}).Encode(buf)
		rc.write(buf)
		rc.nc.SetReadDeadline(timeoutSoon())
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		e, ok := msg.(*pgproto3.ErrorResponse)
		if !ok || e.Severity != "ERROR" || e.Message != tc.message {
			t.Errorf("%s: got %s, want ERROR %q", tc.name, summary(msg), tc.message)
			continue
		}
		// A Query or a Sync gets its ReadyForQuery, then the Sync sent
		// after it another.
		expect(t, tc.name, rc.readUntilReady(), "ReadyForQuery I")
		if tc.raw[0] == 'Q' || tc.raw[0] == 'S' || tc.raw[0] == 'F' {
			expect(t, tc.name+": the Sync", rc.readUntilReady(), "ReadyForQuery I")
		}
		rc.send(&pgproto3.Query{String: "SELECT 1"})
		expect(t, tc.name+": after", rc.readUntilReady(), "RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
	}

	// In a transaction block: the block fails; the rest of the messages
	// up to Sync are skipped unread, malformed or not.
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "BEGIN"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.write([]byte{'E', 0, 0, 0, 5, 0, 'D', 0, 0, 0, 6, 'Z', 0})
	rc.send(&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "malformed in a block", rc.readUntilReady(), "ErrorResponse ERROR 08P01", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK; BEGIN"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "CommandComplete BEGIN", "ReadyForQuery T")
	rc.write([]byte{'Q', 0, 0, 0, 7, 'a', 'b', 'c'})
	expect(t, "malformed Query in a block", rc.readUntilReady(), "ErrorResponse ERROR 08P01", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "after", rc.readUntilReady(), "ErrorResponse ERROR 25P02", "ReadyForQuery E")

	// A Bind whose parameter count does not match its statement's.
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "ReadyForQuery I")
	rc.send(&pgproto3.Parse{Name: "s", Query: "SELECT 1"}, &pgproto3.Sync{})
	expect(t, "Parse", rc.readUntilReady(), "ParseComplete", "ReadyForQuery I")
	rc.write([]byte{'B', 0, 0, 0, 11, 0, 's', 0, 0, 0, 0, 1})
	rc.send(&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "short Bind", rc.readUntilReady(), "ErrorResponse ERROR 08P01", "ReadyForQuery I")

	// COPY's messages outside a COPY are ignored, malformed or not.
	rc.write([]byte{'f', 0, 0, 0, 6, 'a', 'b', 'c', 0, 0, 0, 5, 0, 'd', 0, 0, 0, 5, 0})
	rc.send(&pgproto3.Sync{})
	expect(t, "COPY's messages", rc.readUntilReady(), "ReadyForQuery I")

	rc.write([]byte{'X', 0, 0, 0, 5, 0})
	expect(t, "Terminate with a body", rc.readUntilClosed())
}

// longQuery streams rows for far longer than any test runs.
const longQuery = "SELECT * FROM generate_series(1, 2000000000)"

// TestCancelRequest cancels a statement that is streaming rows: the
// client gets 57014 and the connection stays usable.
func TestCancelRequest(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: longQuery})
	if s, err := rc.receive(); err != nil || !strings.HasPrefix(s, "RowDescription") {
		t.Fatalf("got %q %v, want RowDescription", s, err)
	}
	if s, err := rc.receive(); err != nil || !strings.HasPrefix(s, "DataRow") {
		t.Fatalf("got %q %v, want DataRow", s, err)
	}
	cc := ts.dial(t)
	cc.send(&pgproto3.CancelRequest{ProcessID: rc.pid, SecretKey: rc.secret})
	_, after := rc.readRows()
	if after != "ErrorResponse ERROR 57014" {
		t.Fatalf("after cancel: %q, want ErrorResponse 57014", after)
	}
	expect(t, "end of cancelled query", rc.readUntilReady(), "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "after cancel", rc.readUntilReady(),
		"RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")

	// pgx's CancelRequest on an idle connection is harmless.
	c := ts.connect(t)
	if err := c.CancelRequest(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(testCtx(t)); err != nil {
		t.Errorf("connection after cancel: %v", err)
	}
}

// TestCancelKey checks the cancel plumbing without the engine: only the
// right pid and secret reach the running statement.
func TestCancelKey(t *testing.T) {
	ts := startServer(t)
	rc := ts.dial(t)
	rc.send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "tester"},
	})
	var pid, secret uint32
	for {
		rc.nc.SetReadDeadline(timeoutSoon())
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := msg.(*pgproto3.BackendKeyData); ok {
			pid, secret = k.ProcessID, k.SecretKey
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	c := ts.srv.byPIDForTest(pid)
	if c == nil {
		t.Fatalf("no connection with pid %d", pid)
	}
	cancelled := make(chan struct{}, 1)
	c.mu.Lock()
	c.cancelFn = func() { cancelled <- struct{}{} }
	c.mu.Unlock()

	sendCancel := func(pid, secret uint32) {
		cc := ts.dial(t)
		cc.send(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret})
		// The server closes a cancel connection without a word.
		expect(t, "cancel connection", cc.readUntilClosed())
	}
	sendCancel(pid, secret+1)
	sendCancel(pid+1, secret)
	select {
	case <-cancelled:
		t.Fatal("cancelled with a wrong key")
	default:
	}
	sendCancel(pid, secret)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("not cancelled with the right key")
	}
	c.mu.Lock()
	c.cancelFn = nil
	c.mu.Unlock()
}

func (s *Server) byPIDForTest(pid uint32) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byPID[pid]
}

func (s *Server) connCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTerminateAndDrop(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Terminate{})
	expect(t, "after Terminate", rc.readUntilClosed())
	waitFor(t, "session closed after Terminate", func() bool { return ts.srv.connCount() == 0 })

	rc = ts.rawConnect(t)
	rc.send(&pgproto3.Parse{Query: "SELECT 1"}) // half a cycle, then gone
	rc.nc.Close()
	waitFor(t, "session closed after drop", func() bool { return ts.srv.connCount() == 0 })
}

// panicAuth is an Authenticator that panics for user "panic", to
// exercise recovery.
type panicAuth struct{}

func (panicAuth) Authenticate(ex AuthExchange, user, database string) error {
	if user == "panic" {
		panic("boom")
	}
	return nil
}

func TestPanicClosesOnlyThatConnection(t *testing.T) {
	panics := make(chan any, 10)
	ts := startServer(t, func(s *Server) {
		s.Auth = panicAuth{}
		s.panicHook = func(r any) { panics <- r }
	})
	rc := ts.dial(t)
	rc.send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "panic"},
	})
	expect(t, "panicking connection", rc.readUntilClosed(), "ErrorResponse FATAL XX000")
	waitFor(t, "connection gone", func() bool { return ts.srv.connCount() == 0 })
	if len(panics) != 1 {
		t.Errorf("%d panics", len(panics))
	}
	// The server still serves.
	ts.rawConnect(t)
}

// TestShutdownIdle checks that Shutdown ends idle connections with FATAL
// 57P01 at once and makes Serve return ErrServerClosed.
func TestShutdownIdle(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	expect(t, "idle connection", rc.readUntilClosed(), "ErrorResponse FATAL 57P01")
	if err := <-ts.served; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Error("listener still open")
	}
}

// TestShutdownLetsStatementFinish checks that a running statement
// completes and its results are delivered before the connection ends.
func TestShutdownLetsStatementFinish(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	const rows = 300000 // several MB: more than the socket buffers hold
	rc.send(&pgproto3.Query{String: "SELECT * FROM generate_series(1, 300000)"})
	if s, err := rc.receive(); err != nil || !strings.HasPrefix(s, "RowDescription") {
		t.Fatalf("got %q %v, want RowDescription", s, err)
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		shut <- ts.srv.Shutdown(ctx)
	}()
	time.Sleep(100 * time.Millisecond)
	n, after := rc.readRows()
	if n != rows || after != "CommandComplete SELECT 300000" {
		t.Errorf("got %d rows, then %q", n, after)
	}
	expect(t, "end of connection", rc.readUntilClosed(), "ReadyForQuery I", "ErrorResponse FATAL 57P01")
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestShutdownDeadlineTerminates checks that a statement still running
// when Shutdown's context expires ends as under PostgreSQL's fast
// shutdown: its client gets FATAL 57P01, then the connection closes.
func TestShutdownDeadlineTerminates(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "SELECT pg_sleep(60)"})
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > terminateWait {
		t.Errorf("Shutdown took %v", d)
	}
	got := rc.readUntilClosed()
	if len(got) > 0 && strings.HasPrefix(got[0], "RowDescription") {
		got = got[1:]
	}
	expect(t, "terminated", got, "ErrorResponse FATAL 57P01")
}

// TestShutdownDeadline checks that a statement still running when
// Shutdown's context expires is cancelled and its connection closed, even
// while the server is blocked writing to a client that does not read.
func TestShutdownDeadline(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: longQuery})
	if s, err := rc.receive(); err != nil || !strings.HasPrefix(s, "RowDescription") {
		t.Fatalf("got %q %v, want RowDescription", s, err)
	}
	time.Sleep(200 * time.Millisecond) // the server fills the socket buffers
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if n := ts.srv.connCount(); n != 0 {
		t.Errorf("%d connections left", n)
	}
}
