package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestStartupParameters(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	for name, want := range map[string]string{
		"client_encoding":             "UTF8",
		"DateStyle":                   "ISO, MDY",
		"integer_datetimes":           "on",
		"standard_conforming_strings": "on",
	} {
		if got := c.ParameterStatus(name); got != want {
			t.Errorf("ParameterStatus(%s) = %q, want %q", name, got, want)
		}
	}
	if v := c.ParameterStatus("server_version"); !strings.HasPrefix(v, "15.") {
		t.Errorf("server_version = %q, want 15.x", v)
	}
	if c.PID() == 0 || len(c.SecretKey()) != 4 {
		t.Errorf("BackendKeyData: pid %d, key %x", c.PID(), c.SecretKey())
	}
	if c.TxStatus() != 'I' {
		t.Errorf("TxStatus = %c", c.TxStatus())
	}
}

// TestEncryptionRequestsRefused checks that SSLRequest and GSSENCRequest
// get 'N' and the client can go on in the clear.
func TestEncryptionRequestsRefused(t *testing.T) {
	ts := startServer(t)
	for _, req := range []pgproto3.FrontendMessage{&pgproto3.SSLRequest{}, &pgproto3.GSSEncRequest{}} {
		rc := ts.dial(t)
		rc.send(req)
		var b [1]byte
		rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(rc.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("%T: got %q, %v; want 'N'", req, b[0], err)
		}
		rc.send(&pgproto3.StartupMessage{
			ProtocolVersion: pgproto3.ProtocolVersionNumber,
			Parameters:      map[string]string{"user": "tester"},
		})
		expect(t, "startup after 'N'", withoutParams(rc.readUntilReady()), "AuthenticationOk", "ReadyForQuery I")
	}

	// Both in turn, as libpq does with gssencmode=prefer sslmode=prefer.
	rc := ts.dial(t)
	rc.send(&pgproto3.GSSEncRequest{})
	rc.send(&pgproto3.SSLRequest{})
	var b [2]byte
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(rc.nc, b[:]); err != nil || string(b[:]) != "NN" {
		t.Fatalf("GSS then SSL: got %q, %v", b, err)
	}

	// A driver with sslmode=prefer falls back to plain text.
	c := ts.connect(t, "sslmode=prefer")
	if c.PID() == 0 {
		t.Error("no BackendKeyData")
	}
}

func TestUnsupportedProtocolVersion(t *testing.T) {
	ts := startServer(t)
	rc := ts.dial(t)
	rc.write([]byte{0, 0, 0, 8, 0, 2, 0, 0}) // protocol 2.0
	expect(t, "protocol 2.0", rc.readUntilClosed(), "ErrorResponse FATAL 0A000")
}

// TestProtocolNegotiation checks that a 3.x request with x > 0 (and
// _pq_ options) is answered with NegotiateProtocolVersion for 3.0, sent
// as PostgreSQL sends it (196608, which libpq 18 and later check).
func TestProtocolNegotiation(t *testing.T) {
	ts := startServer(t)

	// pgx asks for 3.2 when told to and accepts the server's 3.0.
	c := ts.connect(t, "max_protocol_version=3.2")
	if c.PID() == 0 {
		t.Error("no BackendKeyData")
	}

	rc := ts.dial(t)
	var pkt []byte
	pkt = append(pkt, 0, 0, 0, 0, 0, 3, 0, 2)
	for _, s := range []string{"user", "tester", "_pq_.frob", "1", ""} {
		pkt = append(pkt, s...)
		pkt = append(pkt, 0)
	}
	binary.BigEndian.PutUint32(pkt, uint32(len(pkt)))
	rc.write(pkt)
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(rc.nc, hdr); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
	if _, err := io.ReadFull(rc.nc, body); err != nil {
		t.Fatal(err)
	}
	want := append([]byte{0, 3, 0, 0, 0, 0, 0, 1}, "_pq_.frob\x00"...)
	if hdr[0] != 'v' || string(body) != string(want) {
		t.Fatalf("NegotiateProtocolVersion: got %q %q, want 'v' %q", hdr[0], body, want)
	}
	expect(t, "startup after negotiation", withoutParams(rc.readUntilReady()), "AuthenticationOk", "ReadyForQuery I")
}

func TestStartupErrors(t *testing.T) {
	ts := startServer(t)

	rc := ts.dial(t)
	rc.send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"database": "x"},
	})
	expect(t, "no user", rc.readUntilClosed(), "ErrorResponse FATAL 28000")

	rc = ts.dial(t)
	rc.write([]byte{0x7f, 0, 0, 0, 0, 3, 0, 0}) // absurd length
	expect(t, "bad startup length", rc.readUntilClosed(), "ErrorResponse FATAL 08P01")

	rc = ts.dial(t)
	rc.write([]byte("GET / HTTP/1.1\r\n\r\n"))
	expect(t, "HTTP on the postgres port", rc.readUntilClosed(), "ErrorResponse FATAL 08P01")

	rc = ts.dial(t)
	rc.write([]byte{0, 0, 0, 12, 0, 3, 0, 0, 'u', 0, 'x', 0}) // unterminated
	expect(t, "bad startup layout", rc.readUntilClosed(), "ErrorResponse FATAL 08P01")

	rc = ts.dial(t)
	rc.send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "u", "replication": "database"},
	})
	expect(t, "replication", rc.readUntilClosed(), "ErrorResponse FATAL 0A000")

	// The server still accepts normal clients.
	ts.rawConnect(t)
}

