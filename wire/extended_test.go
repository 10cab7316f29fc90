package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5/pgconn"
)

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func TestExtendedParams(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)

	// Text in, text out; the parameter's type comes from the cast (OID 0).
	res := c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("42")}, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "42" {
		t.Fatalf("text: %q %v", res.Rows, res.Err)
	}
	if res.CommandTag.String() != "SELECT 1" {
		t.Errorf("tag %q", res.CommandTag)
	}

	// Binary in, binary out, with the parameter type given.
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{{0, 0, 1, 0}}, []uint32{23}, []int16{1}, []int16{1}).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "\x00\x00\x01\x00" {
		t.Fatalf("binary: %q %v", res.Rows, res.Err)
	}
	if f := res.FieldDescriptions[0]; f.Format != 1 || f.DataTypeOID != 23 {
		t.Errorf("binary field: %+v", f)
	}

	// NULL.
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{nil}, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || res.Rows[0][0] != nil {
		t.Fatalf("NULL: %q %v", res.Rows, res.Err)
	}

	// Bad input.
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("abc")}, nil, nil, nil).Read()
	if pgCode(res.Err) != "22P02" {
		t.Errorf("bad text: %v", res.Err)
	}
	// As PostgreSQL: too few bytes is 08P01, too many 22P03.
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{{1, 2}}, []uint32{23}, []int16{1}, nil).Read()
	if pgCode(res.Err) != "08P01" {
		t.Errorf("short binary: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{{0, 0, 0, 1, 2}}, []uint32{23}, []int16{1}, nil).Read()
	if pgCode(res.Err) != "22P03" {
		t.Errorf("long binary: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("1")}, nil, []int16{2}, nil).Read()
	if pgCode(res.Err) != "22023" {
		t.Errorf("bad format code: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("1"), []byte("2")}, nil, nil, nil).Read()
	if pgCode(res.Err) != "08P01" {
		t.Errorf("too many parameters: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("1")}, nil, nil, []int16{0, 1}).Read()
	if pgCode(res.Err) != "08P01" {
		t.Errorf("result formats: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT $1::int", [][]byte{[]byte("1")}, []uint32{99999}, nil, nil).Read()
	if pgCode(res.Err) != "0A000" {
		t.Errorf("unknown parameter type: %v", res.Err)
	}
	res = c.ExecParams(testCtx(t), "SELECT 1; SELECT 2", nil, nil, nil, nil).Read()
	if pgCode(res.Err) != "42601" {
		t.Errorf("two statements: %v", res.Err)
	}
}

func TestPrepareDescribe(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	sd, err := c.Prepare(testCtx(t), "s1", "SELECT $1::int", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 1 || sd.ParamOIDs[0] != 23 {
		t.Errorf("ParamOIDs = %v", sd.ParamOIDs)
	}
	if len(sd.Fields) != 1 || sd.Fields[0].Name != "int4" || sd.Fields[0].DataTypeOID != 23 ||
		sd.Fields[0].DataTypeSize != 4 || sd.Fields[0].TypeModifier != -1 || sd.Fields[0].Format != 0 {
		t.Errorf("Fields = %+v", sd.Fields)
	}
	res := c.ExecPrepared(testCtx(t), "s1", [][]byte{[]byte("7")}, nil, nil).Read()
	if res.Err != nil || string(res.Rows[0][0]) != "7" {
		t.Errorf("execute s1: %q %v", res.Rows, res.Err)
	}
	if _, err := c.Prepare(testCtx(t), "s1", "SELECT 1", nil); pgCode(err) != "42P05" {
		t.Errorf("duplicate name: %v", err)
	}
	// The unnamed statement is simply replaced.
	for _, q := range []string{"SELECT 1", "SELECT 2"} {
		if _, err := c.Prepare(testCtx(t), "", q, nil); err != nil {
			t.Errorf("unnamed %s: %v", q, err)
		}
	}
	if err := c.Deallocate(testCtx(t), "s1"); err != nil {
		t.Errorf("Deallocate: %v", err)
	}
	if _, err := c.Prepare(testCtx(t), "s1", "SELECT 1", nil); err != nil {
		t.Errorf("prepare after close: %v", err)
	}

	// A statement that returns no rows: NoData.
	sd, err = c.Prepare(testCtx(t), "ddl", "CREATE TABLE d (a int)", nil)
	if err != nil || len(sd.Fields) != 0 {
		t.Errorf("DDL: %+v %v", sd, err)
	}
}

// TestUnreferencedParamType checks Parse of a statement with an untyped
// parameter it never refers to: 42P18 naming it, as PostgreSQL answers,
// since nothing can give that parameter a type. One the client typed, or
// one the statement refers to, is fine.
func TestUnreferencedParamType(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	for _, tc := range []struct {
		sql  string
		oids []uint32
		want string // the error message, or the parameter OIDs
	}{
		{"SELECT $1::int, $3::int", nil, "could not determine data type of parameter $2"},
		{"SELECT $2::int", nil, "could not determine data type of parameter $1"},
		{"SELECT $1::int", []uint32{23, 0}, "could not determine data type of parameter $2"},
		{"SELECT 1", []uint32{0}, "could not determine data type of parameter $1"},
		{"BEGIN", []uint32{0}, "could not determine data type of parameter $1"},
		{"SELECT $1::int", []uint32{0, 23}, "[23 23]"},
		{"SELECT $1", nil, "[25]"},
		{"SELECT 1", []uint32{25}, "[25]"},
	} {
		sd, err := c.Prepare(testCtx(t), "", tc.sql, tc.oids)
		var got string
		if err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42P18" {
				t.Errorf("%s %v: %v, want 42P18", tc.sql, tc.oids, err)
				continue
			}
			got = pe.Message
		} else {
			got = fmt.Sprint(sd.ParamOIDs)
		}
		if got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.sql, tc.oids, got, tc.want)
		}
	}
	// The session goes on.
	if res := c.ExecParams(testCtx(t), "SELECT $1::int + 1", [][]byte{[]byte("1")}, nil, nil, nil).Read(); res.Err != nil || string(res.Rows[0][0]) != "2" {
		t.Errorf("after: %q %v", res.Rows, res.Err)
	}
}

// TestExtendedRaw drives the extended protocol message by message.
func TestExtendedRaw(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)

	rc.send(
		&pgproto3.Parse{Name: "s", Query: "SELECT $1::int"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte("5")}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Close{ObjectType: 'P'},
		&pgproto3.Close{ObjectType: 'S', Name: "s"},
		&pgproto3.Close{ObjectType: 'S', Name: "never-existed"},
		&pgproto3.Sync{},
	)
	expect(t, "parse/bind/execute", rc.readUntilReady(),
		"ParseComplete", "ParameterDescription 23", "RowDescription int4:23",
		"BindComplete", "RowDescription int4:23", "DataRow 5", "CommandComplete SELECT 1",
		"CloseComplete", "CloseComplete", "CloseComplete", "ReadyForQuery I")

	// Flush sends what is buffered without ending the cycle.
	rc.send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Flush{})
	if s, err := rc.receive(); err != nil || s != "ParseComplete" {
		t.Fatalf("after Flush: %q %v", s, err)
	}
	rc.send(&pgproto3.Sync{})
	expect(t, "Sync after Flush", rc.readUntilReady(), "ReadyForQuery I")

	// The empty query.
	rc.send(
		&pgproto3.Parse{Query: "-- nothing"},
		&pgproto3.Describe{ObjectType: 'S'},
		&pgproto3.Bind{},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "empty statement", rc.readUntilReady(),
		"ParseComplete", "ParameterDescription ", "NoData", "BindComplete", "NoData",
		"EmptyQueryResponse", "ReadyForQuery I")

	// Result format codes show in Describe portal.
	rc.send(
		&pgproto3.Parse{Query: "SELECT $1::int"},
		&pgproto3.Bind{Parameters: [][]byte{{0, 0, 0, 9}}, ParameterFormatCodes: []int16{1}, ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Sync{},
	)
	for _, want := range []string{"ParseComplete", "BindComplete"} {
		if s, err := rc.receive(); err != nil || s != want {
			t.Fatalf("got %q %v, want %s", s, err, want)
		}
	}
	rc.nc.SetReadDeadline(timeoutSoon())
	msg, err := rc.fe.Receive()
	if rd, ok := msg.(*pgproto3.RowDescription); err != nil || !ok || rd.Fields[0].Format != 1 {
		t.Fatalf("Describe portal with binary results: %#v %v", msg, err)
	}
	expect(t, "end", rc.readUntilReady(), "ReadyForQuery I")
}

// TestSkipUntilSync checks that after an error everything up to Sync is
// discarded, and the next cycle works.
func TestSkipUntilSync(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)

	rc.send(
		&pgproto3.Bind{PreparedStatement: "missing"},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Query{String: "SELECT 1"}, // ignored too
		&pgproto3.Sync{},
	)
	expect(t, "bind to missing statement", rc.readUntilReady(), "ErrorResponse ERROR 26000", "ReadyForQuery I")

	rc.send(
		&pgproto3.Parse{Query: "SELEC 1"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "syntax error", rc.readUntilReady(), "ErrorResponse ERROR 42601", "ReadyForQuery I")

	rc.send(
		&pgproto3.Parse{Query: "SELECT 1"},
		&pgproto3.Bind{},
		&pgproto3.Execute{Portal: "nope"},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "missing portal", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "ErrorResponse ERROR 34000", "ReadyForQuery I")
	expect(t, "next cycle", rc.readUntilReady(),
		"BindComplete", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestQueryEndsImplicitTransaction checks a simple query after
// extended-protocol messages sent without Sync: as in PostgreSQL it ends
// their implicit transaction, committing their work with its own (seen by
// another session, ReadyForQuery I), or rolling both back on its error.
// It used to leave the transaction open (ReadyForQuery T), the INSERT
// seen by no one else and lost at the next ROLLBACK.
func TestQueryEndsImplicitTransaction(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	other := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE nosync (id int)"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE", "ReadyForQuery I")
	count := func(what, want string) {
		t.Helper()
		other.send(&pgproto3.Query{String: "SELECT count(*) FROM nosync"})
		expect(t, what, other.readUntilReady(), "RowDescription count:20", "DataRow "+want, "CommandComplete SELECT 1", "ReadyForQuery I")
	}
	insert := func(id string) []pgproto3.FrontendMessage {
		return []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "INSERT INTO nosync VALUES (" + id + ")"}, &pgproto3.Bind{}, &pgproto3.Execute{}}
	}

	rc.send(append(insert("1"), &pgproto3.Query{String: "SELECT 2"})...)
	expect(t, "commits with the query", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete INSERT 0 1",
		"RowDescription ?column?:23", "DataRow 2", "CommandComplete SELECT 1", "ReadyForQuery I")
	count("after the query", "1")

	rc.send(append(insert("2"), &pgproto3.Query{String: "SELECT 1/0"})...)
	expect(t, "rolls back with its error", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete INSERT 0 1",
		"ErrorResponse ERROR 22012", "ReadyForQuery I")
	count("after the failed query", "1")

	rc.send(append(insert("3"), &pgproto3.Query{String: "BEGIN"})...)
	expect(t, "BEGIN makes it explicit", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete INSERT 0 1",
		"CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "ReadyForQuery I")
	count("after ROLLBACK", "1")
}

// TestPortalSuspended checks Execute with a row limit: PortalSuspended,
// then the next Execute continues where the last one stopped.
func TestPortalSuspended(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE five (a int); INSERT INTO five VALUES (1), (2), (3), (4), (5)"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE", "CommandComplete INSERT 0 5", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "BEGIN"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(
		&pgproto3.Parse{Query: "SELECT a FROM five ORDER BY a"},
		&pgproto3.Bind{DestinationPortal: "cur"},
		&pgproto3.Execute{Portal: "cur", MaxRows: 2},
		&pgproto3.Sync{},
	)
	expect(t, "first fetch", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "DataRow 1", "DataRow 2", "PortalSuspended", "ReadyForQuery T")
	// Inside a transaction the portal survives Sync (pgjdbc's fetchSize).
	rc.send(&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
	expect(t, "second fetch", rc.readUntilReady(), "DataRow 3", "DataRow 4", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
	got := rc.readUntilReady()
	if len(got) != 3 || got[0] != "DataRow 5" || got[1][:len("CommandComplete SELECT")] != "CommandComplete SELECT" {
		t.Errorf("last fetch: %q", got)
	}
	rc.send(&pgproto3.Query{String: "COMMIT"})
	expect(t, "COMMIT", rc.readUntilReady(), "CommandComplete COMMIT", "ReadyForQuery I")

	// Outside a transaction portals end at Sync. (The Query above dropped
	// the unnamed statement.)
	rc.send(
		&pgproto3.Parse{Query: "SELECT a FROM five ORDER BY a"},
		&pgproto3.Bind{DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 1},
		&pgproto3.Sync{},
		&pgproto3.Execute{Portal: "p", MaxRows: 1},
		&pgproto3.Sync{},
	)
	expect(t, "portal before Sync", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended", "ReadyForQuery I")
	expect(t, "portal after Sync", rc.readUntilReady(), "ErrorResponse ERROR 34000", "ReadyForQuery I")

	// A named portal may not be bound twice.
	rc.send(
		&pgproto3.Bind{DestinationPortal: "q"},
		&pgproto3.Bind{DestinationPortal: "q"},
		&pgproto3.Sync{},
	)
	expect(t, "duplicate portal", rc.readUntilReady(), "BindComplete", "ErrorResponse ERROR 42P03", "ReadyForQuery I")
}

// TestPortalSuspendedAtLastRow checks an Execute whose row limit equals
// the rows left, as PostgreSQL 15 answers it: PortalSuspended (the
// portal does not know yet that no row follows), then SELECT 0, or the
// writing command's tag with 0 rows, from the next Execute and from any
// after it. (cairn looked ahead and answered CommandComplete at once.)
func TestPortalSuspendedAtLastRow(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.query(t, "CREATE TABLE t (a int)", "CommandComplete CREATE TABLE", "ReadyForQuery I")
	run := func(sql string, limits ...uint32) {
		t.Helper()
		msgs := []pgproto3.FrontendMessage{&pgproto3.Parse{Query: sql}, &pgproto3.Bind{}}
		for _, n := range limits {
			msgs = append(msgs, &pgproto3.Execute{MaxRows: n})
		}
		rc.send(append(msgs, &pgproto3.Sync{})...)
	}
	run("SELECT generate_series(1, 2)", 2, 2, 0)
	expect(t, "two rows, limit 2", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"PortalSuspended", "CommandComplete SELECT 0", "CommandComplete SELECT 0", "ReadyForQuery I")
	run("SELECT generate_series(1, 2)", 1, 1, 1)
	expect(t, "two rows, limit 1", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended",
		"DataRow 2", "PortalSuspended", "CommandComplete SELECT 0", "ReadyForQuery I")
	run("SELECT generate_series(1, 2)", 3)
	expect(t, "two rows, limit 3", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"CommandComplete SELECT 2", "ReadyForQuery I")
	run("INSERT INTO t SELECT generate_series(1, 2) RETURNING a", 2, 2, 0)
	expect(t, "INSERT RETURNING two rows, limit 2", rc.readUntilReady(), "ParseComplete", "BindComplete",
		"DataRow 1", "DataRow 2", "PortalSuspended", "CommandComplete INSERT 0 0", "CommandComplete INSERT 0 0", "ReadyForQuery I")

	// Inside a transaction the suspended portal outlives Sync.
	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Query: "SELECT a FROM t ORDER BY a"}, &pgproto3.Bind{DestinationPortal: "c"},
		&pgproto3.Execute{Portal: "c", MaxRows: 2}, &pgproto3.Sync{})
	expect(t, "named portal", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "c", MaxRows: 2}, &pgproto3.Sync{})
	expect(t, "named portal at its end", rc.readUntilReady(), "CommandComplete SELECT 0", "ReadyForQuery T")
	rc.query(t, "COMMIT", "CommandComplete COMMIT", "ReadyForQuery I")
}

// TestPortalResumesScan checks a portal whose table scan is still open
// when its Execute ends: the next Execute, in the same pipeline or after a
// Sync inside a transaction, reads on to the end of the table and a
// cursor's FETCH after a later statement does too. (The scan kept the
// first Execute's context, which ended with that Execute, so the rest of
// the rows failed with 57014.)
func TestPortalResumesScan(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	// Three inserts: three batches, so the scan is still open after the
	// first.
	rc.send(&pgproto3.Query{String: "CREATE TABLE batches (a int); INSERT INTO batches VALUES (1), (2), (3); " +
		"INSERT INTO batches VALUES (4), (5); INSERT INTO batches VALUES (6)"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE",
		"CommandComplete INSERT 0 3", "CommandComplete INSERT 0 2", "CommandComplete INSERT 0 1", "ReadyForQuery I")

	rc.send(
		&pgproto3.Parse{Query: "SELECT a FROM batches"},
		&pgproto3.Bind{DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 0},
		&pgproto3.Sync{},
	)
	expect(t, "one pipeline", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"PortalSuspended", "DataRow 3", "DataRow 4", "DataRow 5", "DataRow 6", "CommandComplete SELECT 4", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "BEGIN"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(
		&pgproto3.Parse{Query: "SELECT a FROM batches"},
		&pgproto3.Bind{DestinationPortal: "cur"},
		&pgproto3.Execute{Portal: "cur", MaxRows: 4},
		&pgproto3.Sync{},
	)
	expect(t, "first fetch", rc.readUntilReady(), "ParseComplete", "BindComplete",
		"DataRow 1", "DataRow 2", "DataRow 3", "DataRow 4", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "cur", MaxRows: 4}, &pgproto3.Sync{})
	expect(t, "second fetch", rc.readUntilReady(), "DataRow 5", "DataRow 6", "CommandComplete SELECT 2", "ReadyForQuery T")

	rc.send(&pgproto3.Query{String: "DECLARE c CURSOR FOR SELECT a FROM batches"})
	expect(t, "DECLARE", rc.readUntilReady(), "CommandComplete DECLARE CURSOR", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "FETCH 4 FROM c"})
	expect(t, "FETCH 4", rc.readUntilReady(), "RowDescription a:23", "DataRow 1", "DataRow 2", "DataRow 3", "DataRow 4",
		"CommandComplete FETCH 4", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "FETCH ALL FROM c"})
	expect(t, "FETCH ALL", rc.readUntilReady(), "RowDescription a:23", "DataRow 5", "DataRow 6",
		"CommandComplete FETCH 2", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "COMMIT"})
	expect(t, "COMMIT", rc.readUntilReady(), "CommandComplete COMMIT", "ReadyForQuery I")
}

// TestPortalEndsWithTransaction checks that COMMIT, ROLLBACK and ROLLBACK
// TO run by Execute drop the portals of what they end, as PostgreSQL does:
// an Execute later in the same block of messages finds no portal (34000)
// instead of reading on, from a table whose creation was rolled back.
func TestPortalEndsWithTransaction(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	run := func(sql string) []pgproto3.FrontendMessage {
		return []pgproto3.FrontendMessage{&pgproto3.Parse{Query: sql}, &pgproto3.Bind{}, &pgproto3.Execute{}}
	}
	block := func(parts ...[]pgproto3.FrontendMessage) {
		var msgs []pgproto3.FrontendMessage
		for _, p := range parts {
			msgs = append(msgs, p...)
		}
		rc.send(append(msgs, &pgproto3.Sync{})...)
	}
	open := []pgproto3.FrontendMessage{
		&pgproto3.Parse{Query: "SELECT a FROM gone"},
		&pgproto3.Bind{DestinationPortal: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 1},
	}
	resume := []pgproto3.FrontendMessage{&pgproto3.Execute{Portal: "p"}}

	block(run("BEGIN"), run("CREATE TABLE gone (a int)"), run("INSERT INTO gone VALUES (1), (2), (3)"),
		open, run("ROLLBACK"), resume)
	expect(t, "after ROLLBACK", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "CommandComplete BEGIN",
		"ParseComplete", "BindComplete", "CommandComplete CREATE TABLE",
		"ParseComplete", "BindComplete", "CommandComplete INSERT 0 3",
		"ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended",
		"ParseComplete", "BindComplete", "CommandComplete ROLLBACK",
		"ErrorResponse ERROR 34000", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "CREATE TABLE gone (a int); INSERT INTO gone VALUES (1), (2), (3)"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE", "CommandComplete INSERT 0 3", "ReadyForQuery I")
	open[0] = &pgproto3.Parse{Query: "SELECT a FROM gone ORDER BY a"}
	block(run("BEGIN"), open, run("COMMIT"), resume)
	expect(t, "after COMMIT", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "CommandComplete BEGIN",
		"ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended",
		"ParseComplete", "BindComplete", "CommandComplete COMMIT",
		"ErrorResponse ERROR 34000", "ReadyForQuery I")

	// ROLLBACK TO drops the portals made after its savepoint, and those
	// of a savepoint released into it, but not older ones.
	block(run("BEGIN"), run("SAVEPOINT a"), run("SAVEPOINT b"), open, run("RELEASE b"), run("ROLLBACK TO a"), resume)
	expect(t, "after ROLLBACK TO", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "CommandComplete BEGIN",
		"ParseComplete", "BindComplete", "CommandComplete SAVEPOINT",
		"ParseComplete", "BindComplete", "CommandComplete SAVEPOINT",
		"ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended",
		"ParseComplete", "BindComplete", "CommandComplete RELEASE",
		"ParseComplete", "BindComplete", "CommandComplete ROLLBACK",
		"ErrorResponse ERROR 34000", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "ReadyForQuery I")
	block(run("BEGIN"), open, run("SAVEPOINT a"), run("ROLLBACK TO a"), resume)
	expect(t, "portal older than the savepoint", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "CommandComplete BEGIN",
		"ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended",
		"ParseComplete", "BindComplete", "CommandComplete SAVEPOINT",
		"ParseComplete", "BindComplete", "CommandComplete ROLLBACK",
		"DataRow 2", "DataRow 3", "CommandComplete SELECT 2", "ReadyForQuery T")

	// A cursor declared after a savepoint goes with ROLLBACK TO it.
	rc.send(&pgproto3.Query{String: "SAVEPOINT c; DECLARE cur CURSOR FOR SELECT 1; ROLLBACK TO c; FETCH 1 FROM cur"})
	expect(t, "cursor after ROLLBACK TO", rc.readUntilReady(), "CommandComplete SAVEPOINT", "CommandComplete DECLARE CURSOR",
		"CommandComplete ROLLBACK", "ErrorResponse ERROR 34000", "ReadyForQuery E")
}

// TestBinaryParamFormats checks one format code for all parameters.
func TestBinaryParamFormats(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	four := make([]byte, 4)
	binary.BigEndian.PutUint32(four, 1234)
	rc.send(
		&pgproto3.Parse{Query: "SELECT $1::int", ParameterOIDs: []uint32{23}},
		&pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{four}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "binary int4", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "DataRow 1234", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestExecuteBlockBoundaries: a data-modifying Execute that is its block's
// only one, its Sync already sent, commits as an autocommit statement (no
// client can tell); an Execute whose Sync has not come yet stays in the
// implicit transaction until it does, and a block of several statements
// stays all-or-nothing.
func TestExecuteBlockBoundaries(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	other := ts.connect(t)
	ctx := testCtx(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE solo (id int PRIMARY KEY)"})
	expect(t, "create", rc.readUntilReady(), "CommandComplete CREATE TABLE", "ReadyForQuery I")
	count := func(id int) string {
		t.Helper()
		res := other.ExecParams(ctx, "SELECT count(*) FROM solo WHERE id = $1", [][]byte{[]byte(strconv.Itoa(id))}, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		return string(res.Rows[0][0])
	}

	// The whole block in one packet.
	rc.send(
		&pgproto3.Parse{Query: "INSERT INTO solo VALUES (1)"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "solo insert", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete INSERT 0 1", "ReadyForQuery I")
	if n := count(1); n != "1" {
		t.Fatalf("solo insert: %s rows", n)
	}

	// Sync not sent yet: the insert waits in the implicit transaction.
	rc.send(
		&pgproto3.Parse{Query: "INSERT INTO solo VALUES (2)"},
		&pgproto3.Bind{},
		&pgproto3.Execute{},
		&pgproto3.Flush{},
	)
	for _, want := range []string{"ParseComplete", "BindComplete", "CommandComplete INSERT 0 1"} {
		if got, err := rc.receive(); err != nil || got != want {
			t.Fatalf("before Sync: %q (%v), want %q", got, err, want)
		}
	}
	if n := count(2); n != "0" {
		t.Fatalf("an insert whose Sync has not come is visible to others (%s rows)", n)
	}
	rc.send(&pgproto3.Sync{})
	expect(t, "sync", rc.readUntilReady(), "ReadyForQuery I")
	if n := count(2); n != "1" {
		t.Fatalf("after Sync: %s rows", n)
	}

	// Two inserts in one block; the second fails: neither stays.
	rc.send(
		&pgproto3.Parse{Query: "INSERT INTO solo VALUES ($1)"},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("3")}},
		&pgproto3.Execute{},
		&pgproto3.Bind{Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "two inserts, the second a duplicate", rc.readUntilReady(),
		"ParseComplete", "BindComplete", "CommandComplete INSERT 0 1", "BindComplete", "ErrorResponse ERROR 23505", "ReadyForQuery I")
	if n := count(3); n != "0" {
		t.Fatalf("the failed block's first insert stayed (%s rows)", n)
	}
}

// TestParamTypmods checks that a parameter bound to a column with a type
// modifier gets the modifier applied as a literal does: too long for
// varchar(n) or char(n) is 22001, past numeric(p,s)'s precision 22003, and
// numeric and timestamp(p) values are rounded (a parameter typed by its
// column used to skip the check and store the value whole).
func TestParamTypmods(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	ctx := testCtx(t)
	exec := func(sql string, params ...string) (*pgconn.Result, string) {
		args := make([][]byte, len(params))
		for i, p := range params {
			args[i] = []byte(p)
		}
		res := c.ExecParams(ctx, sql, args, nil, nil, nil).Read()
		return res, pgCode(res.Err)
	}
	if _, code := exec(`CREATE TABLE tm (id int, v varchar(3), c char(2), n numeric(4,1), ts timestamp(0))`); code != "" {
		t.Fatal(code)
	}
	for _, tc := range []struct {
		sql, param, code string
	}{
		{`INSERT INTO tm (id, v) VALUES (1, $1)`, "abcd", "22001"},
		{`INSERT INTO tm (id, c) VALUES (1, $1)`, "xyz", "22001"},
		{`INSERT INTO tm (id, n) VALUES (1, $1)`, "12345.67", "22003"},
		{`INSERT INTO tm (id, v, c, n, ts) VALUES (1, 'abc', 'x', 1.25, $1)`, "2024-01-01 10:00:00.7", ""},
		{`INSERT INTO tm (id, n) VALUES (2, $1)`, "1.25", ""},
		{`UPDATE tm SET v = $1 WHERE id = 1`, "wxyz", "22001"},
		{`INSERT INTO tm (id, v) SELECT 3, $1::text`, "abcd", "22001"},
		{`INSERT INTO tm (id, v) VALUES (4, $1::varchar(2))`, "abcd", ""}, // an explicit cast truncates
	} {
		if _, code := exec(tc.sql, tc.param); code != tc.code {
			t.Errorf("%s with %q: SQLSTATE %q, want %q", tc.sql, tc.param, code, tc.code)
		}
	}
	res, code := exec(`SELECT id, coalesce(v, '-'), c, n::text, ts::text FROM tm ORDER BY id`)
	if code != "" {
		t.Fatal(code)
	}
	var got []string
	for _, r := range res.Rows {
		var cols []string
		for _, v := range r {
			cols = append(cols, string(v))
		}
		got = append(got, strings.Join(cols, "|"))
	}
	want := []string{"1|abc|x |1.3|2024-01-01 10:00:01", "2|-||1.3|", "4|ab|||"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestParseInAbortedTransaction checks Parse in an aborted transaction
// block: 25P02 and no statement kept, as in PostgreSQL, save for one that
// ends the block (or an empty query). A statement kept there made the
// client's Parse of the same name after ROLLBACK fail with 42P05.
func TestParseInAbortedTransaction(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "BEGIN"}, &pgproto3.Query{String: "SELECT 1/0"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	expect(t, "error", rc.readUntilReady(), "ErrorResponse ERROR 22012", "ReadyForQuery E")

	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Describe{ObjectType: 'S', Name: "s1"}, &pgproto3.Sync{})
	expect(t, "Parse", rc.readUntilReady(), "ErrorResponse ERROR 25P02", "ReadyForQuery E")
	rc.send(&pgproto3.Parse{Name: "e"}, &pgproto3.Sync{})
	expect(t, "empty Parse", rc.readUntilReady(), "ParseComplete", "ReadyForQuery E")
	rc.send(&pgproto3.Parse{Name: "r", Query: "ROLLBACK"}, &pgproto3.Bind{PreparedStatement: "r"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "ROLLBACK", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete ROLLBACK", "ReadyForQuery I")

	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "Parse after ROLLBACK", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestParseTakenNameChecksFirst checks the order of Parse's errors for a
// statement name already taken, PostgreSQL's: a syntax error, the
// aborted transaction's 25P02 and a binding error come before 42P05. A
// pgx batch in a failed transaction was told its cached statement's
// name "already exists" instead of 25P02.
func TestParseTakenNameChecksFirst(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Sync{})
	expect(t, "Parse", rc.readUntilReady(), "ParseComplete", "ReadyForQuery I")
	for _, c := range []struct{ query, code string }{
		{"SELEC 1", "42601"},
		{"SELECT * FROM nosuch", "42P01"},
		{"SELECT 2", "42P05"},
	} {
		rc.send(&pgproto3.Parse{Name: "s1", Query: c.query}, &pgproto3.Sync{})
		expect(t, c.query, rc.readUntilReady(), "ErrorResponse ERROR "+c.code, "ReadyForQuery I")
	}
	rc.send(&pgproto3.Query{String: "BEGIN"}, &pgproto3.Query{String: "SELECT 1/0"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	expect(t, "error", rc.readUntilReady(), "ErrorResponse ERROR 22012", "ReadyForQuery E")
	rc.send(&pgproto3.Parse{Name: "s1", Query: "SELECT 1"}, &pgproto3.Sync{})
	expect(t, "Parse in failed block", rc.readUntilReady(), "ErrorResponse ERROR 25P02", "ReadyForQuery E")
	rc.send(&pgproto3.Parse{Name: "s1", Query: "ROLLBACK"}, &pgproto3.Sync{})
	expect(t, "Parse of ROLLBACK", rc.readUntilReady(), "ErrorResponse ERROR 42P05", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "ReadyForQuery I")
	rc.send(&pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "s1 kept", rc.readUntilReady(), "BindComplete", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestResultFormatsWithoutRows checks Bind's result formats for a
// portal that returns no rows: any number is taken, as PostgreSQL checks
// them against a portal's columns only (an INSERT without RETURNING was
// 08P01); one that returns rows, even none of them, must match.
func TestResultFormatsWithoutRows(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE rf(a int)"})
	expect(t, "CREATE", rc.readUntilReady(), "CommandComplete CREATE TABLE", "ReadyForQuery I")
	two := []int16{pgproto3.BinaryFormat, pgproto3.BinaryFormat}
	rc.send(&pgproto3.Parse{Query: "INSERT INTO rf VALUES (1)"}, &pgproto3.Bind{ResultFormatCodes: two}, &pgproto3.Execute{},
		&pgproto3.Parse{Query: "SET timezone = 'UTC'"}, &pgproto3.Bind{ResultFormatCodes: two}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "no rows", withoutParams(rc.readUntilReady()), "ParseComplete", "BindComplete", "CommandComplete INSERT 0 1",
		"ParseComplete", "BindComplete", "CommandComplete SET", "ReadyForQuery I")
	rc.send(&pgproto3.Parse{Query: "INSERT INTO rf VALUES (1) RETURNING a"}, &pgproto3.Bind{ResultFormatCodes: two}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "RETURNING", rc.readUntilReady(), "ParseComplete", "ErrorResponse ERROR 08P01", "ReadyForQuery I")
}

// TestBindDescribeInAbortedTransaction checks Bind and Describe in an
// aborted transaction block as PostgreSQL answers them: Bind refuses
// all but a statement that ends the block, bound without parameters,
// with 25P02 after checking the parameter counts (08P01) and before it
// reads a parameter (an empty statement too: it was bound, and a bad
// parameter was 22P02); Describe refuses a
// statement or portal that returns rows (it was described) and
// describes one that returns none.
func TestBindDescribeInAbortedTransaction(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Parse{Name: "sel", Query: "SELECT $1::int"}, &pgproto3.Parse{Name: "set", Query: "SET app.v = 'x'"},
		&pgproto3.Parse{Name: "empty"}, &pgproto3.Parse{Name: "rb", Query: "ROLLBACK"}, &pgproto3.Sync{})
	expect(t, "Parse", rc.readUntilReady(), "ParseComplete", "ParseComplete", "ParseComplete", "ParseComplete", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "BEGIN"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "sel", Parameters: [][]byte{[]byte("1")}}, &pgproto3.Sync{})
	expect(t, "Bind p", rc.readUntilReady(), "BindComplete", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "SELECT 1/0"})
	expect(t, "error", rc.readUntilReady(), "ErrorResponse ERROR 22012", "ReadyForQuery E")

	aborted := []string{"ErrorResponse ERROR 25P02", "ReadyForQuery E"}
	for _, c := range []struct {
		what string
		msg  pgproto3.FrontendMessage
		want []string
	}{
		{"Describe of a SELECT", &pgproto3.Describe{ObjectType: 'S', Name: "sel"}, aborted},
		{"Describe of a SET", &pgproto3.Describe{ObjectType: 'S', Name: "set"}, []string{"ParameterDescription ", "NoData", "ReadyForQuery E"}},
		{"Describe of the portal", &pgproto3.Describe{ObjectType: 'P', Name: "p"}, aborted},
		{"Bind with a bad parameter", &pgproto3.Bind{PreparedStatement: "sel", Parameters: [][]byte{[]byte("x")}}, aborted},
		{"Bind of an empty statement", &pgproto3.Bind{PreparedStatement: "empty"}, aborted},
		{"Bind of a SET", &pgproto3.Bind{PreparedStatement: "set"}, aborted},
		// the counts are checked first
		{"Bind with a parameter too many", &pgproto3.Bind{PreparedStatement: "sel", Parameters: [][]byte{[]byte("1"), []byte("2")}},
			[]string{"ErrorResponse ERROR 08P01", "ReadyForQuery E"}},
	} {
		rc.send(c.msg, &pgproto3.Sync{})
		expect(t, c.what, rc.readUntilReady(), c.want...)
	}
	rc.send(&pgproto3.Bind{PreparedStatement: "rb"}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "ROLLBACK", rc.readUntilReady(), "BindComplete", "CommandComplete ROLLBACK", "ReadyForQuery I")
}

// TestExecuteCompletedPortal checks a second Execute of a portal that ran
// to its end, as PostgreSQL answers it: one that returns rows reports
// none, any other fails with 55000. A SELECT's used to fail with 57014
// (its closed scan read again), an INSERT's or UPDATE's to send an empty
// command tag, a SET's to run again.
func TestExecuteCompletedPortal(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE twice (a int); INSERT INTO twice VALUES (1), (2)"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE", "CommandComplete INSERT 0 2", "ReadyForQuery I")
	twice := func(sql string) {
		rc.send(&pgproto3.Parse{Query: sql}, &pgproto3.Bind{DestinationPortal: "p"},
			&pgproto3.Execute{Portal: "p"}, &pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	}
	twice("SELECT a FROM twice ORDER BY a")
	expect(t, "SELECT", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"CommandComplete SELECT 2", "CommandComplete SELECT 0", "ReadyForQuery I")
	twice("SELECT a FROM twice")
	expect(t, "SELECT of a scan", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "DataRow 2",
		"CommandComplete SELECT 2", "CommandComplete SELECT 0", "ReadyForQuery I")
	twice("INSERT INTO twice VALUES (3) RETURNING a")
	expect(t, "INSERT RETURNING", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 3",
		"CommandComplete INSERT 0 1", "CommandComplete INSERT 0 0", "ReadyForQuery I")
	twice("SHOW DateStyle")
	expect(t, "SHOW", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow ISO, MDY",
		"CommandComplete SHOW", "CommandComplete SHOW", "ReadyForQuery I")
	twice("UPDATE twice SET a = a + 10")
	expect(t, "UPDATE", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete UPDATE 3",
		"ErrorResponse ERROR 55000", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "SELECT count(*) FROM twice WHERE a > 10"})
	expect(t, "after the failed block", rc.readUntilReady(), "RowDescription count:20", "DataRow 0", "CommandComplete SELECT 1", "ReadyForQuery I")
	twice("SET application_name = 'once'")
	expect(t, "SET", rc.readUntilReady(), "ParseComplete", "BindComplete", "CommandComplete SET",
		"ErrorResponse ERROR 55000", "ReadyForQuery I")
}

// TestSuspendedReturningTag checks the tag of a data-modifying portal with
// RETURNING whose rows come over several Executes: the Execute that ends
// it counts the rows it sent, and one after that none, as PostgreSQL 15's
// ("INSERT 0 2" after one row of three).
func TestSuspendedReturningTag(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE rt (a int); BEGIN"})
	expect(t, "setup", rc.readUntilReady(), "CommandComplete CREATE TABLE", "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Query: "INSERT INTO rt VALUES (1), (2), (3) RETURNING a"}, &pgproto3.Bind{DestinationPortal: "i"},
		&pgproto3.Execute{Portal: "i", MaxRows: 1}, &pgproto3.Sync{})
	expect(t, "first row", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 1", "PortalSuspended", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "i"}, &pgproto3.Sync{})
	expect(t, "the rest", rc.readUntilReady(), "DataRow 2", "DataRow 3", "CommandComplete INSERT 0 2", "ReadyForQuery T")
	rc.send(&pgproto3.Execute{Portal: "i"}, &pgproto3.Sync{})
	expect(t, "after the end", rc.readUntilReady(), "CommandComplete INSERT 0 0", "ReadyForQuery T")
	rc.send(&pgproto3.Parse{Query: "UPDATE rt SET a = a + 1 RETURNING a"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "one Execute", rc.readUntilReady(), "ParseComplete", "BindComplete", "DataRow 2", "DataRow 3", "DataRow 4",
		"CommandComplete UPDATE 3", "ReadyForQuery T")
}

// TestFetchProtocolPortal checks FETCH, MOVE and CLOSE on portals of the
// protocol's Bind, which share the cursors' namespace as in PostgreSQL:
// FETCH and Execute read on where the other stopped, a portal read to its
// end fetches nothing more, FETCH BACKWARD is 55000 (such a portal is NO
// SCROLL), a portal of a statement without rows cannot be fetched from,
// CLOSE ALL closes them too, and pg_cursors lists them. The transcripts
// are PostgreSQL 15's.
func TestFetchProtocolPortal(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	bind := func(name, sql string) {
		t.Helper()
		rc.send(&pgproto3.Parse{Query: sql}, &pgproto3.Bind{DestinationPortal: name}, &pgproto3.Sync{})
		expect(t, "bind "+name, rc.readUntilReady(), "ParseComplete", "BindComplete", "ReadyForQuery T")
	}
	execute := func(name string, maxRows uint32, want ...string) {
		t.Helper()
		rc.send(&pgproto3.Execute{Portal: name, MaxRows: maxRows}, &pgproto3.Sync{})
		expect(t, "execute "+name, rc.readUntilReady(), want...)
	}
	rc.query(t, "CREATE TABLE ft (a int)", "CommandComplete CREATE TABLE", "ReadyForQuery I")
	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")

	bind("p", "SELECT generate_series(1, 6) AS n")
	rc.query(t, "SELECT name, statement, is_holdable FROM pg_cursors", "RowDescription name:25,statement:25,is_holdable:16",
		"DataRow p,SELECT generate_series(1, 6) AS n,f", "CommandComplete SELECT 1", "ReadyForQuery T")
	execute("p", 1, "DataRow 1", "PortalSuspended", "ReadyForQuery T")
	rc.query(t, "FETCH 2 FROM p", "RowDescription n:23", "DataRow 2", "DataRow 3", "CommandComplete FETCH 2", "ReadyForQuery T")
	rc.query(t, "MOVE 1 IN p", "CommandComplete MOVE 1", "ReadyForQuery T")
	execute("p", 1, "DataRow 5", "PortalSuspended", "ReadyForQuery T")
	rc.query(t, "FETCH ALL p", "RowDescription n:23", "DataRow 6", "CommandComplete FETCH 1", "ReadyForQuery T")
	execute("p", 0, "CommandComplete SELECT 0", "ReadyForQuery T")
	rc.query(t, "FETCH p", "RowDescription n:23", "CommandComplete FETCH 0", "ReadyForQuery T")
	rc.query(t, "CLOSE p", "CommandComplete CLOSE CURSOR", "ReadyForQuery T")
	rc.query(t, "FETCH p", "ErrorResponse ERROR 34000", "ReadyForQuery E")
	rc.query(t, "ROLLBACK", "CommandComplete ROLLBACK", "ReadyForQuery I")

	// A portal of INSERT ... RETURNING runs whole at its first FETCH; the
	// Execute that ends it counts the rows it sent.
	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")
	bind("i", "INSERT INTO ft VALUES (1), (2), (3) RETURNING a")
	rc.query(t, "FETCH 1 i", "RowDescription a:23", "DataRow 1", "CommandComplete FETCH 1", "ReadyForQuery T")
	rc.query(t, "SELECT count(*) FROM ft", "RowDescription count:20", "DataRow 3", "CommandComplete SELECT 1", "ReadyForQuery T")
	execute("i", 0, "DataRow 2", "DataRow 3", "CommandComplete INSERT 0 2", "ReadyForQuery T")
	execute("i", 0, "CommandComplete INSERT 0 0", "ReadyForQuery T")

	bind("j", "INSERT INTO ft VALUES (4)")
	rc.query(t, "FETCH j", "ErrorResponse ERROR XX000", "ReadyForQuery E")
	rc.query(t, "ROLLBACK", "CommandComplete ROLLBACK", "ReadyForQuery I")

	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")
	bind("m", "SELECT 1")
	rc.query(t, "FETCH BACKWARD 1 m", "ErrorResponse ERROR 55000", "ReadyForQuery E")
	rc.query(t, "ROLLBACK", "CommandComplete ROLLBACK", "ReadyForQuery I")
	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")
	rc.query(t, "FETCH PRIOR nosuch", "ErrorResponse ERROR 34000", "ReadyForQuery E")
	rc.query(t, "ROLLBACK", "CommandComplete ROLLBACK", "ReadyForQuery I")

	rc.query(t, "BEGIN", "CommandComplete BEGIN", "ReadyForQuery T")
	bind("n", "SELECT 1")
	rc.query(t, "CLOSE ALL", "CommandComplete CLOSE CURSOR ALL", "ReadyForQuery T")
	execute("n", 0, "ErrorResponse ERROR 34000", "ReadyForQuery E")
	rc.query(t, "ROLLBACK", "CommandComplete ROLLBACK", "ReadyForQuery I")

	// In the implicit transaction of a block of messages, before its Sync.
	rc.send(&pgproto3.Parse{Query: "SELECT 7 AS x"}, &pgproto3.Bind{DestinationPortal: "o"},
		&pgproto3.Parse{Query: "FETCH o"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	expect(t, "FETCH in the block", rc.readUntilReady(), "ParseComplete", "BindComplete", "ParseComplete", "BindComplete",
		"RowDescription x:23", "DataRow 7", "CommandComplete FETCH 1", "ReadyForQuery I")
}

// TestVoidParameterDropped checks pgjdbc's form of {? = call upper(?)}:
// the OUT parameter is $1, declared void, and PostgreSQL drops it from
// the call (ParseFuncOrColumn), so upper gets $2 alone; a void parameter
// elsewhere is a NULL of type void.
func TestVoidParameterDropped(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(
		&pgproto3.Parse{Query: "SELECT * FROM upper($1,$2) AS result", ParameterOIDs: []uint32{2278, 1043}},
		&pgproto3.Describe{ObjectType: 'S'},
		&pgproto3.Bind{Parameters: [][]byte{nil, []byte("abc")}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "FROM upper($1,$2)", rc.readUntilReady(), "ParseComplete", "ParameterDescription 2278,1043",
		"RowDescription result:25", "BindComplete", "DataRow ABC", "CommandComplete SELECT 1", "ReadyForQuery I")
	rc.send(
		&pgproto3.Parse{Query: "SELECT upper($2, $1), $1", ParameterOIDs: []uint32{2278, 25}},
		&pgproto3.Describe{ObjectType: 'S'},
		&pgproto3.Bind{Parameters: [][]byte{nil, []byte("x")}},
		&pgproto3.Execute{},
		&pgproto3.Sync{},
	)
	expect(t, "upper($2, $1), $1", rc.readUntilReady(), "ParseComplete", "ParameterDescription 2278,25",
		"RowDescription upper:25,?column?:2278", "BindComplete", "DataRow X,NULL", "CommandComplete SELECT 1", "ReadyForQuery I")
}

// TestDescribeStatementAfterDDL checks that a Describe of a prepared
// statement revalidates it as PostgreSQL's does: after a DDL changed the
// columns it returns, its ParameterDescription is followed by 0A000
// "cached plan must not change result type", not by the RowDescription it
// was prepared with (which the Bind that followed then refused), and after
// its table was dropped by 42P01; while it is unchanged it is described
// as before.
func TestDescribeStatementAfterDDL(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE ddl_desc (a int, b text)"})
	rc.readUntilReady()
	rc.send(&pgproto3.Parse{Name: "s", Query: "SELECT * FROM ddl_desc"}, &pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	expect(t, "prepare", rc.readUntilReady(), "ParseComplete", "ParameterDescription ", "RowDescription a:23,b:25", "ReadyForQuery I")
	rc.send(&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	expect(t, "unchanged", rc.readUntilReady(), "ParameterDescription ", "RowDescription a:23,b:25", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "ALTER TABLE ddl_desc RENAME COLUMN a TO z"})
	rc.readUntilReady()
	rc.send(&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	expect(t, "after RENAME COLUMN", rc.readUntilReady(), "ParameterDescription ", "ErrorResponse ERROR 0A000", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "DROP TABLE ddl_desc"})
	rc.readUntilReady()
	rc.send(&pgproto3.Describe{ObjectType: 'S', Name: "s"}, &pgproto3.Sync{})
	expect(t, "after DROP TABLE", rc.readUntilReady(), "ParameterDescription ", "ErrorResponse ERROR 42P01", "ReadyForQuery I")
}
