package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// copyDoc is a row of the docs table of the COPY tests; nil pointers are
// NULL.
type copyDoc struct {
	id   int
	body *string
	emb  *string // float4[] in text form
	meta *string // jsonb in text form
	at   *string // timestamp in text form
}

func strp(s string) *string { return &s }

// copyDocs are rows whose text needs every kind of quoting and escaping.
var copyDocs = []copyDoc{
	{1, strp("tab\there, newline\nthere, cr\r, backslash \\ and \\N"), strp("{0.1,0.2}"), strp(`{"k": [1, "v\\t\""]}`), strp("2024-02-29 13:14:15.123456")},
	{2, strp(`say "hi", then ''bye'';`), strp("{-1.5,1e+30,0}"), strp(`[]`), strp("1999-12-31 23:59:59")},
	{3, strp(""), nil, nil, nil},
	{4, nil, strp("{}"), strp("null"), strp("2000-01-01 00:00:00")},
	{5, strp(`\.`), strp("{NULL,2}"), strp(`{"é": "日本"}`), strp("infinity")},
	{6, strp("héllo wörld ✓"), strp("{3.4028235e+38}"), strp(`"just a string"`), strp("-infinity")},
}

// csvQuote quotes a CSV field; NULL is an unquoted empty field.
func csvQuote(s *string) string {
	if s == nil {
		return ""
	}
	return `"` + strings.ReplaceAll(*s, `"`, `""`) + `"`
}

