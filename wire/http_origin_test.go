package wire

import (
	"net/http"
	"strings"
	"testing"
)

// TestHTTPRefusesWebPages: a page of another site cannot make a browser
// run SQL through the API: a cross-origin POST (a "simple" one, text/plain,
// which a browser sends without asking) and, while the API needs no
// token, a request for a Host other than a loopback name (DNS rebinding)
// get 403 with 42501. Both ran their SQL as the bootstrap superuser.
func TestHTTPRefusesWebPages(t *testing.T) {
	c := startHTTP(t, HTTPOptions{})
	send := func(method, path, body string, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, c.url+path, strings.NewReader(body))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if h := header["Host"]; h != "" {
			req.Host = h
		}
		return c.do(req)
	}
	create := `{"query": "CREATE TABLE pwned (x int)"}`
	for _, h := range []map[string]string{
		{"Content-Type": "text/plain", "Origin": "https://evil.example"},
		{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"},
		{"Content-Type": "application/json", "Host": "evil.example:8080"},
		{"Content-Type": "application/json", "Host": "evil.example:8080", "Origin": "http://evil.example:8080", "Sec-Fetch-Site": "same-origin"},
	} {
		if status, got := send("POST", "/workspaces/w/tables/query", create, h); status != http.StatusForbidden ||
			!strings.Contains(got, `"code":"FORBIDDEN","sqlstate":"42501"`) {
			t.Errorf("%v: %d %s", h, status, got)
		}
	}
	if status, got := send("GET", "/workspaces/w/tables", "", map[string]string{"Host": "evil.example"}); status != http.StatusForbidden {
		t.Errorf("GET for a rebound host: %d %s", status, got)
	}
	if status, got := send("GET", "/health", "", map[string]string{"Host": "evil.example"}); status != http.StatusOK {
		t.Errorf("/health for another host: %d %s", status, got)
	}
	if got := c.query("SELECT count(*) FROM pg_class WHERE relname = 'pwned'"); got != "[[0]]" {
		t.Fatalf("a refused request ran: %s", got)
	}
	// Programs, and the server's own pages, are served.
	for _, h := range []map[string]string{
		{},
		{"Host": "localhost"},
		{"Host": "[::1]:1234"},
		{"Host": "Agents.LOCALHOST.:8080"},
		{"Origin": c.url, "Sec-Fetch-Site": "same-origin"},
	} {
		if status, got := send("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1"}`, h); status != http.StatusOK {
			t.Errorf("%v: %d %s", h, status, got)
		}
	}

	// With a token, any name may reach the server (behind a proxy, say).
	c = startHTTP(t, HTTPOptions{Token: "tok"})
	if status, got := send("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1"}`, map[string]string{"Authorization": "Bearer tok", "Host": "cairn.example"}); status != http.StatusOK {
		t.Errorf("token, another host: %d %s", status, got)
	}
	if status, got := send("POST", "/workspaces/w/tables/query", `{"query": "SELECT 1"}`, map[string]string{"Authorization": "Bearer tok", "Origin": "https://evil.example"}); status != http.StatusForbidden {
		t.Errorf("token, cross-origin: %d %s", status, got)
	}
}
