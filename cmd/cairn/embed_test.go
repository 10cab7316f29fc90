package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	osexec "os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// embedEndpoint is an OpenAI-compatible /v1/embeddings endpoint the test
// runs: a text's vector is [its length, its count of 'a', 1]. Texts
// starting with FAIL get a 500 with a message, GARBAGE a body that is not
// JSON, and SLOW an answer only when the request is given up.
type embedEndpoint struct {
	*httptest.Server
	calls atomic.Int32
	mu    sync.Mutex
	sent  [][]string
}

func startEmbedEndpoint(t *testing.T) *embedEndpoint {
	e := &embedEndpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "test-embed" ||
			r.Header.Get("Authorization") != "Bearer k3y" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.sent = append(e.sent, req.Input)
		e.mu.Unlock()
		data := []map[string]any{}
		for i, text := range req.Input {
			switch {
			case strings.HasPrefix(text, "FAIL"):
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"error":{"message":"the model is overloaded"}}`))
				return
			case strings.HasPrefix(text, "GARBAGE"):
				w.Write([]byte(`{"data": [oops`))
				return
			case strings.HasPrefix(text, "SLOW"):
				<-r.Context().Done()
				return
			}
			data = append(data, map[string]any{"index": i, "embedding": []float32{float32(len(text)), float32(strings.Count(text, "a")), 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(e.Close)
	return e
}

// TestEmbedFunction runs embed() in a cairn server process started with
// --embed-url: vectors, one request per distinct constant, batched
// columns, and each failure's SQLSTATE.
func TestEmbedFunction(t *testing.T) {
	e := startEmbedEndpoint(t)
	p := startLogged(t, t.TempDir(), "--embed-url", e.URL+"/v1", "--embed-model", "test-embed", "--embed-key", "k3y", "--embed-timeout", "1s")
	if p.addr == "" {
		t.Fatalf("server did not start:\n%s", p.log())
	}
	conn := p.connect(t)
	ctx := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	calls := func() int { return int(e.calls.Load()) }

	var v []float32
	if err := conn.QueryRow(ctx, "SELECT embed('banana')").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if want := []float32{6, 3, 1}; !slices.Equal(v, want) {
		t.Errorf("embed('banana') = %v, want %v", v, want)
	}
	var m [][]float32
	if err := conn.QueryRow(ctx, "SELECT embed(ARRAY['a', 'bb', 'banana'])").Scan(&m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || !slices.Equal(m[0], []float32{1, 1, 1}) || !slices.Equal(m[1], []float32{2, 0, 1}) || !slices.Equal(m[2], []float32{6, 3, 1}) {
		t.Errorf("embed(text[]) = %v", m)
	}

	// INSERT ... VALUES ($1, embed($1)) from a client with parameters.
	exec("CREATE TABLE docs (id int, body text, embedding real[])")
	exec("INSERT INTO docs VALUES ($1, $2, embed($2))", 1, "an aardvark")
	// A column of texts: one call per batch, split into requests of 64.
	exec("INSERT INTO docs SELECT g, repeat('a', g % 50) || ' doc ' || g, NULL FROM generate_series(2, 301) g")
	before := calls()
	exec("UPDATE docs SET embedding = embed(body) WHERE embedding IS NULL")
	if n := calls() - before; n < 5 || n > 10 {
		t.Errorf("embedding 300 rows took %d requests, want 5 to 10 (batches of up to 64)", n)
	}
	var missing int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM docs WHERE embedding IS NULL OR embedding[1] <> length(body)").Scan(&missing); err != nil || missing != 0 {
		t.Errorf("%d rows lack their embedding (%v)", missing, err)
	}

	// A constant query is embedded once per statement, not once per row,
	// and a repeat is answered from the cache.
	before = calls()
	var ids []int32
	rows, err := conn.Query(ctx, "SELECT id FROM docs ORDER BY embedding <#> embed($1) DESC, id LIMIT 3", "aaaaaaaaaaaaaaaaaaaa query")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int32
		rows.Scan(&id)
		ids = append(ids, id)
	}
	if rows.Err() != nil || len(ids) != 3 {
		t.Fatalf("search: %v %v", ids, rows.Err())
	}
	if n := calls() - before; n != 1 {
		t.Errorf("ORDER BY embedding <#> embed($1) over 301 rows made %d requests, want 1", n)
	}
	exec("SELECT id, embedding <#> embed('aaaaaaaaaaaaaaaaaaaa query') FROM docs WHERE embedding <#> embed('aaaaaaaaaaaaaaaaaaaa query') > 0.5")
	if n := calls() - before; n != 1 {
		t.Errorf("the same query text again made %d more requests, want none (cached)", n-1)
	}

	// Failures are errors with their SQLSTATE, and the session lives on.
	for _, c := range []struct{ sql, code, msg string }{
		{"SELECT embed('FAIL now')", "58000", "the model is overloaded"},
		{"SELECT embed('GARBAGE')", "58000", "sent a bad answer"},
		{"SELECT embed('SLOW')", "08000", "did not answer within 1s"},
		{"UPDATE docs SET embedding = embed('FAIL ' || body) WHERE id < 10", "58000", "the model is overloaded"},
	} {
		_, err := conn.Exec(ctx, c.sql)
		if sqlState(err) != c.code || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), e.URL) {
			t.Errorf("%s: %v, want %s naming the endpoint and %q", c.sql, err, c.code, c.msg)
		}
	}
	var nulls int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM docs WHERE embedding IS NULL").Scan(&nulls); err != nil || nulls != 0 {
		t.Errorf("a failed UPDATE left %d rows without embeddings (%v)", nulls, err)
	}

	// statement_timeout and a client's cancel end a slow request.
	exec("SET statement_timeout = '200ms'")
	start := time.Now()
	_, err = conn.Exec(ctx, "SELECT embed('SLOW again')")
	if sqlState(err) != "57014" || time.Since(start) > 900*time.Millisecond {
		t.Errorf("slow endpoint under statement_timeout: %v after %s, want 57014 at once", err, time.Since(start))
	}
	exec("SET statement_timeout = 0")
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = conn.Exec(cctx, "SELECT embed('SLOW cancelled')")
	if err == nil {
		t.Error("a cancelled embed() succeeded")
	}
	check := p.connect(t)
	if err := check.QueryRow(ctx, "SELECT embed('still works')").Scan(&v); err != nil || v[0] != 11 {
		t.Errorf("after the failures: %v %v", v, err)
	}
	if !strings.Contains(p.log(), `msg="embedding endpoint" url=`+e.URL+"/v1/embeddings model=test-embed") {
		t.Errorf("the start-up log does not name the endpoint:\n%s", p.log())
	}
	noPanic(t, p.log())
}

// TestEmbedFlags checks that a bad --embed-* configuration stops the
// server at start with a message, and that a server started without
// --embed-url answers embed() with 55000.
func TestEmbedFlags(t *testing.T) {
	p := startLogged(t, t.TempDir())
	_, err := p.connect(t).Exec(context.Background(), "SELECT embed('x')")
	if sqlState(err) != "55000" || !strings.Contains(err.Error(), "--embed-url") {
		t.Errorf("embed() without an endpoint: %v, want 55000", err)
	}
	p.kill()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--embed-url", "localhost:11434"}, "is not an http(s) URL"},
		{[]string{"--embed-url", "http://127.0.0.1:9/v1"}, "--embed-model"},
		{[]string{"--embed-url", "http://127.0.0.1:9/v1", "--embed-model", "m", "--embed-timeout", "soon"}, "--embed-timeout"},
		{[]string{"--embed-url", "http://127.0.0.1:9/v1", "--embed-model", "m", "--embed-rate", "fast"}, "--embed-rate"},
		{[]string{"--embed-url", "http://127.0.0.1:9/v1", "--embed-model", "m", "--embed-rate", "0"}, "--embed-rate"},
		{[]string{"--near-duplicate", "2"}, "--near-duplicate"},
	} {
		p := startLogged(t, t.TempDir(), c.args...)
		if code := p.wait(30 * time.Second); code != 2 || !strings.Contains(p.log(), c.msg) {
			t.Errorf("%v: exit %d, log %q; want 2 and %q", c.args, code, p.log(), c.msg)
		}
	}
}

// TestEmbedMemory checks that the memory commands embed through the
// server's endpoint when it has one: remember and trace store fill the
// embedding column, and recall is hybrid, reporting both parts of its
// score, with memories that share no keyword with the query found too.
func TestEmbedMemory(t *testing.T) {
	e := startEmbedEndpoint(t)
	p := startLogged(t, t.TempDir(), "--embed-url", e.URL+"/v1/embeddings", "--embed-model", "test-embed", "--embed-key", "k3y")
	if p.addr == "" {
		t.Fatalf("server did not start:\n%s", p.log())
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := osexec.Command(cairnBinary(t), args...)
		cmd.Env = append(cmd.Environ(), "CAIRN_URL="+p.connString())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("remember", "deploys go out on tuesdays")
	run("remember", "a banana a day")
	run("trace", "store", "--agent", "codex", "--action", "ran the tests", "--result", "success")
	conn := p.connect(t)
	ctx := context.Background()
	var v []float32
	if err := conn.QueryRow(ctx, "SELECT embedding FROM memories WHERE text = 'a banana a day'").Scan(&v); err != nil || !slices.Equal(v, []float32{14, 6, 1}) {
		t.Errorf("remembered embedding %v (%v), want [14 6 1]", v, err)
	}
	if err := conn.QueryRow(ctx, "SELECT embedding FROM traces").Scan(&v); err != nil || !slices.Equal(v, []float32{13, 1, 1}) {
		t.Errorf("trace embedding %v (%v), want [13 1 1]", v, err)
	}

	before := e.calls.Load()
	var rec struct {
		Mode string
		Note string
		Hits []struct {
			Text         string
			Score        float64
			KeywordScore float64  `json:"keyword_score"`
			VectorScore  *float64 `json:"vector_score"`
		}
	}
	out := run("recall", "bananas", "--json")
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("recall --json: %v\n%s", err, out)
	}
	if rec.Mode != "hybrid" || rec.Note != "" || len(rec.Hits) != 2 {
		t.Fatalf("recall: %s", out)
	}
	for _, h := range rec.Hits {
		if h.VectorScore == nil || *h.VectorScore <= 0 || h.KeywordScore != 0 {
			t.Errorf("hit %q: vector %v, keyword %v; want a vector score and no keyword match", h.Text, h.VectorScore, h.KeywordScore)
		}
	}
	if n := e.calls.Load() - before; n != 1 {
		t.Errorf("recall made %d embedding requests, want 1", n)
	}
	noPanic(t, p.log())
}

// TestEmbedNearDuplicate remembers texts through a server with an
// embedding endpoint: a restatement whose embedding is within
// --near-duplicate of a memory in the same scope and repo returns that
// memory's id and bumps its updated_at; another scope or repo, a distant
// text, or --near-duplicate off stores a new one.
func TestEmbedNearDuplicate(t *testing.T) {
	e := startEmbedEndpoint(t)
	p := startLogged(t, t.TempDir(), "--embed-url", e.URL+"/v1", "--embed-model", "test-embed", "--embed-key", "k3y")
	if p.addr == "" {
		t.Fatalf("server did not start:\n%s", p.log())
	}
	remember := func(wantCode int, args ...string) (res struct {
		ID        int64
		Duplicate bool
	}, out string) {
		t.Helper()
		cmd := osexec.Command(cairnBinary(t), append([]string{"remember", "--json"}, args...)...)
		cmd.Env = append(cmd.Environ(), "CAIRN_URL="+p.connString())
		b, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != wantCode {
			t.Fatalf("cairn remember %v: exit %d, want %d\n%s", args, code, wantCode, b)
		}
		if code == 0 {
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
		}
		return res, string(b)
	}
	conn := p.connect(t)
	ctx := context.Background()
	updated := func(id int64) (ts time.Time) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT updated_at FROM memories WHERE id = $1", id).Scan(&ts); err != nil {
			t.Fatal(err)
		}
		return ts
	}

	// [26 0 1]; its restatement is [27 1 1], cosine 0.9993.
	first, _ := remember(0, "deploys go out on tuesdays")
	if first.Duplicate {
		t.Fatalf("first memory is a duplicate")
	}
	before := updated(first.ID)
	again, _ := remember(0, "Deploys go out on Tuesday!!")
	if again.ID != first.ID || !again.Duplicate {
		t.Fatalf("restatement: %+v, want a duplicate of %d", again, first.ID)
	}
	if after := updated(first.ID); !after.After(before) {
		t.Errorf("updated_at %s not bumped past %s", after, before)
	}
	// Other scopes and repos keep their own memories.
	if r, _ := remember(0, "Deploys go out on Tuesday!!", "--scope", "team"); r.Duplicate {
		t.Errorf("another scope: %+v", r)
	}
	if r, _ := remember(0, "Deploys go out on Tuesday!!", "--repo", "github.com/acme/site"); r.Duplicate {
		t.Errorf("another repo: %+v", r)
	}
	// [14 6 1] is 0.919 from [26 0 1]: distinct at the default 0.95,
	// a near-duplicate at 0.9.
	banana, _ := remember(0, "a banana a day")
	if banana.Duplicate {
		t.Errorf("a distant text is a duplicate: %+v", banana)
	}
	if r, _ := remember(0, "deploys go out Tuesday", "--near-duplicate", "off"); r.Duplicate {
		t.Errorf("--near-duplicate off: %+v", r)
	}
	cmd := osexec.Command(cairnBinary(t), "remember", "--json", "any banana a day")
	cmd.Env = append(cmd.Environ(), "CAIRN_URL="+p.connString(), "CAIRN_NEAR_DUPLICATE=0.9")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), `"duplicate": true`) && !strings.Contains(string(b), `"duplicate":true`) {
		t.Errorf("CAIRN_NEAR_DUPLICATE=0.9: %v %s", err, b)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&n); err != nil || n != 5 {
		t.Errorf("%d memories (%v), want 5", n, err)
	}
	// Bad thresholds are usage errors; a failing endpoint fails the call.
	for _, bad := range []string{"1.5", "0", "-0.2", "most"} {
		if _, out := remember(2, "x", "--near-duplicate", bad); !strings.Contains(out, "--near-duplicate") {
			t.Errorf("--near-duplicate %s: %s", bad, out)
		}
	}
	if _, out := remember(1, "FAIL to remember"); !strings.Contains(out, "the model is overloaded") {
		t.Errorf("failing endpoint: %s", out)
	}
	noPanic(t, p.log())

	// The server's --near-duplicate governs its MCP endpoint: off, a
	// restatement is a new memory, the same text is still a duplicate.
	srv := startLogged(t, t.TempDir(), "--embed-url", e.URL+"/v1", "--embed-model", "test-embed", "--embed-key", "k3y",
		"--http", "127.0.0.1:0", "--near-duplicate", "off")
	m := regexp.MustCompile(`listening postgres=\S+ http=(127\.0\.0\.1:\d+)`).FindStringSubmatch(srv.log())
	if m == nil {
		t.Fatalf("no HTTP address:\n%s", srv.log())
	}
	cs, err := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: "http://" + m[1] + "/mcp", DisableStandaloneSSE: true})
	if err != nil {
		t.Fatal(err)
	}
	var r1, r2, r3 struct {
		ID        int64
		Duplicate bool
	}
	for _, c := range []struct {
		text string
		out  any
	}{{"deploys go out on tuesdays", &r1}, {"Deploys go out on Tuesday!!", &r2}, {"Deploys go out on Tuesdays.", &r3}} {
		if msg := call(t, cs, "memory_remember", map[string]any{"text": c.text}, c.out); msg != "" {
			t.Fatal(msg)
		}
	}
	if r2.Duplicate || r2.ID == r1.ID || !r3.Duplicate || r3.ID != r1.ID {
		t.Errorf("MCP with --near-duplicate off: %+v %+v %+v", r1, r2, r3)
	}
	noPanic(t, srv.log())
}
