package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/storage"
	"github.com/cairn-db/cairn/wire"
)

// Timeouts of the hostile server: short, so that the slowloris and the
// client that never reads are dropped within the test.
const (
	hostileAuthTimeout  = 500 * time.Millisecond
	hostileWriteTimeout = time.Second
)

// TestHostileClients throws what a shared server meets at one in-process
// server: malformed and truncated messages, bogus lengths, bad binary
// parameters, invalid UTF-8, a 50 MB query, a burst of 500 connections,
// slowloris start-ups, a client that never reads its results and one
// that leaves in the middle of a COPY. After each case a fresh
// connection and a long-lived bystander session must still work, the
// bystander's table must hold exactly its own rows, and the server's heap
// in use must stay within a generous bound of where it started.
func TestHostileClients(t *testing.T) {
	addr := startHostileServer(t)
	ctx := context.Background()
	connString := func() string {
		host, port, _ := net.SplitHostPort(addr)
		return "host=" + host + " port=" + port + " user=cairn dbname=cairn sslmode=disable"
	}
	bystander, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Close(ctx)
	if _, err := bystander.Exec(ctx, "CREATE TABLE ledger (id int PRIMARY KEY, note text)"); err != nil {
		t.Fatal(err)
	}
	rows := 0
	var baseline runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&baseline)
	baseGoroutines := runtime.NumGoroutine()

	// after checks the server once a case is done.
	after := func(name string) {
		t.Helper()
		rows++
		if _, err := bystander.Exec(ctx, "INSERT INTO ledger VALUES ($1, $2)", rows, name); err != nil {
			t.Fatalf("%s: bystander insert: %v", name, err)
		}
		var n int
		if err := bystander.QueryRow(ctx, "SELECT count(*) FROM ledger").Scan(&n); err != nil || n != rows {
			t.Fatalf("%s: bystander sees %d rows (%v), want %d", name, n, err, rows)
		}
		fresh, err := pgx.Connect(ctx, connString())
		if err != nil {
			t.Fatalf("%s: fresh connection: %v", name, err)
		}
		if err := fresh.QueryRow(ctx, "SELECT count(*) FROM ledger").Scan(&n); err != nil || n != rows {
			t.Fatalf("%s: fresh connection sees %d rows (%v), want %d", name, n, err, rows)
		}
		fresh.Close(ctx)
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		grown := int64(m.HeapInuse) - int64(baseline.HeapInuse)
		t.Logf("%s: heap in use %+d MiB, %d goroutines", name, grown>>20, runtime.NumGoroutine())
		if grown > 256<<20 {
			t.Fatalf("%s: heap in use grew by %d MiB", name, grown>>20)
		}
	}

	t.Run("malformed messages", func(t *testing.T) {
		// A body malformed inside a right frame fails its message with
		// ERROR 08P01 (26000 for a Bind of a statement that does not
		// exist, looked up first) and the session goes on, as in
		// PostgreSQL.
		for name, raw := range map[string][]byte{
			"bind garbage":        {'B', 0, 0, 0, 6, 'x', 'y'},
			"bind length -100":    {'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x9c},
			"unterminated query":  {'Q', 0, 0, 0, 7, 'a', 'b', 'c'},
			"parse no terminator": {'P', 0, 0, 0, 8, 's', 0, 'x', 'y'},
			"close no terminator": {'C', 0, 0, 0, 6, 'S', 'x'},
		} {
			rc := dialStarted(t, addr)
			rc.write(raw)
			rc.send(&pgproto3.Sync{})
			got := rc.readUntilReady()
			if len(got) != 2 || !strings.HasPrefix(got[0], "ErrorResponse ERROR 08P01") && !strings.HasPrefix(got[0], "ErrorResponse ERROR 26000") {
				t.Errorf("%s: got %q, want ERROR 08P01", name, got)
			}
			if raw[0] == 'Q' {
				rc.readUntilReady() // the Sync's
			}
			rc.send(&pgproto3.Query{String: "SELECT 1"})
			if got := rc.readUntilReady(); len(got) != 4 || got[1] != "DataRow 1" {
				t.Errorf("%s: then SELECT 1: %q", name, got)
			}
			rc.nc.Close()
		}
		// A frame out of bounds, or of no known type, ends the
		// connection with FATAL 08P01.
		for name, raw := range map[string][]byte{
			"unknown type":    {'Z', 0, 0, 0, 4},
			"length 0":        {'Q', 0, 0, 0, 0},
			"length 3":        {'S', 0, 0, 0, 3},
			"negative length": {'Q', 0x80, 0, 0, 0},
			"length 2 GiB":    {'P', 0x7f, 0xff, 0xff, 0xff},
			"length 1 GiB":    {'Q', 0x40, 0, 0, 0},
			"long sync":       {'S', 0, 1, 0, 0},
		} {
			rc := dialStarted(t, addr)
			start := time.Now()
			rc.write(raw)
			got := rc.readUntilClosed()
			if len(got) != 1 || !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") {
				t.Errorf("%s: got %q, want FATAL 08P01", name, got)
			}
			if strings.HasPrefix(name, "length") || strings.HasSuffix(name, "length") {
				t.Logf("%s: refused in %v", name, time.Since(start))
			}
		}
		// A message cut short, then the client leaves.
		rc := dialStarted(t, addr)
		rc.write([]byte{'Q', 0, 0, 1, 0, 'S', 'E', 'L'})
		rc.nc.Close()
		after("malformed messages")
	})

	t.Run("bad binary parameters", func(t *testing.T) {
		rc := dialStarted(t, addr)
		arrayHeader := func(ndim, hasNull, elemOID int32, dims ...int32) []byte {
			b := binary.BigEndian.AppendUint32(nil, uint32(ndim))
			b = binary.BigEndian.AppendUint32(b, uint32(hasNull))
			b = binary.BigEndian.AppendUint32(b, uint32(elemOID))
			for _, d := range dims {
				b = binary.BigEndian.AppendUint32(b, uint32(d))
				b = binary.BigEndian.AppendUint32(b, 1)
			}
			return b
		}
		for name, c := range map[string]struct {
			oid uint32
			val []byte
		}{
			"int4 of 3 bytes":              {23, []byte{0, 0, 1}},
			"int4 of 8 bytes":              {23, make([]byte, 8)},
			"float8 of 4 bytes":            {701, make([]byte, 4)},
			"int8 of 0 bytes":              {20, []byte{}},
			"bool of 2 bytes":              {16, []byte{1, 1}},
			"int4[] cut in its header":     {1007, []byte{0, 0, 0, 1, 0}},
			"int4[] of 1000 dimensions":    {1007, arrayHeader(1000, 0, 23)},
			"int4[] of -1 elements":        {1007, arrayHeader(1, 0, 23, -1)},
			"int4[] of 2^31-1 elements":    {1007, arrayHeader(1, 0, 23, 0x7fffffff)},
			"int4[] of int8 elements":      {1007, append(arrayHeader(1, 0, 20, 1), 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1)},
			"int4[] element overruns":      {1007, append(arrayHeader(1, 0, 23, 1), 0, 0, 0, 100, 0, 0)},
			"int4[] element length -5":     {1007, append(arrayHeader(1, 0, 23, 1), 0xff, 0xff, 0xff, 0xfb)},
			"text[] of invalid UTF-8":      {1009, append(arrayHeader(1, 0, 25, 1), 0, 0, 0, 1, 0xff)},
			"float4[] dims overflow":       {1021, arrayHeader(2, 0, 700, 0x10000, 0x10000)},
			"text of invalid UTF-8":        {25, []byte{'a', 0xc3, 0x28}},
			"text with NUL":                {25, []byte{'a', 0, 'b'}},
			"numeric with garbage header":  {1700, []byte{0xff, 0xff, 0, 0, 0, 0, 0, 0}},
			"timestamptz of 7 bytes":       {1184, make([]byte, 7)},
			"jsonb of unknown version":     {3802, []byte{9, '{', '}'}},
			"uuid of 15 bytes":             {2950, make([]byte, 15)},
			"interval of 12 bytes":         {1186, make([]byte, 12)},
			"date of 2 bytes":              {1082, []byte{0, 1}},
			"bytea[] header with elements": {1001, append(arrayHeader(1, 0, 17, 3), 0, 0, 0, 1, 'x')},
		} {
			rc.send(&pgproto3.Parse{Query: "SELECT $1", ParameterOIDs: []uint32{c.oid}},
				&pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{c.val}, ResultFormatCodes: []int16{1}},
				&pgproto3.Execute{}, &pgproto3.Sync{})
			got := rc.readUntilReady()
			if len(got) < 2 || !strings.HasPrefix(got[len(got)-2], "ErrorResponse ERROR") || got[len(got)-1] != "ReadyForQuery I" {
				t.Errorf("%s: got %q, want ERROR then ReadyForQuery", name, got)
			}
		}
		rc.send(&pgproto3.Query{String: "SELECT 1"})
		if got := rc.readUntilReady(); len(got) != 4 || got[1] != "DataRow 1" {
			t.Errorf("the same connection after: %q", got)
		}
		after("bad binary parameters")
	})

	t.Run("invalid UTF-8", func(t *testing.T) {
		rc := dialStarted(t, addr)
		// PostgreSQL 15 names the first invalid sequence's bytes.
		for q, bytes := range map[string]string{
			"SELECT '\xff'":            "0xff",
			"SELECT 1 AS \"\xc3\x28\"": "0xc3 0x28",
			"INSERT INTO ledger VALUES (1000, '\xed\xa0\x80')": "0xed 0xa0 0x80",
		} {
			rc.send(&pgproto3.Query{String: q})
			got := rc.readUntilReady()
			if len(got) != 2 || got[0] != "ErrorResponse ERROR 22021 invalid byte sequence for encoding \"UTF8\": "+bytes {
				t.Errorf("%q: got %q", q, got)
			}
		}
		after("invalid UTF-8")
	})

	t.Run("50 MB query", func(t *testing.T) {
		rc := dialStarted(t, addr)
		const size = 50 << 20
		start := time.Now()
		rc.send(&pgproto3.Query{String: "SELECT length('" + strings.Repeat("a", size) + "')"})
		got := rc.readUntilReady()
		if len(got) != 4 || got[1] != fmt.Sprintf("DataRow %d", size) {
			t.Errorf("got %q", got)
		}
		t.Logf("a 50 MB query answered in %v", time.Since(start))
		rc.nc.Close()
		after("50 MB query")
	})

	t.Run("burst of 500 connections", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		failures := map[string]int{}
		start := time.Now()
		for i := range 500 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					mu.Lock()
					failures[err.Error()]++
					mu.Unlock()
					return
				}
				defer nc.Close()
				switch i % 5 {
				case 0: // connect and drop
				case 1: // garbage instead of a start-up packet
					nc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
				case 2: // half a start-up packet, then drop
					nc.Write([]byte{0, 0, 0, 40, 0, 3, 0, 0})
				case 3: // a whole session, then drop without Terminate
					nc.Write(startupPacket())
					nc.SetReadDeadline(time.Now().Add(10 * time.Second))
					nc.Read(make([]byte, 512))
				case 4: // a query, then drop before reading its answer
					nc.Write(append(startupPacket(), encode(&pgproto3.Query{String: "SELECT * FROM generate_series(1, 100000)"})...))
				}
			}()
		}
		wg.Wait()
		t.Logf("500 connections opened and dropped in %v; dial failures %v", time.Since(start), failures)
		if len(failures) > 0 {
			t.Errorf("dial failures: %v", failures)
		}
		waitGoroutines(t, baseGoroutines+20, 10*time.Second)
		after("burst of 500 connections")
	})

	t.Run("slowloris", func(t *testing.T) {
		var conns []net.Conn
		for i := range 50 {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			p := startupPacket()
			nc.Write(p[:i%len(p)]) // part of a start-up packet, then silence
			conns = append(conns, nc)
		}
		start := time.Now()
		for i, nc := range conns {
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.Copy(io.Discard, nc); err != nil {
				t.Fatalf("slow connection %d not dropped: %v", i, err)
			}
		}
		t.Logf("50 slow start-ups dropped within %v of the last byte (timeout %v)", time.Since(start), hostileAuthTimeout)
		after("slowloris")
	})

	t.Run("client that never reads", func(t *testing.T) {
		rc := dialStarted(t, addr)
		// The lock shows when the server has ended the session: it is
		// released then, though the client never reads a byte. It is
		// taken before the stuck batch goes out, so that the bystander
		// cannot see it free before the session holds it.
		rc.send(&pgproto3.Query{String: "SELECT pg_advisory_lock(4242)"})
		if got := rc.readUntilReady(); got[len(got)-1] != "ReadyForQuery I" {
			t.Fatalf("pg_advisory_lock: %q", got)
		}
		var batch []byte
		for range 50 {
			batch = append(batch, encode(&pgproto3.Query{String: "SELECT i, repeat('x', 100) FROM generate_series(1, 100000) i"})...)
		}
		rc.write(batch)
		// The server blocks writing; the bystander is served meanwhile.
		start := time.Now()
		var n int
		if err := bystander.QueryRow(ctx, "SELECT count(*) FROM ledger").Scan(&n); err != nil {
			t.Fatal(err)
		}
		t.Logf("bystander answered in %v while a client did not read", time.Since(start))
		// How soon the server blocks depends on how fast it fills the
		// socket buffers (slow under -race); wait for the lock to go.
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			var got bool
			if err := bystander.QueryRow(ctx, "SELECT pg_try_advisory_lock(4242)").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the stuck connection still holds its lock after 60 s")
			}
		}
		if _, err := bystander.Exec(ctx, "SELECT pg_advisory_unlock(4242)"); err != nil {
			t.Fatal(err)
		}
		rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.Copy(io.Discard, rc.nc); err != nil {
			t.Fatalf("the stuck connection was not ended: %v", err)
		}
		after("client that never reads")
	})

	t.Run("disconnect mid-COPY", func(t *testing.T) {
		for _, format := range []string{"", " (FORMAT csv)", " (FORMAT binary)"} {
			rc := dialStarted(t, addr)
			rc.send(&pgproto3.Query{String: "COPY ledger FROM STDIN" + format})
			if s, err := rc.receive(); err != nil || s != "CopyInResponse" {
				t.Fatalf("COPY%s: got %q %v", format, s, err)
			}
			data := "5000\tpartial\n5001\tpartial\n"
			switch format {
			case " (FORMAT csv)":
				data = "5000,partial\n5001,partial\n"
			case " (FORMAT binary)":
				data = "PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x04\x00\x00\x13\x88"
			}
			rc.send(&pgproto3.CopyData{Data: []byte(data)})
			rc.write([]byte{'d', 0, 0, 0, 100, '5'}) // a CopyData cut short
			rc.nc.Close()
		}
		time.Sleep(100 * time.Millisecond)
		// The COPY's rows are not there, and its table is not locked.
		after("disconnect mid-COPY")
	})
	waitGoroutines(t, baseGoroutines+20, 10*time.Second)
}

