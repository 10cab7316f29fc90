package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// httpClient posts to an in-process HTTP API over a real socket.
type httpClient struct {
	t   *testing.T
	url string
}

func newHTTPClient(t *testing.T) *httpClient {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
	t.Cleanup(hs.Close)
	return &httpClient{t, hs.URL}
}

// post sends body to path and returns the status and the answer.
func (c *httpClient) post(path, body string) (int, string) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return c.do(req)
}

// do sends req and returns the status and the answer.
func (c *httpClient) do(req *http.Request) (int, string) {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// ok posts body to path and fails the test unless the answer is a 200.
func (c *httpClient) ok(path, body string) string {
	c.t.Helper()
	status, b := c.post(path, body)
	if status != http.StatusOK {
		c.t.Fatalf("POST %s %.200s: %d %s", path, body, status, b)
	}
	return b
}

// query runs q in workspace w and returns its rows as JSON.
func (c *httpClient) query(q string) string {
	c.t.Helper()
	var res struct{ Rows json.RawMessage }
	if err := json.Unmarshal([]byte(c.ok("/workspaces/w/tables/query", fmt.Sprintf(`{"query": %q}`, q))), &res); err != nil {
		c.t.Fatal(err)
	}
	return string(res.Rows)
}

// fail posts body to path and checks the error answer's status, code,
// SQLSTATE and that its message contains msg.
func (c *httpClient) fail(path, body string, status int, code, sqlstate, msg string) {
	c.t.Helper()
	got, b := c.post(path, body)
	var e errorBody
	json.Unmarshal([]byte(b), &e)
	if got != status || e.Code != code || e.SQLState != sqlstate || !strings.Contains(e.Error, msg) {
		c.t.Errorf("POST %s %.200s: %d %s, want %d %s %s %q", path, body, got, b, status, code, sqlstate, msg)
	}
}

// ingestTypesTable has a column of every type /ingest converts into Arrow
// itself or through paramValue.
const ingestTypesTable = `(id bigint PRIMARY KEY, i int, s smallint, t text, v varchar, b boolean, f float8, r real,
	n numeric, j jsonb, js json, u uuid, by bytea, d date, ts timestamp, tz timestamptz,
	emb real[], tags text[], ints bigint[], flags boolean[], m real[][])`

// TestHTTPIngestArrow checks that /ingest, which loads rows as Arrow
// records through COPY FROM's insert, stores every value as /query/batch's
// INSERT of the same JSON values as parameters does: the same rows, read
// back, for values of every type it converts, in several chunks of rows
// (parallelRows) with NULLs and the unusual values of each type.
func TestHTTPIngestArrow(t *testing.T) {
	c := newHTTPClient(t)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE SCHEMA w"}`)
	for _, tbl := range []string{"a", "b", "c"} {
		c.ok("/workspaces/w/tables/query", fmt.Sprintf(`{"query": %q}`, "CREATE TABLE "+tbl+" "+ingestTypesTable))
	}
	cols := []string{"id", "i", "s", "t", "v", "b", "f", "r", "n", "j", "js", "u", "by", "d", "ts", "tz", "emb", "tags", "ints", "flags", "m"}
	samples := [][]string{
		1:  {`1`, `-2147483648`, `"12"`, `null`},
		2:  {`32767`, `-1`, `null`},
		3:  {`"plain"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\ud83d\ude00 é"`, `""`, `5`, `true`, `null`},
		4:  {`"v"`, `"x,y"`, `null`},
		5:  {`true`, `false`, `"yes"`, `null`},
		6:  {`1.5`, `-0.0`, `1e308`, `"NaN"`, `"-Infinity"`, `3`, `null`},
		7:  {`0.1`, `3.4028235e38`, `"Infinity"`, `null`},
		8:  {`12345678901234567890.123`, `"-0"`, `1e3`, `null`},
		9:  {`{"b": 1, "a": [1, {"x": null}], "a": 2}`, `[3, "x"]`, `"{\"k\": 1}"`, `7`, `null`, `{"e": "\u00e9\n", "big": 1e400}`},
		10: {`{"z": 1,  "a": 2}`, `[1]`, `"{\"k\": [1]}"`, `null`},
		11: {`"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`, `null`},
		12: {`"\\x00ff"`, `"abc"`, `null`},
		13: {`"2024-02-29"`, `null`},
		14: {`"2024-01-01 12:34:56.789"`, `null`},
		15: {`"2024-01-01T00:00:00Z"`, `"2024-06-01 10:00:00+02"`, `null`},
		16: {`[0.5, -1.25, 3e-3, 1E2]`, `[]`, `[1, null, 2]`, `[ 1 , 2 ]`, `[0.1,0.2,0.30000001]`, `null`},
		17: {`["a", "b,c", "\"q\"", null]`, `[]`, `null`},
		18: {`[1, 2, -3]`, `[]`, `null`},
		19: {`[true, false, null]`, `null`},
		20: {`[[1, 2], [3, 4]]`, `[]`, `[[0.5]]`, `null`},
	}
	const nrows = 700 // several chunks
	body := []byte{'{'}
	for j, name := range cols {
		if j > 0 {
			body = append(body, ',')
		}
		body = append(body, fmt.Sprintf("%q: [", name)...)
		for i := range nrows {
			if i > 0 {
				body = append(body, ", "...)
			}
			if j == 0 {
				body = fmt.Appendf(body, "%d", i)
				continue
			}
			body = append(body, samples[j][(i+j)%len(samples[j])]...)
		}
		body = append(body, ']')
	}
	body = append(body, '}')
	if got, want := c.ok("/workspaces/w/tables/a/ingest", string(body)), fmt.Sprintf(`{"table_name":"a","row_count":%d}`, nrows); got != want {
		t.Fatalf("ingest: %s, want %s", got, want)
	}
	// The same values as /query/batch parameters of an INSERT.
	var decoded map[string][]json.RawMessage
	if err := json.Unmarshal(body, &decoded); err != nil {
		t.Fatal(err)
	}
	params := make([]string, len(cols))
	for j := range params {
		params[j] = fmt.Sprintf("$%d", j+1)
	}
	// The INSERT once per list (ON CONFLICT keeps /query/batch from
	// loading the lists as an ingest), and as a batch of plain INSERTs,
	// which loads them as an ingest. Built by hand: json.Marshal would
	// compact the values (a json value keeps its spacing).
	batch := func(table, suffix string, perm []int) {
		names, params := make([]string, len(perm)), make([]string, len(perm))
		for j, k := range perm {
			names[j], params[j] = cols[k], fmt.Sprintf("$%d", k+1)
		}
		req := fmt.Appendf(nil, `{"params_batch": [`)
		for i := range nrows {
			if i > 0 {
				req = append(req, ',')
			}
			req = append(req, '[')
			for j, name := range cols {
				if j > 0 {
					req = append(req, ',')
				}
				req = append(req, decoded[name][i]...)
			}
			req = append(req, ']')
		}
		req = fmt.Appendf(req, `], "query": %q}`, "INSERT INTO "+table+" ("+strings.Join(names, ", ")+") VALUES ("+strings.Join(params, ", ")+")"+suffix)
		if got, want := c.ok("/workspaces/w/tables/query/batch", string(req)), fmt.Sprintf(`{"row_count":%d}`, nrows); got != want {
			t.Fatalf("batch into %s: %s, want %s", table, got, want)
		}
	}
	perm := make([]int, len(cols))
	for j := range perm {
		perm[j] = len(cols) - 1 - j
	}
	batch("w.b", " ON CONFLICT DO NOTHING", perm)
	batch("c", "", perm)
	for _, col := range cols {
		q := "SELECT id AS k, " + col + "::text FROM %s ORDER BY k"
		want := c.query(fmt.Sprintf(q, "b"))
		if got := c.query(fmt.Sprintf(q, "a")); got != want {
			t.Errorf("column %s: ingest stored %.300s, INSERT %.300s", col, got, want)
		}
		if got := c.query(fmt.Sprintf(q, "c")); got != want {
			t.Errorf("column %s: /query/batch stored %.300s, INSERT %.300s", col, got, want)
		}
	}
}

// TestHTTPIngestArrowErrors checks /ingest's errors on the Arrow path:
// the first bad value in row order names its column and row, whatever
// chunk it is in; invalid JSON anywhere is a 400 with encoding/json's
// message, even after a bad value; and nothing of a failed ingest stays.
func TestHTTPIngestArrowErrors(t *testing.T) {
	c := newHTTPClient(t)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE SCHEMA w"}`)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE TABLE e (id bigint PRIMARY KEY, t text NOT NULL DEFAULT 'd', emb real[], c varchar(3))"}`)
	column := func(n int, value func(i int) string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(value(i))
		}
		b.WriteByte(']')
		return b.String()
	}
	ids := func(n int) string { return column(n, func(i int) string { return fmt.Sprint(i) }) }
	embs := func(n, bad int, badValue string) string {
		return column(n, func(i int) string {
			if i == bad {
				return badValue
			}
			return "[0.5, 1.5]"
		})
	}
	const path = "/workspaces/w/tables/e/ingest"
	// A bad embedding in the last chunk, another bad value earlier in a
	// later column: the earlier row is the error.
	c.fail(path, `{"id": `+ids(1000)+`, "emb": `+embs(1000, 990, `[1, "x"]`)+`, "t": `+column(1000, func(i int) string {
		if i == 600 {
			return `"\u0000"`
		}
		return `"t"`
	})+`}`, 400, "QUERY_ERROR", "22021", `column "t" at index 600: invalid byte sequence`)
	c.fail(path, `{"id": `+ids(1000)+`, "emb": `+embs(1000, 990, `[1e-50]`)+`}`,
		400, "QUERY_ERROR", "22003", `column "emb" at index 990: "1e-50" is out of range for type real`)
	c.fail(path, `{"id": `+ids(3)+`, "emb": `+embs(3, 1, `[[1, 2], [3, 4]]`)+`}`,
		400, "QUERY_ERROR", "2202E", `column "emb" at index 1: array has 2 dimensions but the column holds 1`)
	c.fail(path, `{"id": [1, 2], "t": ["a", "b\u0000"]}`, 400, "QUERY_ERROR", "22021", `column "t" at index 1`)
	// Half a surrogate pair: refused, not read as U+FFFD.
	for _, bad := range []string{`"\ud800"`, `"a\udc00"`, `"\ud800\u0041"`, `"\ud800\\udc00"`, `"\uD83D"`} {
		c.fail(path, `{"id": [1], "t": [`+bad+`]}`, 400, "BAD_REQUEST", "08P01", "is half of a surrogate pair")
	}
	c.fail(path, `{"id": [1, 2], "t": ["a", null]}`, 400, "QUERY_ERROR", "23502", `null value in column "t"`)
	c.fail(path, `{"id": [1, 2, 1]}`, 400, "QUERY_ERROR", "23505", `duplicate key value`)
	// Invalid JSON after a bad value, anywhere in the body: the JSON error.
	for _, bad := range []string{`[01]`, `[1.]`, `[.5]`, `[+1]`, `[1e]`, `[-]`, `[NaN]`, `[1 2]`, `[1,]`, `[1,,2]`, "[1\v]", `[1]]`, `[[1]`, `["x]`, `[tru]`, `[{"a" 1}]`} {
		body := `{"id": ` + ids(800) + `, "t": ` + column(800, func(i int) string {
			if i == 3 {
				return `5`
			}
			return `"t"`
		}) + `, "emb": ` + embs(800, 700, bad) + `}`
		var v any
		want := json.Unmarshal([]byte(body), &v)
		if want == nil {
			t.Fatalf("%s is valid JSON", bad)
		}
		c.fail(path, body, 400, "BAD_REQUEST", "08P01", "invalid JSON in request body")
	}
	c.fail(path, `{"id": [1], "t": ["a"]} x`, 400, "BAD_REQUEST", "08P01", "invalid JSON in request body")
	c.fail(path, `{"id": [1], "t": ["a"],}`, 400, "BAD_REQUEST", "08P01", "invalid JSON in request body")
	c.fail(path, `{"id": [1], "t": "a"}`, 400, "BAD_REQUEST", "08P01", `column "t" must be an array of values, not a JSON string`)
	c.fail(path, `{"id": [1], "id": [2]}`, 400, "BAD_REQUEST", "08P01", `column "id" appears twice`)
	c.fail(path, `{"i\u0064": [1], "id": [2]}`, 400, "BAD_REQUEST", "08P01", `column "id" appears twice`)
	if got := c.query("SELECT count(*) FROM e"); got != `[[0]]` {
		t.Fatalf("after the failed ingests: %s rows", got)
	}
	// Defaults for the columns not sent; a name with escapes.
	c.ok(path, `{"i\u0064": [1, 2], "emb": [[1], null]}`)
	// A type modifier: the INSERTs' path.
	c.ok(path, `{"id": [3], "c": ["abc"], "emb": [[2, 3]]}`)
	if got, want := c.query("SELECT id, t, emb::text, c FROM e ORDER BY id"), `[[1,"d","{1}",null],[2,"d",null,null],[3,"d","{2,3}","abc"]]`; got != want {
		t.Fatalf("rows: %s, want %s", got, want)
	}
	// A whole surrogate pair is the character it encodes.
	c.ok(path, `{"id": [4], "t": ["a\ud83d\ude00b"]}`)
	if got, want := c.query("SELECT t, length(t) FROM e WHERE id = 4"), "[[\"a\U0001F600b\",3]]"; got != want {
		t.Fatalf("surrogate pair: %s, want %s", got, want)
	}
}

