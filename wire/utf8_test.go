package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestInvalidUTF8 checks that text that is not valid UTF-8, or holds a
// NUL byte, is refused with 22021 and PostgreSQL's message naming the
// bytes wherever it enters: the query text (literals, identifiers), a
// prepared statement's text, text and binary parameters; and that the
// connection goes on.
func TestInvalidUTF8(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	ctx := testCtx(t)
	if err := c.Exec(ctx, "CREATE TABLE notes (id int, body text)").Close(); err != nil {
		t.Fatal(err)
	}
	const textOID, byteaOID = 25, 17
	const prefix = `invalid byte sequence for encoding "UTF8": `
	want := map[string]string{
		"literal in a query":               "0xff",
		"identifier":                       "0xc3 0x28",
		"truncated at the end":             "0xe2 0x82",
		"prepared text":                    "0xc3 0x28",
		"text parameter":                   "0xff",
		"NUL in a text parameter":          "0x00",
		"NUL in an untyped text parameter": "0x00",
		"binary text parameter":            "0xc3 0x28",
	}
	for name, run := range map[string]func() error{
		"literal in a query": func() error { return c.Exec(ctx, "SELECT '\xff'").Close() },
		"identifier":         func() error { return c.Exec(ctx, "SELECT 1 AS \"a\xc3\x28b\"").Close() },
		"truncated at the end": func() error {
			return c.Exec(ctx, "SELECT 'abc' -- \xe2\x82").Close()
		},
		"prepared text": func() error {
			_, err := c.Prepare(ctx, "", "SELECT '\xc3\x28' WHERE $1::int > 0", nil)
			return err
		},
		"text parameter": func() error {
			return c.ExecParams(ctx, "INSERT INTO notes VALUES (1, $1)", [][]byte{[]byte("ok \xff")}, []uint32{textOID}, nil, nil).Read().Err
		},
		"NUL in a text parameter": func() error {
			return c.ExecParams(ctx, "INSERT INTO notes VALUES (2, $1)", [][]byte{[]byte("a\x00b")}, []uint32{textOID}, nil, nil).Read().Err
		},
		"NUL in an untyped text parameter": func() error {
			return c.ExecParams(ctx, "INSERT INTO notes VALUES (3, $1)", [][]byte{[]byte("a\x00b")}, nil, nil, nil).Read().Err
		},
		"binary text parameter": func() error {
			return c.ExecParams(ctx, "INSERT INTO notes VALUES (4, $1)", [][]byte{[]byte("\xc3\x28")}, []uint32{textOID}, []int16{1}, nil).Read().Err
		},
	} {
		err := run()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22021" || pe.Message != prefix+want[name] {
			t.Errorf("%s: got %v, want 22021 %s%s", name, err, prefix, want[name])
		}
	}
	// NUL bytes in bytea are data, not text.
	if err := c.ExecParams(ctx, "SELECT $1::bytea", [][]byte{[]byte("\\x00ff")}, []uint32{byteaOID}, nil, nil).Read().Err; err != nil {
		t.Errorf("bytea parameter: %v", err)
	}
	res := c.ExecParams(ctx, "SELECT count(*) FROM notes", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "0" {
		t.Errorf("after the errors: %v %q, want no rows stored", res.Err, res.Rows)
	}
}

