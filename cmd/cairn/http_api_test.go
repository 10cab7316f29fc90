package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-db/cairn/wire"
)

// httpAPI drives the HTTP API of a test server, served from a loopback
// listener as main serves it.
type httpAPI struct {
	t      *testing.T
	base   string
	token  string      // sent as a bearer token when set
	header http.Header // sent with every request
}

// startHTTP serves the HTTP API of ts until the test ends.
func startHTTP(t *testing.T, ts *testServer, opts wire.HTTPOptions) *httpAPI {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	hs := httptest.NewServer(wire.HTTPHandler(ts.srv.Engine, opts))
	t.Cleanup(hs.Close)
	return &httpAPI{t: t, base: hs.URL, token: opts.Token}
}

// do sends a request; body is sent as is when a string, JSON-encoded
// otherwise, and nothing when nil. It returns the status, the headers and
// the body.
func (c *httpAPI) do(method, path string, body any) (int, http.Header, []byte) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, out
}

// expect sends a request and checks the status and the JSON answer
// (compared as JSON: key order and spacing do not matter, numbers are
// compared as written).
func (c *httpAPI) expect(method, path string, body any, status int, want string) {
	c.t.Helper()
	got, _, out := c.do(method, path, body)
	if got != status || canonJSON(c.t, string(out)) != canonJSON(c.t, want) {
		c.t.Fatalf("%s %s %v:\n got %d %s\nwant %d %s", method, path, body, got, out, status, want)
	}
}

// query runs a statement in workspace ws and returns the answer, failing
// the test unless it is a 200.
func (c *httpAPI) query(ws, sql string, params ...any) queryAnswer {
	c.t.Helper()
	body := map[string]any{"query": sql}
	if params != nil {
		body["params"] = params
	}
	status, _, out := c.do("POST", "/workspaces/"+ws+"/tables/query", body)
	if status != http.StatusOK {
		c.t.Fatalf("%s: %d %s", sql, status, out)
	}
	var a queryAnswer
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		c.t.Fatalf("%s: %v in %s", sql, err, out)
	}
	return a
}

// queryAnswer is the answer of /tables/query, numbers as written.
type queryAnswer struct {
	Columns  []string `json:"columns"`
	Rows     [][]any  `json:"rows"`
	RowCount int64    `json:"row_count"`
}

