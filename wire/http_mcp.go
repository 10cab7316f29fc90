package wire

// http_mcp.go serves the MCP tools of package wire/mcp over streamable
// HTTP, stateless: every request gets a server of its own whose SQL runs
// through engine sessions of the request's workspace.

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/apache/arrow-go/v18/arrow"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/wire/mcp"
)

// mcpMaxResultBytes bounds the JSON of sql_query's rows below
// statement_mem: they are decoded again into Go values (several times
// their JSON's size) for the tool's answer, which a model reads, so 64 MiB
// is already far past any context window. A variable for tests.
var mcpMaxResultBytes int64 = 64 << 20

// mcpHandler answers POST /mcp (the default workspace) and
// /workspaces/{ws}/mcp.
func (a *httpAPI) mcpHandler() http.Handler {
	cache := sdk.NewSchemaCache()
	return sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		ws := r.PathValue("ws")
		if ws == "" {
			ws = mcp.DefaultWorkspace
		}
		if checkWorkspace(ws) != nil {
			return nil // 400
		}
		store := &mcp.Store{DB: sessionDB{api: a, ws: ws, app: "cairn-mcp", req: r.Context(), turn: make(chan struct{}, 1)}, Workspace: ws, NearDuplicate: a.nearDuplicate}
		return mcp.NewServer(store, mcp.Options{AllowSQL: a.mcpSQL, SchemaCache: cache})
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: a.log})
}

// checkBodyText refuses a body that is not UTF-8 or holds half a
// surrogate pair as the other endpoints do (readBody: 22021 or 08P01,
// 400) before h reads it: the MCP SDK decodes with encoding/json, which
// replaces both with U+FFFD, and memory_remember stored text the client
// never sent.
func (a *httpAPI) checkBodyText(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := readBody(r); err != nil {
			a.fail(w, err)
			return
		}
		h.ServeHTTP(w, r)
	}
}

// sessionDB runs the MCP tools' and the explorer's statements in
// sessions of the engine, one per statement, as the query endpoint does.
type sessionDB struct {
	api *httpAPI
	ws  string
	app string // the sessions' application_name
	// req, when not nil, is the context of the HTTP request the
	// statements serve: its end (the client gone) cancels them, as it
	// does the query endpoint's. The MCP SDK runs a tool call under a
	// context of its own session that an HTTP client's disconnect does
	// not cancel (before protocol 2026-07-28), which would leave the
	// statement running, holding its session, after nobody can read
	// its answer.
	req context.Context
	// turn, when not nil, lets one statement run at a time (a channel of
	// capacity 1, shared by the copies of sessionDB). The MCP SDK runs
	// the calls of a JSON-RPC batch at once, so one HTTP request, one
	// slot of --http-max-concurrency, would otherwise hold a session per
	// call, and a batch of a few hundred calls takes every connection
	// slot (53300 for everyone) before the limiter sees a second request.
	turn chan struct{}
}

// Query implements mcp.DB.
func (d sessionDB) Query(ctx context.Context, readOnly bool, query string, args ...any) (*mcp.Rows, error) {
	params := map[string]string{"search_path": ident.Quote(d.ws), "application_name": d.app}
	if readOnly {
		params["default_transaction_read_only"] = "on"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if d.req != nil {
		defer context.AfterFunc(d.req, cancel)()
	}
	if d.turn != nil {
		select {
		case d.turn <- struct{}{}:
			defer func() { <-d.turn }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sess, err := d.api.login(ctx, params)
	if err != nil {
		return nil, err
	}
	sess.SetBackend(session.Backend{Cancel: cancel, Terminate: cancel})
	defer sess.Close()
	raws := make([]json.RawMessage, len(args))
	for i, v := range args {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raws[i] = b
	}
	st, err := prepare(ctx, sess, d.ws, query)
	if err != nil {
		return nil, err
	}
	opts := sessionTextOptions(sess)
	vals, err := bindParams(st, raws, opts)
	if err != nil {
		return nil, err
	}
	limit := sess.StatementMem()
	if limit <= 0 || limit > mcpMaxResultBytes {
		limit = mcpMaxResultBytes
	}
	enc := &rowsEncoder{opts: opts, limit: limit}
	cols, n, err := execute(ctx, sess, st, vals, func(cols []session.Column, rec arrow.Record) error {
		return enc.add(cols, rec)
	})
	if err != nil {
		return nil, err
	}
	if err := checkNoTransaction(sess); err != nil {
		return nil, err
	}
	out := &mcp.Rows{}
	if cols == nil {
		out.Affected = n
		return out, nil
	}
	for _, c := range cols {
		out.Columns = append(out.Columns, c.Name)
	}
	body := append(append([]byte{'['}, enc.buf...), ']')
	if err := json.Unmarshal(body, &out.Values); err != nil {
		return nil, err
	}
	return out, nil
}
