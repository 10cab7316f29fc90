package embedding

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// fakeVec is the test endpoint's embedding of a text: its length, its
// count of 'a', its first byte and 1.
func fakeVec(text string) []float32 {
	first := float32(0)
	if text != "" {
		first = float32(text[0])
	}
	return []float32{float32(len(text)), float32(strings.Count(text, "a")), first, 1}
}

// endpoint is an OpenAI-compatible embeddings endpoint for tests: it
// answers with fakeVec, in reverse order with indexes (as it may), and
// records what it was sent. answer, when set, replaces the answer.
type endpoint struct {
	*httptest.Server
	calls    atomic.Int32
	inflight atomic.Int32
	maxIn    atomic.Int32
	mu       sync.Mutex
	batches  [][]string
	auth     []string
	answer   func(w http.ResponseWriter, r *http.Request, in []string) bool
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := e.inflight.Add(1)
		defer e.inflight.Add(-1)
		for m := e.maxIn.Load(); n > m && !e.maxIn.CompareAndSwap(m, n); m = e.maxIn.Load() {
		}
		e.calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
			return
		}
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		e.batches = append(e.batches, req.Input)
		e.auth = append(e.auth, r.Header.Get("Authorization"))
		e.mu.Unlock()
		if e.answer != nil && e.answer(w, r, req.Input) {
			return
		}
		type item struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{fakeVec(req.Input[i]), i})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(e.Close)
	return e
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantVecs(t *testing.T, got [][]float32, texts []string) {
	t.Helper()
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		want := fakeVec(text)
		if len(got[i]) != len(want) {
			t.Fatalf("vector %d (%q) = %v, want %v", i, text, got[i], want)
		}
		for j := range want {
			if got[i][j] != want[j] {
				t.Fatalf("vector %d (%q) = %v, want %v", i, text, got[i], want)
			}
		}
	}
}

func wantCode(t *testing.T, err error, code, contains string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	if got := pgerr.Code(err); got != code || !strings.Contains(err.Error(), contains) {
		t.Fatalf("error %s %q, want %s containing %q", got, err, code, contains)
	}
}

func TestEmbedVectorsCacheAndBatches(t *testing.T) {
	e := newEndpoint(t)
	c := newClient(t, Config{URL: e.URL + "/v1", Key: "sekrit", BatchSize: 2})
	ctx := context.Background()
	texts := []string{"alpha", "banana", "cherry", "date", "elderberry"}
	got, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts)
	if n := e.calls.Load(); n != 3 {
		t.Errorf("5 texts in batches of 2 took %d requests, want 3", n)
	}
	for _, a := range e.auth {
		if a != "Bearer sekrit" {
			t.Errorf("Authorization %q, want the bearer key", a)
		}
	}
	// Cached: the same texts again, and a repeat within one call, cost
	// one request for the one new text only.
	texts2 := []string{"cherry", "fig", "alpha", "fig"}
	got, err = c.Embed(ctx, texts2)
	if err != nil {
		t.Fatal(err)
	}
	wantVecs(t, got, texts2)
	if n := e.calls.Load(); n != 4 {
		t.Errorf("%d requests after a call with one new text, want 4", n)
	}
	if last := e.batches[len(e.batches)-1]; len(last) != 1 || last[0] != "fig" {
		t.Errorf("last request sent %q, want [fig]", last)
	}
	// The cache is per model.
	other := newClient(t, Config{URL: e.URL + "/v1/embeddings", Model: "other"})
	if _, err := other.Embed(ctx, []string{"alpha"}); err != nil {
		t.Fatal(err)
	}
	if n := e.calls.Load(); n != 5 {
		t.Errorf("another model's client took %d requests in all, want 5", n)
	}
}

