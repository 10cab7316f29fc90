package wire

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTPHealth(t *testing.T) {
	ts := startServer(t)
	hs := httptest.NewServer(HTTPHandler(ts.engine, HTTPOptions{}))
	defer hs.Close()
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/health", 200, `{"status":"ok"}`},
		{"GET", "/ready", 200, `{"status":"ready"}`},
		{"POST", "/health", 405, ""},
		{"GET", "/nope", 404, ""},
	} {
		req, _ := http.NewRequest(tc.method, hs.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
		if tc.body != "" {
			if got := strings.TrimSpace(string(body)); got != tc.body {
				t.Errorf("%s %s: body %s, want %s", tc.method, tc.path, got, tc.body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, ct)
			}
		}
	}
}
