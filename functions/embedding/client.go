// Package embedding is cairn's client of an OpenAI-compatible embeddings
// endpoint (OpenAI, OpenRouter, Ollama, a local TEI server): POST
// {"model": ..., "input": [texts]} to .../v1/embeddings, read
// {"data": [{"embedding": [...], "index": i}]}. It serves the SQL function
// embed() (functions.Embedder): results are cached by content, texts are
// sent in batches, requests in flight are bounded and optionally
// rate-limited, and every failure is an
// error with a SQLSTATE (08000 unreachable, 58000 a bad answer), never a
// silent zero vector.
package embedding

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jackc/pgerrcode"
	"golang.org/x/time/rate"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// Defaults of Config's zero fields.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultBatchSize     = 64
	DefaultMaxConcurrent = 4
	DefaultCacheSize     = 4096
)

// maxErrorText bounds how much of an endpoint's error answer an error
// message quotes.
const maxErrorText = 300

// Config configures a Client.
type Config struct {
	// URL is the endpoint (https://api.openai.com/v1/embeddings) or its
	// base (http://localhost:11434/v1), to which /embeddings is added.
	URL string
	// Model is the model name sent with every request.
	Model string
	// Key, when set, is sent as Authorization: Bearer <Key>.
	Key string
	// Timeout bounds one request (DefaultTimeout when 0).
	Timeout time.Duration
	// BatchSize is the most texts one request carries (DefaultBatchSize).
	BatchSize int
	// MaxConcurrent is the most requests in flight at once, over all
	// statements (DefaultMaxConcurrent).
	MaxConcurrent int
	// CacheSize is how many vectors the cache keeps (DefaultCacheSize).
	CacheSize int
	// RequestsPerSecond, when positive, is the most requests started per
	// second, over all statements, spaced evenly (no bursts): the rate
	// limit of a hosted endpoint's plan. 0 means no limit.
	RequestsPerSecond float64
	// HTTP is the client requests go through (http.DefaultClient).
	HTTP *http.Client
}

// Client embeds texts through one endpoint and model. It is safe for
// concurrent use.
type Client struct {
	url, model, key string
	timeout         time.Duration
	batch           int
	slots           chan struct{} // one token per request in flight
	limiter         *rate.Limiter // nil: no rate limit
	http            *http.Client
	cache           *lru.Cache[[32]byte, []float32]

	mu       sync.Mutex
	inflight map[[32]byte]*pending
	dim      int // the model's dimension, once an answer told it
}

// pending is a text some caller is embedding; others wanting it wait.
type pending struct {
	done chan struct{}
	vec  []float32
	err  error
}

// New returns a client of cfg's endpoint.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embedding endpoint %q is not an http(s) URL", cfg.URL)
	}
	if !strings.HasSuffix(u.Path, "/embeddings") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/embeddings"
	}
	if cfg.Model == "" {
		return nil, errors.New("no embedding model: set --embed-model (CAIRN_EMBED_MODEL)")
	}
	c := &Client{url: u.String(), model: cfg.Model, key: cfg.Key, timeout: cfg.Timeout, batch: cfg.BatchSize,
		http: cfg.HTTP, inflight: map[[32]byte]*pending{}}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.batch <= 0 {
		c.batch = DefaultBatchSize
	}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	conc, size := cfg.MaxConcurrent, cfg.CacheSize
	if conc <= 0 {
		conc = DefaultMaxConcurrent
	}
	if size <= 0 {
		size = DefaultCacheSize
	}
	c.slots = make(chan struct{}, conc)
	if cfg.RequestsPerSecond > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.RequestsPerSecond), 1)
	}
	if c.cache, err = lru.New[[32]byte, []float32](size); err != nil {
		return nil, err
	}
	return c, nil
}

// URL is the endpoint requests go to.
func (c *Client) URL() string { return c.url }

// key is the cache key of a text: the hash of the model and the text.
func (c *Client) keyOf(text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(c.model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Embed returns the embedding of each text, in order. Cached texts cost
// nothing, a text another caller is embedding is waited for, and the rest
// go to the endpoint in requests of at most BatchSize texts. The returned
// vectors are shared with the cache: callers must not modify them.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for {
		keys := make([][32]byte, len(texts))
		var mine []int // indexes of the texts this call requests
		var mineP []*pending
		waits := map[int]*pending{}
		c.mu.Lock()
		for i, t := range texts {
			if out[i] != nil {
				continue
			}
			k := c.keyOf(t)
			keys[i] = k
			if v, ok := c.cache.Get(k); ok {
				out[i] = v
				continue
			}
			if p, ok := c.inflight[k]; ok {
				waits[i] = p
				continue
			}
			p := &pending{done: make(chan struct{})}
			c.inflight[k] = p
			mine, mineP = append(mine, i), append(mineP, p)
		}
		c.mu.Unlock()

		err := c.fetch(ctx, texts, keys, mine, mineP)
		for j, i := range mine {
			out[i] = mineP[j].vec
		}
		if err != nil {
			return nil, err
		}
		retry := false
		for i, p := range waits {
			select {
			case <-p.done:
			case <-ctx.Done():
				return nil, pgerr.From(ctx.Err())
			}
			if p.err != nil {
				if !isCancel(p.err) {
					return nil, p.err
				}
				// The caller that asked for it was cancelled; this
				// one asks again.
				retry = true
				continue
			}
			out[i] = p.vec
		}
		if !retry {
			return out, nil
		}
	}
}