// TestHTTPInvalidUTF8 checks that an HTTP request body that is not valid
// UTF-8 is a 400 with 22021 rather than text with U+FFFD in it (what
// encoding/json would make of it), and that a JSON escape making a NUL
// in a text parameter, an element of an array parameter or the query
// text is 22021 too.
func TestHTTPInvalidUTF8(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
	defer hs.Close()
	post := func(path, body string) (int, errorBody) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e errorBody
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}
	const prefix = `invalid byte sequence for encoding "UTF8": `
	for name, c := range map[string]struct{ path, body, bytes string }{
		"query text":    {"/workspaces/w/tables/query", "{\"query\": \"SELECT '\xff'\"}", "0xff"},
		"parameter":     {"/workspaces/w/tables/query", "{\"query\": \"SELECT $1::text\", \"params\": [\"a\xc3\x28\"]}", "0xc3 0x28"},
		"NUL parameter": {"/workspaces/w/tables/query", `{"query": "SELECT $1::text", "params": ["a\u0000b"]}`, "0x00"},
		// An array element's escape too: the MCP tools' tags come this
		// way, and a text[] element with a NUL was stored.
		"NUL array element": {"/workspaces/w/tables/query", `{"query": "SELECT $1::text[]", "params": [["ok", "a\u0000b"]]}`, "0x00"},
		// The parser reads a C string: what follows a NUL must not be
		// dropped silently (this ran SELECT 1).
		"NUL in query text": {"/workspaces/w/tables/query", `{"query": "SELECT 1\u0000 garbage"}`, "0x00"},
		"batch":             {"/workspaces/w/tables/query/batch", "{\"query\": \"SELECT $1::text\", \"params_batch\": [[\"\xe2\x82\"]]}", "0xe2 0x82 0x22"},
		"ingest":            {"/workspaces/w/tables/notes/ingest", "{\"body\": [\"ok\", \"\xf0\x9f\x98\"]}", "0xf0 0x9f 0x98 0x22"},
	} {
		status, e := post(c.path, c.body)
		if status != http.StatusBadRequest || e.SQLState != "22021" || !strings.HasSuffix(e.Error, prefix+c.bytes) {
			t.Errorf("%s: %d %+v, want 400 22021 %s%s", name, status, e, prefix, c.bytes)
		}
	}
	if status, e := post("/workspaces/w/tables/query", `{"query": "SELECT 1"}`); status != http.StatusOK {
		t.Errorf("a good request after: %d %+v", status, e)
	}
}

// TestCopyInvalidUTF8 checks COPY FROM data: a field that is not UTF-8,
// raw or escaped, or holds a NUL is 22021 naming the bytes, and the
// error's CONTEXT quotes the line only when the line itself is valid text
// (as PostgreSQL: the error must be UTF-8 for the client to read it).
func TestCopyInvalidUTF8(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	ctx := testCtx(t)
	if err := c.Exec(ctx, "CREATE TABLE notes (id int, body text)").Close(); err != nil {
		t.Fatal(err)
	}
	const prefix = `invalid byte sequence for encoding "UTF8": `
	for _, tc := range []struct{ copy, data, bytes, where string }{
		{"COPY notes FROM STDIN", "1\tok\n2\tbad\xff\n", "0xff", "COPY notes, line 2"},
		{"COPY notes FROM STDIN", "3\tnul\\000x\n", "0x00", "COPY notes, line 1: \"3\tnul\\000x\""},
		{"COPY notes FROM STDIN", "4\tescaped \\xc3\\x28\n", "0xc3 0x28", "COPY notes, line 1: \"4\tescaped \\xc3\\x28\""},
		{"COPY notes FROM STDIN (FORMAT csv)", "5,\"a\xc3\x28\"\n", "0xc3 0x28", "COPY notes, line 1"},
		{"COPY notes FROM STDIN (FORMAT csv)", "6,a\x00b\n", "0x00", "COPY notes, line 1"},
	} {
		_, err := c.CopyFrom(ctx, strings.NewReader(tc.data), tc.copy)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22021" || pe.Message != prefix+tc.bytes || pe.Where != tc.where {
			t.Errorf("%s %q: got %v (where %q), want 22021 %s (where %q)", tc.copy, tc.data, err, whereOf(err), tc.bytes, tc.where)
		}
	}
	res := c.ExecParams(ctx, "SELECT count(*) FROM notes", nil, nil, nil, nil).Read()
	if res.Err != nil || string(res.Rows[0][0]) != "0" {
		t.Errorf("rows stored: %v %q", res.Err, res.Rows)
	}
}

func whereOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Where
	}
	return ""
}