// TestHTTPBatchInsertErrors checks that a /query/batch of plain INSERTs,
// loaded as an ingest, answers its errors as the INSERTs one by one do:
// naming the item (and parameter), nothing kept.
func TestHTTPBatchInsertErrors(t *testing.T) {
	c := newHTTPClient(t)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE SCHEMA w"}`)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE TABLE e (id bigint PRIMARY KEY, t text NOT NULL, emb real[])"}`)
	const path = "/workspaces/w/tables/query/batch"
	insert := `"query": "INSERT INTO e (id, t, emb) VALUES ($1, $2, $3)"`
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]], [2, "b", [2]], [1, "c", [3]]]}`, 400, "QUERY_ERROR", "23505", `params_batch[2]: duplicate key value`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]], [2, null, [2]]]}`, 400, "QUERY_ERROR", "23502", `params_batch[1]: null value in column "t"`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]], [2, "b", [1, "x"]]]}`, 400, "QUERY_ERROR", "22P02", `params_batch[1]: parameter $3: invalid input syntax for type real`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]], [2, "b"]]}`, 400, "QUERY_ERROR", "42P02", `params_batch[1]: there is no parameter $3`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]], [2, "b", [01]]]}`, 400, "BAD_REQUEST", "08P01", `invalid JSON in request body`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]]], "timeout_ms": "x"}`, 400, "BAD_REQUEST", "08P01", `"timeout_ms" cannot be a JSON string`)
	c.fail(path, `{`+insert+`, "params_batch": [[1, "a", [1]]], "Params_Batch": [[2, "b", [1]]]}`, 400, "BAD_REQUEST", "08P01", `field "Params_Batch" appears twice`)
	if got := c.query("SELECT count(*) FROM e"); got != `[[0]]` {
		t.Fatalf("after the failed batches: %s rows", got)
	}
	// Longer lists than the statement takes: the extra values are
	// ignored, as by the INSERTs; field names in any case, as
	// encoding/json matches them.
	c.ok(path, `{`+insert+`, "params_batch": [[1, "a", [1], "extra"], [2, "b", null, 5]]}`)
	c.ok(path, `{"QUERY": "INSERT INTO e (t, id) VALUES ($2, $1)", "Params_Batch": [[3, "c"]]}`)
	if got, want := c.query("SELECT id, t, emb::text FROM e ORDER BY id"), `[[1,"a","{1}"],[2,"b",null],[3,"c",null]]`; got != want {
		t.Fatalf("rows: %s, want %s", got, want)
	}
}

// splitColumnsBodies are TestSplitColumns' bodies and FuzzSplitColumns'
// seeds.
var splitColumnsBodies = []string{
	`{}`, ` { } `, `{"a": []}`, `{"a": [1, 2], "b": ["x", null]}`,
	"{\n\t\"a\" :\r [ 1 ,2 ] , \"b\":[ {\"k\": [1, \"]\"]}, [[]], \"\\\\\", \"\\\"]\" ] }",
	`{"e": [[0.1, -2e-3, 0, -0, 1E+2], [], [ ]]}`, `{"e": [[1,-2,3.5e-1,-0.25E+2]]}`, `{"e": [[1, 2,3 ], [ -1 ]]}`,
	`{"e": [[0.123456789012345,-0.5e-7,0.12345678,0.1234567,1.0000000000000000001]]}`, `{"e": [[0.1234567a, 1]]}`,
	`{"e": [[0.12345678901:2]]}`, `{"e": [[0.12345678 ]]}`, "{\"e\": [[0.1234567\u00e9]]}",
	`{"a": [1]}x`, `{"a": [1]`, `{"a": [1],}`, `{"a" [1]}`, `{"a": [1] "b": [2]}`, `{"a": [1 2]}`,
	`{"a": [1,]}`, `{"a": [,1]}`, `{a: [1]}`, `[1]`, `{"a": 1}`, `{"a": null}`, `{"a": [1], "a": [2]}`,
	`{"a": ["\x"]}`, `{"a": ["\u12"]}`, `{"a": [01]}`, `{"a": [[01]]}`, `{"a": [[1.]]}`, `{"a": [[.1]]}`,
	`{"a": [[-]]}`, `{"a": [[1e]]}`, `{"a": [[1,]]}`, `{"a": [[1,-]]}`, `{"a": [[1,-a]]}`, `{"a": [[1 1]]}`,
	`{"a": [[1]]]}`, `{"a": [[1}]}`, `{"a": [[1e+]]}`, `{"a": [[-01]]}`, `{"a": [[1,2]`, `{"a": [[1,2`,
	`{"a": [{"x": 1,}]}`, `{"a": [tru]}`, `{"a": [nul]}`, `{"a": [truex]}`, `{"a": ["a\"]}`,
	`{"a": [{"k": "v", "k": "w"}]}`, `{"a": [[1, "x"]]}`, `{"a": [[" ]"]]}`, "{\"a\": [[1\v]]}",
	"{\"a\": [\"\x01\"]}", `{"\u0061": [1]}`, ``, ` `, `{"a": [1]} {}`,
	`{"a": [[+1]]}`, `{"a": [[1e400, -1e-400]]}`, "{\"a\": [[1,\f2]]}", `{"a": [null, [1, 2], null, [-0, 0.0]]}`,
	`{"a": [[1, 2], "x", {"k": [3]}, [3, 4]]}`, `{"a": ["x", [1, 2]]}`, `{"a": [[1, 2]], "b": [[0.5e1]]}`,
}

// TestSplitColumns checks that splitColumns and validValues accept
// exactly the bodies encoding/json decodes into columns, with the same
// values.
func TestSplitColumns(t *testing.T) {
	for _, body := range splitColumnsBodies {
		checkSplitColumns(t, []byte(body))
	}
}

// FuzzSplitColumns checks splitColumns and validValues against
// encoding/json on any body.
func FuzzSplitColumns(f *testing.F) {
	for _, body := range splitColumnsBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return // readBody refuses it first
		}
		checkSplitColumns(t, body)
	})
}

// checkSplitColumns fails t unless splitColumns and validValues take body
// exactly when encoding/json decodes it into columns, with the same
// values, and the embeddings validValues kept are those of their values.
func checkSplitColumns(t *testing.T, body []byte) {
	t.Helper()
	cols, ok := splitColumns(body)
	ok = ok && validValues(cols)
	want, err := decodeColumnsJSON(body)
	if ok != (err == nil) {
		t.Errorf("%q: split ok %v, encoding/json error %v", body, ok, err)
		return
	}
	if !ok || len(cols) == 0 && len(want) == 0 {
		return
	}
	for i, c := range cols {
		for row, xs := range c.embeddings {
			if want, ok := types.ParseJSONFloat4s(nil, c.values[row]); xs != nil && (!ok || !slices.Equal(xs, want)) {
				t.Errorf("%q: column %q row %d: embedding %v, want %v (%v)", body, c.name, row, xs, want, ok)
			}
		}
		cols[i].values = compactAll(c.values)
		cols[i].embeddings = nil
		want[i].values = compactAll(want[i].values)
	}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("%q: split %+v, encoding/json %+v", body, cols, want)
	}
}

// compactAll compacts each JSON value.
func compactAll(values []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(values))
	for i, v := range values {
		var b bytes.Buffer
		json.Compact(&b, v)
		out[i] = b.Bytes()
	}
	return out
}

// TestParallelRowsPanic checks that a panic while converting one chunk of
// an ingest's rows is the request's internal error, not the server's end.
func TestParallelRowsPanic(t *testing.T) {
	err := parallelRows(100_000, func(i, from, to int) {
		if i == 1 {
			panic("bad chunk")
		}
	})
	if code := pgerr.Code(err); code != pgerrcode.InternalError {
		t.Fatalf("error %v (SQLSTATE %q), want XX000", err, code)
	}
	if err := parallelRows(100_000, func(int, int, int) {}); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPEnum checks an enum column through the HTTP API: /query's JSON
// parameters and results (labels as strings, arrays of them as lists)
// and /ingest, which must check each label as INSERT does (22P02 for one
// the enum lacks, nothing stored) rather than build its column itself.
func TestHTTPEnum(t *testing.T) {
	c := newHTTPClient(t)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE SCHEMA w"}`)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE TYPE w.mood AS ENUM ('sad', 'ok', 'happy')"}`)
	c.ok("/workspaces/w/tables/query", `{"query": "CREATE TABLE t (id int, m mood, ms mood[])"}`)
	c.ok("/workspaces/w/tables/query", `{"query": "INSERT INTO t VALUES (1, $1, $2)", "params": ["happy", ["ok", "sad"]]}`)
	c.fail("/workspaces/w/tables/query", `{"query": "INSERT INTO t VALUES (2, $1)", "params": ["bad"]}`,
		http.StatusBadRequest, "QUERY_ERROR", "22P02", `invalid input value for enum w.mood: "bad"`)
	c.fail("/workspaces/w/tables/t/ingest", `{"id": [3, 4], "m": ["sad", "nope"]}`,
		http.StatusBadRequest, "QUERY_ERROR", "22P02", `invalid input value for enum w.mood: "nope"`)
	c.ok("/workspaces/w/tables/t/ingest", `{"id": [5, 6], "m": ["ok", "sad"], "ms": [["happy"], null]}`)
	if got, want := c.query("SELECT id, m, ms FROM t ORDER BY m"), `[[6,"sad",null],[5,"ok",["happy"]],[1,"happy",["ok","sad"]]]`; got != want {
		t.Errorf("rows by the enum's order: %s, want %s", got, want)
	}
}
