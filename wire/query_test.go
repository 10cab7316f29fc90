package wire

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestSimpleQuery(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)

	rc.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "SELECT 1", rc.readUntilReady(),
		"RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "SELECT 1; SELECT 2"})
	expect(t, "two statements", rc.readUntilReady(),
		"RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1",
		"RowDescription ?column?:23", "DataRow 2", "CommandComplete SELECT 1",
		"ReadyForQuery I")
}

// TestSimpleQueryErrorSkipsRest checks that an error ends the message: the
// statements before it have run, the ones after it do not.
func TestSimpleQueryErrorSkipsRest(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "SELECT 1; SELECT * FROM no_such_table; SELECT 3"})
	expect(t, "error in the middle", rc.readUntilReady(),
		"RowDescription ?column?:23", "DataRow 1", "CommandComplete SELECT 1",
		"ErrorResponse ERROR 42P01", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "SELEC 1"})
	expect(t, "syntax error", rc.readUntilReady(), "ErrorResponse ERROR 42601", "ReadyForQuery I")

	// The connection is still usable.
	rc.send(&pgproto3.Query{String: "SELECT 3"})
	expect(t, "after errors", rc.readUntilReady(),
		"RowDescription ?column?:23", "DataRow 3", "CommandComplete SELECT 1", "ReadyForQuery I")
}

func TestEmptyQuery(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	for _, q := range []string{"", "  ", "-- ping", ";", "/* nothing */"} {
		rc.send(&pgproto3.Query{String: q})
		expect(t, "query "+q, rc.readUntilReady(), "EmptyQueryResponse", "ReadyForQuery I")
	}
	c := ts.connect(t)
	if err := c.Ping(testCtx(t)); err != nil { // pgx's Ping is "-- ping"
		t.Errorf("Ping: %v", err)
	}
}

func TestCreateInsertSelect(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	results, err := c.Exec(testCtx(t), `
		CREATE TABLE notes (id int, body text);
		INSERT INTO notes VALUES (1, 'one'), (2, NULL);
		SELECT id, body FROM notes ORDER BY id`).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("got %d results", len(results))
	}
	for i, want := range []string{"CREATE TABLE", "INSERT 0 2", "SELECT 2"} {
		if got := results[i].CommandTag.String(); got != want {
			t.Errorf("result %d: tag %q, want %q", i, got, want)
		}
	}
	sel := results[2]
	if len(sel.FieldDescriptions) != 2 || sel.FieldDescriptions[0].Name != "id" ||
		sel.FieldDescriptions[0].DataTypeOID != 23 || sel.FieldDescriptions[1].DataTypeOID != 25 {
		t.Errorf("fields: %+v", sel.FieldDescriptions)
	}
	if f := sel.FieldDescriptions[0]; f.TableOID == 0 || f.TableAttributeNumber != 1 {
		t.Errorf("id column: table OID %d, attnum %d; want the table's", f.TableOID, f.TableAttributeNumber)
	}
	if len(sel.Rows) != 2 || string(sel.Rows[0][0]) != "1" || string(sel.Rows[0][1]) != "one" ||
		string(sel.Rows[1][0]) != "2" || sel.Rows[1][1] != nil {
		t.Errorf("rows: %q", sel.Rows)
	}

	_, err = c.Exec(testCtx(t), "INSERT INTO missing VALUES (1)").ReadAll()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Errorf("insert into missing table: %v", err)
	}
}

func TestNoticeAndParameterStatus(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "CREATE TABLE IF NOT EXISTS t (a int)"})
	expect(t, "create", rc.readUntilReady(), "CommandComplete CREATE TABLE", "ReadyForQuery I")
	rc.send(&pgproto3.Query{String: "CREATE TABLE IF NOT EXISTS t (a int)"})
	expect(t, "create again", rc.readUntilReady(),
		"NoticeResponse 42P07", "CommandComplete CREATE TABLE", "ReadyForQuery I")

	rc.send(&pgproto3.Query{String: "SET application_name = 'agent'"})
	expect(t, "SET", rc.readUntilReady(),
		"CommandComplete SET", "ParameterStatus application_name=agent", "ReadyForQuery I")
}