// startHostileServer starts an in-process server with short start-up and
// write timeouts; it is shut down when the test ends.
func startHostileServer(t *testing.T) string {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := storage.Open(t.TempDir(), storage.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Engine: session.NewEngine(db, session.Options{Logger: logger}), Logger: logger,
		AuthenticationTimeout: hostileAuthTimeout, WriteTimeout: hostileWriteTimeout}
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		db.Close()
	})
	return l.Addr().String()
}

// waitGoroutines waits until at most max goroutines run: every
// connection the server served has ended.
func waitGoroutines(t *testing.T, max int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for runtime.NumGoroutine() > max {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines still run, want at most %d:\n%s", runtime.NumGoroutine(), max, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rawConn is a client speaking the protocol byte by byte.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	fe *pgproto3.Frontend
}

// dialStarted connects and completes the start-up.
func dialStarted(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	rc := &rawConn{t: t, nc: nc, fe: pgproto3.NewFrontend(pgproto3.NewChunkReader(nc), nc)}
	rc.write(startupPacket())
	if got := rc.readUntilReady(); got[len(got)-1] != "ReadyForQuery I" {
		t.Fatalf("start-up: %q", got)
	}
	return rc
}

func startupPacket() []byte {
	return encode(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "cairn", "database": "cairn"}})
}

