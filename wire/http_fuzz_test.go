package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage"
)

// httpFuzzFixture is the workspace the HTTP fuzzer's requests run in: a
// table with a column of each main type, so that an INSERT's or a
// comparison's $n takes each type's JSON decoding.
var httpFuzzFixture = []string{
	`CREATE TABLE t (id bigint, i int, f float8, r real, n numeric(10,2), txt text, b bool, d date,
		tz timestamptz, iv interval, j jsonb, emb float4[], ta text[], ia int[][], u uuid, by bytea, v vector(3))`,
	`INSERT INTO t (id, txt, emb) VALUES (1, 'one', '{1,2,3}')`,
}

// httpFuzzServer is the HTTP API over a fresh database holding the
// fixture; it is rebuilt when an input changes the catalog (CREATE, DROP,
// ingest), so that every input starts from the same tables.
type httpFuzzServer struct {
	root    string
	db      *storage.DB
	handler http.Handler
	catalog *catalog.Catalog
}

func (s *httpFuzzServer) open(tb testing.TB) {
	dir, err := os.MkdirTemp(s.root, "db")
	if err != nil {
		tb.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.db, err = storage.Open(dir, storage.Options{Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	s.handler = HTTPHandler(session.NewEngine(s.db, session.Options{Logger: quiet}), HTTPOptions{Logger: quiet})
	for _, q := range httpFuzzFixture {
		if status, body := s.do(`/workspaces/fz/tables/query`, mustJSON(map[string]string{"query": q})); status != http.StatusOK {
			tb.Fatalf("fixture %s: %d %s", q, status, body)
		}
	}
	s.catalog = s.db.Catalog()
}

func (s *httpFuzzServer) close() {
	s.db.Close()
	os.RemoveAll(s.db.Dir())
}

// do posts body to path and returns the answer.
func (s *httpFuzzServer) do(path string, body []byte) (int, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzHTTPJSON sends requests to the HTTP API's JSON endpoints in-process
// (the real handler, engine and storage): kind picks the endpoint (query
// with params, batch with params_batch, ingest of columns, or body as the
// query endpoint's whole body), query is the statement and body the raw
// JSON of the params, params_batch or ingest columns. Every answer must be
// JSON, and an error must carry a SQLSTATE that is not XX000 (an internal
// error: a recovered panic or a bug); a 500 is only for the server's own
// failures.
func FuzzHTTPJSON(f *testing.F) {
	for _, seed := range []struct {
		kind  uint8
		query string
		body  string
	}{
		{0, `SELECT $1::int, $2::float4[], $3::jsonb`, `[1, [0.1, 0.2], {"a": [1, null]}]`},
		{0, `SELECT * FROM t WHERE emb <#> $1 > $2 AND j @> $3`, `[[1, 2, 3], 0.5, {"repo": "x"}]`},
		{0, `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING *`,
			`[9223372036854775807, -2147483648, 1e308, "NaN", 12345678.99, "t\u00e9xt", true, "2024-02-29", "2024-01-01T00:00:00Z",
			  "1 day", {"k": [1, {"x": null}]}, [1.5, null], ["a", "b,c", "\"q\""], [[1, 2], [3, 4]],
			  "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "\\x00ff", [1, 2, 3]]`},
		{0, `SELECT $1::text[]`, `[[["nested"]], {"o": 1}, null]`},
		{0, `SELECT $1::int[][]`, `[[[1], [2, 3]]]`},
		{0, `SELECT $1::bool, $2::date`, `["yes", 20240101]`},
		{1, `INSERT INTO t (id, txt, emb) VALUES ($1, $2, $3)`, `[[1, "a", [1]], [2, null, []], [3]]`},
		{1, `SELECT $1::numeric`, `[["1e1000"], [1e1000], ["-0"]]`},
		{2, ``, `{"a": [1, 2], "b": ["x", null], "c": [[0.5], [1]], "d": [{"k": 1}, null], "e": [true, false]}`},
		{2, ``, `{"a": [1], "b": [1, 2]}`},
		{3, ``, `{"query": "SELECT 1", "params": [], "timeout_ms": -1}`},
		{3, ``, `{"query": 1}`},
		{3, ``, `{"query": "SELECT $1", "params": [1] } trailing`},
	} {
		f.Add(seed.kind, seed.query, []byte(seed.body))
	}
	s := &httpFuzzServer{root: f.TempDir()}
	s.open(f)
	f.Cleanup(s.close)
	f.Fuzz(func(t *testing.T, kind uint8, query string, body []byte) {
		var path string
		var req []byte
		switch kind % 4 {
		case 0:
			path, req = "/workspaces/fz/tables/query", httpFuzzBody(query, "params", body)
		case 1:
			path, req = "/workspaces/fz/tables/query/batch", httpFuzzBody(query, "params_batch", body)
		case 2:
			path, req = "/workspaces/fz/tables/fzi/ingest", body
		default:
			path, req = "/workspaces/fz/tables/query", body
		}
		status, answer := s.do(path, req)
		t.Logf("POST %s %s: %d %s", path, req, status, answer) // shown by go test -v
		checkHTTPAnswer(t, path, req, status, answer)
		if s.db.Catalog() != s.catalog {
			s.close()
			s.open(t)
		}
	})
}

// httpFuzzBody is a request body with the query and raw as the JSON value
// of field (raw may be anything: malformed JSON must be a 400).
func httpFuzzBody(query, field string, raw []byte) []byte {
	b := append([]byte(`{"query":`), mustJSON(query)...)
	b = append(b, `,"`+field+`":`...)
	b = append(b, raw...)
	return append(b, '}')
}

// checkHTTPAnswer fails t unless the answer is JSON and, when it is an
// error, carries a SQLSTATE other than XX000.
func checkHTTPAnswer(t *testing.T, path string, req []byte, status int, answer []byte) {
	if !json.Valid(answer) {
		t.Fatalf("POST %s %s: answer is not JSON: %d %s", path, req, status, answer)
	}
	if status == http.StatusOK {
		return
	}
	var e errorBody
	if err := json.Unmarshal(answer, &e); err != nil || e.SQLState == "" || e.Code == "" {
		t.Fatalf("POST %s %s: error answer without a code or SQLSTATE: %d %s", path, req, status, answer)
	}
	if e.SQLState == pgerrcode.InternalError {
		t.Fatalf("POST %s %s: internal error: %d %s", path, req, status, answer)
	}
	if want := httpStatus(e.SQLState); e.Code == codeQuery && status != want {
		t.Fatalf("POST %s %s: status %d for SQLSTATE %s, want %s", path, req, status, e.SQLState, strconv.Itoa(want))
	}
}
