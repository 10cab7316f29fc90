package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/wire"
)

// testServer is a cairn server running in this process on a loopback
// port, over a data directory of its own.
type testServer struct {
	Addr string
	Dir  string
	db   *storage.DB
	srv  *wire.Server
}

// startServer starts a server on 127.0.0.1:0 over dir (a new temporary
// directory when dir is "") and stops it when the test ends.
func startServer(t testing.TB, dir string) *testServer {
	t.Helper()
	return startServerWith(t, dir, session.Options{})
}

// startServerWith is startServer with the engine's options (its Logger
// is the test's).
func startServerWith(t testing.TB, dir string, opts session.Options) *testServer {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := storage.Open(dir, storage.Options{Logger: logger})
	if err != nil {
		t.Fatalf("open storage: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = logger
	srv := &wire.Server{Engine: session.NewEngine(db, opts), Logger: logger}
	go srv.Serve(l)
	ts := &testServer{Addr: l.Addr().String(), Dir: dir, db: db, srv: srv}
	t.Cleanup(ts.stop)
	return ts
}

// stop shuts the server down and closes its storage; safe to call twice.
func (ts *testServer) stop() {
	if ts.srv == nil {
		return
	}
	ts.srv.Shutdown(context.Background())
	ts.db.Close()
	ts.srv = nil
}

// connString is a libpq connection string for the server.
func (ts *testServer) connString() string {
	host, port, _ := net.SplitHostPort(ts.Addr)
	return "host=" + host + " port=" + port + " user=cairn dbname=cairn sslmode=disable"
}

// connect opens a pgx connection closed at the end of the test.
func (ts *testServer) connect(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), ts.connString())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
