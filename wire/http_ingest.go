package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
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
// embeddings are its values validValues parsed as embeddings, arrays of
// numbers read as real[] (nil for the others; nil when none were): its
// check of their JSON was their parse, kept for toArrow.
type ingestColumn struct {
	name       string
	values     []json.RawMessage
	embeddings [][]float32
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
	name, err := pathTable(r)
	if err != nil {
		a.fail(w, err)
		return
	}
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
	}{types.ClipName(name), n}) // the table's name, truncated as CREATE TABLE does
}

// decodeColumns reads an ingest body, keeping the columns' order, and
// checks that there is at least one column and that all have the same
// number of values. The body is split once (splitColumns) and its values
// validated in parallel (validValues); a body that refuses is decoded
// again by encoding/json (decodeColumnsJSON), whose errors the endpoint
// answers with.
func decodeColumns(r *http.Request) ([]ingestColumn, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	cols, ok := splitColumns(body)
	if !ok || !validValues(cols) {
		if cols, err = decodeColumnsJSON(body); err != nil {
			return nil, err
		}
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

// splitColumns splits an ingest body, {"col": [values...], ...}, into
// its columns: each value a slice of body, not a copy, found by its
// bounds alone (jsonValueEnd); validValues checks the values themselves.
// ok is false for anything but an object of distinct names whose values
// are arrays.
func splitColumns(body []byte) (cols []ingestColumn, ok bool) {
	i := skipJSONSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return nil, false
	}
	i = skipJSONSpace(body, i+1)
	seen := map[string]bool{}
	for i < len(body) && body[i] != '}' {
		if len(cols) > 0 {
			if body[i] != ',' {
				return nil, false
			}
			i = skipJSONSpace(body, i+1)
		}
		end, ok := jsonValueEnd(body, i)
		if !ok || body[i] != '"' {
			return nil, false
		}
		name, err := jsontext.AppendUnquote(nil, body[i:end])
		if err != nil || seen[string(name)] {
			return nil, false
		}
		seen[string(name)] = true
		if i = skipJSONSpace(body, end); i == len(body) || body[i] != ':' {
			return nil, false
		}
		if i = skipJSONSpace(body, i+1); i == len(body) || body[i] != '[' {
			return nil, false
		}
		values, end, ok := splitArray(body, i)
		if !ok {
			return nil, false
		}
		cols = append(cols, ingestColumn{name: string(name), values: values})
		i = skipJSONSpace(body, end)
	}
	if i == len(body) {
		return nil, false
	}
	return cols, skipJSONSpace(body, i+1) == len(body)
}

// splitArray splits the JSON array that starts at body[i] into its
// elements, slices of body found by their bounds alone (jsonValueEnd),
// and returns the end of the array.
func splitArray(body []byte, i int) (values []json.RawMessage, end int, ok bool) {
	i = skipJSONSpace(body, i+1)
	values = []json.RawMessage{}
	for i < len(body) && body[i] != ']' {
		if len(values) > 0 {
			if body[i] != ',' {
				return nil, 0, false
			}
			i = skipJSONSpace(body, i+1)
		}
		end, ok := jsonValueEnd(body, i)
		if !ok {
			return nil, 0, false
		}
		values = append(values, json.RawMessage(body[i:end:end]))
		i = skipJSONSpace(body, end)
	}
	if i == len(body) {
		return nil, 0, false
	}
	return values, i + 1, true
}

// skipJSONSpace returns the index of the first byte of b from i on that
// is not JSON white space, or len(b).
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// jsonValueEnd returns the end of the JSON value that starts at b[i] by
// its bounds alone: a string's closing quote, the bracket that closes an
// array or object (strings inside skipped), the byte before the
// delimiter that ends anything else. ok is false when there is no such
// end; what is between is validValues' to check.
func jsonValueEnd(b []byte, i int) (end int, ok bool) {
	if i == len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '[', '{':
		if b[i] == '[' {
			// An embedding, [0.1, ...]: no bracket, brace or string in
			// it, so its end is the first ']'.
			if j := bytes.IndexByte(b[i+1:], ']'); j >= 0 {
				in := b[i+1 : i+1+j]
				if bytes.IndexByte(in, '[') < 0 && bytes.IndexByte(in, '"') < 0 && bytes.IndexByte(in, '{') < 0 {
					return i + j + 2, true
				}
			}
		}
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return j + 1, true
				}
			case '"':
				e, ok := jsonStringEnd(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			}
		}
		return 0, false
	case ',', ']', '}', ':':
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != ']' && b[j] != '}' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	return j, true
}

// jsonStringEnd returns the end of the JSON string whose opening quote
// is b[i]: past the first quote not escaped by a backslash.
func jsonStringEnd(b []byte, i int) (end int, ok bool) {
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		q := j + k
		bs := 0
		for bs < q-i-1 && b[q-1-bs] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
	return 0, false
}