// canonJSON re-encodes a JSON text with sorted keys and no spacing.
func canonJSON(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "invalid JSON: " + s
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// num reads a JSON number of an answer.
func num(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHTTPIngestAndQuery ingests a table with a column of every inferred
// type, reads it back typed, searches it with parameters and appends to it.
func TestHTTPIngestAndQuery(t *testing.T) {
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{})
	c.expect("POST", "/workspaces/agent/tables/memories/ingest", `{
		"id":        [1, 2, 3],
		"content":   ["postgres stores rows", "agents remember things", "vectors and keywords"],
		"weight":    [0.5, 1, 2.25],
		"pinned":    [true, false, null],
		"meta":      [{"topic": "db"}, {"topic": "agents"}, {"topic": "db", "n": 2}],
		"embedding": [[1, 0, 0], [0, 1, 0], [0.6, 0.8, 0]],
		"tags":      [["a", "b"], [], null],
		"patches":   [[[1, 2], [3, 4]], null, [[5, 6], [7, 8]]]
	}`, 200, `{"table_name": "memories", "row_count": 3}`)

	// The inferred types, as a PostgreSQL client sees them.
	conn := ts.connect(t)
	rows, err := conn.Query(context.Background(), `SELECT column_name, data_type, udt_name FROM information_schema.columns
		WHERE table_schema = 'agent' AND table_name = 'memories' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, typ, udt string
		if err := rows.Scan(&name, &typ, &udt); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+" "+typ+" "+udt)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"id bigint int8", "content text text", "weight double precision float8", "pinned boolean bool",
		"meta jsonb jsonb", "embedding ARRAY _float4", "tags ARRAY _text", "patches ARRAY _float4"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("columns:\n got %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}

	// Every type comes back as the JSON it went in as.
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "SELECT * FROM memories ORDER BY id"}`, 200, `{
		"columns": ["id", "content", "weight", "pinned", "meta", "embedding", "tags", "patches"],
		"rows": [
			[1, "postgres stores rows", 0.5, true, {"topic": "db"}, [1, 0, 0], ["a", "b"], [[1, 2], [3, 4]]],
			[2, "agents remember things", 1, false, {"topic": "agents"}, [0, 1, 0], [], null],
			[3, "vectors and keywords", 2.25, null, {"n": 2, "topic": "db"}, [0.6, 0.8, 0], null, [[5, 6], [7, 8]]]
		],
		"row_count": 3}`)

	// A cosine search with a float4[] query vector, a jsonb filter and a
	// LIMIT, all parameters; the binder types each from its use.
	a := c.query("agent", `SELECT id, meta->>'topic' AS topic, embedding <#> $1::float4[] AS score FROM memories
		WHERE meta @> $2 ORDER BY score DESC LIMIT $3`, []float64{1, 0, 0}, map[string]string{"topic": "db"}, 5)
	if strings.Join(a.Columns, ",") != "id,topic,score" || a.RowCount != 2 || len(a.Rows) != 2 {
		t.Fatalf("search: %+v", a)
	}
	for i, w := range []struct {
		id    float64
		score float64
	}{{1, 1}, {3, 0.6}} {
		if num(t, a.Rows[i][0]) != w.id || a.Rows[i][1] != "db" || math.Abs(num(t, a.Rows[i][2])-w.score) > 1e-6 {
			t.Errorf("search row %d = %v, want id %v score %v", i, a.Rows[i], w.id, w.score)
		}
	}
	// Without the cast, the vector's type comes from the column.
	if a := c.query("agent", `SELECT id FROM memories ORDER BY embedding <#> $1 DESC LIMIT 1`, []float64{0, 1, 0}); num(t, a.Rows[0][0]) != 2 {
		t.Errorf("uncast query vector: %v", a.Rows)
	}
	// Text, boolean and array parameters.
	if a := c.query("agent", `SELECT id FROM memories WHERE content LIKE $1 AND pinned = $2 AND tags @> $3`, "%rows", true, []string{"b"}); len(a.Rows) != 1 || num(t, a.Rows[0][0]) != 1 {
		t.Errorf("filters: %v", a.Rows)
	}

	// Ingesting into the existing table appends, matching columns by
	// name; the others are NULL.
	c.expect("POST", "/workspaces/agent/tables/memories/ingest", `{"content": ["appended"], "id": [4]}`, 200,
		`{"table_name": "memories", "row_count": 1}`)
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "SELECT id, content, embedding FROM memories WHERE id > $1", "params": [3]}`, 200,
		`{"columns": ["id", "content", "embedding"], "rows": [[4, "appended", null]], "row_count": 1}`)

	// DML answers count the rows affected; RETURNING answers with rows.
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "UPDATE memories SET pinned = $1 WHERE meta->>'topic' = $2", "params": [true, "db"]}`, 200,
		`{"columns": [], "rows": [], "row_count": 2}`)
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "DELETE FROM memories WHERE id = $1 RETURNING id, pinned", "params": [3]}`, 200,
		`{"columns": ["id", "pinned"], "rows": [[3, true]], "row_count": 1}`)
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "CREATE INDEX IF NOT EXISTS mem_emb ON memories USING deeplake_index (embedding)"}`, 200,
		`{"columns": [], "rows": [], "row_count": 0}`)
	// Values JSON has no literal for: NaN and infinities as strings;
	// timestamps, dates and the like in PostgreSQL's text output.
	c.expect("POST", "/workspaces/agent/tables/query", `{"query": "SELECT 'NaN'::float8 AS nan, '-Infinity'::float4 AS ninf, 1.50::numeric AS n, DATE '2024-02-29' AS d, TIMESTAMPTZ '2024-02-29 12:00:00+02' AS ts, '\\x01ff'::bytea AS b, NULL AS nothing, 2 + 2"}`, 200,
		`{"columns": ["nan", "ninf", "n", "d", "ts", "b", "nothing", "?column?"],
		  "rows": [["NaN", "-Infinity", 1.50, "2024-02-29", "2024-02-29 10:00:00+00", "\\x01ff", null, 4]], "row_count": 1}`)
}

