package wire

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/exec/session"
)

// queryRequest is the body of POST /workspaces/{ws}/tables/query.
type queryRequest struct {
	Query string `json:"query"`
	// Params are the values of $1..$n, plain JSON (paramValue).
	Params []json.RawMessage `json:"params"`
	// TimeoutMS, when positive, bounds the request (requestContext).
	TimeoutMS int64 `json:"timeout_ms"`
}

// batchRequest is the body of POST /workspaces/{ws}/tables/query/batch.
type batchRequest struct {
	Query string `json:"query"`
	// ParamsBatch holds one parameter list per run of the statement.
	ParamsBatch [][]json.RawMessage `json:"params_batch"`
	TimeoutMS   int64               `json:"timeout_ms"`
}

// query answers POST /workspaces/{ws}/tables/query: one statement, run
// with its parameters in the workspace, answered as pg_deeplake does:
//
//	{"columns": ["id", "score"], "rows": [[1, 0.93], ...], "row_count": 1}
//
// A statement that returns no rows (DDL, DML without RETURNING) has empty
// columns and rows, and row_count counts the rows it affected.
func (a *httpAPI) query(w http.ResponseWriter, r *http.Request) {
	var req queryRequest
	if err := decodeBody(r, &req); err != nil {
		a.fail(w, err)
		return
	}
	body, err := a.runQuery(r, req)
	if err != nil {
		a.fail(w, err)
		return
	}
	writeRaw(w, http.StatusOK, body...)
}

// runQuery runs the statement of req and returns the response body, in
// pieces (the rows are not copied again). The rows are encoded as they
// come but sent only once the statement has succeeded, so that an error
// half way gets an error answer.
func (a *httpAPI) runQuery(r *http.Request, req queryRequest) ([][]byte, error) {
	if req.Query == "" {
		return nil, badRequest(`request body has no "query"`)
	}
	ctx, cancel := requestContext(r.Context(), req.TimeoutMS)
	defer cancel()
	ws := r.PathValue("ws")
	sess, err := a.workspaceSession(r, ws, cancel)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	st, err := prepare(ctx, sess, ws, req.Query, len(req.Params))
	if err != nil {
		return nil, err
	}
	opts := sessionTextOptions(sess)
	params, err := bindParams(st, req.Params, opts)
	if err != nil {
		return nil, err
	}
	rows := &rowsEncoder{opts: opts, limit: sess.StatementMem()}
	cols, n, err := execute(ctx, sess, st, params, func(cols []session.Column, rec arrow.Record) error {
		return rows.add(cols, rec)
	})
	if err != nil {
		return nil, err
	}
	if err := checkNoTransaction(sess); err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	head := append([]byte(`{"columns":`), appendJSONStrings(nil, names)...)
	head = append(head, `,"rows":[`...)
	tail := strconv.AppendInt([]byte(`],"row_count":`), n, 10)
	return [][]byte{head, rows.buf, append(tail, "}\n"...)}, nil
}

// queryBatch answers POST /workspaces/{ws}/tables/query/batch: the
// statement runs once for each parameter list of params_batch, all in
// one transaction (the first error rolls every run back and names the
// failing item). The answer is {"row_count": N}, the rows all runs
// affected (or returned).
func (a *httpAPI) queryBatch(w http.ResponseWriter, r *http.Request) {
	var req batchRequest
	if err := decodeBody(r, &req); err != nil {
		a.fail(w, err)
		return
	}
	n, err := a.runBatch(r, req)
	if err != nil {
		a.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int64{"row_count": n})
}

// runBatch runs the statement of req for each of its parameter lists and
// returns the total row count.
func (a *httpAPI) runBatch(r *http.Request, req batchRequest) (int64, error) {
	if req.Query == "" {
		return 0, badRequest(`request body has no "query"`)
	}
	ctx, cancel := requestContext(r.Context(), req.TimeoutMS)
	defer cancel()
	ws := r.PathValue("ws")
	sess, err := a.workspaceSession(r, ws, cancel)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	nparams := 0
	for _, p := range req.ParamsBatch {
		nparams = max(nparams, len(p))
	}
	st, err := prepare(ctx, sess, ws, req.Query, nparams)
	if err != nil {
		return 0, err
	}
	opts := sessionTextOptions(sess)
	var total int64
	err = inTransaction(sess, func() error {
		for i, raws := range req.ParamsBatch {
			params, err := bindParams(st, raws, opts)
			if err != nil {
				return errorAt(err, "params_batch[%d]", i)
			}
			_, n, err := execute(ctx, sess, st, params, nil)
			if err != nil {
				return errorAt(err, "params_batch[%d]", i)
			}
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return total, checkNoTransaction(sess)
}
