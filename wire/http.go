package wire

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultMaxBodyBytes bounds an HTTP request body when
// HTTPOptions.MaxBodyBytes is 0: room for an ingest of some thousands of
// embedded rows, small enough that one request cannot exhaust memory.
const DefaultMaxBodyBytes = 64 << 20

// HTTPOptions configures the HTTP API.
type HTTPOptions struct {
	// Token, when set, is the bearer token every endpoint but /health and
	// /ready requires (/metrics included: it names statements' kinds and
	// session counts, and Prometheus sends a bearer token as easily) (Authorization: Bearer <token>); a request without
	// it gets 401.
	Token string
	// MaxBodyBytes bounds a request body; a larger one gets 413. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
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
	api := &httpAPI{engine: engine, token: opts.Token, maxBody: opts.MaxBodyBytes, log: opts.Logger, mcpSQL: opts.MCPSQL, nearDuplicate: opts.NearDuplicate}
	if api.maxBody <= 0 {
		api.maxBody = DefaultMaxBodyBytes
	}
	if api.log == nil {
		api.log = slog.Default()
	}
	mux := http.NewServeMux()
	api.routes(mux)
	return api.recoverPanics(mux)
}

// httpAPI holds what the HTTP handlers share.
type httpAPI struct {
	engine  *session.Engine
	token   string // "" = no authentication
	maxBody int64
	log     *slog.Logger
	mcpSQL  bool // the MCP endpoint has sql_query
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
	mcp := a.mcpHandler()
	mux.HandleFunc("/mcp", a.guard(mcp.ServeHTTP))
	mux.HandleFunc("/workspaces/{ws}/mcp", a.guard(mcp.ServeHTTP))
	explorer := a.uiHandler()
	mux.Handle("/ui", explorer)
	mux.Handle("/ui/", explorer)
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

// guard wraps an API handler: it checks the bearer token and bounds the
// body at maxBody.
func (a *httpAPI) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !a.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED",
				pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "missing or invalid bearer token"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, a.maxBody)
		h(w, r)
	}
}

// authorized reports whether r carries the configured token (always,
// when none is configured). The comparison takes the same time whatever
// the token's first wrong byte.
func (a *httpAPI) authorized(r *http.Request) bool {
	if a.token == "" {
		return true
	}
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(a.token)) == 1
}