// startupConfig is a pgx configuration for user tester on ts, with the
// connection string's extra settings and the runtime parameters params.
func (ts *testServer) startupConfig(t *testing.T, extra string, params map[string]string) *pgx.ConnConfig {
	t.Helper()
	host, port, _ := net.SplitHostPort(ts.addr)
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s user=tester dbname=testdb sslmode=disable connect_timeout=10 %s", host, port, extra))
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(cfg.RuntimeParams, params)
	return cfg
}

// settingsOf returns current_setting of each of names in the session
// of c.
func settingsOf(t *testing.T, c *pgx.Conn, names ...string) []string {
	t.Helper()
	got := make([]string, len(names))
	for i, name := range names {
		if err := c.QueryRow(testCtx(t), "SELECT current_setting($1)", name).Scan(&got[i]); err != nil {
			t.Fatalf("current_setting(%s): %v", name, err)
		}
	}
	return got
}

// TestStartupOptions checks that the options startup parameter (pgx's
// options= in a connection string, as libpq's PGOPTIONS sends it) and
// the other startup parameters (pgx's RuntimeParams) set the session's
// settings, that the ParameterStatus messages after authentication
// report them, and that a parameter sent after options overrides it, as
// in PostgreSQL.
func TestStartupOptions(t *testing.T) {
	ts := startServer(t)
	cfg := ts.startupConfig(t, `options='-c hnsw.ef_search=100 -csearch_path=myschema --application-name=a\\ b\\\\c -c myapp.user_id=42 -e'`,
		map[string]string{"TimeZone": "GMT-05:00", "DateStyle": "SQL", "extra_float_digits": "3"})
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec // no statement cache for DISCARD ALL to drop
	c, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	names := []string{"hnsw.ef_search", "search_path", "application_name", "myapp.user_id", "DateStyle", "TimeZone", "extra_float_digits"}
	want := []string{"100", "myschema", `a b\c`, "42", "SQL, DMY", "GMT-05:00", "3"}
	if got := settingsOf(t, c, names...); !slices.Equal(got, want) {
		t.Errorf("settings %v = %q, want %q", names, got, want)
	}
	var ts5 string
	if err := c.QueryRow(testCtx(t), "SELECT '2024-01-02 03:04:05+00'::timestamptz::text").Scan(&ts5); err != nil || ts5 != "02/01/2024 08:04:05 GMT" {
		t.Errorf("timestamptz in GMT-05:00 with SQL, DMY = %q, %v", ts5, err)
	}
	for name, want := range map[string]string{"application_name": `a b\c`, "DateStyle": "SQL, DMY", "TimeZone": "GMT-05:00"} {
		if got := c.PgConn().ParameterStatus(name); got != want {
			t.Errorf("ParameterStatus(%s) = %q, want %q", name, got, want)
		}
	}

	// RESET, RESET ALL and DISCARD ALL go back to the startup values, as
	// PostgreSQL's reset values are (a pooler's DISCARD ALL keeps them).
	for _, reset := range []string{"RESET search_path", "RESET ALL", "DISCARD ALL"} {
		if _, err := c.Exec(testCtx(t), "SET search_path = other; SET myapp.user_id = 7; SET hnsw.ef_search = 41"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(testCtx(t), reset); err != nil {
			t.Fatal(err)
		}
		want := []string{"myschema", "42", "100"}
		if reset == "RESET search_path" {
			want = []string{"myschema", "7", "41"}
		}
		if got := settingsOf(t, c, "search_path", "myapp.user_id", "hnsw.ef_search"); !slices.Equal(got, want) {
			t.Errorf("after %s: search_path, myapp.user_id, hnsw.ef_search = %q, want %q", reset, got, want)
		}
	}

	// A startup parameter wins over options whatever their order.
	cfg = ts.startupConfig(t, `options='-c search_path=a -c application_name=b'`, map[string]string{"search_path": "c"})
	cfg.RuntimeParams["application_name"] = "d"
	c2, err := pgx.ConnectConfig(testCtx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(context.Background())
	if got := settingsOf(t, c2, "search_path", "application_name"); !slices.Equal(got, []string{"c", "d"}) {
		t.Errorf("search_path, application_name = %q, want c, d", got)
	}
}

// TestStartupOptionErrors checks that a startup parameter or options
// switch that cannot be applied ends the connection with PostgreSQL's
// FATAL error for it instead of being skipped, and that the server goes
// on serving.
func TestStartupOptionErrors(t *testing.T) {
	ts := startServer(t)
	for _, tc := range []struct {
		extra      string
		params     map[string]string
		code, text string
	}{
		{`options='-c no_such=1'`, nil, "42704", `unrecognized configuration parameter "no_such"`},
		{"", map[string]string{"No_Such": "1"}, "42704", `unrecognized configuration parameter "No_Such"`},
		{`options='-c hnsw.ef_search=0'`, nil, "22023", `0 is outside the valid range for parameter "hnsw.ef_search" (1 .. 1000)`},
		{"", map[string]string{"TimeZone": "Nowhere/Special"}, "22023", `invalid value for parameter "TimeZone": "Nowhere/Special"`},
		{"", map[string]string{"work_mem": "lots"}, "22023", `invalid value for parameter "work_mem": "lots"`},
		{"", map[string]string{"server_version": "16"}, "55P02", `parameter "server_version" cannot be changed`},
		{`options='-c max_connections=5'`, nil, "55P02", `parameter "max_connections" cannot be changed without restarting the server`},
		{`options='-B 10'`, nil, "55P02", `parameter "shared_buffers" cannot be changed without restarting the server`},
		{"", map[string]string{"hnsw.nope": "1"}, "42602", `invalid configuration parameter name "hnsw.nope"`},
		{`options='-c search_path'`, nil, "42601", "-c search_path requires a value"},
		{`options='-c a.b=1 garbage'`, nil, "42601", "invalid command-line argument for server process: garbage"},
		{`options=-x`, nil, "42601", "invalid command-line argument for server process: -x"},
		{`options='-d 3'`, nil, "0A000", "the -d switch in the options startup parameter is not supported"},
	} {
		_, err := pgx.ConnectConfig(testCtx(t), ts.startupConfig(t, tc.extra, tc.params))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Severity != "FATAL" || pe.Code != tc.code || pe.Message != tc.text {
			t.Errorf("%s %v: got %v, want FATAL %s %s", tc.extra, tc.params, err, tc.code, tc.text)
		}
	}
	if got := settingsOf(t, mustConnect(t, ts), "search_path"); got[0] != `"$user", public` {
		t.Errorf("search_path after the failures = %q", got[0])
	}
}

// mustConnect opens a pgx connection to ts with no startup settings.
func mustConnect(t *testing.T, ts *testServer) *pgx.Conn {
	t.Helper()
	c, err := pgx.ConnectConfig(testCtx(t), ts.startupConfig(t, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestStartupOptionsConcurrent opens sessions with different options at
// once and checks that each sees its own settings and a session without
// options the defaults.
func TestStartupOptionsConcurrent(t *testing.T) {
	ts := startServer(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := ts.startupConfig(t, fmt.Sprintf("options='-c hnsw.ef_search=%d -c myapp.n=%d'", 100+i, i), nil)
			c, err := pgx.ConnectConfig(context.Background(), cfg)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(context.Background())
			for range 20 {
				var ef, my string
				if err := c.QueryRow(context.Background(), "SELECT current_setting('hnsw.ef_search'), current_setting('myapp.n')").Scan(&ef, &my); err != nil {
					errs <- err
					return
				}
				if ef != fmt.Sprint(100+i) || my != fmt.Sprint(i) {
					errs <- fmt.Errorf("session %d sees hnsw.ef_search %s, myapp.n %s", i, ef, my)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c := mustConnect(t, ts)
	var ef string
	var my *string
	if err := c.QueryRow(testCtx(t), "SELECT current_setting('hnsw.ef_search'), current_setting('myapp.n', true)").Scan(&ef, &my); err != nil || ef != "40" || my != nil {
		t.Errorf("a session without options sees hnsw.ef_search %s, myapp.n %v (%v)", ef, my, err)
	}
}

// TestStartupOptionsPsql drives psql with PGOPTIONS, as a user sets it.
func TestStartupOptionsPsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (make setup installs postgresql-client)")
	}
	ts := startServer(t)
	host, port, _ := net.SplitHostPort(ts.addr)
	run := func(options string) (string, error) {
		cmd := exec.Command(psql, "-X", "-At", "-h", host, "-p", port, "-U", "tester", "-d", "testdb",
			"-c", "SHOW hnsw.ef_search", "-c", "SHOW search_path", "-c", "SELECT current_setting('myapp.note')")
		cmd.Env = append(os.Environ(), "PGOPTIONS="+options, "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(`-c hnsw.ef_search=100 --search-path=foo -c myapp.note=two\ words`)
	if err != nil || out != "100\nfoo\ntwo words\n" {
		t.Errorf("psql with PGOPTIONS printed %q, %v", out, err)
	}
	out, err = run("-c hnsw.nonsense=1 -c nope=1")
	if err == nil || !strings.Contains(out, `FATAL:  invalid configuration parameter name "hnsw.nonsense"`) {
		t.Errorf("psql with an unknown setting in PGOPTIONS printed %q, %v", out, err)
	}
	out, err = run("-c nope=1")
	if err == nil || !strings.Contains(out, `FATAL:  unrecognized configuration parameter "nope"`) {
		t.Errorf("psql with an unknown setting in PGOPTIONS printed %q, %v", out, err)
	}
}