// readDocs returns the docs table's rows in id order, values in text form.
func readDocs(t *testing.T, conn *pgx.Conn, table string) []copyDoc {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT id, body, emb::text, meta::text, at::text FROM `+table+` ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []copyDoc
	for rows.Next() {
		var d copyDoc
		if err := rows.Scan(&d.id, &d.body, &d.emb, &d.meta, &d.at); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkDocs(t *testing.T, what string, got, want []copyDoc) {
	t.Helper()
	show := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return fmt.Sprintf("%q", *p)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		for j, pair := range [][2]*string{{g.body, w.body}, {g.emb, w.emb}, {g.meta, w.meta}, {g.at, w.at}} {
			if show(pair[0]) != show(pair[1]) || g.id != w.id {
				t.Errorf("%s: row %d column %d: got %s, want %s", what, w.id, j+1, show(pair[0]), show(pair[1]))
			}
		}
	}
}

const docsTable = `(id int PRIMARY KEY, body text, emb float4[], meta jsonb, at timestamp)`

// TestCopyRoundTrip loads rows with COPY FROM STDIN in CSV with a header
// (pgconn's CopyFrom, the simple protocol), reads them with SELECT and
// with COPY TO STDOUT in text and CSV, and loads that output again: every
// value survives exactly.
func TestCopyRoundTrip(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE docs `+docsTable)
	var in strings.Builder
	in.WriteString("id,body,emb,meta,at\r\n")
	for _, d := range copyDocs {
		fmt.Fprintf(&in, "%d,%s,%s,%s,%s\r\n", d.id, csvQuote(d.body), csvQuote(d.emb), csvQuote(d.meta), csvQuote(d.at))
	}
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(in.String()), "COPY docs FROM STDIN WITH (FORMAT csv, HEADER)")
	if err != nil || tag.String() != "COPY 6" {
		t.Fatalf("COPY FROM: %q, %v", tag, err)
	}
	checkDocs(t, "after COPY FROM", readDocs(t, conn, "docs"), copyDocs)

	var text bytes.Buffer
	tag, err = conn.PgConn().CopyTo(ctx, &text, "COPY docs TO STDOUT")
	if err != nil || tag.String() != "COPY 6" {
		t.Fatalf("COPY TO: %q, %v", tag, err)
	}
	lines := strings.SplitAfter(text.String(), "\n")
	for i, want := range []string{
		"1\ttab\\there, newline\\nthere, cr\\r, backslash \\\\ and \\\\N\t{0.1,0.2}\t{\"k\": [1, \"v\\\\\\\\t\\\\\"\"]}\t2024-02-29 13:14:15.123456\n",
		"2\tsay \"hi\", then ''bye'';\t{-1.5,1e+30,0}\t[]\t1999-12-31 23:59:59\n",
		"3\t\t\\N\t\\N\t\\N\n",
		"4\t\\N\t{}\tnull\t2000-01-01 00:00:00\n",
		"5\t\\\\.\t{NULL,2}\t{\"é\": \"日本\"}\tinfinity\n",
	} {
		if lines[i] != want {
			t.Errorf("COPY TO line %d: got %q, want %q", i+1, lines[i], want)
		}
	}
	var csv bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &csv, "COPY (SELECT * FROM docs ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(csv.String(), "id,body,emb,meta,at\n1,\"tab\there, newline\nthere, cr\r, backslash \\ and \\N\",\"{0.1,0.2}\",") {
		t.Errorf("COPY TO csv: %q", csv.String())
	}

	// The output of each format loads back to the same rows.
	for _, c := range []struct{ table, copy, data string }{
		{"docs_text", "COPY docs_text FROM STDIN", text.String()},
		{"docs_csv", "COPY docs_csv FROM STDIN (FORMAT csv, HEADER true)", csv.String()},
	} {
		mustExec(t, conn, `CREATE TABLE `+c.table+` `+docsTable)
		if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(c.data), c.copy); err != nil {
			t.Fatalf("%s: %v", c.copy, err)
		}
		checkDocs(t, c.copy, readDocs(t, conn, c.table), copyDocs)
	}
}

// TestCopyDefaults copies a subset of the columns: the others get their
// defaults (a serial, constants, now()), as with INSERT.
func TestCopyDefaults(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE ev (id serial PRIMARY KEY, kind text NOT NULL DEFAULT 'note', body text, n int DEFAULT 7, made timestamptz DEFAULT now())`)
	mustExec(t, conn, `INSERT INTO ev (body) VALUES ('first')`)
	tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("second\n\\N\nthird\n"), "COPY ev (body) FROM STDIN")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("COPY: %q, %v", tag, err)
	}
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("fourth|task\n"), `COPY ev (body, kind) FROM STDIN DELIMITER '|'`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT id, kind, coalesce(body, 'NULL'), n, made > now() - interval '1 hour' FROM ev ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id, n int
		var kind, body string
		var recent bool
		err := r.Scan(&id, &kind, &body, &n, &recent)
		return fmt.Sprintf("%d %s %s %d %v", id, kind, body, n, recent), err
	})
	want := []string{"1 note first 7 true", "2 note second 7 true", "3 note NULL 7 true", "4 note third 7 true", "5 task fourth 7 true"}
	if err != nil || strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("rows: %q, %v\nwant %q", got, err, want)
	}
}