func TestEmbedCacheBounded(t *testing.T) {
	e := newEndpoint(t)
	c := newClient(t, Config{URL: e.URL + "/v1", CacheSize: 2})
	ctx := context.Background()
	for _, text := range []string{"a", "b", "c", "a"} {
		if _, err := c.Embed(ctx, []string{text}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.calls.Load(); n != 4 {
		t.Errorf("%d requests, want 4: a was evicted by b and c", n)
	}
}

func TestEmbedConcurrency(t *testing.T) {
	e := newEndpoint(t)
	release := make(chan struct{})
	e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
		<-release
		return false
	}
	c := newClient(t, Config{URL: e.URL + "/v1", MaxConcurrent: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two goroutines ask for each text: one request per text.
			_, err := c.Embed(context.Background(), []string{string(rune('a' + i%3))})
			errs <- err
		}()
	}
	time.Sleep(200 * time.Millisecond)
	if n := e.inflight.Load(); n > 2 {
		t.Errorf("%d requests in flight, want at most 2", n)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := e.calls.Load(); n != 3 {
		t.Errorf("%d requests for 3 distinct texts asked twice each, want 3", n)
	}
	if m := e.maxIn.Load(); m > 2 {
		t.Errorf("%d requests were in flight at once, want at most 2", m)
	}
}

func TestEmbedErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("endpoint error", func(t *testing.T) {
		e := newEndpoint(t)
		e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"model is overloaded","type":"server_error"}}`))
			return true
		}
		c := newClient(t, Config{URL: e.URL + "/v1"})
		_, err := c.Embed(ctx, []string{"x"})
		wantCode(t, err, "58000", "model is overloaded")
		wantCode(t, err, "58000", e.URL+"/v1/embeddings")
		// Failures are not cached: a second call asks again.
		c.Embed(ctx, []string{"x"})
		if n := e.calls.Load(); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("ollama error", func(t *testing.T) {
		e := newEndpoint(t)
		e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"model \"nope\" not found, try pulling it first"}`))
			return true
		}
		_, err := newClient(t, Config{URL: e.URL + "/v1"}).Embed(ctx, []string{"x"})
		wantCode(t, err, "58000", `model "nope" not found`)
	})
	t.Run("unreachable", func(t *testing.T) {
		e := newEndpoint(t)
		url := e.URL + "/v1"
		e.Close()
		_, err := newClient(t, Config{URL: url}).Embed(ctx, []string{"x"})
		wantCode(t, err, "08000", "embedding endpoint "+url+"/embeddings is unreachable")
	})
	garbage := map[string]string{
		"not json":        `<html>oops</html>`,
		"too few":         `{"data":[{"embedding":[1,2],"index":0}]}`,
		"empty embedding": `{"data":[{"embedding":[],"index":0},{"embedding":[1],"index":1}]}`,
		"bad index":       `{"data":[{"embedding":[1],"index":0},{"embedding":[1],"index":0}]}`,
		"strings":         `{"data":[{"embedding":["a"],"index":0},{"embedding":[1],"index":1}]}`,
		"dimensions":      `{"data":[{"embedding":[1,2],"index":0},{"embedding":[1],"index":1}]}`,
	}
	for name, body := range garbage {
		t.Run(name, func(t *testing.T) {
			e := newEndpoint(t)
			e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
				w.Write([]byte(body))
				return true
			}
			_, err := newClient(t, Config{URL: e.URL + "/v1"}).Embed(ctx, []string{"x", "y"})
			wantCode(t, err, "58000", "sent a bad answer")
		})
	}
	t.Run("dimension changes", func(t *testing.T) {
		e := newEndpoint(t)
		c := newClient(t, Config{URL: e.URL + "/v1"})
		if _, err := c.Embed(ctx, []string{"x"}); err != nil {
			t.Fatal(err)
		}
		e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
			w.Write([]byte(`{"data":[{"embedding":[1,2,3],"index":0}]}`))
			return true
		}
		_, err := c.Embed(ctx, []string{"y"})
		wantCode(t, err, "58000", "has 3 dimensions")
	})
	t.Run("timeout", func(t *testing.T) {
		e := newEndpoint(t)
		e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
			<-r.Context().Done()
			return true
		}
		start := time.Now()
		_, err := newClient(t, Config{URL: e.URL + "/v1", Timeout: 100 * time.Millisecond}).Embed(ctx, []string{"x"})
		wantCode(t, err, "08000", "did not answer within 100ms")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the timeout took %s", d)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		e := newEndpoint(t)
		e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
			<-r.Context().Done()
			return true
		}
		c := newClient(t, Config{URL: e.URL + "/v1"})
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := c.Embed(cctx, []string{"x"})
		wantCode(t, err, "57014", "statement timeout")
	})
}

func TestNewRejects(t *testing.T) {
	for _, cfg := range []Config{{URL: "localhost:11434", Model: "m"}, {URL: "ftp://h/v1", Model: "m"}, {URL: "http://h/v1"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	for url, want := range map[string]string{
		"http://h:1/v1":             "http://h:1/v1/embeddings",
		"http://h:1/v1/":            "http://h:1/v1/embeddings",
		"https://h/api/embeddings":  "https://h/api/embeddings",
		"https://h/openai/v1?x=1":   "https://h/openai/v1/embeddings?x=1",
		"https://api.example.com/v": "https://api.example.com/v/embeddings",
	} {
		c, err := New(Config{URL: url, Model: "m"})
		if err != nil {
			t.Errorf("New(%q): %v", url, err)
		} else if c.URL() != want {
			t.Errorf("New(%q).URL() = %q, want %q", url, c.URL(), want)
		}
	}
}

// TestEmbedRateLimit checks RequestsPerSecond: requests start no faster
// than the rate, evenly spaced, whoever sends them, and a statement whose
// deadline comes before its turn fails with 57014 without sending.
func TestEmbedRateLimit(t *testing.T) {
	e := newEndpoint(t)
	var mu sync.Mutex
	var starts []time.Time
	e.answer = func(w http.ResponseWriter, r *http.Request, in []string) bool {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		return false
	}
	const rps = 20
	c := newClient(t, Config{URL: e.URL + "/v1", BatchSize: 1, MaxConcurrent: 4, RequestsPerSecond: rps})
	texts := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	var wg sync.WaitGroup
	for _, half := range [][]string{texts[:4], texts[4:]} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.Embed(context.Background(), half)
			if err != nil {
				t.Error(err)
				return
			}
			wantVecs(t, got, half)
		}()
	}
	wg.Wait()
	if len(starts) != len(texts) {
		t.Fatalf("%d requests for %d texts in batches of 1", len(starts), len(texts))
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	// 9 requests at 20 per second, the first at once: at least 8/20 s
	// from the first to the last (less a little for timer slack).
	if span, want := starts[len(starts)-1].Sub(starts[0]), time.Duration(len(texts)-1)*time.Second/rps; span < want*9/10 {
		t.Errorf("%d requests took %s, want at least %s at %d per second", len(starts), span, want, rps)
	}

	// A deadline shorter than the wait for the next turn.
	slow := newClient(t, Config{URL: e.URL + "/v1", RequestsPerSecond: 0.5})
	if _, err := slow.Embed(context.Background(), []string{"first"}); err != nil {
		t.Fatal(err)
	}
	before := e.calls.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := slow.Embed(ctx, []string{"second"})
	wantCode(t, err, "57014", "statement timeout")
	if e.calls.Load() != before {
		t.Errorf("a request was sent past the deadline")
	}
}
