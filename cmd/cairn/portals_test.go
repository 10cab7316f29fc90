package main

import (
	"slices"
	"testing"

	"github.com/jackc/pgproto3/v2"
)

// TestPortalNamespace checks that the portals of the extended protocol and
// the cursors of DECLARE are one namespace, as in PostgreSQL: a cursor can
// be described and executed as a portal (a row limit suspends it, and
// FETCH goes on from there), and a Bind or a DECLARE reusing a name in
// use fails with 42P03. The expected messages are PostgreSQL 15's answers
// to the same messages.
func TestPortalNamespace(t *testing.T) {
	rc := dialStarted(t, startHostileServer(t))
	expect := func(what string, want ...string) {
		t.Helper()
		if got := rc.readUntilReady(); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		}
	}
	rc.send(&pgproto3.Query{String: "BEGIN; DECLARE c CURSOR FOR SELECT generate_series(1, 5)"})
	expect("declare", "CommandComplete", "CommandComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Describe{ObjectType: 'P', Name: "c"}, &pgproto3.Execute{Portal: "c", MaxRows: 2}, &pgproto3.Sync{})
	expect("execute the cursor", "RowDescription", "DataRow 1", "DataRow 2", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "FETCH 2 FROM c"})
	expect("fetch after it", "RowDescription", "DataRow 3", "DataRow 4", "CommandComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "c"}, &pgproto3.Sync{})
	expect("bind over the cursor", "ParseComplete", `ErrorResponse ERROR 42P03 cursor "c" already exists`, "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK; BEGIN"})
	expect("rollback", "CommandComplete", "CommandComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Bind{DestinationPortal: "p1"}, &pgproto3.Sync{})
	expect("bind p1", "ParseComplete", "BindComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "DECLARE p1 CURSOR FOR SELECT 1"})
	expect("declare over the portal", `ErrorResponse ERROR 42P03 cursor "p1" already exists`, "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect("end", "CommandComplete", "ReadyForQuery I")
	// After the transaction the portal is gone: its name is free again.
	rc.send(&pgproto3.Parse{Query: "SELECT 2"}, &pgproto3.Bind{DestinationPortal: "p1"}, &pgproto3.Execute{Portal: "p1"}, &pgproto3.Sync{})
	expect("p1 again", "ParseComplete", "BindComplete", "DataRow 2", "CommandComplete", "ReadyForQuery I")
}