// TestHTTPHybridSearch loads pg_deeplake's hybrid search corpus through
// ingest and reproduces its fused scores (SPEC §3.3) with the query
// vector and text as parameters.
func TestHTTPHybridSearch(t *testing.T) {
	c := startHTTP(t, startServer(t, ""), wire.HTTPOptions{})
	ids := make([]int, len(searchKeywords))
	embs := make([][]float64, len(searchKeywords))
	for i := range searchKeywords {
		ids[i] = i + 1
		embs[i] = make([]float64, 5)
		for j := range embs[i] {
			embs[i][j] = math.Round(float64(i+1+j)) / 10
		}
	}
	c.expect("POST", "/workspaces/search/tables/documents/ingest",
		map[string]any{"id": ids, "embedding_1d": embs, "keywords": searchKeywords},
		200, `{"table_name": "documents", "row_count": 26}`)
	a := c.query("search", `SELECT id, (embedding_1d, keywords)::deeplake_hybrid_record <#> deeplake_hybrid_record($1::float4[], $2, 0.5, 0.5) AS score
		FROM documents ORDER BY score DESC LIMIT 10`, []float64{0.1, 0.2, 0.3, 0.4, 0.5}, "machine learning")
	want := ranking([]int{1, 10, 3, 2, 4, 5, 6, 7, 8, 9},
		[]float32{0.51680136, 0.0675575, 0.06673473, 0.051201202, 0.050353017, 0.04999321, 0.04968867, 0.049431425, 0.049212944, 0.049025923})
	if len(a.Rows) != len(want) {
		t.Fatalf("hybrid: %v", a.Rows)
	}
	for i, w := range want {
		if int(num(t, a.Rows[i][0])) != w.id || math.Abs(num(t, a.Rows[i][1])-float64(w.score)) > 1e-6 {
			t.Errorf("hybrid row %d = %v, want %+v", i, a.Rows[i], w)
		}
	}
}

// TestHTTPBatch runs a statement for many parameter lists in one
// transaction: all of them or none.
func TestHTTPBatch(t *testing.T) {
	c := startHTTP(t, startServer(t, ""), wire.HTTPOptions{})
	c.query("ws", `CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL, emb real[])`)
	batch := func(sql string, params ...[]any) map[string]any {
		return map[string]any{"query": sql, "params_batch": params}
	}
	insert := `INSERT INTO notes VALUES ($1, $2, $3)`
	c.expect("POST", "/workspaces/ws/tables/query/batch", batch(insert,
		[]any{1, "a", []float64{1, 2}}, []any{2, "b", nil}, []any{3, "c", []float64{0, 1}}), 200, `{"row_count": 3}`)
	count := func() float64 { return num(t, c.query("ws", `SELECT count(*) FROM notes`).Rows[0][0]) }
	if n := count(); n != 3 {
		t.Fatalf("%v rows after the batch", n)
	}

	// A failing item rolls back the items before it, and says which.
	for _, tc := range []struct {
		body     map[string]any
		sqlstate string
		msg      string
	}{
		{batch(insert, []any{4, "d", nil}, []any{1, "dup", nil}), "23505", "params_batch[1]: duplicate key value"},
		{batch(insert, []any{5, "e", nil}, []any{"x", "f", nil}), "22P02", `params_batch[1]: parameter $1: invalid input syntax for type integer: "x"`},
		{batch(insert, []any{6, "f", nil}, []any{7, nil, nil}), "23502", "params_batch[1]: "},
		{batch(insert, []any{8, "g", nil}, []any{9}), "42P02", "params_batch[1]: there is no parameter $2"},
	} {
		status, _, out := c.do("POST", "/workspaces/ws/tables/query/batch", tc.body)
		var e struct{ Error, Code, SQLState string }
		json.Unmarshal(out, &e)
		if status != 400 || e.Code != "QUERY_ERROR" || e.SQLState != tc.sqlstate || !strings.HasPrefix(e.Error, tc.msg) {
			t.Errorf("%v: %d %s, want 400 %s %q...", tc.body["params_batch"], status, out, tc.sqlstate, tc.msg)
		}
		if n := count(); n != 3 {
			t.Fatalf("%v rows after a failed batch", n)
		}
	}

	// row_count adds up the rows every item affected.
	c.expect("POST", "/workspaces/ws/tables/query/batch", batch(`UPDATE notes SET body = $2 WHERE id = $1`,
		[]any{1, "A"}, []any{2, "B"}, []any{99, "nobody"}), 200, `{"row_count": 2}`)
	c.expect("POST", "/workspaces/ws/tables/query/batch", batch(`DELETE FROM notes WHERE id = $1 RETURNING id`,
		[]any{3}), 200, `{"row_count": 1}`)
	c.expect("POST", "/workspaces/ws/tables/query/batch", batch(insert), 200, `{"row_count": 0}`)
	c.expect("POST", "/workspaces/ws/tables/query", `{"query": "SELECT id, body, emb FROM notes ORDER BY id"}`, 200,
		`{"columns": ["id", "body", "emb"], "rows": [[1, "A", [1, 2]], [2, "B", null]], "row_count": 2}`)
}

