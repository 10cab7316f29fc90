package wire

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHTTPResultLimit: the rows /tables/query holds until its statement
// ends count against statement_mem (53200, status 500, once their JSON
// passes it), so a huge result fails the request instead of the server;
// a result within it answers whole, and the next request of the token's
// role is unaffected.
func TestHTTPResultLimit(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
	defer hs.Close()
	post := func(query string) (int, errorBody, string) {
		t.Helper()
		resp, err := http.Post(hs.URL+"/workspaces/public/tables/query", "application/json",
			strings.NewReader(`{"query":`+jsonString(query)+`}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var e errorBody
		_ = json.Unmarshal(body, &e)
		return resp.StatusCode, e, string(body)
	}
	// A role default, as a token's role would carry it.
	if code, _, body := post(`ALTER ROLE cairn SET statement_mem = '1MB'`); code != 200 {
		t.Fatalf("ALTER ROLE: %d %s", code, body)
	}
	code, e, body := post(`SELECT g, repeat('x', 1000) FROM generate_series(1, 2000) g`)
	if code != 500 || e.SQLState != "53200" || !strings.Contains(e.Detail, "statement_mem of 1048576 bytes") {
		t.Errorf("2 MB result: %d %.300s", code, body)
	}
	code, _, body = post(`SELECT g, repeat('x', 1000) FROM generate_series(1, 500) g`)
	if code != 200 || !strings.HasSuffix(strings.TrimSpace(body), `"row_count":500}`) {
		t.Errorf("0.5 MB result: %d %.300s", code, body)
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
