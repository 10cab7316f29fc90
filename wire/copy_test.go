package wire

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// readCopy reads messages up to and including ReadyForQuery, summarising
// CopyData with its payload, the copy responses with their formats and
// errors with their message and context.
func (rc *rawClient) readCopy() []string {
	rc.t.Helper()
	var got []string
	for {
		rc.nc.SetReadDeadline(timeoutSoon())
		msg, err := rc.fe.Receive()
		if err != nil {
			rc.t.Fatalf("after %q: %v", got, err)
		}
		s := summary(msg)
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			s = fmt.Sprintf("CopyData %q", m.Data)
		case *pgproto3.CopyInResponse:
			s = fmt.Sprintf("CopyInResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
		case *pgproto3.CopyOutResponse:
			s = fmt.Sprintf("CopyOutResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
		case *pgproto3.ErrorResponse:
			s += " " + m.Message
			if m.Where != "" {
				s += " (" + m.Where + ")"
			}
		}
		got = append(got, s)
		if strings.HasPrefix(s, "ReadyForQuery") || strings.HasPrefix(s, "CopyInResponse") {
			return got
		}
	}
}

func copyData(s string) *pgproto3.CopyData { return &pgproto3.CopyData{Data: []byte(s)} }

// TestCopySimpleProtocol drives COPY FROM STDIN and TO STDOUT message by
// message in the simple query protocol, errors included.
func TestCopySimpleProtocol(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE t (a int, b text)"})
	rc.readUntilReady()

	// Rows may span CopyData messages; Flush and Sync are ignored.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	expect(t, "COPY FROM", rc.readCopy(), "CopyInResponse 0 [0 0]")
	rc.send(copyData("1\tone\n2\t"), &pgproto3.Flush{}, &pgproto3.Sync{}, copyData("two\n"), &pgproto3.CopyDone{})
	expect(t, "COPY FROM done", rc.readCopy(), "CommandComplete COPY 2", "ReadyForQuery I")

	// A bad row: ErrorResponse and ReadyForQuery come at once, while the
	// client is still sending; what it sends next is ignored.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN (FORMAT csv)"})
	expect(t, "COPY FROM csv", rc.readCopy(), "CopyInResponse 0 [0 0]")
	rc.send(copyData("3,three\nfour,4\n"))
	expect(t, "bad row", rc.readCopy(),
		`ErrorResponse ERROR 22P02 invalid input syntax for type integer: "four" (COPY t, line 2, column a: "four")`,
		"ReadyForQuery I")
	rc.send(copyData("5,five\n"), &pgproto3.CopyDone{}, &pgproto3.Query{String: "SELECT count(*) FROM t"})
	expect(t, "after the error", rc.readCopy(), "RowDescription count:20", "DataRow 2", "CommandComplete SELECT 1", "ReadyForQuery I")

	// CopyFail.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"}, copyData("6\tsix\n"), &pgproto3.CopyFail{Message: "changed my mind"})
	expect(t, "CopyFail", rc.readCopy(), "CopyInResponse 0 [0 0]")
	expect(t, "CopyFail error", rc.readCopy(),
		"ErrorResponse ERROR 57014 COPY from stdin failed: changed my mind (COPY t, line 2)", "ReadyForQuery I")

	// The end-of-data marker; what follows it up to CopyDone is ignored.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"}, copyData("8\teight\n\\.\ngarbage"), &pgproto3.CopyDone{})
	rc.readCopy()
	expect(t, "end marker", rc.readCopy(), "CommandComplete COPY 1", "ReadyForQuery I")

	// COPY among other statements of one query.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN; SELECT count(*) FROM t"})
	rc.readCopy()
	rc.send(copyData("9\tnine\n"), &pgproto3.CopyDone{})
	expect(t, "COPY then SELECT", rc.readCopy(),
		"CommandComplete COPY 1", "RowDescription count:20", "DataRow 4", "CommandComplete SELECT 1", "ReadyForQuery I")

	// COPY TO STDOUT: one CopyData per row.
	rc.send(&pgproto3.Query{String: "COPY (SELECT a, b FROM t WHERE a < 3 ORDER BY a) TO STDOUT (FORMAT csv, HEADER)"})
	expect(t, "COPY TO", rc.readCopy(), "CopyOutResponse 0 [0 0]", `CopyData "a,b\n"`, `CopyData "1,one\n"`,
		`CopyData "2,two\n"`, "CopyDone", "CommandComplete COPY 2", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "COPY t (a) TO STDOUT (FORMAT binary)"})
	got := rc.readCopy()
	if len(got) != 9 || got[0] != "CopyOutResponse 1 [1]" || got[6] != "CopyDone" {
		t.Errorf("binary COPY TO: %q", got)
	}

	// Errors before any data: no CopyInResponse.
	rc.send(&pgproto3.Query{String: "COPY nope FROM STDIN"})
	expect(t, "missing table", rc.readCopy(), `ErrorResponse ERROR 42P01 relation "nope" does not exist`, "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "COPY t FROM '/tmp/data.csv'"})
	expect(t, "server file", rc.readCopy(), "ErrorResponse ERROR 0A000 COPY FROM a server-side file is not supported", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "BEGIN READ ONLY"}, &pgproto3.Query{String: "COPY t FROM STDIN"}, &pgproto3.Query{String: "ROLLBACK"})
	rc.readCopy()
	expect(t, "read only", rc.readCopy(), "ErrorResponse ERROR 25006 cannot execute COPY FROM in a read-only transaction", "ReadyForQuery E")
	rc.readCopy()

	// Another message in the middle of the data: as PostgreSQL, the error
	// and the end of the connection.
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"}, copyData("7\tseven\n"), &pgproto3.Query{String: "SELECT 1"})
	expect(t, "unexpected message", rc.readCopy(), "CopyInResponse 0 [0 0]")
	expect(t, "unexpected message error", rc.readUntilClosed(),
		"ErrorResponse ERROR 08P01", "ErrorResponse FATAL 08P01")
}