// TestParameterStatusOnlyWhenChanged checks that a reported setting is
// reported again only when its value differs from the one the client was
// last told, as PostgreSQL 14 and later do: a SET to the value it has, a
// SET undone in the same cycle, and DISCARD ALL's reset of a role that
// did not change send no ParameterStatus.
func TestParameterStatusOnlyWhenChanged(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.query(t, "SET standard_conforming_strings = on", "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, "SET client_encoding = 'UTF8'", "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, "SET application_name = 'a'", "CommandComplete SET", "ParameterStatus application_name=a", "ReadyForQuery I")
	rc.query(t, "SET application_name = 'a'", "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, "BEGIN; SET application_name = 'b'; ROLLBACK", "CommandComplete BEGIN", "CommandComplete SET",
		"CommandComplete ROLLBACK", "ReadyForQuery I")
	rc.query(t, "SET application_name = 'c'; SELECT 1/0", "CommandComplete SET", "ErrorResponse ERROR 22012", "ReadyForQuery I")
	rc.query(t, "DISCARD ALL", "CommandComplete DISCARD ALL", "ParameterStatus application_name=", "ReadyForQuery I")
	rc.query(t, "DISCARD ALL", "CommandComplete DISCARD ALL", "ReadyForQuery I")
}

func TestTransactionStatus(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.send(&pgproto3.Query{String: "BEGIN"})
	expect(t, "BEGIN", rc.readUntilReady(), "CommandComplete BEGIN", "ReadyForQuery T")
	rc.send(&pgproto3.Query{String: "SELECT * FROM no_such_table"})
	expect(t, "error in transaction", rc.readUntilReady(), "ErrorResponse ERROR 42P01", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	expect(t, "aborted transaction", rc.readUntilReady(), "ErrorResponse ERROR 25P02", "ReadyForQuery E")
	rc.send(&pgproto3.Query{String: "ROLLBACK"})
	expect(t, "ROLLBACK", rc.readUntilReady(), "CommandComplete ROLLBACK", "ReadyForQuery I")
}

// TestResultClientGoneIsNotInternal checks that a client that goes away
// while its result is being written is logged as a lost connection, not
// as an internal error (the failed write came back as the statement's
// error, which had no SQLSTATE).
func TestResultClientGoneIsNotInternal(t *testing.T) {
	log := &testWriter{t: t}
	ts := startServer(t, func(s *Server) {
		s.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	for _, msgs := range [][]pgproto3.FrontendMessage{
		{&pgproto3.Query{String: "SELECT g, repeat('x', 200) FROM generate_series(1, 2000000) g"}},
		{&pgproto3.Parse{Query: "SELECT g, repeat('x', 200) FROM generate_series(1, 2000000) g"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}},
	} {
		rc := ts.rawConnect(t)
		rc.send(msgs...)
		if _, err := rc.receive(); err != nil {
			t.Fatal(err)
		}
		rc.nc.Close() // with the result unread: a reset
	}
	for deadline := time.Now().Add(20 * time.Second); strings.Count(log.String(), "connection lost") < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the connections' end was not logged:\n%s", log.String())
		}
	}
	if out := log.String(); strings.Contains(out, "internal error") {
		t.Fatalf("a client gone mid-result, logged as:\n%s", out)
	}
}

// TestSearchPathQuotedNames checks that SET search_path keeps its names
// quoted as PostgreSQL does (SHOW gives back what reads as the same
// list) and that a quoted name holding a comma or capitals is one schema.
func TestSearchPathQuotedNames(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	rc.query(t, `SHOW search_path`, "RowDescription search_path:25", `DataRow "$user", public`, "CommandComplete SHOW", "ReadyForQuery I")
	rc.query(t, `CREATE SCHEMA "a,b"; CREATE TABLE "a,b".t (x int); INSERT INTO "a,b".t VALUES (7)`,
		"CommandComplete CREATE SCHEMA", "CommandComplete CREATE TABLE", "CommandComplete INSERT 0 1", "ReadyForQuery I")
	rc.query(t, `SET search_path = "My Schema", "a,b", 'Up', public`, "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, `SHOW search_path`, "RowDescription search_path:25", `DataRow "My Schema", "a,b", "Up", public`, "CommandComplete SHOW", "ReadyForQuery I")
	rc.query(t, `SELECT x FROM t`, "RowDescription x:23", "DataRow 7", "CommandComplete SELECT 1", "ReadyForQuery I")
	rc.query(t, `SET search_path = "$user", public`, "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, `SHOW search_path`, "RowDescription search_path:25", `DataRow "$user", public`, "CommandComplete SHOW", "ReadyForQuery I")
	rc.query(t, `SET search_path = ''`, "CommandComplete SET", "ReadyForQuery I")
	rc.query(t, `SHOW search_path`, "RowDescription search_path:25", `DataRow ""`, "CommandComplete SHOW", "ReadyForQuery I")
}

// TestLikeManyPercents checks that a LIKE pattern of many %s answers in
// time: each % tried every start of the rest of the text, so that
// repeat('%a', 30) || 'b' against 5000 a's took a number of steps
// exponential in its %s, a statement neither statement_timeout nor the
// client's going away could stop. PostgreSQL gives up on a % once the
// text ran out under it (MatchText's LIKE_ABORT), as cairn now does.
func TestLikeManyPercents(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	res, err := c.Exec(testCtx(t), `SELECT repeat('a', 5000) LIKE repeat('%a', 30) || 'b',
		repeat('a', 5000) LIKE repeat('%a', 30) || '%',
		repeat('a', 5000) || 'b' LIKE repeat('%a', 30) || '_',
		repeat('a', 5000) NOT ILIKE repeat('%A', 30) || 'B'`).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res[0].Rows[0][0]) + string(res[0].Rows[0][1]) + string(res[0].Rows[0][2]) + string(res[0].Rows[0][3]); got != "fttt" {
		t.Errorf("LIKE results %q, want fttt", got)
	}
}

// TestSetTimeZoneInterval checks SET TIME ZONE INTERVAL '...', which set
// TimeZone to an empty value (timestamps then came out in UTC): the
// interval is the zone's offset east of UTC, reported as SET TIME ZONE of
// a number of hours reports it, and one with days or months is 22023, as
// in PostgreSQL.
func TestSetTimeZoneInterval(t *testing.T) {
	ts := startServer(t)
	rc := ts.rawConnect(t)
	const at = `SELECT '2020-01-01 00:00:00+00'::timestamptz::text`
	rc.query(t, `SET TIME ZONE INTERVAL '+02:00'`, "CommandComplete SET", "ParameterStatus TimeZone=2", "ReadyForQuery I")
	rc.query(t, at, "RowDescription text:25", "DataRow 2020-01-01 02:00:00+02", "CommandComplete SELECT 1", "ReadyForQuery I")
	rc.query(t, `SET TIME ZONE INTERVAL '01:30' HOUR TO MINUTE`, "CommandComplete SET", "ParameterStatus TimeZone=1.5", "ReadyForQuery I")
	rc.query(t, at, "RowDescription text:25", "DataRow 2020-01-01 01:30:00+01:30", "CommandComplete SELECT 1", "ReadyForQuery I")
	rc.query(t, `SET TIME ZONE INTERVAL '-3' HOUR`, "CommandComplete SET", "ParameterStatus TimeZone=-3", "ReadyForQuery I")
	rc.query(t, at, "RowDescription text:25", "DataRow 2019-12-31 21:00:00-03", "CommandComplete SELECT 1", "ReadyForQuery I")
	rc.query(t, `SET TIME ZONE INTERVAL '1 day'`, "ErrorResponse ERROR 22023", "ReadyForQuery I")
	rc.query(t, `SET TIME ZONE INTERVAL '1 month'`, "ErrorResponse ERROR 22023", "ReadyForQuery I")
	rc.query(t, `SHOW TimeZone`, "RowDescription TimeZone:25", "DataRow -3", "CommandComplete SHOW", "ReadyForQuery I")
}