// jsontextOptions are those validValues checks values with: duplicate
// names inside a value are jsonb's to settle (the last wins), and the
// body was checked to be UTF-8 (readBody).
var jsontextOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// validValues reports whether every value of cols is one valid JSON
// value, checking chunks of rows in parallel. An array of numbers, an
// embedding, is checked by parsing it as a real[] (types.ParseJSONFloat4s
// takes JSON's grammar only), its floats kept in the column's embeddings
// for toArrow, or when that refuses it (a number beyond real's range)
// by jsonNumberArray, a loop over its bytes; anything else by jsontext
// (github.com/go-json-experiment/json, the encoding/json/v2 proposal's
// tokenizer), a complete RFC 8259 validator. jsontext is not used for
// the embeddings because its number validation, general and resumable,
// costs as much per byte as parsing the floats themselves, and
// embeddings are nearly all of a load's bytes.
func validValues(cols []ingestColumn) bool {
	if len(cols) == 0 {
		return true
	}
	nrows := len(cols[0].values)
	for i, c := range cols {
		nrows = max(nrows, len(c.values))
		cols[i].embeddings = nil
		if firstArray(c.values) {
			cols[i].embeddings = make([][]float32, len(c.values))
		}
	}
	var bad atomic.Bool
	err := parallelRows(nrows, func(_, from, to int) {
		for ci := range cols {
			c := &cols[ci]
			var floats []float32 // this chunk's embeddings of the column, end to end
			for row := from; row < min(to, len(c.values)); row++ {
				v := c.values[row]
				if v[0] == '[' && c.embeddings != nil {
					xs, ok := types.ParseJSONFloat4s(floats, v)
					if ok {
						if floats == nil {
							// Room for the chunk's embeddings if all are this long.
							floats = make([]float32, 0, len(xs)*(to-row))
							xs, _ = types.ParseJSONFloat4s(floats, v)
						}
						c.embeddings[row] = xs[len(floats):len(xs):len(xs)]
						floats = xs
						continue
					}
				}
				if v[0] == '[' && jsonNumberArray(v) {
					continue
				}
				if !jsontext.Value(v).IsValid(jsontextOptions...) {
					bad.Store(true)
					return
				}
			}
		}
	})
	return err == nil && !bad.Load() // a panic leaves the body to encoding/json
}

// firstArray reports whether the first of values that is not null is an
// array (a column of embeddings).
func firstArray(values []json.RawMessage) bool {
	for _, v := range values {
		if v[0] != 'n' {
			return v[0] == '['
		}
	}
	return false
}

// skipDigits returns the index of the first byte of b from i on that is
// not a decimal digit, or len(b), eight bytes at a time while it can.
func skipDigits(b []byte, i int) int {
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		// The high bit of each byte that is below '0' or above '9'.
		bad := ((x - 0x3030303030303030) | (x + 0x4646464646464646)) & 0x8080808080808080
		if bad != 0 {
			return i + bits.TrailingZeros64(bad)/8
		}
		i += 8
	}
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	return i
}

// jsonNumberArray reports whether raw, which starts with '[', is a JSON
// array of numbers only (RFC 8259's number grammar, JSON white space).
func jsonNumberArray(raw []byte) bool {
	n := len(raw)
	i := skipJSONSpace(raw, 1)
	if i < n && raw[i] == ']' {
		return i == n-1
	}
	for i < n {
		if raw[i] == '-' {
			i++
		}
		// An integer part: 0, or digits not starting with 0.
		if i == n || raw[i]-'0' > 9 {
			return false
		}
		if raw[i] == '0' {
			i++
		} else {
			for i++; i < n && raw[i]-'0' <= 9; i++ {
			}
		}
		if i < n && raw[i] == '.' {
			i++
			from := i
			i = skipDigits(raw, i)
			if i == from {
				return false
			}
		}
		if i < n && raw[i]|0x20 == 'e' {
			i++
			if i < n && (raw[i] == '+' || raw[i] == '-') {
				i++
			}
			from := i
			i = skipDigits(raw, i)
			if i == from {
				return false
			}
		}
		if i < n && raw[i] == ',' {
			i++
			if i < n && (raw[i]-'0' <= 9 || raw[i] == '-') {
				continue // no space after the comma: the common case
			}
			i = skipJSONSpace(raw, i)
			continue
		}
		if i = skipJSONSpace(raw, i); i < n && raw[i] == ']' {
			return i == n-1
		}
		if i == n || raw[i] != ',' {
			return false
		}
		i = skipJSONSpace(raw, i+1)
	}
	return false
}

