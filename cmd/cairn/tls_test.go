package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
)

// testPKI is a CA made for one test and a server certificate it signed
// for localhost and 127.0.0.1, written as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cairn test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := testPKI{caFile: filepath.Join(dir, "ca.crt"), certFile: filepath.Join(dir, "server.crt"), keyFile: filepath.Join(dir, "server.key"), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	writePEM(t, p.caFile, "CERTIFICATE", caDER)
	writePEM(t, p.certFile, "CERTIFICATE", leafDER)
	writePEM(t, p.keyFile, "PRIVATE KEY", keyDER)
	return p
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runningServer is run() serving in the background, stopped at the end of
// the test.
type runningServer struct {
	pg, http string // host:port; http is "" with --http off
	logs     *syncBuffer
	stop     func() int
}

func startRun(t *testing.T, args ...string) *runningServer {
	t.Helper()
	s := &runningServer{logs: &syncBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() { exited <- run(ctx, append([]string{"--listen", "127.0.0.1:0"}, args...), io.Discard, s.logs) }()
	stopped, code := false, 0
	s.stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			code = <-exited
		}
		return code
	}
	t.Cleanup(func() { s.stop() })
	re := regexp.MustCompile(`listening postgres=(\S+) http=(\S+)`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		select {
		case code := <-exited:
			t.Fatalf("exited with %d:\n%s", code, s.logs.String())
		default:
		}
		if m := re.FindStringSubmatch(s.logs.String()); m != nil {
			s.pg = m[1]
			if m[2] != "off" {
				s.http = m[2]
			}
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line:\n%s", s.logs.String())
		}
	}
}

func (s *runningServer) port() string {
	_, port, _ := net.SplitHostPort(s.pg)
	return port
}

// pgConnect connects with pgx to the server as agent, with the given
// libpq settings.
func (s *runningServer) pgConnect(settings string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return pgx.Connect(ctx, "port="+s.port()+" user=agent dbname=cairn "+settings)
}

// usesTLS checks conn is a TLS connection of version 1.2 or newer.
func usesTLS(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	tc, ok := conn.PgConn().Conn().(*tls.Conn)
	if !ok {
		t.Fatalf("connection is %T, not TLS", conn.PgConn().Conn())
	}
	if v := tc.ConnectionState().Version; v < tls.VersionTLS12 {
		t.Fatalf("TLS version %x", v)
	}
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("query over TLS: %d, %v", n, err)
	}
	// pg_stat_ssl shows the session's TLS version and cipher suite.
	var ssl bool
	var version, cipher string
	var bits int
	if err := conn.QueryRow(context.Background(), "SELECT ssl, version, cipher, bits FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl, &version, &cipher, &bits); err != nil {
		t.Fatalf("pg_stat_ssl: %v", err)
	}
	st := tc.ConnectionState()
	wantVersion := map[uint16]string{tls.VersionTLS12: "TLSv1.2", tls.VersionTLS13: "TLSv1.3"}[st.Version]
	if !ssl || version != wantVersion || cipher != tls.CipherSuiteName(st.CipherSuite) || (bits != 128 && bits != 256) {
		t.Fatalf("pg_stat_ssl: %v %s %s %d, want true %s %s", ssl, version, cipher, bits, wantVersion, tls.CipherSuiteName(st.CipherSuite))
	}
}

