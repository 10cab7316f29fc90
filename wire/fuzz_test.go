package wire

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// FuzzProtocol feeds arbitrary bytes after a valid startup message to a
// connection of a real server: whatever arrives, the connection must end
// or answer without a panic.
func FuzzProtocol(f *testing.F) {
	seed := func(msgs ...pgproto3.FrontendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	f.Add(seed(&pgproto3.Query{String: "SELECT 1"}))
	f.Add(seed(&pgproto3.Query{String: "SELECT 1; SELECT $1::int; -- x"}))
	f.Add(seed(&pgproto3.Parse{Query: "SELECT $1::int"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{}))
	f.Add(seed(&pgproto3.Parse{Name: "a", Query: "SELECT $1::int", ParameterOIDs: []uint32{23}},
		&pgproto3.Bind{PreparedStatement: "a", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 1}}, ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'S', Name: "a"}, &pgproto3.Sync{}, &pgproto3.Terminate{}))
	f.Add([]byte{'Z', 0, 0, 0, 4})
	f.Add([]byte{'B', 0, 0, 0, 12, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0})
	f.Add([]byte("B\x00\x00\x00\x110\x00\x00\x00\x0000\x86\x86\x86\x86\x86\x86000000"))

	panics := make(chan any, 100)
	ts := startServer(f, func(s *Server) {
		s.panicHook = func(r any) { panics <- r }
		s.MaxMessageSize = 1 << 16
		// The fuzz function may not log through f; connections log nowhere.
		s.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	})
	startup := seed(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "fuzz"},
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		c := ts.srv.newConn(server)
		if !ts.srv.track(c) {
			t.Skip("server shut down")
		}
		done := make(chan struct{})
		go func() {
			c.serve()
			close(done)
		}()
		go io.Copy(io.Discard, client)
		client.SetWriteDeadline(time.Now().Add(5 * time.Second))
		client.Write(startup)
		client.Write(data)
		client.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("connection did not end")
		}
		select {
		case r := <-panics:
			t.Fatalf("server panicked: %v", r)
		default:
		}
	})
}