func encode(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		b, _ = m.Encode(b)
	}
	return b
}

func (rc *rawConn) send(msgs ...pgproto3.FrontendMessage) { rc.write(encode(msgs...)) }

func (rc *rawConn) write(b []byte) {
	rc.t.Helper()
	rc.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.nc.Write(b); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// receive reads one message and summarises it: its type, and for an
// error its severity, code and message, for a DataRow its values.
func (rc *rawConn) receive() (string, error) {
	rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	msg, err := rc.fe.Receive()
	if err != nil {
		return "", err
	}
	switch m := msg.(type) {
	case *pgproto3.ErrorResponse:
		return "ErrorResponse " + m.Severity + " " + m.Code + " " + m.Message, nil
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus), nil
	case *pgproto3.DataRow:
		var vals []string
		for _, v := range m.Values {
			vals = append(vals, string(v))
		}
		return "DataRow " + strings.Join(vals, ","), nil
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3."), nil
}

// readUntilReady reads up to ReadyForQuery, skipping ParameterStatus,
// BackendKeyData and NoticeResponse.
func (rc *rawConn) readUntilReady() []string {
	rc.t.Helper()
	var got []string
	for {
		s, err := rc.receive()
		if err != nil {
			rc.t.Fatalf("after %q: %v", got, err)
		}
		switch s {
		case "ParameterStatus", "BackendKeyData", "NoticeResponse":
			continue
		}
		got = append(got, s)
		if strings.HasPrefix(s, "ReadyForQuery") {
			return got
		}
	}
}

// readUntilClosed reads until the server closes the connection.
func (rc *rawConn) readUntilClosed() []string {
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
