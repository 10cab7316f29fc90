package wire

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/wire/httpauth"
	"github.com/jackc/pgerrcode"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultMaxBodyBytes bounds an HTTP request body when
// HTTPOptions.MaxBodyBytes is 0: room for an ingest of some thousands of
// embedded rows, small enough that one request cannot exhaust memory.
const DefaultMaxBodyBytes = 64 << 20

// DefaultMaxConcurrency bounds the HTTP requests served at once when
// HTTPOptions.MaxConcurrency is 0: below max_connections less its
// superuser reserve, since every request holds a session, so that a burst
// of requests is answered 503 before it takes the PostgreSQL clients'
// slots.
const DefaultMaxConcurrency = 64

// HTTPOptions configures the HTTP API.
type HTTPOptions struct {
	// Token, when set, is the bootstrap superuser's bearer token
	// (Authorization: Bearer <token>). While it or Tokens holds a token,
	// every endpoint but /health and /ready requires one (/metrics
	// included: it names statements' kinds and session counts, and
	// Prometheus sends a bearer token as easily); a request without a
	// known token gets 401.
	Token string
	// Tokens maps more bearer tokens to roles (--http-tokens): a request
	// with one runs its SQL as that role, logged in as a PostgreSQL client
	// would be (Engine.LoginRole), so the role's privileges bound what it
	// reads and writes through every endpoint.
	Tokens *httpauth.Tokens
	// MaxConcurrency bounds the requests served at once (all but /health
	// and /ready); one more gets 503 with Retry-After. 0 means
	// DefaultMaxConcurrency.
	MaxConcurrency int
	// MaxBodyBytes bounds a request body; a larger one gets 413. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// BodyIdleTimeout bounds the wait for the next bytes of a request
	// body, and BodyTimeout the reading of a whole one; a body late by
	// either gets 408 and its connection is closed. A body is read before
	// its request takes a slot of MaxConcurrency (admit). 0 means
	// DefaultBodyIdleTimeout and DefaultBodyTimeout.
	BodyIdleTimeout time.Duration
	BodyTimeout     time.Duration
	// WriteTimeout bounds how long one write of a response may block, as
	// Server.WriteTimeout does a PostgreSQL client's: a client that stops
	// reading its answer loses its connection then, and its request its
	// slot of MaxConcurrency. A client that reads, however slowly, is
	// never cut off. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MCPSQL adds the read-only sql_query tool to the MCP endpoint.
	MCPSQL bool
	// NearDuplicate is the MCP endpoint's mcp.Store.NearDuplicate.
	NearDuplicate float64
	// Logger receives the server's own errors (SQLSTATE class XX, panics);
	// nil means slog.Default().
	Logger *slog.Logger
}

// HTTPHandler returns cairn's HTTP API over engine, shaped like
// pg_deeplake's managed API (SPEC §5):
//
//	GET    /health                                200 {"status":"ok"} while the process serves requests
//	GET    /ready                                 200 {"status":"ready"} once the engine can take queries
//	GET    /metrics                               Prometheus text format (session.Engine.Metrics), behind the token
//	POST   /workspaces/{ws}/tables/query          one statement with $n parameters (http_query.go)
//	POST   /workspaces/{ws}/tables/query/batch    one statement per parameter list, in one transaction
//	GET    /workspaces/{ws}/tables                the workspace's tables (http_tables.go)
//	DELETE /workspaces/{ws}/tables/{name}         drops a table
//	POST   /workspaces/{ws}/tables/{name}/ingest  columnar JSON rows, creating the table (http_ingest.go)
//	POST   /mcp, /workspaces/{ws}/mcp             MCP over streamable HTTP, stateless (http_mcp.go); /mcp is workspace public
//	GET    /me, /organizations, /workspaces, ...  Deeplake's account endpoints, as for a self-hosted org (http_account.go)
//	GET    /ui/                                   the memory explorer (package wire/ui): the token, or the cookie its login sets
//
// A workspace is a schema (http_session.go). Errors have the shape
// {"error": ..., "code": ..., "sqlstate": ...} (http_json.go).
func HTTPHandler(engine *session.Engine, opts HTTPOptions) http.Handler {
	auth := &httpauth.Tokens{}
	auth.Add(catalog.BootstrapRole, opts.Token)
	auth.Merge(opts.Tokens)
	if opts.MaxConcurrency <= 0 {
		opts.MaxConcurrency = DefaultMaxConcurrency
	}
	api := &httpAPI{engine: engine, auth: auth, maxBody: opts.MaxBodyBytes, bodyIdle: opts.BodyIdleTimeout, bodyTimeout: opts.BodyTimeout,
		writeTimeout: opts.WriteTimeout, slots: make(chan struct{}, opts.MaxConcurrency), log: opts.Logger, mcpSQL: opts.MCPSQL, nearDuplicate: opts.NearDuplicate}
	if api.maxBody <= 0 {
		api.maxBody = DefaultMaxBodyBytes
	}
	api.bodyBudget = int64(opts.MaxConcurrency) * api.maxBody
	if api.bodyIdle <= 0 {
		api.bodyIdle = DefaultBodyIdleTimeout
	}
	if api.bodyTimeout <= 0 {
		api.bodyTimeout = DefaultBodyTimeout
	}
	if api.writeTimeout <= 0 {
		api.writeTimeout = DefaultWriteTimeout
	}
	if api.log == nil {
		api.log = slog.Default()
	}
	mux := http.NewServeMux()
	api.routes(mux)
	return api.recoverPanics(api.refuseWebPages(mux))
}