// TestHTTPTables lists and drops a workspace's tables.
func TestHTTPTables(t *testing.T) {
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{})
	conn := ts.connect(t)

	// Listing a workspace that has never been written to creates nothing.
	c.expect("GET", "/workspaces/fresh/tables", nil, 200, `{"tables": []}`)
	c.query("fresh", `SELECT 1`)
	var schemas int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'fresh'`).Scan(&schemas); err != nil || schemas != 0 {
		t.Errorf("reads created the workspace: %d schemas, %v", schemas, err)
	}

	c.query("w", `CREATE TABLE b (x int)`)
	c.query("w", `CREATE TABLE a (x int)`)
	c.expect("POST", `/workspaces/w/tables/My%20%22Table%22/ingest`, `{"x": [1]}`, 200, `{"table_name": "My \"Table\"", "row_count": 1}`)
	// A name past 63 bytes names the table of its first 63, as CREATE
	// TABLE truncates it: the answer says which.
	long := strings.Repeat("n", 100)
	c.expect("POST", "/workspaces/long/tables/"+long+"/ingest", `{"x": [1]}`, 200, `{"table_name": "`+long[:63]+`", "row_count": 1}`)
	c.query("other", `CREATE TABLE z (x int)`)
	mustExec(t, conn, `CREATE TABLE in_public (x int)`)
	c.expect("GET", "/workspaces/w/tables", nil, 200,
		`{"tables": [{"table_name": "My \"Table\""}, {"table_name": "a"}, {"table_name": "b"}]}`)

	c.expect("DELETE", "/workspaces/w/tables/a", nil, 200, `{"table_name": "a"}`)
	c.expect("DELETE", `/workspaces/w/tables/My%20%22Table%22`, nil, 200, `{"table_name": "My \"Table\""}`)
	c.expect("GET", "/workspaces/w/tables", nil, 200, `{"tables": [{"table_name": "b"}]}`)
	c.expect("DELETE", "/workspaces/w/tables/a", nil, 404,
		`{"error": "relation \"a\" does not exist", "code": "QUERY_ERROR", "sqlstate": "42P01"}`)
	// A workspace's DELETE never reaches another schema's table.
	c.expect("DELETE", "/workspaces/w/tables/z", nil, 404,
		`{"error": "relation \"z\" does not exist", "code": "QUERY_ERROR", "sqlstate": "42P01"}`)
	c.expect("GET", "/workspaces/other/tables", nil, 200, `{"tables": [{"table_name": "z"}]}`)
	c.expect("GET", "/workspaces/public/tables", nil, 200, `{"tables": [{"table_name": "in_public"}]}`)
}

// TestHTTPPgwireInterop writes over each protocol and reads over the
// other: the workspace is the schema a PostgreSQL client sees.
func TestHTTPPgwireInterop(t *testing.T) {
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{})
	conn := ts.connect(t)
	ctx := context.Background()

	mustExec(t, conn, `CREATE SCHEMA team`)
	mustExec(t, conn, `CREATE TABLE team.mem (id int PRIMARY KEY, txt text, emb real[], meta jsonb, at timestamptz)`)
	mustExec(t, conn, `INSERT INTO team.mem VALUES ($1, $2, $3, $4, $5)`,
		1, "from pgx", []float32{0.25, -0.5}, map[string]any{"k": "v"}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	c.expect("POST", "/workspaces/team/tables/query", `{"query": "SELECT * FROM mem"}`, 200, `{
		"columns": ["id", "txt", "emb", "meta", "at"],
		"rows": [[1, "from pgx", [0.25, -0.5], {"k": "v"}, "2024-01-02 03:04:05+00"]], "row_count": 1}`)

	c.query("team", `INSERT INTO mem VALUES ($1, $2, $3, $4, $5)`, 2, "from http", []float64{1.5, 2}, map[string]any{"n": 1}, "2024-05-06T07:08:09Z")
	var txt string
	var emb []float32
	var meta map[string]any
	var at time.Time
	if err := conn.QueryRow(ctx, `SELECT txt, emb, meta, at FROM team.mem WHERE id = 2`).Scan(&txt, &emb, &meta, &at); err != nil {
		t.Fatal(err)
	}
	if txt != "from http" || fmt.Sprint(emb) != "[1.5 2]" || fmt.Sprint(meta) != "map[n:1]" || !at.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) {
		t.Errorf("over pgwire: %q %v %v %v", txt, emb, meta, at)
	}

	// The session's search_path is the workspace alone: public tables
	// need their schema's name.
	mustExec(t, conn, `CREATE TABLE shared (x int)`)
	mustExec(t, conn, `INSERT INTO shared VALUES (7)`)
	c.expect("POST", "/workspaces/team/tables/query", `{"query": "SELECT current_schema(), current_setting('search_path')"}`, 200,
		`{"columns": ["current_schema", "current_setting"], "rows": [["team", "team"]], "row_count": 1}`)
	c.expect("POST", "/workspaces/team/tables/query", `{"query": "SELECT x FROM shared"}`, 400,
		`{"error": "relation \"shared\" does not exist", "code": "QUERY_ERROR", "sqlstate": "42P01"}`)
	c.expect("POST", "/workspaces/team/tables/query", `{"query": "SELECT x FROM public.shared"}`, 200,
		`{"columns": ["x"], "rows": [[7]], "row_count": 1}`)
	// CREATE TABLE in a new workspace creates its schema.
	c.query("newteam", `CREATE TABLE IF NOT EXISTS notes (body text)`)
	mustExec(t, conn, `INSERT INTO newteam.notes VALUES ('pgwire sees it')`)
	c.expect("POST", "/workspaces/newteam/tables/query", `{"query": "SELECT body FROM notes"}`, 200,
		`{"columns": ["body"], "rows": [["pgwire sees it"]], "row_count": 1}`)
}

// TestHTTPErrors checks the status, code and SQLSTATE of each kind of
// error, and that the server serves on afterwards.
func TestHTTPErrors(t *testing.T) {
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{})
	c.query("ws", `CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, emb real[])`)
	c.query("ws", `INSERT INTO t VALUES (1, 'one', '{1,2}')`)
	q := "/workspaces/ws/tables/query"
	for _, tc := range []struct {
		method, path, body string
		status             int
		code, sqlstate     string
	}{
		{"POST", q, `{"query": "SELECT 1"`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `{"query": 5}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `{"query": "SELECT $1", "params": {"a": 1}}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `{"params": []}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `[]`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, ``, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `{"query": "SELECT 1"} {}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q, `{"query": "-- nothing"}`, 400, "QUERY_ERROR", "42601"},
		{"POST", q, `{"query": "SELEC 1"}`, 400, "QUERY_ERROR", "42601"},
		{"POST", q, `{"query": "SELECT 1; SELECT 2"}`, 400, "QUERY_ERROR", "42601"},
		{"POST", q, `{"query": "SELECT * FROM nope"}`, 400, "QUERY_ERROR", "42P01"},
		{"POST", q, `{"query": "SELECT nope FROM t"}`, 400, "QUERY_ERROR", "42703"},
		{"POST", q, `{"query": "SELECT $1::int", "params": ["x"]}`, 400, "QUERY_ERROR", "22P02"},
		{"POST", q, `{"query": "SELECT $1::int + $2", "params": [1]}`, 400, "QUERY_ERROR", "42P02"},
		{"POST", q, `{"query": "INSERT INTO t (id, name) VALUES ($1, $2)", "params": [1, "again"]}`, 400, "QUERY_ERROR", "23505"},
		{"POST", q, `{"query": "INSERT INTO t (id, name) VALUES ($1, $2)", "params": [2, null]}`, 400, "QUERY_ERROR", "23502"},
		{"POST", q, `{"query": "SELECT 1 / 0"}`, 400, "QUERY_ERROR", "22012"},
		{"POST", q, `{"query": "SELECT emb <#> $1 FROM t", "params": [[1, 2, 3]]}`, 400, "QUERY_ERROR", "22000"},
		{"POST", q, `{"query": "COPY t TO STDOUT"}`, 400, "QUERY_ERROR", "0A000"},
		{"POST", q, `{"query": "BEGIN"}`, 400, "QUERY_ERROR", "0A000"},
		{"POST", q, `{"query": "SELECT count(*) FROM generate_series(1, 1000000000)", "timeout_ms": 50}`, 500, "QUERY_ERROR", "57014"},
		{"POST", "/workspaces/a%2Cb/tables/query", `{"query": "SELECT 1"}`, 400, "QUERY_ERROR", "42602"},
		{"POST", q + "/batch", `{"query": "SELECT 1", "params_batch": [1]}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", q + "/batch", `{"query": "SELECT * FROM nope", "params_batch": [[]]}`, 400, "QUERY_ERROR", "42P01"},
		{"DELETE", "/workspaces/ws/tables/nope", ``, 404, "QUERY_ERROR", "42P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{"a": [1, 2], "b": [1]}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{"a": [1], "a": [2]}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{"a": 1}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `[{"a": 1}]`, 400, "BAD_REQUEST", "08P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{}`, 400, "BAD_REQUEST", "08P01"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{"a": [null]}`, 400, "QUERY_ERROR", "42P18"},
		{"POST", "/workspaces/ws/tables/n/ingest", `{"a": [1, "x"]}`, 400, "QUERY_ERROR", "22P02"},
		{"POST", "/workspaces/ws/tables/t/ingest", `{"id": [5], "nope": [1]}`, 400, "QUERY_ERROR", "42703"},
		{"POST", "/workspaces/ws/tables/t/ingest", `{"id": [5], "name": [null]}`, 400, "QUERY_ERROR", "23502"},
		{"POST", "/workspaces/ws/tables/t/ingest", `{"id": [5, 6], "emb": [[1], [1, "x"]], "name": ["a", "b"]}`, 400, "QUERY_ERROR", "22P02"},
	} {
		status, header, out := c.do(tc.method, tc.path, tc.body)
		var e map[string]any
		if err := json.Unmarshal(out, &e); err != nil {
			t.Errorf("%s %s %s: %d %s: %v", tc.method, tc.path, tc.body, status, out, err)
			continue
		}
		if status != tc.status || e["code"] != tc.code || e["sqlstate"] != tc.sqlstate || e["error"] == "" ||
			header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s %s:\n got %d %s\nwant %d code %s sqlstate %s", tc.method, tc.path, tc.body, status, out, tc.status, tc.code, tc.sqlstate)
		}
	}
	// An ingest error names the cell; nothing of the failed ingests was
	// written, nor their tables created.
	c.expect("POST", "/workspaces/ws/tables/t/ingest", `{"id": [5, "six"], "name": ["a", "b"]}`, 400,
		`{"error": "column \"id\" at index 1: invalid input syntax for type integer: \"six\"", "code": "QUERY_ERROR", "sqlstate": "22P02"}`)
	c.expect("GET", "/workspaces/ws/tables", nil, 200, `{"tables": [{"table_name": "t"}]}`)
	c.expect("POST", q, `{"query": "SELECT id FROM t"}`, 200, `{"columns": ["id"], "rows": [[1]], "row_count": 1}`)

	// A body over the limit is a 413.
	small := startHTTP(t, ts, wire.HTTPOptions{MaxBodyBytes: 100})
	small.expect("POST", q, `{"query": "SELECT '`+strings.Repeat("x", 200)+`'"}`, 413,
		`{"error": "request body exceeds the limit of 100 bytes", "code": "PAYLOAD_TOO_LARGE", "sqlstate": "54000"}`)
	small.expect("POST", q, `{"query": "SELECT 1"}`, 200, `{"columns": ["?column?"], "rows": [[1]], "row_count": 1}`)
}