// TestCopyExtendedProtocol runs COPY through Parse, Bind and Execute: the
// copy starts at Execute, and Sync is ignored while it lasts.
func TestCopyExtendedProtocol(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE t (a int, b text)"})
	rc.readUntilReady()

	rc.send(&pgproto3.Parse{Query: "COPY t FROM STDIN (FORMAT csv)"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "Execute", rc.readCopy(), "ParseComplete", "BindComplete", "NoData", "CopyInResponse 0 [0 0]")
	rc.send(copyData("1,one\n2,two\n"), &pgproto3.CopyDone{}, &pgproto3.Sync{})
	expect(t, "done", rc.readCopy(), "CommandComplete COPY 2", "ReadyForQuery I")

	// An error is sent at once; the rest up to Sync is skipped.
	rc.send(&pgproto3.Parse{Query: "COPY t FROM STDIN"}, &pgproto3.Bind{}, &pgproto3.Execute{})
	expect(t, "Execute", rc.readCopy(), "ParseComplete", "BindComplete", "CopyInResponse 0 [0 0]")
	rc.send(copyData("x\ty\n"))
	rc.nc.SetReadDeadline(timeoutSoon())
	if msg, err := rc.fe.Receive(); err != nil {
		t.Fatal(err)
	} else if e, ok := msg.(*pgproto3.ErrorResponse); !ok || e.Code != "22P02" {
		t.Fatalf("error during the copy: %#v", msg)
	}
	rc.send(copyData("3\tz\n"), &pgproto3.CopyDone{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "after the error", rc.readCopy(), "ReadyForQuery I")

	rc.send(&pgproto3.Parse{Query: "COPY t TO STDOUT"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "COPY TO", rc.readCopy(), "ParseComplete", "BindComplete", "CopyOutResponse 0 [0 0]",
		`CopyData "1\tone\n"`, `CopyData "2\ttwo\n"`, "CopyDone", "CommandComplete COPY 2", "ReadyForQuery I")
}

// TestCopyClientGoneIsNotInternal checks that a client that disconnects in
// the middle of COPY FROM STDIN ends its COPY with PostgreSQL's 08006, not
// an internal error: the server logs it as a connection that went away.
func TestCopyClientGoneIsNotInternal(t *testing.T) {
	log := &testWriter{t: t}
	ts := startServer(t, func(s *Server) {
		s.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE t (a int, b text)"})
	rc.readUntilReady()
	rc.send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	expect(t, "COPY FROM", rc.readCopy(), "CopyInResponse 0 [0 0]")
	rc.send(copyData("1\tone\n2\t"))
	rc.nc.Close()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "connection lost"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the connection's end was not logged:\n%s", log.String())
		}
	}
	if out := log.String(); strings.Contains(out, "internal error") || !strings.Contains(out, "code=08006") {
		t.Fatalf("a client gone mid-COPY, logged as:\n%s", out)
	}
}
