package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
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
	// params are the parameter values by position, as splitBatch
	// validated them (with the embeddings it parsed); nil when the body
	// was decoded by encoding/json.
	params []ingestColumn
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
	st, err := prepare(ctx, sess, ws, req.Query)
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
// affected (or returned). A batch of one plain INSERT of parameters
// loads its lists as an ingest does (batchInsert).
func (a *httpAPI) queryBatch(w http.ResponseWriter, r *http.Request) {
	req, err := decodeBatch(r)
	if err != nil {
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
	st, err := prepare(ctx, sess, ws, req.Query)
	if err != nil {
		return 0, err
	}
	opts := sessionTextOptions(sess)
	if target, cols, ok := batchInsert(req); ok {
		var done bool
		err := inTransaction(sess, func() error {
			var err error
			done, err = copyColumns(ctx, sess, target, cols, opts)
			return err
		})
		if done && err == nil {
			return int64(len(req.ParamsBatch)), checkNoTransaction(sess)
		}
		// Not loaded (a column type or a table the records do not
		// take), or failed and rolled back: the INSERTs run, and an
		// error names its item and parameter as theirs does.
	}
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

// decodeBatch reads a /query/batch body: split once (splitBatch) when it
// has nothing but the three fields, each once, and every parameter list
// the same length; otherwise, and for its errors, by encoding/json
// (decodeBody).
func decodeBatch(r *http.Request) (batchRequest, error) {
	body, err := readBody(r)
	if err != nil {
		return batchRequest{}, err
	}
	if req, ok := splitBatch(body); ok {
		return req, nil
	}
	if err := checkUniqueFields(body); err != nil {
		return batchRequest{}, err
	}
	var req batchRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return req, bodyError(err)
	}
	return req, checkEnd(dec)
}

// splitBatch splits a /query/batch body as splitColumns splits an ingest
// body: each parameter value a slice of body, found by its bounds, then
// validated in parallel (validValues). ok is false for a body it leaves
// to encoding/json: invalid JSON, a field other than query, params_batch
// and timeout_ms in exactly those spellings (encoding/json matches names
// without regard to case), a field twice, a parameter list that is not
// an array or not as long as the first.
func splitBatch(body []byte) (req batchRequest, ok bool) {
	i := skipJSONSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return req, false
	}
	i = skipJSONSpace(body, i+1)
	seen := map[string]bool{}
	var lists [][]json.RawMessage
	for i < len(body) && body[i] != '}' {
		if len(seen) > 0 {
			if body[i] != ',' {
				return req, false
			}
			i = skipJSONSpace(body, i+1)
		}
		end, ok := jsonValueEnd(body, i)
		if !ok || body[i] != '"' {
			return req, false
		}
		name := string(body[i:end])
		if seen[name] {
			return req, false
		}
		seen[name] = true
		if i = skipJSONSpace(body, end); i == len(body) || body[i] != ':' {
			return req, false
		}
		i = skipJSONSpace(body, i+1)
		switch name {
		case `"params_batch"`:
			if lists, end, ok = splitLists(body, i); !ok {
				return req, false
			}
		case `"query"`, `"timeout_ms"`:
			if end, ok = jsonValueEnd(body, i); !ok {
				return req, false
			}
			var err error
			if name == `"query"` {
				err = json.Unmarshal(body[i:end], &req.Query)
			} else {
				err = json.Unmarshal(body[i:end], &req.TimeoutMS)
			}
			if err != nil {
				return req, false
			}
		default:
			return req, false
		}
		i = skipJSONSpace(body, end)
	}
	if i == len(body) || skipJSONSpace(body, i+1) != len(body) || lists == nil {
		return req, false
	}
	// The values by position, for validValues.
	cols := make([]ingestColumn, len(lists[0]))
	for j := range cols {
		cols[j].values = make([]json.RawMessage, len(lists))
		for k, list := range lists {
			cols[j].values[k] = list[j]
		}
	}
	req.ParamsBatch, req.params = lists, cols
	return req, validValues(cols)
}

// splitLists splits the JSON array of arrays that starts at body[i], the
// parameter lists of a batch, into the lists' values (splitArray) and
// returns its end. ok is false unless body[i] starts an array of at
// least one array, all as long as the first.
func splitLists(body []byte, i int) (lists [][]json.RawMessage, end int, ok bool) {
	if i == len(body) || body[i] != '[' {
		return nil, 0, false
	}
	i = skipJSONSpace(body, i+1)
	for i < len(body) && body[i] != ']' {
		if len(lists) > 0 {
			if body[i] != ',' {
				return nil, 0, false
			}
			i = skipJSONSpace(body, i+1)
		}
		if i == len(body) || body[i] != '[' {
			return nil, 0, false
		}
		values, end, ok := splitArray(body, i)
		if !ok || len(lists) > 0 && len(values) != len(lists[0]) {
			return nil, 0, false
		}
		lists = append(lists, values)
		i = skipJSONSpace(body, end)
	}
	if i == len(body) || len(lists) == 0 {
		return nil, 0, false
	}
	return lists, i + 1, true
}

// batchInsert recognizes a batch of single-row INSERTs whose values are
// all parameters, INSERT INTO t (c1, c2, ...) VALUES ($1, $2, ...) in any
// order of the parameters, without WITH, ON CONFLICT, RETURNING or
// OVERRIDING, with every parameter list as long as the VALUES: its rows
// load as an ingest's do (copyColumns), target being the table as the
// statement names it and cols the columns with their values. Anything
// else runs the statement once per list.
func batchInsert(req batchRequest) (target string, cols []ingestColumn, ok bool) {
	if len(req.ParamsBatch) == 0 {
		return "", nil, false
	}
	schema, table, names, params, ok := session.PlainInsert(req.Query)
	if !ok {
		return "", nil, false
	}
	cols = make([]ingestColumn, len(names))
	for j, name := range names {
		cols[j].name = name
		cols[j].values = make([]json.RawMessage, len(req.ParamsBatch))
		for k, list := range req.ParamsBatch {
			if len(list) != len(names) {
				return "", nil, false
			}
			cols[j].values[k] = list[params[j]]
		}
		if params[j] < len(req.params) {
			cols[j].embeddings = req.params[params[j]].embeddings
		}
	}
	target = ident.Quote(table)
	if schema != "" {
		target = ident.Quote(schema) + "." + target
	}
	return target, cols, true
}
