package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/functions/embedding"
	"github.com/cairn-db/cairn/wire"
	"github.com/cairn-db/cairn/wire/mcp"
)

// uiClient is a browser-like client of the memory explorer: it keeps
// cookies and does not follow redirects, so that a test sees them.
type uiClient struct {
	t      *testing.T
	base   string
	bearer string // sent as Authorization: Bearer when set
	http   *http.Client
}

func newUIClient(t *testing.T, base string) *uiClient {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &uiClient{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// do sends a request (a form when form is not nil) and returns the
// response with its body read.
func (c *uiClient) do(method, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, string(b)
}

// expect sends a request and checks its status, returning the body.
func (c *uiClient) expect(method, path string, form url.Values, status int) string {
	c.t.Helper()
	resp, body := c.do(method, path, form)
	if resp.StatusCode != status {
		c.t.Fatalf("%s %s: status %d, want %d\n%s", method, path, resp.StatusCode, status, body)
	}
	return body
}

// cookie returns the value of the client's cookie name for the UI.
func (c *uiClient) cookie(name string) string {
	u, _ := url.Parse(c.base + "/ui/")
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// TestUITokenRules checks who the explorer lets in when the server has
// an HTTP token: the bearer header, or the cookie that ?token= or the
// login form sets; nothing else.
func TestUITokenRules(t *testing.T) {
	ts := startServer(t, "")
	api := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret"})
	c := newUIClient(t, api.base)

	if body := c.expect("GET", "/ui/", nil, http.StatusUnauthorized); !strings.Contains(body, `name="token"`) {
		t.Errorf("401 page has no login form:\n%s", body)
	}
	c.bearer = "wrong"
	c.expect("GET", "/ui/", nil, http.StatusUnauthorized)
	c.bearer = "s3cret"
	c.expect("GET", "/ui/", nil, http.StatusOK)
	c.expect("GET", "/ui/activity", nil, http.StatusOK)
	c.bearer = ""
	c.expect("GET", "/ui/?token=wrong", nil, http.StatusUnauthorized)
	if c.cookie("cairn_ui_session") != "" {
		t.Fatal("a wrong ?token= set the session cookie")
	}

	// ?token= sets the cookie and redirects to the page without it.
	resp, _ := c.do("GET", "/ui/activity?token=s3cret&done=x", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/activity?done=x" {
		t.Fatalf("?token=: status %d, Location %q; want 303 to /ui/activity?done=x", resp.StatusCode, resp.Header.Get("Location"))
	}
	setCookie := strings.Join(resp.Header.Values("Set-Cookie"), "\n")
	for _, want := range []string{"cairn_ui_session=", "HttpOnly", "SameSite=Strict", "Path=/ui"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie lacks %s:\n%s", want, setCookie)
		}
	}
	if strings.Contains(setCookie, "s3cret") {
		t.Errorf("the cookie holds the token itself:\n%s", setCookie)
	}
	c.expect("GET", "/ui/", nil, http.StatusOK)

	// A forged cookie is no session; the login form sets a real one.
	d := newUIClient(t, api.base)
	u, _ := url.Parse(api.base + "/ui/")
	d.http.Jar.SetCookies(u, []*http.Cookie{{Name: "cairn_ui_session", Value: "s3cret"}})
	d.expect("GET", "/ui/", nil, http.StatusUnauthorized)
	d.expect("POST", "/ui/login", url.Values{"token": {"nope"}, "next": {"/ui/activity"}}, http.StatusUnauthorized)
	resp, _ = d.do("POST", "/ui/login", url.Values{"token": {"s3cret"}, "next": {"/ui/activity"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/activity" {
		t.Fatalf("login: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	d.expect("GET", "/ui/activity", nil, http.StatusOK)
	// The login never sends a browser off the explorer.
	resp, _ = d.do("POST", "/ui/login", url.Values{"token": {"s3cret"}, "next": {"//evil.example/"}})
	if loc := resp.Header.Get("Location"); loc != "/ui/" {
		t.Errorf("login with next=//evil.example/ redirects to %q, want /ui/", loc)
	}

	// The cookie opens the explorer only, not the API.
	req, _ := http.NewRequest("GET", api.base+"/workspaces/public/tables", nil)
	for _, ck := range d.http.Jar.Cookies(u) {
		req.AddCookie(ck)
	}
	apiResp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	apiResp.Body.Close()
	if apiResp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the API with the explorer's cookie: status %d, want 401", apiResp.StatusCode)
	}
}

// TestUICSRF checks that the explorer's buttons need the CSRF value of
// the browser's cookie, unless the request carries the bearer token.
func TestUICSRF(t *testing.T) {
	ts := startServer(t, "")
	api := startHTTP(t, ts, wire.HTTPOptions{Token: "s3cret"})
	c := newUIClient(t, api.base)
	c.expect("GET", "/ui/?token=s3cret", nil, http.StatusSeeOther)
	page := c.expect("GET", "/ui/activity", nil, http.StatusOK)
	csrf := c.cookie("cairn_ui_csrf")
	if len(csrf) != 64 || !strings.Contains(page, `name="csrf" value="`+csrf+`"`) {
		t.Fatalf("CSRF cookie %q is not the forms' value:\n%s", csrf, page)
	}
	const pid = "2000000000" // no such session
	c.expect("POST", "/ui/activity/"+pid+"/cancel", url.Values{}, http.StatusForbidden)
	c.expect("POST", "/ui/activity/"+pid+"/cancel", url.Values{"csrf": {strings.Repeat("0", 64)}}, http.StatusForbidden)
	resp, _ := c.do("POST", "/ui/activity/"+pid+"/cancel", url.Values{"csrf": {csrf}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel with the CSRF value: status %d, want 303", resp.StatusCode)
	}
	done := c.expect("GET", resp.Header.Get("Location"), nil, http.StatusOK)
	if !strings.Contains(done, "pg_cancel_backend("+pid+") returned false") {
		t.Errorf("the page does not say the cancel found no session:\n%s", done)
	}
	c.expect("POST", "/ui/activity/"+pid+"/explode", url.Values{"csrf": {csrf}}, http.StatusNotFound)

	b := newUIClient(t, api.base)
	b.bearer = "s3cret"
	b.expect("POST", "/ui/activity/"+pid+"/terminate", url.Values{}, http.StatusSeeOther)
	b.bearer = ""
	b.expect("POST", "/ui/activity/"+pid+"/terminate", url.Values{}, http.StatusUnauthorized)
}

// TestUIPages reads every page of the explorer over a server without a
// token: escaping, 404s, the row view's JSON, keyword and hybrid recall,
// the trace timeline, and cancelling and terminating a pgx session's
// pg_sleep from the running queries' page.
func TestUIPages(t *testing.T) {
	e := startEmbedEndpoint(t)
	emb, err := embedding.New(embedding.Config{URL: e.URL + "/v1", Model: "test-embed", Key: "k3y"})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, "", session.Options{Embedder: emb})
	api := startHTTP(t, ts, wire.HTTPOptions{})
	conn := ts.connect(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE SCHEMA team`,
		`CREATE TABLE team.notes (id int PRIMARY KEY, text text, embedding float4[], metadata jsonb)`,
		`INSERT INTO team.notes VALUES (1, 'bananas <script>alert(1)</script> are yellow', '{21,4,1}', '{"colour": {"ripe": ["yellow", "<b>"]}}'),
		  (2, 'apples are red', '{14,2,1}', NULL), (3, 'nothing here', '{12,0,1}', '{}')`,
		`CREATE TABLE plain (t text)`,
		`INSERT INTO plain VALUES ('no key <i>here</i>')`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c := newUIClient(t, api.base)

	c.expect("GET", "/ui", nil, http.StatusMovedPermanently)
	overview := c.expect("GET", "/ui/", nil, http.StatusOK)
	for _, want := range []string{`<h2>team</h2>`, `href="/ui/tables/team/notes"`, `<td class="num">3</td>`, `href="/ui/tables/public/plain"`} {
		if !strings.Contains(overview, want) {
			t.Errorf("overview lacks %s:\n%s", want, overview)
		}
	}

	rows := c.expect("GET", "/ui/tables/team/notes", nil, http.StatusOK)
	if strings.Contains(rows, "<script>alert") || !strings.Contains(rows, "bananas &lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("row text is not escaped:\n%s", rows)
	}
	if plain := c.expect("GET", "/ui/tables/public/plain", nil, http.StatusOK); !strings.Contains(plain, "no key &lt;i&gt;here&lt;/i&gt;") || strings.Contains(plain, "/row?") {
		t.Errorf("a table without a key: want its escaped row and no row links:\n%s", plain)
	}
	c.expect("GET", "/ui/tables/team/nope", nil, http.StatusNotFound)
	c.expect("GET", "/ui/tables/nope/notes", nil, http.StatusNotFound)
	c.expect("GET", "/ui/tables/team/notes/row?id=9", nil, http.StatusNotFound)
	c.expect("GET", "/ui/tables/team/notes/row", nil, http.StatusBadRequest)
	c.expect("GET", "/ui/tables/public/plain/row?t=x", nil, http.StatusBadRequest)
	c.expect("GET", "/ui/nowhere", nil, http.StatusNotFound)
	c.expect("GET", "/ui/tables/team/notes?q=x&text=nope", nil, http.StatusBadRequest)

	row := c.expect("GET", "/ui/tables/team/notes/row?id=1", nil, http.StatusOK)
	wantJSON := "{\n  &#34;colour&#34;: {\n    &#34;ripe&#34;: [\n      &#34;yellow&#34;,\n      &#34;&lt;b&gt;&#34;\n    ]\n  }\n}"
	if !strings.Contains(row, `<pre class="json">`+wantJSON+`</pre>`) {
		t.Errorf("row view: JSONB not pretty-printed as %q:\n%s", wantJSON, row)
	}
	if strings.Contains(row, "<script>alert") {
		t.Errorf("row view is not escaped:\n%s", row)
	}

	// BM25 alone: only the matching row, no vector part.
	kw := c.expect("GET", "/ui/tables/team/notes?q=bananas&vector=-", nil, http.StatusOK)
	if n := strings.Count(kw, `class="hit"`); n != 1 || !strings.Contains(kw, `id="mode">keyword: no embedding column chosen`) || !strings.Contains(kw, `<span class="null">NULL</span>`) {
		t.Errorf("keyword search: %d hits:\n%s", n, kw)
	}
	// Hybrid: every row, each with a vector part; the closest first.
	hy := c.expect("GET", "/ui/tables/team/notes?q=bananas", nil, http.StatusOK)
	if n := strings.Count(hy, `class="hit"`); n != 3 || !strings.Contains(hy, `id="mode">hybrid: the cosine similarity of embedding to the query&#39;s embedding (weight 0.5) fused with the BM25 score of text (weight 0.5)</p>`) || strings.Contains(hy, `class="null"`) {
		t.Errorf("hybrid search: %d hits:\n%s", n, hy)
	}
	if parts := regexp.MustCompile(`<tr class="hit"><td class="num">0\.\d{4}</td><td class="num">0\.\d{4}</td><td class="num">\d\.\d{4}</td>`).FindAllString(hy, -1); len(parts) != 3 {
		t.Errorf("hybrid search: want score, vector and keyword parts of 3 hits as numbers:\n%s", hy)
	}
	first := regexp.MustCompile(`<tr class="hit">.*?href="([^"]+)"`).FindStringSubmatch(hy)
	if first == nil || first[1] != "/ui/tables/team/notes/row?id=1" {
		t.Errorf("hybrid search: first hit %v, want row 1", first)
	}

	// The trace timeline of the agent, newest first.
	store := &mcp.Store{DB: mcp.PgxDB{Conn: conn}, Workspace: "team"}
	for _, tr := range []mcp.TraceInput{
		{Agent: "codex", Action: "ran <the> tests", Result: "failure", ToolOutput: "FAIL x"},
		{Agent: "codex", Action: "fixed the bug", Result: "success"},
		{Agent: "other", Action: "slept", Result: "success"},
	} {
		if _, err := store.TraceStore(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	tl := c.expect("GET", "/ui/traces?ws=team&agent=codex", nil, http.StatusOK)
	fixed, ran := strings.Index(tl, "<b>fixed the bug</b>"), strings.Index(tl, "<b>ran &lt;the&gt; tests</b>")
	if fixed < 0 || ran < 0 || fixed > ran || strings.Contains(tl, "slept") || !strings.Contains(tl, `<li class="failure">`) {
		t.Errorf("timeline of codex: want fixed then ran, no slept:\n%s", tl)
	}
	c.expect("GET", "/ui/traces?ws=nope", nil, http.StatusNotFound)

	// Cancel and terminate a pgx session's pg_sleep from the page.
	csrf := c.cookie("cairn_ui_csrf")
	for _, action := range []string{"cancel", "terminate"} {
		sleeper := ts.connect(t)
		pid := sleeper.PgConn().PID()
		errc := make(chan error, 1)
		go func() {
			_, err := sleeper.Exec(ctx, "SELECT pg_sleep(60)")
			errc <- err
		}()
		waitForActivity(t, c, pid)
		resp, _ := c.do("POST", fmt.Sprintf("/ui/activity/%d/%s", pid, action), url.Values{"csrf": {csrf}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: status %d", action, resp.StatusCode)
		}
		select {
		case err := <-errc:
			var pe *pgconn.PgError
			want := map[string]string{"cancel": pgerrcode.QueryCanceled, "terminate": pgerrcode.AdminShutdown}[action]
			if !errors.As(err, &pe) || pe.Code != want {
				t.Errorf("%s: pg_sleep ended with %v, want SQLSTATE %s", action, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: pg_sleep still runs", action)
		}
		if action == "cancel" {
			if err := sleeper.Ping(ctx); err != nil {
				t.Errorf("the cancelled session is gone: %v", err)
			}
		}
	}
}

// waitForActivity waits until the running queries' page shows pid's
// pg_sleep.
func waitForActivity(t *testing.T, c *uiClient, pid uint32) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if body := c.expect("GET", "/ui/activity", nil, http.StatusOK); strings.Contains(body, fmt.Sprintf(`data-pid="%d"><td>%d</td>`, pid, pid)) && strings.Contains(body, "pg_sleep(60)") {
			return
		}
	}
	t.Fatalf("session %d's pg_sleep never showed on /ui/activity", pid)
}