// copyErr runs a COPY FROM STDIN of data and returns its error.
func copyErr(conn *pgx.Conn, sql, data string) *pgconn.PgError {
	_, err := conn.PgConn().CopyFrom(context.Background(), strings.NewReader(data), sql)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// endlessRows is a reader of CSV rows "n,x" that never ends: a COPY that
// fails must stop the client, not wait for the data's end.
type endlessRows struct {
	n   int
	buf []byte
}

func (r *endlessRows) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) {
		r.n++
		r.buf = fmt.Appendf(r.buf, "%d,row %d\n", r.n, r.n)
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestCopyErrors checks that a failing COPY inserts nothing, reports
// PostgreSQL's SQLSTATE, message and context, and leaves the connection
// usable.
func TestCopyErrors(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE p (id int PRIMARY KEY)`)
	mustExec(t, conn, `INSERT INTO p VALUES (1), (2)`)
	mustExec(t, conn, `CREATE TABLE c (id int PRIMARY KEY, v text NOT NULL, p int REFERENCES p, n int CHECK (n > 0), s varchar(3))`)
	mustExec(t, conn, `INSERT INTO c VALUES (100, 'existing', 1, 1, 'abc')`)
	csv := "COPY c FROM STDIN (FORMAT csv)"
	for _, c := range []struct {
		name, copy, data string
		code, msg, where string
	}{
		{"bad integer on line 3", csv, "1,a,1,1,x\n2,b,1,1,x\nthree,c,1,1,x\n4,d,1,1,x\n",
			"22P02", `invalid input syntax for type integer: "three"`, `COPY c, line 3, column id: "three"`},
		{"too few columns", csv, "1,a,1,1,x\n2,b\n", "22P04", `missing data for column "p"`, `COPY c, line 2: "2,b"`},
		{"too many columns", csv, "1,a,1,1,x,extra\n", "22P04", "extra data after last expected column", `COPY c, line 1: "1,a,1,1,x,extra"`},
		{"value too long", csv, "1,a,1,1,abcd\n", "22001", "value too long for type character varying(3)", `COPY c, line 1, column s: "abcd"`},
		// A constraint names the line of the row that broke it (and the
		// row, but for a duplicate key), as PostgreSQL's CONTEXT.
		{"duplicate key in the data", csv, "1,a,1,1,x\n1,b,1,1,x\n", "23505", `duplicate key value violates unique constraint "c_pkey"`, "COPY c, line 2"},
		{"duplicate of a row", csv, "1,a,1,1,x\n100,b,1,1,x\n", "23505", `duplicate key value violates unique constraint "c_pkey"`, "COPY c, line 2"},
		{"not null", csv, "1,,1,1,x\n", "23502", `null value in column "v" of relation "c" violates not-null constraint`, `COPY c, line 1: "1,,1,1,x"`},
		{"check", csv, "1,a,1,0,x\n", "23514", `new row for relation "c" violates check constraint "c_n_check"`, `COPY c, line 1: "1,a,1,0,x"`},
		{"check before a later null", csv, "1,a,1,1,x\n2,b,1,-1,x\n3,,1,1,x\n", "23514", `new row for relation "c" violates check constraint "c_n_check"`, `COPY c, line 2: "2,b,1,-1,x"`},
		{"null before a later check", csv, "1,a,1,1,x\n2,,1,1,x\n3,b,1,-1,x\n", "23502", `null value in column "v" of relation "c" violates not-null constraint`, `COPY c, line 2: "2,,1,1,x"`},
		{"quoted newline before the row", csv, "1,\"a\nb\",1,1,x\n2,b,1,0,x\n", "23514", `new row for relation "c" violates check constraint "c_n_check"`, `COPY c, line 2: "2,b,1,0,x"`},
		{"check in a later chunk", csv, manyRows(5000, 4321, "0"), "23514", `new row for relation "c" violates check constraint "c_n_check"`, `COPY c, line 4321: "5321,v,1,0,x"`},
		{"duplicate in a later chunk", csv, manyRows(5000, 0, "1") + "5999,v,1,1,x\n", "23505", `duplicate key value violates unique constraint "c_pkey"`, "COPY c, line 5001"},
		{"text format", "COPY c FROM STDIN", "1\ta\t1\t1\tx\n2\t\\N\t1\t1\tx\n", "23502", `null value in column "v" of relation "c" violates not-null constraint`, "COPY c, line 2: \"2\t\\N\t1\t1\tx\""},
		{"foreign key", csv, "1,a,3,1,x\n", "23503", `insert or update on table "c" violates foreign key constraint "c_p_fkey"`, ""},
		{"unterminated quote", csv, "1,\"a\n", "22P04", "unterminated CSV quoted field", "COPY c, line 1: \"1,\"a\n\""},
		{"server-side file", "COPY c FROM '/etc/passwd'", "", "0A000", "COPY FROM a server-side file is not supported", ""},
		{"program", "COPY c TO PROGRAM 'cat'", "", "0A000", "COPY TO PROGRAM is not supported", ""},
		{"option", "COPY c FROM STDIN (FORMAT xml)", "", "22023", `COPY format "xml" not recognized`, ""},
	} {
		pe := copyErr(conn, c.copy, c.data)
		if pe == nil || pe.Code != c.code || pe.Message != c.msg || pe.Where != c.where {
			t.Errorf("%s: got %+v\nwant %s %s (context %q)", c.name, pe, c.code, c.msg, c.where)
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM c`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("%s: after the error: %d rows, %v", c.name, n, err)
		}
	}

	// In binary format (pgx's CopyFrom) the CONTEXT names the tuple.
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"c"}, []string{"id", "v", "n"},
		pgx.CopyFromRows([][]any{{201, "a", 1}, {202, "b", 2}, {203, "c", -3}}))
	var bpe *pgconn.PgError
	if !errors.As(err, &bpe) || bpe.Code != "23514" || bpe.Where != "COPY c, line 3" {
		t.Errorf("binary COPY check violation: %v (%+v)", err, bpe)
	}

	// The error comes while the client is still sending: it stops.
	mustExec(t, conn, `CREATE TABLE big (id int, v text)`)
	r := &endlessRows{}
	r.buf = []byte("1,x\n2,y\nnot a number,z\n")
	done := make(chan *pgconn.PgError, 1)
	go func() {
		_, err := conn.PgConn().CopyFrom(ctx, r, "COPY big FROM STDIN (FORMAT csv)")
		var pe *pgconn.PgError
		errors.As(err, &pe)
		done <- pe
	}()
	select {
	case pe := <-done:
		if pe == nil || pe.Code != "22P02" || pe.Where != `COPY big, line 3, column id: "not a number"` {
			t.Fatalf("endless COPY: %+v", pe)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the client did not learn of the error while sending")
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM big`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("big: %d rows, %v", n, err)
	}

	// The client gives up: CopyFail.
	_, err = conn.PgConn().CopyFrom(ctx, io.MultiReader(strings.NewReader("1,x\n"), &failingReader{}), "COPY big FROM STDIN (FORMAT csv)")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "COPY from stdin failed: the source broke" {
		t.Fatalf("CopyFail: %v", err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM big`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("big after CopyFail: %d rows, %v", n, err)
	}
}

