package main

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestCopyTimeoutBeforeData: a COPY FROM STDIN whose statement_timeout
// fires before any data came answers CopyInResponse (or nothing, when it
// fires sooner) and then ErrorResponse 57014, never the two out of order
// or interleaved, and the session goes on. The COPY's reading goroutine
// sends CopyInResponse while the session may already have given up on it:
// the connection's main loop then wrote the error at the same time (a
// data race on the output buffer and socket, found by TestChaos under
// -race). Run it with -race.
func TestCopyTimeoutBeforeData(t *testing.T) {
	ts := startServer(t, "")
	setup := ts.connect(t)
	mustExec(t, setup, `CREATE TABLE copy_to (a int)`)
	rc := dialStarted(t, ts.Addr)
	for i := range 40 {
		ms := i % 8 // 0: no timeout, which the COPY must outlast
		if ms == 0 {
			continue
		}
		rc.send(&pgproto3.Query{String: fmt.Sprintf("SET statement_timeout = '%dms'", ms)})
		rc.readUntilReady()
		rc.send(&pgproto3.Query{String: `COPY copy_to FROM STDIN`})
		got := rc.readUntilReady()
		errAt := slices.Index(got, "ErrorResponse ERROR 57014 canceling statement due to statement timeout")
		if errAt < 0 || errAt != len(got)-2 || (errAt == 1 && got[0] != "CopyInResponse") || errAt > 1 {
			t.Fatalf("COPY timed out after %dms: %q", ms, got)
		}
		// What the client sends for the COPY meanwhile is ignored.
		rc.send(&pgproto3.CopyData{Data: []byte("1\n")}, &pgproto3.CopyDone{})
		rc.send(&pgproto3.Query{String: `SET statement_timeout = 0; SELECT count(*) FROM copy_to`})
		if got := rc.readUntilReady(); !slices.Equal(got, []string{"CommandComplete", "RowDescription", "DataRow 0", "CommandComplete", "ReadyForQuery I"}) {
			t.Fatalf("after the COPY: %q", got)
		}
	}
}