// TestHTTPAuth checks the bearer token: required on the API when one is
// configured, never on /health and /ready.
func TestHTTPAuth(t *testing.T) {
	ts := startServer(t, "")
	c := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret"})
	unauthorized := `{"error": "missing or invalid bearer token", "code": "UNAUTHORIZED", "sqlstate": "28000"}`
	for _, auth := range []string{"", "Bearer wrong", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer "} {
		c.token = ""
		req, _ := http.NewRequest("GET", c.base+"/workspaces/w/tables", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || canonJSON(t, string(body)) != canonJSON(t, unauthorized) || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d %s", auth, resp.StatusCode, body)
		}
	}
	c.expect("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1"}`, 401, unauthorized)
	c.expect("GET", "/health", nil, 200, `{"status": "ok"}`)
	c.expect("GET", "/ready", nil, 200, `{"status": "ready"}`)
	c.token = "s3cret"
	c.expect("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1 AS one"}`, 200, `{"columns": ["one"], "rows": [[1]], "row_count": 1}`)
	c.expect("GET", "/workspaces/w/tables", nil, 200, `{"tables": []}`)

	open := startHTTP(t, ts, wire.HTTPOptions{})
	open.expect("GET", "/workspaces/w/tables", nil, 200, `{"tables": []}`)
}