// manyRows is n CSV rows of table c with ids 1001..1000+n, the one on
// line bad having n = badN.
func manyRows(n, bad int, badN string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		v := "1"
		if i == bad {
			v = badN
		}
		fmt.Fprintf(&b, "%d,v,1,%s,x\n", 1000+i, v)
	}
	return b.String()
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("the source broke") }

// TestCopyTransaction checks that COPY runs in the session's transaction:
// its rows go with ROLLBACK, and a failed COPY aborts the transaction.
func TestCopyTransaction(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE tx (id int PRIMARY KEY, v text)`)
	mustExec(t, conn, `BEGIN`)
	mustExec(t, conn, `INSERT INTO tx VALUES (1, 'insert')`)
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("2\tcopy\n3\tcopy\n"), "COPY tx FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("inside the transaction: %d rows, %v", n, err)
	}
	// COPY TO sees the transaction's rows.
	var out bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY tx TO STDOUT"); err != nil || out.String() != "1\tinsert\n2\tcopy\n3\tcopy\n" {
		t.Fatalf("COPY TO in the transaction: %q, %v", out.String(), err)
	}
	mustExec(t, conn, `ROLLBACK`)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after ROLLBACK: %d rows, %v", n, err)
	}

	mustExec(t, conn, `BEGIN`)
	mustExec(t, conn, `INSERT INTO tx VALUES (1, 'kept')`)
	if pe := copyErr(conn, "COPY tx FROM STDIN", "2\tx\n1\tdup\n"); pe == nil || pe.Code != "23505" {
		t.Fatalf("duplicate in a transaction: %+v", pe)
	}
	if _, err := conn.Exec(ctx, `SELECT 1`); sqlState(err) != "25P02" {
		t.Fatalf("after a failed COPY: %v, want 25P02", err)
	}
	if pe := copyErr(conn, "COPY tx FROM STDIN", "5\tx\n"); pe == nil || pe.Code != "25P02" {
		t.Fatalf("COPY in an aborted transaction: %+v", pe)
	}
	mustExec(t, conn, `ROLLBACK`)

	// Outside BEGIN a COPY commits on its own.
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("7\tseven\n"), "COPY tx FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	other := startServerConn(t, conn)
	if err := other.QueryRow(ctx, `SELECT count(*) FROM tx`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("seen from another session: %d rows, %v", n, err)
	}
}

// TestCopyFreeze checks COPY FREEZE against PostgreSQL's rule: allowed on
// a table the transaction created or truncated, else 55000 once the copy
// has begun (the data is taken as COPY data and dropped; psql would
// otherwise read it as statements).
func TestCopyFreeze(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE fz (a int)`)
	if pe := copyErr(conn, "COPY fz FROM STDIN (FREEZE)", "1\n"); pe == nil || pe.Code != "55000" {
		t.Fatalf("FREEZE on an old table: %+v, want 55000", pe)
	}
	mustExec(t, conn, `BEGIN`)
	mustExec(t, conn, `TRUNCATE fz`)
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1\n2\n"), "COPY fz FROM STDIN (FREEZE true)"); err != nil {
		t.Fatalf("FREEZE after TRUNCATE: %v", err)
	}
	mustExec(t, conn, `CREATE TABLE fz2 (a int)`)
	if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("3\n"), "COPY fz2 FROM STDIN (FREEZE)"); err != nil {
		t.Fatalf("FREEZE on a table created in the transaction: %v", err)
	}
	mustExec(t, conn, `COMMIT`)
	var n, sum int
	if err := conn.QueryRow(ctx, `SELECT count(*), sum(a) FROM (SELECT a FROM fz UNION ALL SELECT a FROM fz2) u`).Scan(&n, &sum); err != nil || n != 3 || sum != 6 {
		t.Fatalf("after COMMIT: %d rows summing to %d, %v", n, sum, err)
	}
	// COPY TO accepts the option and ignores it, as PostgreSQL does.
	var out bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &out, "COPY fz2 TO STDOUT (FREEZE)"); err != nil || out.String() != "3\n" {
		t.Fatalf("COPY TO with FREEZE: %q, %v", out.String(), err)
	}
	// The session is usable after the refused COPY's data was dropped.
	if pe := copyErr(conn, "COPY fz FROM STDIN (FREEZE)", "7\n8\n"); pe == nil || pe.Code != "55000" {
		t.Fatalf("FREEZE outside a transaction: %+v", pe)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM fz`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the refused COPY: %d rows, %v", n, err)
	}
}

// startServerConn opens a second connection to the server of conn.
func startServerConn(t *testing.T, conn *pgx.Conn) *pgx.Conn {
	t.Helper()
	cfg := conn.Config()
	other, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close(context.Background()) })
	return other
}

// TestCopyFromRows loads rows with pgx's CopyFrom, which sends COPY FROM
// STDIN in the binary format, and reads them back in binary with COPY TO.
func TestCopyFromRows(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE mem (id bigserial PRIMARY KEY, task text NOT NULL, embedding float4[], meta jsonb, at timestamptz, tag varchar(4))`)
	at := time.Date(2024, 5, 6, 7, 8, 9, 123000, time.UTC)
	rows := [][]any{
		{"first", []float32{0.1, 0.2}, map[string]any{"k": "v"}, at, "a"},
		{"tab\tnewline\n\\", nil, nil, nil, nil},
		{"third", []float32{}, []any{1.0, "x"}, at.Add(time.Hour), "abcd"},
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"mem"}, []string{"task", "embedding", "meta", "at", "tag"}, pgx.CopyFromRows(rows))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	var got []string
	res, err := conn.Query(ctx, `SELECT id, task, embedding::text, meta::text, at, tag FROM mem ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for res.Next() {
		var id int64
		var task string
		var emb, meta, tag *string
		var ts *time.Time
		if err := res.Scan(&id, &task, &emb, &meta, &ts, &tag); err != nil {
			t.Fatal(err)
		}
		when := "NULL"
		if ts != nil {
			when = ts.UTC().Format(time.RFC3339Nano)
		}
		got = append(got, fmt.Sprintf("%d|%s|%s|%s|%s|%s", id, task, deref(emb), deref(meta), when, deref(tag)))
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1|first|{0.1,0.2}|{\"k\": \"v\"}|2024-05-06T07:08:09.000123Z|a",
		"2|tab\tnewline\n\\|NULL|NULL|NULL|NULL",
		"3|third|{}|[1, \"x\"]|2024-05-06T08:08:09.000123Z|abcd",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A value the column refuses names the tuple and column.
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"mem"}, []string{"task", "tag"}, pgx.CopyFromRows([][]any{{"ok", "abc"}, {"long", "abcde"}}))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22001" || pe.Where != "COPY mem, line 2, column tag" {
		t.Fatalf("too long in binary: %v (%+v)", err, pe)
	}
	// Binary COPY TO reads back what binary COPY FROM wrote.
	var bin bytes.Buffer
	if _, err := conn.PgConn().CopyTo(ctx, &bin, "COPY mem (task, embedding) TO STDOUT (FORMAT binary)"); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `CREATE TABLE mem2 (task text, embedding float4[])`)
	if tag, err := conn.PgConn().CopyFrom(ctx, &bin, "COPY mem2 FROM STDIN (FORMAT binary)"); err != nil || tag.String() != "COPY 3" {
		t.Fatalf("binary round trip: %q, %v", tag, err)
	}
	var same bool
	if err := conn.QueryRow(ctx, `SELECT count(*) = 3 FROM mem JOIN mem2 USING (task) WHERE mem.embedding IS NOT DISTINCT FROM mem2.embedding`).Scan(&same); err != nil || !same {
		t.Fatalf("binary round trip differs: %v", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// TestPsqlCopy runs psql's \copy, which sends COPY FROM STDIN and COPY TO
// STDOUT with the data of client-side files, and COPY FROM STDIN with data
// inline in a script.
func TestPsqlCopy(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql is not installed (.ci/run installs postgresql-client)")
	}
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	out := filepath.Join(dir, "out.csv")
	data := "1,plain,\"{0.1,0.2}\"\n2,\"with \"\"quotes\"\", a comma\nand a newline\",\n3,\"\",{}\n"
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `CREATE TABLE notes (id int PRIMARY KEY, body text, emb float4[]);
\copy notes FROM '` + in + `' WITH (FORMAT csv)
COPY notes (id, body) FROM STDIN;
4	inline\ttab
\.
\copy (SELECT id, body, emb FROM notes ORDER BY id) TO '` + out + `' CSV
\copy notes FROM '` + in + `' WITH (FORMAT csv)
SELECT count(*) AS n FROM notes;
`
	cmd := exec.Command(psql, "-X", "-h", host, "-p", port, "-U", "cairn", "-d", "cairn", "-v", "VERBOSITY=verbose", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	outText, _ := cmd.CombinedOutput()
	text := string(outText)
	for _, want := range []string{
		"COPY 3",
		"COPY 1",
		"COPY 4",
		`ERROR:  23505: duplicate key value violates unique constraint "notes_pkey"`,
		" n \n---\n 4\n(1 row)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("psql output lacks %q:\n%s", want, text)
		}
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "1,plain,\"{0.1,0.2}\"\n2,\"with \"\"quotes\"\", a comma\nand a newline\",\n3,\"\",{}\n4,inline\ttab,\n"
	if string(got) != want {
		t.Errorf("out.csv:\n got %q\nwant %q", got, want)
	}
}

// TestCopyJSONB loads jsonb in text, CSV and binary COPY: documents
// already in jsonb's printed form are stored as they are, others are
// normalised as jsonb's input function does (the expected texts are
// PostgreSQL 15's), and a bad document fails the COPY with 22P02.
func TestCopyJSONB(t *testing.T) {
	conn := startServer(t, "").connect(t)
	ctx := context.Background()
	docs := []struct{ in, want string }{
		{`{"n": 3, "repo": "cairn", "tags": ["a", "b"]}`, `{"n": 3, "repo": "cairn", "tags": ["a", "b"]}`},
		{`{"repo":"cairn","tags":["a","b"],"n":3}`, `{"n": 3, "repo": "cairn", "tags": ["a", "b"]}`},
		{`{"n": 3, "n": 4, "repo": "x"}`, `{"n": 4, "repo": "x"}`},
		{`{ "a" : 1.0e1 , "b":-0}`, `{"a": 10, "b": 0}`},
		{`["\u0041\/", "\u001F", "\u001f\n"]`, `["A/", "\u001f", "\u001f\n"]`},
		{`{"z": 2, "é": 1.50}`, `{"z": 2, "é": 1.50}`},
		{`"just a string"`, `"just a string"`},
	}
	var text, csv, bin bytes.Buffer
	bin.WriteString("PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for i, d := range docs {
		fmt.Fprintf(&text, "%d\t%s\n", i, strings.ReplaceAll(d.in, `\`, `\\`))
		fmt.Fprintf(&csv, "%d,%s\n", i, csvQuote(&d.in))
		field := append([]byte{1}, d.in...)
		bin.Write([]byte{0, 2, 0, 0, 0, 4, 0, 0, 0, byte(i)})
		bin.Write([]byte{0, 0, byte(len(field) >> 8), byte(len(field))})
		bin.Write(field)
	}
	bin.Write([]byte{0xff, 0xff})
	for _, c := range []struct {
		format string
		data   []byte
	}{{"text", text.Bytes()}, {"csv", csv.Bytes()}, {"binary", bin.Bytes()}} {
		table := "j_" + c.format
		mustExec(t, conn, `CREATE TABLE `+table+` (id int, doc jsonb)`)
		if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(c.data), "COPY "+table+" FROM STDIN (FORMAT "+c.format+")"); err != nil {
			t.Fatalf("COPY %s: %v", c.format, err)
		}
		rows, err := conn.Query(ctx, `SELECT id, doc::text, doc->>'repo' FROM `+table+` ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int
			var doc string
			var repo *string
			if err := rows.Scan(&id, &doc, &repo); err != nil {
				t.Fatal(err)
			}
			if doc != docs[id].want {
				t.Errorf("%s: row %d: %s, want %s", c.format, id, doc, docs[id].want)
			}
			if (repo != nil) != strings.Contains(docs[id].want, `"repo": `) {
				t.Errorf("%s: row %d: doc->>'repo' is %v", c.format, id, repo)
			}
			n++
		}
		if err := rows.Err(); err != nil || n != len(docs) {
			t.Fatalf("%s: %d rows, %v", c.format, n, err)
		}
	}
	pe := copyErr(conn, "COPY j_csv FROM STDIN (FORMAT csv)", "10,\"{\"\"n\"\": 1}\"\n11,\"{\"\"a\"\":\"\n")
	if pe == nil || pe.Code != "22P02" || pe.Message != "invalid input syntax for type json" || !strings.Contains(pe.Where, "COPY j_csv, line 2, column doc") {
		t.Fatalf("a bad document: %+v", pe)
	}
}
