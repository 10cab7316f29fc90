package wire

// http_session.go runs the HTTP API's SQL. Every request gets an
// session.Session of its own, like a PostgreSQL connection that lives for
// one request, and goes through the same Prepare, Bind and Execute as the
// extended query protocol.

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/wire/httpauth"
)

// httpDatabase is the database name of HTTP sessions
// (current_database()); the API has no databases of its own.
const httpDatabase = "cairn"

// maxIdentifierLength is PostgreSQL's NAMEDATALEN-1: a longer schema
// name would be truncated by CREATE SCHEMA and so differ from the
// search_path that names it.
const maxIdentifierLength = 63

// workspaceSession opens the session of request r on workspace ws; the
// caller closes it. A workspace is a schema, as in pg_deeplake's managed
// service, and the session's search_path is that schema alone: unqualified
// names resolve in the workspace and CREATE TABLE puts tables there, while
// other schemas (public included) need qualified names, so workspaces
// never see each other's tables by accident. pg_catalog and
// information_schema stay reachable as always. cancel ends the request's
// statements: pg_cancel_backend and pg_terminate_backend on the session's
// pid call it (a request has no connection of its own to close).
func (a *httpAPI) workspaceSession(r *http.Request, ws string, cancel context.CancelFunc) (*session.Session, error) {
	if err := checkWorkspace(ws); err != nil {
		return nil, err
	}
	sess, err := a.login(r.Context(), map[string]string{
		"search_path":      ident.Quote(ws),
		"application_name": "cairn-http",
	})
	if err != nil {
		return nil, err
	}
	b := session.Backend{Cancel: cancel, Terminate: cancel}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		b.ClientAddr, b.ClientPort = ap.Addr().Unmap().String(), int(ap.Port())
	}
	sess.SetBackend(b)
	return sess, nil
}

// login opens a session for the role guard found for the request whose
// context ctx is (httpauth.RoleFrom), logged in as a PostgreSQL client of
// that role would be: its ALTER ROLE ... SET defaults apply, its
// CONNECTION LIMIT and max_connections count the session, and its
// privileges bound what the statements may do. The caller closes it.
func (a *httpAPI) login(ctx context.Context, params map[string]string) (*session.Session, error) {
	role := httpauth.RoleFrom(ctx)
	if role == "" {
		// A handler not behind guard: nothing may run unauthenticated.
		return nil, pgerr.New(pgerrcode.InvalidAuthorizationSpecification, "request has no authenticated role")
	}
	return a.engine.LoginRole(role, httpDatabase, params)
}

// checkWorkspaceAccess fails with 42501 when the role of request r may
// not use workspace ws's schema (Session.CheckSchemaUsage).
func (a *httpAPI) checkWorkspaceAccess(r *http.Request, ws string) error {
	if err := checkWorkspace(ws); err != nil {
		return err
	}
	sess, err := a.login(r.Context(), map[string]string{"application_name": "cairn-http"})
	if err != nil {
		return err
	}
	defer sess.Close()
	return sess.CheckSchemaUsage(ws)
}

// checkWorkspace refuses workspace names that a search_path cannot hold.
func checkWorkspace(ws string) error {
	bad := func(why string) error {
		return pgerr.New(pgerrcode.InvalidName, "invalid workspace name %q: %s", ws, why)
	}
	switch {
	case len(ws) > maxIdentifierLength:
		return bad("longer than 63 bytes")
	case !utf8.ValidString(ws):
		return bad("not valid UTF-8")
	case ws == "$user":
		return bad("reserved")
	case strings.HasPrefix(ws, "pg_") || ws == "information_schema":
		return bad("reserved for system schemas")
	case strings.IndexFunc(ws, func(r rune) bool { return r == '"' || r == ',' || unicode.IsControl(r) }) >= 0:
		return bad("double quotes, commas and control characters are not allowed")
	}
	return nil
}

// requestContext is the context a request's statements run under: the
// client going away cancels them, and timeout_ms (which pg_deeplake's
// SDK sends) bounds the whole request, failing with 57014 as
// statement_timeout does. A timeout_ms too long for a time.Duration
// (past 292 years) bounds nothing: converted, it would wrap to a negative
// duration and cancel the request before it starts.
func requestContext(ctx context.Context, timeoutMS int64) (context.Context, context.CancelFunc) {
	if timeoutMS > 0 && timeoutMS <= math.MaxInt64/int64(time.Millisecond) {
		return context.WithTimeout(ctx, time.Duration(timeoutMS)*time.Millisecond)
	}
	return context.WithCancel(ctx)
}

// sessionTextOptions are the session settings that text input and output
// of values depend on: its TimeZone only. The JSON answers write dates and
// timestamps in ISO form and floats in full precision whatever DateStyle
// and extra_float_digits say, as PostgreSQL's to_json does for dates (a
// request's session starts with the defaults of both anyway).
func sessionTextOptions(sess *session.Session) *types.TextOptions {
	return &types.TextOptions{Location: sess.Location(), Now: time.Now()}
}