// TestHTTPTokenFlag runs the server with --http-token: the HTTP API then
// wants the token.
func TestHTTPTokenFlag(t *testing.T) {
	var logs syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"--data-dir", t.TempDir(), "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--http-token", "tok"}, io.Discard, &logs)
	}()
	re := regexp.MustCompile(`listening postgres=\S+ http=(127\.0\.0\.1:\d+)`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no listening line:\n%s", logs.String())
		}
		m = re.FindStringSubmatch(logs.String())
	}
	c := &httpAPI{t: t, base: "http://" + m[1]}
	c.expect("GET", "/health", nil, 200, `{"status": "ok"}`)
	if status, _, out := c.do("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1"}`); status != 401 {
		t.Errorf("without the token: %d %s", status, out)
	}
	c.token = "tok"
	c.expect("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1 AS one"}`, 200, `{"columns": ["one"], "rows": [[1]], "row_count": 1}`)
	stop()
	if code := <-exited; code != 0 {
		t.Errorf("exit code %d:\n%s", code, logs.String())
	}
}

// TestHTTPConcurrentIngest has ingests race to create the same table in
// a new workspace: the losers append to the winner's table.
func TestHTTPConcurrentIngest(t *testing.T) {
	c := startHTTP(t, startServer(t, ""), wire.HTTPOptions{})
	const n = 8
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		go func() {
			body := fmt.Sprintf(`{"worker": [%d, %d], "seq": [0, 1]}`, i, i)
			resp, err := http.Post(c.base+"/workspaces/race/tables/events/ingest", "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err.Error()
				return
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Sprintf("worker %d: %d %s", i, resp.StatusCode, out)
				return
			}
			errs <- ""
		}()
	}
	for i := 0; i < n; i++ {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
	c.expect("POST", "/workspaces/race/tables/query", `{"query": "SELECT count(*), count(DISTINCT worker) FROM events"}`, 200,
		`{"columns": ["count", "count"], "rows": [[16, 8]], "row_count": 1}`)
}