// psqlRun runs psql with a connection string and PGPASSWORD.
func psqlRun(t *testing.T, conninfo, password, command string, env ...string) (string, error) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	cmd := exec.Command(psql, "-X", "-w", "-d", conninfo, "-tAc", command)
	cmd.Env = append(append(os.Environ(), "PGPASSWORD="+password, "PGSSLROOTCERT=", "PGSSLMODE="), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// With --tls-cert and --tls-key the PostgreSQL port speaks TLS to every
// client that asks (pgx, psql and psycopg with sslmode=require and
// verify-full against the test's CA), binds SCRAM to the certificate
// where the client offers it (SCRAM-SHA-256-PLUS), still serves clients
// that do not ask, and the HTTP API serves HTTPS with the same
// certificate.
func TestTLS(t *testing.T) {
	pki := newTestPKI(t)
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "127.0.0.1:0", "--http-token", "tok", "--password", "s3cret",
		"--tls-cert", pki.certFile, "--tls-key", pki.keyFile)
	if !strings.Contains(s.logs.String(), "tls=on") {
		t.Errorf("listening line lacks tls=on:\n%s", s.logs.String())
	}

	for _, settings := range []string{
		"host=127.0.0.1 password=s3cret sslmode=require",
		"host=localhost password=s3cret sslmode=verify-full sslrootcert=" + pki.caFile,
		"host=127.0.0.1 password=s3cret sslmode=verify-full sslrootcert=" + pki.caFile,
		"host=localhost password=s3cret sslmode=verify-full sslrootcert=" + pki.caFile + " channel_binding=require",
	} {
		conn, err := s.pgConnect(settings)
		if err != nil {
			t.Fatalf("pgx %s: %v", settings, err)
		}
		usesTLS(t, conn)
		conn.Close(context.Background())
	}
	// The password is still checked under channel binding.
	if _, err := s.pgConnect("host=localhost password=wrong sslmode=require channel_binding=require"); sqlState(err) != "28P01" {
		t.Errorf("wrong password with channel binding: %v, want 28P01", err)
	}
	// A CA that did not sign the certificate is refused by verify-full.
	other := newTestPKI(t)
	if conn, err := s.pgConnect("host=localhost password=s3cret sslmode=verify-full sslrootcert=" + other.caFile); err == nil {
		conn.Close(context.Background())
		t.Error("verify-full with a foreign CA connected")
	}
	// Without --tls-required a client that does not ask for TLS still gets in.
	conn, err := s.pgConnect("host=127.0.0.1 password=s3cret sslmode=disable")
	if err != nil {
		t.Fatalf("sslmode=disable: %v", err)
	}
	if _, ok := conn.PgConn().Conn().(*tls.Conn); ok {
		t.Error("sslmode=disable got TLS")
	}
	conn.Close(context.Background())

	base := "host=localhost port=" + s.port() + " user=agent dbname=cairn "
	for _, conninfo := range []string{
		base + "sslmode=require",
		base + "sslmode=verify-full sslrootcert=" + pki.caFile,
		base + "sslmode=verify-full sslrootcert=" + pki.caFile + " channel_binding=require",
	} {
		out, err := psqlRun(t, conninfo, "s3cret", `SELECT ssl FROM (VALUES (1)) v(ssl)`)
		if err != nil || strings.TrimSpace(out) != "1" {
			t.Fatalf("psql %s: %v\n%s", conninfo, err, out)
		}
	}
	out, err := psqlRun(t, base+"sslmode=verify-full", "s3cret", `\conninfo`, "PGSSLROOTCERT="+pki.caFile)
	if err != nil || !strings.Contains(out, "SSL connection (protocol: TLSv1.3") {
		t.Errorf("psql \\conninfo with PGSSLROOTCERT: %v\n%s", err, out)
	}
	if out, err := psqlRun(t, base+"sslmode=verify-full sslrootcert="+other.caFile, "s3cret", "SELECT 1"); err == nil || !strings.Contains(out, "certificate verify failed") {
		t.Errorf("psql verify-full with a foreign CA: %v\n%s", err, out)
	}

	python := "/usr/bin/python3"
	script := `import sys, psycopg, psycopg2
with psycopg.connect(sys.argv[1]) as c:
    print("psycopg", c.pgconn.ssl_in_use, c.execute("SELECT 2 * 21").fetchone()[0])
with psycopg2.connect(sys.argv[1]) as c:
    cur = c.cursor(); cur.execute("SELECT 7"); print("psycopg2", cur.fetchone()[0])`
	for _, mode := range []string{"sslmode=require", "sslmode=verify-full sslrootcert=" + pki.caFile + " channel_binding=require"} {
		out, err := exec.Command(python, "-c", script, base+"password=s3cret "+mode).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "psycopg True 42") || !strings.Contains(string(out), "psycopg2 7") {
			t.Errorf("psycopg %s: %v\n%s", mode, err, out)
		}
	}

	// HTTPS with the same certificate: the test's CA verifies it, the
	// token still guards the API, and plain HTTP gets no answer but 400.
	_, httpPort, _ := net.SplitHostPort(s.http)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pki.pool}}, Timeout: 20 * time.Second}
	resp, err := client.Get("https://localhost:" + httpPort + "/health")
	if err != nil {
		t.Fatalf("HTTPS /health: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Errorf("HTTPS /health: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	req, _ := http.NewRequest("POST", "https://localhost:"+httpPort+"/workspaces/w/tables/query", strings.NewReader(`{"query": "SELECT 6 * 7 AS n"}`))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("HTTPS query: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "42") {
		t.Errorf("HTTPS query: %d %s", resp.StatusCode, body)
	}
	mcp, _ := http.NewRequest("POST", "https://localhost:"+httpPort+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	mcp.Header.Set("Authorization", "Bearer tok")
	mcp.Header.Set("Content-Type", "application/json")
	mcp.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err = client.Do(mcp); err != nil {
		t.Fatalf("HTTPS /mcp: %v", err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"tools"`) {
		t.Errorf("HTTPS /mcp tools/list: %d %s", resp.StatusCode, body)
	}
	if resp, err := http.Get("http://" + s.http + "/health"); err != nil || resp.StatusCode != 400 {
		t.Errorf("plain HTTP to the HTTPS port: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// TLS 1.1 is refused at the handshake.
	nc, err := net.DialTimeout("tcp", s.pg, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	nc.Write([]byte{0, 0, 0, 8, 4, 210, 22, 47})
	answer := make([]byte, 1)
	if _, err := io.ReadFull(nc, answer); err != nil || answer[0] != 'S' {
		t.Fatalf("SSLRequest answered %q, %v", answer, err)
	}
	if err := tls.Client(nc, &tls.Config{RootCAs: pki.pool, ServerName: "localhost", MaxVersion: tls.VersionTLS11}).Handshake(); err == nil {
		t.Error("a TLS 1.1 handshake succeeded")
	}
	nc.Close()

	// A shutdown ends a TLS session as it ends a plain one, at once.
	conn, err = s.pgConnect("host=localhost password=s3cret sslmode=verify-full sslrootcert=" + pki.caFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	start := time.Now()
	if code := s.stop(); code != 0 || time.Since(start) > 2*time.Second || strings.Contains(s.logs.String(), "statements cancelled") {
		t.Errorf("shutdown with a TLS session: exit %d after %v\n%s", code, time.Since(start), s.logs.String())
	}
	if _, err := conn.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("TLS session still usable after shutdown")
	}
	noPanic(t, s.logs.String())
}

// The SCRAM exchange over TLS as a client that breaks its rules would run
// it: SCRAM-SHA-256-PLUS is offered first, a client that claims it could
// bind but thinks the server cannot is refused as a downgrade, and
// channel binding data that is not the certificate's hash (what a man in
// the middle with a certificate of its own would relay) fails the check.
// GSSENCRequest still gets 'N'. Bytes sent after the SSLRequest in the
// clear end the connection.
func TestTLSSCRAMPlusRules(t *testing.T) {
	pki := newTestPKI(t)
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "off", "--password", "s3cret", "--tls-cert", pki.certFile, "--tls-key", pki.keyFile)

	sasl := func(mechanism, clientFirst string, clientFinal func(serverFirst string) string) *pgproto3.ErrorResponse {
		t.Helper()
		nc, err := net.DialTimeout("tcp", s.pg, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(20 * time.Second))
		// GSSAPI encryption is still refused, as libpq (gssencmode=prefer)
		// asks first; then the SSLRequest.
		nc.Write([]byte{0, 0, 0, 8, 4, 210, 22, 48})
		answer := make([]byte, 1)
		if _, err := io.ReadFull(nc, answer); err != nil || answer[0] != 'N' {
			t.Fatalf("GSSENCRequest answered %q, %v", answer, err)
		}
		nc.Write([]byte{0, 0, 0, 8, 4, 210, 22, 47})
		if _, err := io.ReadFull(nc, answer); err != nil || answer[0] != 'S' {
			t.Fatalf("SSLRequest answered %q, %v", answer, err)
		}
		tc := tls.Client(nc, &tls.Config{ServerName: "localhost", RootCAs: pki.pool})
		fe := pgproto3.NewFrontend(pgproto3.NewChunkReader(tc), tc)
		send := func(msg pgproto3.FrontendMessage) {
			buf, err := msg.Encode(nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.Write(buf); err != nil {
				t.Fatal(err)
			}
		}
		send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "agent", "database": "cairn"}})
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := msg.(*pgproto3.AuthenticationSASL); !ok || strings.Join(m.AuthMechanisms, " ") != "SCRAM-SHA-256-PLUS SCRAM-SHA-256" {
			t.Fatalf("over TLS the server offers %#v, want SCRAM-SHA-256-PLUS then SCRAM-SHA-256", msg)
		}
		send(&pgproto3.SASLInitialResponse{AuthMechanism: mechanism, Data: []byte(clientFirst)})
		if msg, err = fe.Receive(); err != nil {
			t.Fatal(err)
		}
		if cont, ok := msg.(*pgproto3.AuthenticationSASLContinue); ok {
			send(&pgproto3.SASLResponse{Data: []byte(clientFinal(string(cont.Data)))})
			if msg, err = fe.Receive(); err != nil {
				t.Fatal(err)
			}
		}
		e, ok := msg.(*pgproto3.ErrorResponse)
		if !ok {
			t.Fatalf("got %#v, want an error", msg)
		}
		return e
	}
	nonceOf := func(serverFirst string) string {
		r, _, _ := strings.Cut(strings.TrimPrefix(serverFirst, "r="), ",")
		return r
	}
	proof := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, tc := range []struct {
		name, mechanism, first string
		final                  func(string) string
		code, message          string
	}{
		{"downgrade", "SCRAM-SHA-256", "y,,n=,r=abc", nil, "08P01", "SCRAM channel binding negotiation error"},
		{"PLUS without binding", "SCRAM-SHA-256-PLUS", "n,,n=,r=abc", nil, "08P01", "malformed SCRAM message"},
		{"binding without PLUS", "SCRAM-SHA-256", "p=tls-server-end-point,,n=,r=abc", nil, "08P01", "malformed SCRAM message"},
		{"other binding type", "SCRAM-SHA-256-PLUS", "p=tls-unique,,n=,r=abc", nil, "08P01", `unsupported SCRAM channel-binding type "tls-unique"`},
		{"other certificate", "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc", func(sf string) string {
			wrong := make([]byte, 32) // the hash of a certificate the server did not present
			return "c=" + base64.StdEncoding.EncodeToString(append([]byte("p=tls-server-end-point,,"), wrong...)) + ",r=" + nonceOf(sf) + ",p=" + proof
		}, "08P01", "SCRAM channel binding check failed"},
		{"right binding, wrong password", "SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc", func(sf string) string {
			leaf := loadLeaf(t, pki.certFile)
			return "c=" + base64.StdEncoding.EncodeToString(append([]byte("p=tls-server-end-point,,"), sha256Sum(leaf.Raw)...)) + ",r=" + nonceOf(sf) + ",p=" + proof
		}, "28P01", `password authentication failed for user "agent"`},
	} {
		if e := sasl(tc.mechanism, tc.first, tc.final); e.Code != tc.code || e.Message != tc.message || e.Severity != "FATAL" {
			t.Errorf("%s: %s %s %q, want FATAL %s %q", tc.name, e.Severity, e.Code, e.Message, tc.code, tc.message)
		}
	}

	// A StartupMessage sent with the SSLRequest, before the handshake.
	nc, err := net.DialTimeout("tcp", s.pg, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	startup, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "agent"}}).Encode(nil)
	nc.Write(append([]byte{0, 0, 0, 8, 4, 210, 22, 47}, startup...))
	reply, _ := io.ReadAll(nc)
	if len(reply) < 6 || reply[0] != 'E' || !bytes.Contains(reply, []byte("received unencrypted data after SSL request")) || !bytes.Contains(reply, []byte("C08P01")) {
		t.Errorf("data after SSLRequest: %q", reply)
	}
	noPanic(t, s.logs.String())
}

func loadLeaf(t *testing.T, certFile string) *x509.Certificate {
	t.Helper()
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func sha256Sum(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}

// --tls-self-signed makes a certificate and a key (owner-only) in the data
// directory on the first start and reuses them on the next; clients that
// trust that certificate verify the server with it. --tls-required
// refuses a client that does not ask for TLS with 28000, in PostgreSQL's
// words for a pg_hba.conf of hostssl lines only.
func TestTLSSelfSignedRequired(t *testing.T) {
	dir := t.TempDir()
	s := startRun(t, "--data-dir", dir, "--http", "127.0.0.1:0", "--tls-self-signed", "--tls-required")
	if !strings.Contains(s.logs.String(), "made a self-signed TLS certificate") || !strings.Contains(s.logs.String(), "tls=required") {
		t.Errorf("log:\n%s", s.logs.String())
	}
	certFile, keyFile := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	cert := loadLeaf(t, certFile)
	if cert.PublicKeyAlgorithm != x509.ECDSA || cert.VerifyHostname("localhost") != nil || cert.VerifyHostname("127.0.0.1") != nil || cert.VerifyHostname("::1") != nil {
		t.Errorf("certificate: %v %v %v", cert.PublicKeyAlgorithm, cert.DNSNames, cert.IPAddresses)
	}

	conn, err := s.pgConnect("host=localhost sslmode=verify-full sslrootcert=" + certFile)
	if err != nil {
		t.Fatalf("verify-full against the self-signed certificate: %v", err)
	}
	usesTLS(t, conn)
	conn.Close(context.Background())

	_, err = s.pgConnect("host=127.0.0.1 sslmode=disable")
	want := `no pg_hba.conf entry for host "127.0.0.1", user "agent", database "cairn", no encryption`
	if sqlState(err) != "28000" || !strings.Contains(err.Error(), want) {
		t.Errorf("plain client under --tls-required: %v, want 28000 %s", err, want)
	}
	base := "host=127.0.0.1 port=" + s.port() + " user=agent dbname=cairn "
	if out, err := psqlRun(t, base+"sslmode=disable", "", "SELECT 1"); err == nil || !strings.Contains(out, want) {
		t.Errorf("psql sslmode=disable under --tls-required: %v\n%s", err, out)
	}
	if out, err := psqlRun(t, base+"sslmode=require", "", "SELECT 1"); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("psql sslmode=require under --tls-required: %v\n%s", err, out)
	}
	if resp, err := http.Get("http://" + s.http + "/health"); err != nil || resp.StatusCode != 400 {
		t.Errorf("plain HTTP under --tls-required: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, s.logs.String())
	}

	// The second start keeps the certificate the clients already trust.
	before, _ := os.ReadFile(certFile)
	s = startRun(t, "--data-dir", dir, "--http", "off", "--tls-self-signed")
	if strings.Contains(s.logs.String(), "made a self-signed") {
		t.Errorf("second start made a new certificate:\n%s", s.logs.String())
	}
	if after, _ := os.ReadFile(certFile); !bytes.Equal(before, after) {
		t.Error("second start changed server.crt")
	}
	conn, err = s.pgConnect("host=localhost sslmode=verify-full sslrootcert=" + certFile)
	if err != nil {
		t.Fatalf("verify-full after a restart: %v", err)
	}
	usesTLS(t, conn)
	conn.Close(context.Background())
	noPanic(t, s.logs.String())
}

// Flags that cannot work stop the start with a message naming what is
// wrong.
func TestTLSFlagErrors(t *testing.T) {
	pki := newTestPKI(t)
	other := newTestPKI(t)
	missing := filepath.Join(t.TempDir(), "nope.crt")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.crt"), []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tls-cert", missing, "--tls-key", pki.keyFile}, 1, "loading the TLS certificate " + missing},
		{[]string{"--tls-cert", missing, "--tls-key", pki.keyFile}, 1, "no such file or directory"},
		{[]string{"--tls-cert", pki.certFile, "--tls-key", other.keyFile}, 1, "private key does not match public key"},
		{[]string{"--tls-cert", pki.certFile}, 2, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-required"}, 2, "--tls-required needs a certificate"},
		{[]string{"--tls-self-signed", "--tls-cert", pki.certFile, "--tls-key", pki.keyFile}, 2, "exclude each other"},
		{[]string{"--tls-required=maybe"}, 2, `"maybe" is not a boolean`},
		{[]string{"--listen", "0.0.0.0:0", "--password", "pw"}, 1, "without TLS"},
		{[]string{"--tls-self-signed", "--data-dir", dir}, 1, "found only one of"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"--listen", "127.0.0.1:0", "--http", "off", "--data-dir", t.TempDir()}, tc.args...)
		if code := run(context.Background(), args, io.Discard, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, stderr.String())
		}
	}
	// The environment sets the booleans as well; a bad value is refused.
	var stderr bytes.Buffer
	t.Setenv("CAIRN_TLS_REQUIRED", "sometimes")
	if code := run(context.Background(), []string{"--listen", "127.0.0.1:0", "--http", "off", "--data-dir", t.TempDir()}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), `--tls-required "sometimes"`) {
		t.Errorf("CAIRN_TLS_REQUIRED=sometimes: exit %d\n%s", code, stderr.String())
	}
}

// asyncpg, node-postgres and pgjdbc log in over TLS (--tls-required
// refuses them otherwise) with sslmode=require (node-postgres's no-verify)
// and verify-full against the test's CA.
func TestTLSDrivers(t *testing.T) {
	pki := newTestPKI(t)
	s := startRun(t, "--data-dir", t.TempDir(), "--http", "off", "--password", "s3cret",
		"--tls-cert", pki.certFile, "--tls-key", pki.keyFile, "--tls-required")
	url := "postgresql://agent:s3cret@localhost:" + s.port() + "/cairn?sslmode="
	verify := "verify-full&sslrootcert=" + pki.caFile
	check := func(name string, cmd *exec.Cmd, want string) {
		t.Helper()
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("%s: %v\n%s\nwant:\n%s", name, err, out, want)
		}
	}

	asyncpg := `import asyncio, sys, asyncpg
async def main():
    for dsn in sys.argv[1:]:
        c = await asyncpg.connect(dsn)
        print("asyncpg", await c.fetchval("SELECT 6 * 7"))
        await c.close()
asyncio.run(main())`
	check("asyncpg", exec.Command("/usr/bin/python3", "-c", asyncpg, url+"require", url+verify), "asyncpg 42\nasyncpg 42")

	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "clients", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pg")); err != nil {
		t.Fatalf("node-postgres is not installed: run npm ci --prefix %s (.ci/run does)", dir)
	}
	node := exec.Command("node", "-e", `const { Client } = require("pg");
(async () => {
  for (const url of process.argv.slice(1)) {
    const c = new Client({ connectionString: url });
    await c.connect();
    console.log("node", (await c.query("SELECT 6 * 7 AS n")).rows[0].n, c.connection.stream.encrypted === true);
    await c.end();
  }
})().catch((e) => { console.error(e); process.exit(1); });`, url+"no-verify", url+verify)
	node.Dir = dir
	check("node-postgres", node, "node 42 true\nnode 42 true")

	if err := exec.Command("test", "-f", pgjdbcJar).Run(); err != nil {
		t.Fatalf("%s is missing (.ci/run installs libpostgresql-jdbc-java)", pgjdbcJar)
	}
	src := filepath.Join(t.TempDir(), "TlsCheck.java")
	if err := os.WriteFile(src, []byte(`import java.sql.*;
public class TlsCheck {
    public static void main(String[] urls) throws Exception {
        for (String url : urls) {
            try (Connection c = DriverManager.getConnection(url); ResultSet r = c.createStatement().executeQuery("SELECT 6 * 7")) {
                r.next();
                System.out.println("jdbc " + r.getInt(1));
            }
        }
    }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	jdbc := "jdbc:postgresql://localhost:" + s.port() + "/cairn?user=agent&password=s3cret&sslmode="
	check("pgjdbc", exec.Command("java", "-cp", pgjdbcJar, src, jdbc+"require", jdbc+verify), "jdbc 42\njdbc 42")
	noPanic(t, s.logs.String())
}
