package wire

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// TestStartupTimeout checks that a client that never completes its
// start-up packet (slowloris), or sends none, is dropped after
// AuthenticationTimeout, while a session that started may idle longer.
func TestStartupTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	ts := startServer(t, func(s *Server) { s.AuthenticationTimeout = timeout })
	idle := ts.rawConnect(t)
	for name, partial := range map[string][]byte{
		"nothing":         nil,
		"half a length":   {0, 0},
		"half a packet":   {0, 0, 0, 40, 0, 3, 0, 0, 'u', 's'},
		"after SSL's 'N'": {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f},
	} {
		start := time.Now() // before the dial: the server's clock starts at accept
		rc := ts.dial(t)
		if partial != nil {
			rc.write(partial)
		}
		rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		rest, err := io.ReadAll(rc.nc)
		elapsed := time.Since(start)
		if err != nil {
			t.Errorf("%s: not closed: %v", name, err)
		}
		if name == "after SSL's 'N'" && string(rest) != "N" || name != "after SSL's 'N'" && len(rest) != 0 {
			t.Errorf("%s: got %q", name, rest)
		}
		if elapsed < timeout || elapsed > timeout+3*time.Second {
			t.Errorf("%s: closed after %v, want about %v", name, elapsed, timeout)
		}
	}
	time.Sleep(2 * timeout)
	idle.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "idle session after the timeout", idle.readUntilReady(), "RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestRepeatedEncryptionRequest checks that a second SSLRequest, after
// the first got 'N', is answered as PostgreSQL answers it: FATAL 0A000,
// the request code read as a protocol version.
func TestRepeatedEncryptionRequest(t *testing.T) {
	ts := startServer(t)
	rc := ts.dial(t)
	rc.send(&pgproto3.SSLRequest{})
	rc.send(&pgproto3.SSLRequest{})
	var b [1]byte
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(rc.nc, b[:]); err != nil || b[0] != 'N' {
		t.Fatalf("got %q, %v; want 'N'", b[0], err)
	}
	msg, err := rc.fe.Receive()
	e, ok := msg.(*pgproto3.ErrorResponse)
	if err != nil || !ok || e.Severity != "FATAL" || e.Code != "0A000" ||
		e.Message != "unsupported frontend protocol 1234.5679: server supports 3.0 to 3.0" {
		t.Fatalf("second SSLRequest: got %#v %v", msg, err)
	}
	expect(t, "then closed", rc.readUntilClosed())
}

// TestClientThatNeverReads checks that a client that sends a query with
// a large result and never reads it loses its connection after
// WriteTimeout, and that its session's locks are released then, instead
// of the server blocking on the write for ever.
func TestClientThatNeverReads(t *testing.T) {
	ts := startServer(t, func(s *Server) { s.WriteTimeout = 500 * time.Millisecond })
	stuck := ts.rawConnect(t)
	stuck.send(&pgproto3.Query{String: "SELECT pg_advisory_lock(42)"})
	stuck.readUntilReady()
	stuck.send(&pgproto3.Query{String: longQuery})

	other := ts.rawConnect(t)
	start := time.Now()
	for {
		other.send(&pgproto3.Query{String: "SELECT pg_try_advisory_lock(42)"})
		got := other.readUntilReady()
		if len(got) > 1 && got[1] == "DataRow t" {
			break
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the lock is still held after %v: %q", time.Since(start), got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the stuck client's lock was released after %v", time.Since(start))
	// What the server had written before giving up is still there to
	// read, then the end.
	stuck.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, stuck.nc); err != nil {
		t.Fatalf("stuck connection not closed: %v", err)
	}
}

// TestStartupBytesNotUTF8 checks the strings of a startup packet, which
// no query text check sees: a user or database name or a setting that is
// not UTF-8 fails the connection with 22021, as a query with those bytes
// would, and application_name is cleaned to printable ASCII as
// PostgreSQL 15 cleans it, so pg_stat_activity, which every session
// reads, never holds text a client cannot decode.
func TestStartupBytesNotUTF8(t *testing.T) {
	ts := startServer(t)
	for name, params := range map[string]map[string]string{
		"user":        {"user": "ab\xff", "database": "testdb"},
		"database":    {"user": "tester", "database": "\xfe"},
		"setting":     {"user": "tester", "database": "testdb", "search_path": "a\xc3"},
		"via options": {"user": "tester", "database": "testdb", "options": "-c search_path=\xff"},
	} {
		rc := ts.dial(t)
		rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: params})
		expect(t, name, rc.readUntilClosed(), "ErrorResponse FATAL 22021")
	}

	rc := ts.dial(t)
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "tester", "database": "testdb", "application_name": "h\xc3\xa9\xff\x01~"}})
	var app string
	for {
		s, err := rc.receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		if v, ok := strings.CutPrefix(s, "ParameterStatus application_name="); ok {
			app = v
		}
		if strings.HasPrefix(s, "ReadyForQuery") {
			break
		}
	}
	if app != "h????~" {
		t.Errorf("ParameterStatus application_name=%q, want %q", app, "h????~")
	}
	other := ts.rawConnect(t)
	other.send(&pgproto3.Query{String: "SELECT application_name FROM pg_stat_activity WHERE application_name <> '' ORDER BY 1"})
	expect(t, "pg_stat_activity", other.readUntilReady(), "RowDescription application_name:25", "DataRow h????~", "CommandComplete SELECT 1", "ReadyForQuery I")
	other.send(&pgproto3.Query{String: "SET application_name = 'naïve'; SHOW application_name"})
	expect(t, "SET", other.readUntilReady(), "CommandComplete SET", "RowDescription application_name:25", "DataRow na??ve",
		"CommandComplete SHOW", "ParameterStatus application_name=na??ve", "ReadyForQuery I")
}