// decodeColumnsJSON decodes an ingest body with encoding/json, for the
// error of a body splitColumns refused.
func decodeColumnsJSON(body []byte) ([]ingestColumn, error) {
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
		cols = append(cols, ingestColumn{name: name, values: values})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, bodyError(err)
	}
	if err := checkEnd(dec); err != nil {
		return nil, err
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
// missing, then the rows, through COPY FROM's insert (copyColumns) or,
// when that does not take the table's columns, in INSERTs of up to
// ingestRowsPerInsert rows. A table COPY FROM refuses with an error
// (row-level security), which aborts the transaction, gets the
// transaction again with INSERTs alone.
func ingestRows(ctx context.Context, sess *session.Session, ws, name string, cols []ingestColumn) error {
	nrows := len(cols[0].values)
	// A one-row INSERT, prepared outside the transaction, tells whether
	// the table exists, and its binder checks the columns as the
	// INSERTs would (names, generated and identity columns, privileges).
	_, err := prepareInsert(sess, name, cols, 1)
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
	load := func(useCopy bool) error {
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
			if _, err := prepareInsert(sess, name, cols, 1); err != nil {
				return err
			}
		}
		if useCopy {
			if done, err := copyColumns(ctx, sess, ident.Quote(name), cols, opts); done || err != nil {
				return err
			}
		}
		perInsert := max(1, min(ingestRowsPerInsert, maxIngestParams/len(cols)))
		var st *session.Statement
		for start := 0; start < nrows; start += perInsert {
			rows := min(perInsert, nrows-start)
			if st == nil || rows != perInsert {
				var err error
				if st, err = prepareInsert(sess, name, cols, rows); err != nil {
					return err
				}
			}
			params := make([]any, 0, rows*len(cols))
			for row := start; row < start+rows; row++ {
				for _, c := range cols {
					v, err := paramValue(c.values[row], st.ParamTypes[len(params)], opts)
					if err != nil {
						return errorAt(err, "column %q at index %d", c.name, row)
					}
					params = append(params, v)
				}
			}
			if _, _, err := execute(ctx, sess, st, params, nil); err != nil {
				return err
			}
		}
		return nil
	}
	err = inTransaction(sess, func() error { return load(true) })
	if errors.Is(err, errCopyRefused) {
		err = inTransaction(sess, func() error { return load(false) })
	}
	return err
}

// errCopyRefused is copyColumns' error when preparing or binding the
// COPY failed, which aborted the transaction: the caller loads the rows
// with INSERTs in a transaction of its own.
var errCopyRefused = errors.New("COPY FROM refused the table")

// copyRefused is copyColumns' error when its COPY could not be prepared
// or bound: nil while the transaction goes on (the rows go through
// INSERTs in it), errCopyRefused once the failure aborted it.
func copyRefused(sess *session.Session) error {
	if sess.TxStatus() == session.TxFailed {
		return errCopyRefused
	}
	return nil
}

// copyColumns inserts the rows of cols into table target (its name as
// SQL text, quoted) through COPY
// FROM's insert (defaults, every constraint, as INSERT), the values
// converted straight into Arrow records (toArrow). done is false, with
// nothing done, when a column's type is not one toArrow converts as an
// INSERT's parameter would be (arrowValueType), or the table is one COPY
// FROM does not load (a view, row-level security): those rows go through
// INSERTs, in the same transaction while err is nil, in another when it
// is errCopyRefused (copyRefused).
func copyColumns(ctx context.Context, sess *session.Session, target string, cols []ingestColumn, opts *types.TextOptions) (done bool, err error) {
	var b strings.Builder
	b.WriteString("COPY " + target + " (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ident.Quote(c.name))
	}
	b.WriteString(") FROM STDIN")
	st, err := prepareOne(sess, b.String(), nil)
	if err != nil {
		return false, copyRefused(sess)
	}
	p, err := sess.Bind(st, nil)
	if err != nil {
		return false, copyRefused(sess)
	}
	defer sess.ClosePortal(p)
	ts := p.CopyTypes()
	if len(ts) != len(cols) {
		return false, nil
	}
	for _, t := range ts {
		if !arrowValueType(t) {
			return false, nil
		}
	}
	recs, err := toArrow(cols, ts, opts)
	if err != nil {
		return true, err
	}
	defer releaseRecords(recs)
	_, err = sess.CopyRecords(ctx, p, recs)
	return true, err
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
// fraction or an exponent (so that [1, 2.5] is not refused), or numeric
// when an integer of it is beyond bigint's range. An array is
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
	big := false
	for _, v := range values {
		if v = trimJSON(v); !isJSONNumber(v) {
			continue
		}
		if strings.ContainsAny(string(v), ".eE") {
			return "double precision", true
		}
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
			big = true
		}
	}
	if big {
		return "numeric", true
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
