package wire

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// float4ArrayBinary is a real[] in binary form: ndim, flags, element OID,
// (dimension, lower bound 1) per dimension, then each element (nil: NULL).
func float4ArrayBinary(ndim, flags int, oid uint32, dims []int, elems [][]byte) []byte {
	be := binary.BigEndian
	b := be.AppendUint32(nil, uint32(ndim))
	b = be.AppendUint32(b, uint32(flags))
	b = be.AppendUint32(b, oid)
	for _, d := range dims {
		b = be.AppendUint32(b, uint32(d))
		b = be.AppendUint32(b, 1)
	}
	for _, e := range elems {
		if e == nil {
			b = be.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = be.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

// float4s are n float4 elements in binary form: 0.5, 1.5, 2.5...
func float4s(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(i)+0.5))
	}
	return out
}

// TestFloat4ArrayBinaryParams inserts real[] parameters in binary form,
// the embeddings the fast path reads without boxing and the shapes it
// leaves to the general decoder, with PostgreSQL 15's answers (asked with
// the same payloads). Where cairn differs on purpose it says so: a real[]
// column holds arrays of one number of dimensions, and lower bounds are 1.
func TestFloat4ArrayBinaryParams(t *testing.T) {
	ts := startServer(t)
	c := ts.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE pe (id int PRIMARY KEY, e real[])",
		"CREATE TABLE pe2 (id int PRIMARY KEY, e real[][])",
	} {
		if err := c.Exec(ctx, q).Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const float4OID, float8OID, int4OID = 700, 701, 23
	f4 := func(x float32) []byte { return binary.BigEndian.AppendUint32(nil, math.Float32bits(x)) }
	full := float4ArrayBinary(1, 0, float4OID, []int{3}, float4s(3))
	lowerBound0 := float4ArrayBinary(1, 0, float4OID, []int{2}, float4s(2))
	binary.BigEndian.PutUint32(lowerBound0[16:], 0)
	for i, tc := range []struct {
		name  string
		table string
		v     []byte
		want  string // array_dims, array_length, e[1], or ERROR code: message
	}{
		{"one dimension", "pe", float4ArrayBinary(1, 0, float4OID, []int{1}, float4s(1)), "[1:1] 1 0.5"},
		{"4096 dimensions", "pe", float4ArrayBinary(1, 0, float4OID, []int{4096}, float4s(4096)), "[1:4096] 4096 0.5"},
		{"NULL element", "pe", float4ArrayBinary(1, 1, float4OID, []int{3}, [][]byte{f4(1), nil, f4(3)}), "[1:3] 3 1"},
		{"NULL element without the flag", "pe", float4ArrayBinary(1, 0, float4OID, []int{3}, [][]byte{nil, f4(2), f4(3)}), "[1:3] 3 NULL"},
		{"NaN", "pe", float4ArrayBinary(1, 0, float4OID, []int{1}, [][]byte{f4(float32(math.NaN()))}), "[1:1] 1 NaN"},
		{"no dimensions", "pe", float4ArrayBinary(0, 0, float4OID, nil, nil), "NULL NULL NULL"},
		{"a zero dimension", "pe", float4ArrayBinary(1, 0, float4OID, []int{0}, nil), "NULL NULL NULL"},
		{"two dimensions into real[][]", "pe2", float4ArrayBinary(2, 0, float4OID, []int{2, 2}, float4s(4)), "[1:2][1:2] 2 0.5"},
		// PostgreSQL stores [1:2][1:2] into a real[] column.
		{"two dimensions into real[]", "pe", float4ArrayBinary(2, 0, float4OID, []int{2, 2}, float4s(4)), "ERROR 2202E: array has 2 dimensions but the column holds 1"},
		{"one dimension into real[][]", "pe2", full, "ERROR 2202E: array has 1 dimensions but the column holds 2"},
		// PostgreSQL keeps the lower bound: [0:1] 2 1.5.
		{"lower bound 0", "pe", lowerBound0, "[1:2] 2 0.5"},
		{"double precision elements", "pe", float4ArrayBinary(1, 0, float8OID, []int{1}, [][]byte{binary.BigEndian.AppendUint64(nil, math.Float64bits(1))}),
			"ERROR 42804: binary data has array element type 701 (double precision) instead of expected 700 (real)"},
		{"integer elements", "pe", float4ArrayBinary(1, 0, int4OID, []int{2}, float4s(2)),
			"ERROR 42804: binary data has array element type 23 (integer) instead of expected 700 (real)"},
		{"header only", "pe", []byte{0, 0, 0, 1}, "ERROR 08P01: insufficient data left in message"},
		{"length word cut", "pe", full[:30], "ERROR 08P01: insufficient data left in message"},
		{"last element missing", "pe", full[:36], "ERROR 08P01: insufficient data left in message"},
		{"element cut", "pe", full[:len(full)-1], "ERROR 22P03: insufficient data left in message"},
		{"short element", "pe", float4ArrayBinary(1, 0, float4OID, []int{2}, [][]byte{f4(1), {1, 2}}), "ERROR 08P01: insufficient data left in message"},
		{"long element", "pe", float4ArrayBinary(1, 0, float4OID, []int{2}, [][]byte{f4(1), {1, 2, 3, 4, 5}}), "ERROR 22P03: improper binary format in array element 2"},
		{"trailing byte", "pe", append(float4ArrayBinary(1, 0, float4OID, []int{1}, float4s(1)), 9), "ERROR 22P03: incorrect binary data format in bind parameter 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := "INSERT INTO " + tc.table + " VALUES ($1, $2) RETURNING array_dims(e), array_length(e, 1), e[1]::text"
			if tc.table == "pe2" {
				q = "INSERT INTO pe2 VALUES ($1, $2) RETURNING array_dims(e), array_length(e, 1), e[1][1]::text"
			}
			res := c.ExecParams(ctx, q, [][]byte{binary.BigEndian.AppendUint32(nil, uint32(i)), tc.v},
				[]uint32{int4OID, 1021}, []int16{1, 1}, nil).Read()
			got := ""
			var pe *pgconn.PgError
			switch {
			case errors.As(res.Err, &pe):
				got = fmt.Sprintf("ERROR %s: %s", pe.Code, pe.Message)
			case res.Err != nil:
				t.Fatal(res.Err)
			case len(res.Rows) != 1:
				t.Fatalf("%d rows", len(res.Rows))
			default:
				for k, v := range res.Rows[0] {
					if k > 0 {
						got += " "
					}
					if v == nil {
						got += "NULL"
					} else {
						got += string(v)
					}
				}
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	// The embedding read by the fast path is the one stored.
	res := c.ExecParams(ctx, "SELECT e::text FROM pe WHERE id = 1", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || len(res.Rows[0][0]) < 20 || string(res.Rows[0][0][:15]) != "{0.5,1.5,2.5,3." {
		t.Fatalf("stored 4096-d embedding: %v %q", res.Err, res.Rows)
	}
}

// TestBatchInsertDuplicateKey sends 1,000 INSERTs in one pgx batch (one
// Sync, so one implicit transaction, as PostgreSQL runs it) where item 500
// repeats a committed key: item 500 fails with 23505, the items after it
// are skipped with the same error, and nothing of the batch is left.
func TestBatchInsertDuplicateKey(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	host, port, _ := net.SplitHostPort(ts.addr)
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://tester@%s:%s/testdb?sslmode=disable", host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE pb (id bigint PRIMARY KEY, e real[])",
		"INSERT INTO pb VALUES (500, '{1}')",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	batch := func() *pgx.Batch {
		b := &pgx.Batch{}
		for i := 1; i <= 1000; i++ {
			b.Queue("INSERT INTO pb VALUES ($1, $2)", int64(i), []float32{float32(i), 2})
		}
		return b
	}
	br := conn.SendBatch(ctx, batch())
	for i := 1; i <= 1000; i++ {
		_, err := br.Exec()
		var pe *pgconn.PgError
		switch {
		case i < 500 && err != nil:
			t.Fatalf("item %d: %v", i, err)
		case i >= 500 && (!errors.As(err, &pe) || pe.Code != "23505"):
			t.Fatalf("item %d: %v, want 23505", i, err)
		}
	}
	if err := br.Close(); err == nil {
		t.Fatal("batch closed without the duplicate key error")
	}
	var n int
	var sum float64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(e[1]) FROM pb").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 1 || sum != 1 {
		t.Fatalf("after the failed batch: %d rows, sum(e[1]) = %v; want the committed row only", n, sum)
	}
	// The same batch without the conflict commits every row.
	if _, err := conn.Exec(ctx, "DELETE FROM pb"); err != nil {
		t.Fatal(err)
	}
	if err := conn.SendBatch(ctx, batch()).Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(e[1]) FROM pb").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 1000 || sum != 500500 {
		t.Fatalf("after the batch: %d rows, sum(e[1]) = %v", n, sum)
	}
}

// TestHTTPFloat4ArrayParams sends real[] values as JSON arrays to /query
// and /ingest: plain numbers (with or without spaces) take the unboxed
// path, anything else (NULL elements, zero, an empty array, a number out
// of real's range, nesting) the array literal and its errors, with the
// same results as the literal in psql.
func TestHTTPFloat4ArrayParams(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
	defer hs.Close()
	post := func(path, body string) (int, []byte) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, q := range []string{"CREATE SCHEMA w", "CREATE TABLE w.e (id int PRIMARY KEY, v real[])"} {
		if status, b := post("/workspaces/w/tables/query", `{"query": "`+q+`"}`); status != http.StatusOK {
			t.Fatalf("%s: %d %s", q, status, b)
		}
	}
	for i, tc := range []struct{ param, want string }{
		{`[1.5,2,-0.25]`, `{"columns":["v"],"rows":[["{1.5,2,-0.25}"]],"row_count":1}`},
		{`[ 1.5 , 2e-3 ,3.25E2 ]`, `{"columns":["v"],"rows":[["{1.5,0.002,325}"]],"row_count":1}`},
		{`[1, null, 3]`, `{"columns":["v"],"rows":[["{1,NULL,3}"]],"row_count":1}`},
		{`[0, -0.0, 1]`, `{"columns":["v"],"rows":[["{0,-0,1}"]],"row_count":1}`},
		{`[]`, `{"columns":["v"],"rows":[["{}"]],"row_count":1}`},
		{`[1e-50]`, `22003 parameter $1: "1e-50" is out of range for type real`},
		{`[[1, 2], [3, 4]]`, `2202E array has 2 dimensions but the column holds 1`}, // PostgreSQL stores it
	} {
		body := fmt.Sprintf(`{"query": "INSERT INTO e VALUES (%d, $1) RETURNING v::text", "params": [%s]}`, i, tc.param)
		status, b := post("/workspaces/w/tables/query", body)
		got := strings.TrimSpace(string(b))
		if status != http.StatusOK {
			var e errorBody
			json.Unmarshal(b, &e)
			got = e.SQLState + " " + e.Error
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.param, got, tc.want)
		}
	}
	// /ingest: the same embeddings by column.
	if status, b := post("/workspaces/w/tables/e/ingest", `{"id": [100, 101], "v": [[0.5, 1.5], [2, null]]}`); status != http.StatusOK {
		t.Fatalf("ingest: %d %s", status, b)
	}
	status, b := post("/workspaces/w/tables/query", `{"query": "SELECT v::text FROM e WHERE id >= 100 ORDER BY id"}`)
	if want := `{"columns":["v"],"rows":[["{0.5,1.5}"],["{2,NULL}"]],"row_count":2}`; status != http.StatusOK || strings.TrimSpace(string(b)) != want {
		t.Fatalf("after ingest: %d %s, want %s", status, b, want)
	}
}
