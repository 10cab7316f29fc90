package wire

import (
	"encoding/binary"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
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
// _pq_ options) is answered with NegotiateProtocolVersion for 3.0.
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
	want := append([]byte{0, 0, 0, 0, 0, 0, 0, 1}, "_pq_.frob\x00"...)
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