// isCancel reports whether err is a statement's cancellation rather than
// the endpoint's failure.
func isCancel(err error) bool {
	return pgerr.Code(err) == pgerrcode.QueryCanceled
}

// fetch requests the texts at indexes idx (whose pendings are ps) in
// batches, fills and releases every pending and caches the vectors. It
// returns the first error; the pendings not fetched get it too.
func (c *Client) fetch(ctx context.Context, texts []string, keys [][32]byte, idx []int, ps []*pending) error {
	var err error
	for start := 0; start < len(idx); start += c.batch {
		end := min(start+c.batch, len(idx))
		if err == nil {
			batch := make([]string, 0, end-start)
			for _, i := range idx[start:end] {
				batch = append(batch, texts[i])
			}
			var vecs [][]float32
			if vecs, err = c.request(ctx, batch); err == nil {
				for j := range vecs {
					ps[start+j].vec = vecs[j]
				}
			}
		}
		c.mu.Lock()
		for j, i := range idx[start:end] {
			p := ps[start+j]
			if err != nil {
				p.err = err
			} else {
				c.cache.Add(keys[i], p.vec)
			}
			delete(c.inflight, keys[i])
			close(p.done)
		}
		c.mu.Unlock()
	}
	return err
}

// request is the wire format of a request.
type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// response is the part of an answer Embed reads.
type response struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
}

// request sends one batch and returns its vectors, in order, after
// waiting for its turn under the rate limit and then for a free request
// slot (so that no slot is held while waiting for the rate).
func (c *Client) request(ctx context.Context, texts []string) ([][]float32, error) {
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, pgerr.From(ctx.Err())
			}
			// The statement's deadline comes before the request's turn.
			return nil, pgerr.New(pgerrcode.QueryCanceled, "canceling statement due to statement timeout").
				WithDetail("The embedding endpoint's rate limit (%g requests per second) would delay the request past the deadline.", float64(c.limiter.Limit()))
		}
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, pgerr.From(ctx.Err())
	}
	defer func() { <-c.slots }()
	body, err := json.Marshal(request{Model: c.model, Input: texts})
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err == nil {
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, pgerr.From(ctx.Err())
		}
		if rctx.Err() != nil {
			return nil, pgerr.New(pgerrcode.ConnectionException, "embedding endpoint %s did not answer within %s", c.url, c.timeout)
		}
		return nil, pgerr.New(pgerrcode.ConnectionException, "embedding endpoint %s is unreachable: %v", c.url, unwrapURLError(err))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, pgerr.New(pgerrcode.SystemError, "embedding endpoint %s answered %s: %s", c.url, resp.Status, errorText(body))
	}
	return c.decode(body, len(texts))
}

// decode reads an answer for n texts: n vectors, each index once, all of
// the model's dimension.
func (c *Client) decode(body []byte, n int) ([][]float32, error) {
	bad := func(format string, args ...any) error {
		return pgerr.New(pgerrcode.SystemError, "embedding endpoint %s sent a bad answer: %s", c.url, fmt.Sprintf(format, args...))
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, bad("%v (%s)", err, errorText(body))
	}
	if len(r.Data) != n {
		return nil, bad("%d embeddings for %d texts", len(r.Data), n)
	}
	out := make([][]float32, n)
	for j, d := range r.Data {
		i := j
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, bad("index %d is out of range or repeated", i)
		}
		if len(d.Embedding) == 0 {
			return nil, bad("embedding %d is empty", i)
		}
		out[i] = d.Embedding
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, v := range out {
		if c.dim == 0 {
			c.dim = len(v)
		}
		if len(v) != c.dim {
			return nil, bad("embedding %d has %d dimensions, model %q gave %d before", i, len(v), c.model, c.dim)
		}
	}
	return out, nil
}

// errorText is the message of an endpoint's error answer: OpenAI's
// {"error": {"message": ...}}, Ollama's {"error": "..."}, or the body
// itself, cut short.
func errorText(body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			msg = s
		case e.Message != "":
			msg = e.Message
		}
	}
	if msg == "" {
		return "(empty body)"
	}
	if r := []rune(msg); len(r) > maxErrorText {
		msg = string(r[:maxErrorText]) + "..."
	}
	return msg
}

// unwrapURLError drops net/http's "Post <url>:" prefix, which the message
// already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
