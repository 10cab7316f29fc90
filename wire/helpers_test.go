package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5/pgconn"
)

// testServer is a Server on 127.0.0.1:0 over a fresh data directory,
// driven by the real engine.
type testServer struct {
	srv    *Server
	addr   string
	engine *session.Engine
	served chan error // Serve's result
}

// startServer starts a server; it is shut down when the test ends.
func startServer(t testing.TB, configure ...func(*Server)) *testServer {
	t.Helper()
	log := testLogger(t)
	db, err := storage.Open(t.TempDir(), storage.Options{Logger: log})
	if err != nil {
		t.Fatalf("storage.Open: %v", err)
	}
	engine := session.NewEngine(db, session.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{
		srv:    &Server{Engine: engine, Logger: log},
		addr:   l.Addr().String(),
		engine: engine,
		served: make(chan error, 1),
	}
	ts.srv.panicHook = func(r any) { t.Errorf("server panicked: %v", r) }
	for _, f := range configure {
		f(ts.srv)
	}
	go func() { ts.served <- ts.srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Errorf("db.Close: %v", err)
		}
	})
	return ts
}

// connect opens a pgconn connection to the server.
func (ts *testServer) connect(t testing.TB, settings ...string) *pgconn.PgConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	host, port, _ := net.SplitHostPort(ts.addr)
	dsn := fmt.Sprintf("host=%s port=%s user=tester dbname=testdb sslmode=disable %s", host, port, strings.Join(settings, " "))
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// testCtx is a context for one client call.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rawClient speaks the protocol message by message, for the cases a
// driver never produces.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
	// pid and secret are the BackendKeyData of a rawConnect.
	pid, secret uint32
}

func (ts *testServer) dial(t testing.TB) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", ts.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(pgproto3.NewChunkReader(nc), nc)}
}

// startup sends a 3.0 StartupMessage and reads up to ReadyForQuery.
func (ts *testServer) rawConnect(t testing.TB) *rawClient {
	t.Helper()
	rc := ts.dial(t)
	rc.send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "tester", "database": "testdb"},
	})
	var got []string
	for {
		rc.nc.SetReadDeadline(timeoutSoon())
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatalf("startup: after %q: %v", got, err)
		}
		if k, ok := msg.(*pgproto3.BackendKeyData); ok {
			rc.pid, rc.secret = k.ProcessID, k.SecretKey
		}
		got = append(got, summary(msg))
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if got[0] != "AuthenticationOk" || got[len(got)-1] != "ReadyForQuery I" || rc.pid == 0 {
		t.Fatalf("startup: %q", got)
	}
	return rc
}

// readRows reads until the first message that is not a DataRow and
// returns how many DataRows came before it, and it.
func (rc *rawClient) readRows() (int, string) {
	rc.t.Helper()
	n := 0
	for {
		rc.nc.SetReadDeadline(timeoutSoon())
		msg, err := rc.fe.Receive()
		if err != nil {
			rc.t.Fatalf("after %d rows: %v", n, err)
		}
		if _, ok := msg.(*pgproto3.DataRow); !ok {
			return n, summary(msg)
		}
		n++
	}
}

// send writes msgs in one packet.
func (rc *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	rc.t.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf); err != nil {
			rc.t.Fatal(err)
		}
	}
	rc.write(buf)
}

func (rc *rawClient) write(b []byte) {
	rc.t.Helper()
	if _, err := rc.nc.Write(b); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// receive reads one message and summarises it (see summary).
func (rc *rawClient) receive() (string, error) {
	rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	msg, err := rc.fe.Receive()
	if err != nil {
		return "", err
	}
	return summary(msg), nil
}

// query sends sql as a simple Query and checks the messages up to
// ReadyForQuery against want (expect's notation).
func (rc *rawClient) query(t testing.TB, sql string, want ...string) {
	t.Helper()
	rc.send(&pgproto3.Query{String: sql})
	expect(t, sql, rc.readUntilReady(), want...)
}

// readUntilReady reads messages up to and including ReadyForQuery.
func (rc *rawClient) readUntilReady() []string {
	rc.t.Helper()
	var got []string
	for {
		s, err := rc.receive()
		if err != nil {
			rc.t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, s)
		if strings.HasPrefix(s, "ReadyForQuery") {
			return got
		}
	}
}

// readUntilClosed reads messages until the server closes the connection.
func (rc *rawClient) readUntilClosed() []string {
	rc.t.Helper()
	var got []string
	for {
		s, err := rc.receive()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				rc.t.Fatalf("connection not closed; got %q", got)
			}
			return got
		}
		got = append(got, s)
	}
}

// summary is a one-line description of a backend message that tests
// compare: the type, then what matters about it.
func summary(msg pgproto3.BackendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.AuthenticationOk:
		return "AuthenticationOk"
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name + "=" + m.Value
	case *pgproto3.BackendKeyData:
		return "BackendKeyData"
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var cols []string
		for _, f := range m.Fields {
			cols = append(cols, fmt.Sprintf("%s:%d", f.Name, f.DataTypeOID))
		}
		return "RowDescription " + strings.Join(cols, ",")
	case *pgproto3.DataRow:
		var vals []string
		for _, v := range m.Values {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(v))
			}
		}
		return "DataRow " + strings.Join(vals, ",")
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		return "ErrorResponse " + m.Severity + " " + m.Code
	case *pgproto3.NoticeResponse:
		return "NoticeResponse " + m.Code
	case *pgproto3.ParameterDescription:
		var oids []string
		for _, o := range m.ParameterOIDs {
			oids = append(oids, fmt.Sprint(o))
		}
		return "ParameterDescription " + strings.Join(oids, ",")
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3.")
}

// withoutParams drops ParameterStatus and BackendKeyData from a startup
// transcript.
func withoutParams(got []string) []string {
	var out []string
	for _, s := range got {
		if !strings.HasPrefix(s, "ParameterStatus") && s != "BackendKeyData" {
			out = append(out, s)
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// expect checks a transcript.
func expect(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	if !equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// testLogger logs through t.Log, so output appears with the failing test.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(&testWriter{t: t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// testWriter passes log lines to the test's log and keeps them for
// String.
type testWriter struct {
	mu     sync.Mutex
	t      testing.TB
	logged strings.Builder
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	w.logged.Write(p)
	return len(p), nil
}

// String is everything logged so far.
func (w *testWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.logged.String()
}

// timeoutSoon is the read deadline for one expected message.
func timeoutSoon() time.Time { return time.Now().Add(10 * time.Second) }
