package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// ingestRowsPerInsert is how many rows one INSERT of an ingest carries;
// fewer when the columns are many, so that a statement has at most
// maxIngestParams parameters (the PostgreSQL protocol's limit).
const (
	ingestRowsPerInsert = 1000
	maxIngestParams     = 65535
)

// ingestAttempts bounds the runs of an ingest that keeps losing the race
// to create its table to concurrent ingests (runIngest).
const ingestAttempts = 4

// ingestColumn is one column of an ingest body, in the body's order.
type ingestColumn struct {
	name   string
	values []json.RawMessage
}

// ingest answers POST /workspaces/{ws}/tables/{name}/ingest, pg_deeplake
// SDK's client.ingest: the body is columnar, {"col": [values...], ...},
// every column with one value per row. A missing table is created (and
// the workspace with it) with column types inferred from the values
// (columnType), in the body's column order; an existing table gets the
// rows appended, columns matched by name (its other columns take their
// defaults). Creation and rows commit together or not at all. The answer
// is {"table_name": name, "row_count": rows}.
func (a *httpAPI) ingest(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	cols, err := decodeColumns(r)
	if err != nil {
		a.fail(w, err)
		return
	}
	n, err := a.runIngest(r, name, cols)
	if err != nil {
		a.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		TableName string `json:"table_name"`
		RowCount  int    `json:"row_count"`
	}{name, n})
}

// decodeColumns reads an ingest body, keeping the columns' order, and
// checks that there is at least one column and that all have the same
// number of values.
func decodeColumns(r *http.Request) ([]ingestColumn, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, bodyError(err)
	}
	if tok != json.Delim('{') {
		return nil, badRequest(`ingest body must be a JSON object of columns: {"col": [values...], ...}`)
	}
	var cols []ingestColumn
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bodyError(err)
		}
		name := tok.(string) // an object's keys are strings
		if seen[name] {
			return nil, badRequest("column %q appears twice in the ingest body", name)
		}
		seen[name] = true
		var values []json.RawMessage
		var typeErr *json.UnmarshalTypeError
		if err := dec.Decode(&values); errors.As(err, &typeErr) {
			return nil, badRequest("column %q must be an array of values, not a JSON %s", name, typeErr.Value)
		} else if err != nil {
			return nil, bodyError(err)
		}
		if values == nil {
			return nil, badRequest("column %q must be an array of values, not null", name)
		}
		cols = append(cols, ingestColumn{name, values})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, bodyError(err)
	}
	if err := checkEnd(dec); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, badRequest("ingest body has no columns")
	}
	for _, c := range cols[1:] {
		if len(c.values) != len(cols[0].values) {
			return nil, badRequest("column %q has %d values but column %q has %d: every column needs one value per row",
				c.name, len(c.values), cols[0].name, len(cols[0].values))
		}
	}
	return cols, nil
}

// runIngest writes the rows of cols into table name of the request's
// workspace, creating it if missing, and returns the number of rows.
func (a *httpAPI) runIngest(r *http.Request, name string, cols []ingestColumn) (int, error) {
	ws := r.PathValue("ws")
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess, err := a.workspaceSession(r, ws, cancel)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	for attempt := 1; ; attempt++ {
		err = ingestRows(ctx, sess, ws, name, cols)
		if code := pgerr.Code(err); attempt == ingestAttempts || code != pgerrcode.DuplicateTable && code != pgerrcode.DuplicateSchema {
			break
		}
		// A concurrent ingest created the table (or the workspace) first
		// and this transaction's CREATE ... IF NOT EXISTS lost at commit.
		// Nothing of it remains: once the winner's commit is visible, the
		// next attempt appends to its table.
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
		}
	}
	if err != nil {
		return 0, err
	}
	return len(cols[0].values), nil
}