// prepare prepares query, a single statement, whose parameter types the
// binder infers. Its parameters are those it refers to: values a request
// gives beyond them are ignored, and a query using more than the request
// gives gets 42P02 at bindParams. When the statement would
// create an object in workspace ws while ws's schema does not exist yet,
// the schema is created first: a workspace comes into being with its
// first table, as pg_deeplake's exist before their first query and cairn
// has no endpoint that creates one. Reads never create a workspace.
// Called outside a transaction block, so that the failed first attempt
// aborts nothing.
func prepare(ctx context.Context, sess *session.Session, ws, query string) (*session.Statement, error) {
	ptypes := []types.T{}
	st, err := prepareOne(sess, query, ptypes)
	if pgerr.Code(err) == pgerrcode.InvalidSchemaName && sess.CurrentSchema() == "" {
		if err := createWorkspace(ctx, sess, ws); err != nil {
			return nil, err
		}
		st, err = prepareOne(sess, query, ptypes)
	}
	return st, err
}

// unknownTypes is n parameter types for the binder to infer.
func unknownTypes(n int) []types.T {
	ts := make([]types.T, n)
	for i := range ts {
		ts[i] = types.UnknownT
	}
	return ts
}

// prepareOne prepares query, which must hold exactly one statement, as
// the extended query protocol requires of a statement with parameters.
func prepareOne(sess *session.Session, query string, ptypes []types.T) (*session.Statement, error) {
	stmts, err := sess.Prepare(query, ptypes)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, pgerr.New(pgerrcode.SyntaxError, "empty query: \"query\" holds no SQL statement")
	case 1:
		return stmts[0], nil
	}
	return nil, pgerr.New(pgerrcode.SyntaxError, "cannot insert multiple commands into a prepared statement").
		WithHint("Send one statement per request; /tables/query/batch runs one statement for many parameter lists in a transaction.")
}

// createWorkspace creates the schema of workspace ws unless it exists
// (a concurrent creation of the same schema is no error: storage skips
// an IF NOT EXISTS creation that lost the race).
func createWorkspace(ctx context.Context, sess *session.Session, ws string) error {
	st, err := prepareOne(sess, "CREATE SCHEMA IF NOT EXISTS "+ident.Quote(ws), nil)
	if err != nil {
		return err
	}
	_, _, err = execute(ctx, sess, st, nil, nil)
	return err
}

// bindParams converts the JSON values of st's parameters to datums of the
// types the binder inferred for them (paramValue).
func bindParams(st *session.Statement, raws []json.RawMessage, opts *types.TextOptions) ([]any, error) {
	if len(raws) < len(st.ParamTypes) {
		return nil, pgerr.New(pgerrcode.UndefinedParameter, "there is no parameter $%d", len(raws)+1).
			WithDetail("The query uses %d parameters, the request gives %d values.", len(st.ParamTypes), len(raws))
	}
	params := make([]any, len(st.ParamTypes))
	for i, t := range st.ParamTypes {
		v, err := paramValue(raws[i], t, opts)
		if err != nil {
			return nil, errorAt(err, "parameter $%d", i+1)
		}
		params[i] = v
	}
	return params, nil
}

// execute binds params to st and runs it to completion. emit, when not
// nil, receives the result columns with each batch of rows (valid during
// the call only). It returns the result columns (nil when the statement
// returns no rows) and the row count: the rows returned, or for a
// statement that returns none the rows it affected (its command tag's
// count, 0 for DDL).
func execute(ctx context.Context, sess *session.Session, st *session.Statement, params []any, emit func([]session.Column, arrow.Record) error) ([]session.Column, int64, error) {
	p, err := sess.Bind(st, params)
	if err != nil {
		return nil, 0, err
	}
	defer sess.ClosePortal(p)
	if p.Copy().Dir != session.NotCopy {
		return nil, 0, pgerr.NotSupported("COPY over the HTTP API").
			WithHint("Load rows with POST /workspaces/{ws}/tables/{name}/ingest, or COPY over the PostgreSQL protocol.")
	}
	var n int64
	tag, _, err := sess.Execute(ctx, p, 0, func(rec arrow.Record) error {
		n += rec.NumRows()
		if emit == nil {
			return nil
		}
		// Read at the rows: a statement bound again for a DDL committed
		// since Bind may have other columns (session.Portal).
		return emit(p.Columns(), rec)
	})
	if err != nil {
		return nil, 0, err
	}
	cols := p.Columns()
	if cols == nil {
		n = tag.Rows
	}
	return cols, n, nil
}

// inTransaction runs fn in one transaction of sess: what its statements
// do commits together at the end, or not at all when fn fails.
func inTransaction(sess *session.Session, fn func() error) error {
	sess.BeginImplicit()
	if err := fn(); err != nil {
		sess.AbortBlock()
		sess.EndImplicit() // rolls back; nothing to report
		return err
	}
	return sess.EndImplicit()
}

// checkNoTransaction refuses a request that leaves a transaction block
// open (a BEGIN): the request's session, and with it the transaction,
// ends with the request, so its writes would be lost without a word.
func checkNoTransaction(sess *session.Session) error {
	if sess.TxStatus() == session.TxIdle {
		return nil
	}
	return pgerr.New(pgerrcode.FeatureNotSupported, "transaction blocks are not supported over the HTTP API").
		WithDetail("Each request runs in a transaction of its own; the transaction the statement opened was rolled back.").
		WithHint("Use /tables/query/batch to run a statement for many parameter lists in one transaction.")
}