// httpAPI holds what the HTTP handlers share.
type httpAPI struct {
	engine  *session.Engine
	auth    *httpauth.Tokens // no tokens = no authentication
	maxBody int64
	// bodyIdle and bodyTimeout bound reading a request body (readAll),
	// writeTimeout each write of its answer (pacedWriter).
	bodyIdle, bodyTimeout, writeTimeout time.Duration
	// slots holds a token for each request running (admit); /health and
	// /ready take none, so that a load balancer's probe does not fail
	// because the server is busy.
	slots chan struct{}
	// buffered counts the bytes of the request bodies read and not yet
	// answered, preallocated the room allocated ahead for their announced
	// lengths (readAll); bodyBudget bounds each: as many bodies of the
	// largest size as there are slots.
	buffered, preallocated atomic.Int64
	bodyBudget             int64
	log                    *slog.Logger
	mcpSQL                 bool // the MCP endpoint has sql_query
	// nearDuplicate is the MCP endpoint's mcp.Store.NearDuplicate.
	nearDuplicate float64
}

// routes registers every endpoint; each handler lives in the http_*.go
// file of its group. The workspace endpoints go through guard.
func (a *httpAPI) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /health", a.health)
	mux.HandleFunc("GET /ready", a.ready)
	mux.Handle("GET /metrics", a.guard(promhttp.HandlerFor(a.engine.Metrics(), promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelError)}).ServeHTTP))
	mux.HandleFunc("POST /workspaces/{ws}/tables/query", a.guard(a.query))
	mux.HandleFunc("POST /workspaces/{ws}/tables/query/batch", a.guard(a.queryBatch))
	mux.HandleFunc("GET /workspaces/{ws}/tables", a.guard(a.listTables))
	mux.HandleFunc("DELETE /workspaces/{ws}/tables/{name}", a.guard(a.dropTable))
	mux.HandleFunc("POST /workspaces/{ws}/tables/{name}/ingest", a.guard(a.ingest))
	a.accountRoutes(mux)
	mcp := a.checkBodyText(a.mcpHandler())
	mux.HandleFunc("/mcp", a.guard(mcp))
	mux.HandleFunc("/workspaces/{ws}/mcp", a.guard(mcp))
	explorer := a.uiHandler()
	mux.Handle("/ui", a.admitted(explorer, uiMaxBody))
	mux.Handle("/ui/", a.admitted(explorer, uiMaxBody))
}

func (a *httpAPI) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (a *httpAPI) ready(w http.ResponseWriter, r *http.Request) {
	if a.engine == nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// recoverPanics wraps every endpoint: a panic is logged with its stack
// and answered with a 500 XX000 error body, as a panic in the PostgreSQL
// protocol ends only its connection with FATAL XX000, instead of
// net/http's dropped connection, which a client cannot tell from a
// network failure. http.ErrAbortHandler keeps its meaning (abort the
// response silently).
func (a *httpAPI) recoverPanics(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			a.log.Error("panic serving http request", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			a.fail(w, pgerr.New(pgerrcode.InternalError, "internal error: %v", p))
		}()
		h.ServeHTTP(w, r)
	})
}

// guard wraps an API handler: it finds the role of the request's bearer
// token (httpauth.RoleFrom of the handler's request context; the
// bootstrap superuser when no token is configured), admits the request
// (its body read whole, at most maxBody bytes, then a slot taken), and
// for a workspace endpoint refuses a workspace whose schema the role may
// not use (42501, 403) before the handler runs anything.
func (a *httpAPI) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		role := catalog.BootstrapRole
		if a.auth.Enabled() {
			tok, _ := httpauth.Bearer(r)
			var ok bool
			if role, ok = a.auth.Role(tok); !ok {
				a.log.Warn("http authentication failed", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path)
				w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
				writeError(w, http.StatusUnauthorized, codeUnauthorized,
					pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "missing or invalid bearer token"))
				return
			}
		}
		r = r.WithContext(httpauth.WithRole(r.Context(), role))
		w, release, ok := a.admit(w, r, a.maxBody)
		if !ok {
			return
		}
		defer release()
		if ws := r.PathValue("ws"); ws != "" {
			if err := a.checkWorkspaceAccess(r, ws); err != nil {
				a.fail(w, err)
				return
			}
		}
		h(w, r)
	}
}