// ingestRows is runIngest's transaction: the table's creation when it is
// missing, then the rows, in INSERTs of up to ingestRowsPerInsert rows.
func ingestRows(ctx context.Context, sess *session.Session, ws, name string, cols []ingestColumn) error {
	nrows := len(cols[0].values)
	perInsert := max(1, min(ingestRowsPerInsert, maxIngestParams/len(cols)))
	first := max(1, min(nrows, perInsert))

	// The first INSERT, prepared outside the transaction, tells whether
	// the table exists (and has the body's columns).
	st, err := prepareInsert(sess, name, cols, first)
	create := pgerr.Code(err) == pgerrcode.UndefinedTable
	if err != nil && !create {
		return err
	}
	var createSQL string
	if create {
		if createSQL, err = createTableSQL(name, cols); err != nil {
			return err
		}
	}
	opts := sessionTextOptions(sess)
	return inTransaction(sess, func() error {
		if create {
			if sess.CurrentSchema() == "" {
				if err := createWorkspace(ctx, sess, ws); err != nil {
					return err
				}
			}
			ddl, err := prepareOne(sess, createSQL, nil)
			if err != nil {
				return err
			}
			if _, _, err := execute(ctx, sess, ddl, nil, nil); err != nil {
				return err
			}
			if st, err = prepareInsert(sess, name, cols, first); err != nil {
				return err
			}
		}
		for start := 0; start < nrows; start += perInsert {
			rows := min(perInsert, nrows-start)
			chunk := st
			if rows != first {
				var err error
				if chunk, err = prepareInsert(sess, name, cols, rows); err != nil {
					return err
				}
			}
			params := make([]any, 0, rows*len(cols))
			for row := start; row < start+rows; row++ {
				for _, c := range cols {
					v, err := paramValue(c.values[row], chunk.ParamTypes[len(params)], opts)
					if err != nil {
						return errorAt(err, "column %q at index %d", c.name, row)
					}
					params = append(params, v)
				}
			}
			if _, _, err := execute(ctx, sess, chunk, params, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// prepareInsert prepares the INSERT of rows rows of cols into table name,
// one parameter per value; the binder gives each the type of its column.
func prepareInsert(sess *session.Session, name string, cols []ingestColumn, rows int) (*session.Statement, error) {
	var b strings.Builder
	b.WriteString("INSERT INTO " + ident.Quote(name) + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ident.Quote(c.name))
	}
	b.WriteString(") VALUES ")
	n := 0
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		}
		b.WriteByte(')')
	}
	return prepareOne(sess, b.String(), unknownTypes(n))
}

// createTableSQL is the CREATE TABLE of a new ingest table: the columns
// in the body's order, of the types columnType infers, USING deeplake as
// pg_deeplake's SDK creates its tables.
func createTableSQL(name string, cols []ingestColumn) (string, error) {
	defs := make([]string, len(cols))
	for i, c := range cols {
		t, ok := columnType(c.values)
		if !ok {
			return "", pgerr.New(pgerrcode.IndeterminateDatatype, "could not determine the type of column %q: it has no non-null value", c.name).
				WithHint("Create the table with CREATE TABLE first, or send at least one value of the column.")
		}
		defs[i] = ident.Quote(c.name) + " " + t
	}
	return "CREATE TABLE IF NOT EXISTS " + ident.Quote(name) + " (" + strings.Join(defs, ", ") + ") USING deeplake", nil
}

// columnType infers a column's SQL type from its JSON values as
// pg_deeplake's SDK does from Python values: the first non-null value
// decides. A boolean is boolean, a string text, an object jsonb; a number
// is bigint, or double precision when any number of the column has a
// fraction or an exponent (so that [1, 2.5] is not refused). An array is
// an embedding, real[], when it holds numbers (real[][] for arrays of
// arrays of numbers), text[] or boolean[] for strings or booleans, and
// jsonb otherwise; the first non-null element of the column's arrays
// decides, and a column of empty arrays is real[]. ok is false when
// every value is null.
func columnType(values []json.RawMessage) (t string, ok bool) {
	var first json.RawMessage
	for _, v := range values {
		if v = trimJSON(v); v[0] != 'n' {
			first = v
			break
		}
	}
	if first == nil {
		return "", false
	}
	switch first[0] {
	case 't', 'f':
		return "boolean", true
	case '"':
		return "text", true
	case '{':
		return "jsonb", true
	case '[':
		return arrayType(values), true
	}
	for _, v := range values {
		if v = trimJSON(v); isJSONNumber(v) && strings.ContainsAny(string(v), ".eE") {
			return "double precision", true
		}
	}
	return "bigint", true
}

// arrayType is the SQL type of a column of JSON arrays (columnType).
func arrayType(values []json.RawMessage) string {
	elem := firstElement(values)
	switch {
	case elem == nil:
		return "real[]"
	case isJSONNumber(elem):
		return "real[]"
	case elem[0] == '"':
		return "text[]"
	case elem[0] == 't' || elem[0] == 'f':
		return "boolean[]"
	case elem[0] == '[':
		if inner := firstElement([]json.RawMessage{elem}); inner == nil || isJSONNumber(inner) {
			return "real[][]"
		}
	}
	return "jsonb"
}

// firstElement is the first non-null element of the JSON arrays among
// values, or nil.
func firstElement(values []json.RawMessage) json.RawMessage {
	for _, v := range values {
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			continue // null, or not an array: paramValue will say
		}
		for _, e := range elems {
			if e = trimJSON(e); e[0] != 'n' {
				return e
			}
		}
	}
	return nil
}

// isJSONNumber reports whether raw, a trimmed JSON value, is a number.
func isJSONNumber(raw json.RawMessage) bool {
	return raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'
}
