package wire

// http_json.go is the JSON side of the HTTP API: request bodies in,
// parameter values from JSON to datums, result values from Arrow to
// JSON, responses and errors out. Values cross by their PostgreSQL text
// form (parseText and appendValue of values.go), so the HTTP API reads and
// prints every type exactly as the PostgreSQL protocol does.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/cairn-db/cairn/exec/session"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"
)

// Error codes of the error body's "code" field. pg_deeplake answers every
// SQL error with QUERY_ERROR; the others are about the request itself.
const (
	codeQuery        = "QUERY_ERROR"
	codeBadRequest   = "BAD_REQUEST"
	codeTooLarge     = "PAYLOAD_TOO_LARGE"
	codeUnauthorized = "UNAUTHORIZED"
	codeNotFound     = "NOT_FOUND"
	codeNotSupported = "NOT_SUPPORTED"
	codeBusy         = "SERVICE_UNAVAILABLE"
	codeTimeout      = "REQUEST_TIMEOUT"
)

// errorBody is the JSON body of every error answer.
type errorBody struct {
	Error    string `json:"error"`
	Code     string `json:"code"`
	SQLState string `json:"sqlstate"`
	Detail   string `json:"detail,omitempty"`
	Hint     string `json:"hint,omitempty"`
	// Schema, Table, Column and Constraint name the object an integrity
	// error (23xxx) is about, as PostgreSQL's error fields do.
	Schema     string `json:"schema,omitempty"`
	Table      string `json:"table,omitempty"`
	Column     string `json:"column,omitempty"`
	Constraint string `json:"constraint,omitempty"`
}

// requestError is an error in the request itself (its body, its size),
// answered with its own status and code rather than by SQLSTATE.
type requestError struct {
	status int
	code   string
	err    *pgerr.Error
}

func (e *requestError) Error() string { return e.err.Error() }

// badRequest is a 400 BAD_REQUEST error with SQLSTATE 08P01: the body is
// not what the endpoint takes, as a malformed message is a protocol
// violation in the PostgreSQL protocol.
func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, codeBadRequest, pgerr.New(pgerrcode.ProtocolViolation, format, args...)}
}

// fail answers err: a requestError with its status, any other error as a
// QUERY_ERROR whose status its SQLSTATE decides (httpStatus). Internal
// errors are logged as errors, the rest at debug level, as the
// PostgreSQL protocol's are.
func (a *httpAPI) fail(w http.ResponseWriter, err error) {
	var re *requestError
	if errors.As(err, &re) {
		if re.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, re.status, re.code, re.err)
		return
	}
	pe := pgerr.From(err)
	if pe.Code == pgerrcode.InternalError {
		a.log.Error("internal error in http request", "err", err)
	} else {
		a.log.Debug("http request failed", "sqlstate", pe.Code, "err", err)
	}
	status := httpStatus(pe.Code)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, status, codeQuery, pe)
}

// httpStatus maps a SQLSTATE to the HTTP status of its answer: 500 for
// the server's failures (internal errors, resources, system errors,
// cancellation), 503 while the server shuts down or has no session slot
// left (53300), 403 for a privilege the role lacks (42501) or a role that
// may not log in (class 28), 409 for a transaction that lost a conflict
// and may be retried, 400 for everything else the request got wrong (syntax, types, constraints, unsupported features, ...).
func httpStatus(sqlstate string) int {
	switch sqlstate {
	case pgerrcode.AdminShutdown, pgerrcode.CrashShutdown, pgerrcode.CannotConnectNow, pgerrcode.TooManyConnections:
		return http.StatusServiceUnavailable
	case pgerrcode.InsufficientPrivilege:
		return http.StatusForbidden
	}
	class := sqlstate
	if len(class) > 2 {
		class = class[:2]
	}
	switch class {
	case "XX", "53", "58", "57":
		return http.StatusInternalServerError
	case "40":
		return http.StatusConflict
	case "28":
		return http.StatusForbidden
	}
	return http.StatusBadRequest
}

// writeError writes the error body of pe.
func writeError(w http.ResponseWriter, status int, code string, pe *pgerr.Error) {
	sqlstate := pe.Code
	if sqlstate == "" {
		sqlstate = pgerrcode.InternalError
	}
	writeJSON(w, status, errorBody{Error: pe.Message, Code: code, SQLState: sqlstate, Detail: pe.Detail, Hint: pe.Hint,
		Schema: pe.Schema, Table: pe.Table, Column: pe.Column, Constraint: pe.Constraint})
}

// writeJSON writes v as a JSON response with the given status. v is one
// of the API's own response types, which always encode.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, body ...[]byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	for _, b := range body {
		w.Write(b)
	}
}

// readBody returns r's whole body, which guard has read (admit), and
// checks that it is valid UTF-8, 22021 in a 400 otherwise: encoding/json
// would silently replace invalid bytes with U+FFFD and store text the
// client never sent. json.Decoder buffers the whole top-level value
// anyway, so reading the body first costs no memory more.
func readBody(r *http.Request) ([]byte, error) {
	b, ok := r.Body.(*bufferedBody)
	if !ok {
		return nil, pgerr.New(pgerrcode.InternalError, "request body not read before its handler")
	}
	body := b.buf
	if err := checkTextBytes(body); err != nil {
		return nil, &requestError{http.StatusBadRequest, codeBadRequest, pgerr.From(err)}
	}
	if at, ok := loneSurrogate(body); ok {
		return nil, badRequest("invalid JSON in request body at byte %d: Unicode escape %s is half of a surrogate pair without its other half", at, body[at:at+6])
	}
	return body, nil
}

// loneSurrogate finds a \u escape in body that is half of a UTF-16
// surrogate pair without its other half, and returns where it starts:
// encoding/json decodes one as U+FFFD, changing the text without a word,
// where PostgreSQL's JSON input refuses it. Outside strings JSON has no
// backslashes, so every one is an escape; a malformed one is left to the
// decoder.
func loneSurrogate(body []byte) (int, bool) {
	hex4 := func(at int) (rune, bool) {
		if at+4 > len(body) {
			return 0, false
		}
		var r rune
		for _, c := range body[at : at+4] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c|0x20 >= 'a' && c|0x20 <= 'f':
				r = r<<4 | rune(c|0x20-'a'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '\\')
		if k < 0 || i+k+1 >= len(body) {
			return 0, false
		}
		i += k
		if body[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := hex4(i + 2)
		switch {
		case !ok:
			i += 2
		case r >= 0xDC00 && r <= 0xDFFF:
			return i, true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+8 > len(body) || body[i+6] != '\\' || body[i+7] != 'u' {
				return i, true
			}
			if low, ok := hex4(i + 8); !ok || low < 0xDC00 || low > 0xDFFF {
				return i, true
			}
			i += 12
		default:
			i += 6
		}
	}
}

// maxBodyPrealloc bounds the buffer readAll allocates up front for a
// body's announced Content-Length, whatever the body size limit (guard's
// MaxBytesReader, which applies as the body is read): a client cannot
// make a request take more than that before it sends the bytes.
const maxBodyPrealloc = DefaultMaxBodyBytes

// decodeBody reads r's body, one JSON value, into v. A body over the
// size limit is a 413; text that is not UTF-8, bad JSON, a field of the
// wrong type or anything after the value is a 400.
func decodeBody(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if err := checkUniqueFields(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return bodyError(err)
	}
	return checkEnd(dec)
}

// checkUniqueFields refuses a body whose object names a field twice, in
// any case: encoding/json, which matches names without regard to case,
// would keep the last silently, so that {"query": "SELECT 1", "query":
// "DROP TABLE t"} ran what a reader of the first field did not see. The
// fields' values may repeat names (a jsonb parameter keeps the last, as
// PostgreSQL's does). A body that is not a JSON object is left to the
// decoder, whose errors the request answers with.
func checkUniqueFields(body []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	seen := map[string]bool{} // by folded name: a body of many fields costs one lookup each
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		name := tok.String()
		key := foldedName(name)
		if seen[key] {
			return badRequest("invalid request body: field %q appears twice", name)
		}
		seen[key] = true
		if dec.SkipValue() != nil {
			return nil
		}
	}
	return nil
}

// foldedName is name with each rune replaced by the least rune of its
// case-folding orbit, so that foldedName(x) == foldedName(y) exactly when
// strings.EqualFold(x, y).
func foldedName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, name)
}

// checkEnd checks that dec has nothing left after the value it read.
func checkEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return bodyError(err)
		}
		return badRequest("invalid request body: data after the JSON value")
	}
	return nil
}

// bodyError describes an error reading or decoding a request body.
func bodyError(err error) error {
	var tooLarge *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &tooLarge):
		return &requestError{http.StatusRequestEntityTooLarge, codeTooLarge,
			pgerr.New(pgerrcode.ProgramLimitExceeded, "request body exceeds the limit of %d bytes", tooLarge.Limit)}
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return badRequest("invalid request body: %q cannot be a JSON %s", typeErr.Field, typeErr.Value)
	case errors.As(err, &typeErr):
		return badRequest("invalid request body: want a JSON object, not %s", typeErr.Value)
	case errors.As(err, &syntaxErr):
		return badRequest("invalid JSON in request body at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
	case errors.Is(err, io.EOF):
		return badRequest("empty request body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("invalid JSON in request body: unexpected end of input")
	}
	return badRequest("invalid request body: %s", err.Error())
}

// paramValue converts the JSON value raw to a datum of type t (nil for
// JSON null), through t's text input as a text-format Bind parameter is
// read: a string is the text itself; numbers and booleans are their
// literal; an array is an array literal ('{1,2}') for an array type and
// its JSON text otherwise (jsonb, pgvector's '[1,2]'); an object is its
// JSON text.
func paramValue(raw json.RawMessage, t types.T, opts *types.TextOptions) (any, error) {
	raw = trimJSON(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return nil, nil
	}
	var text string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
		// The body is valid UTF-8, but an escape (\u0000) can still
		// make a NUL, which no text holds.
		if err := checkText(text); err != nil {
			return nil, err
		}
	case '[':
		if t.Family != types.ArrayFamily {
			text = string(raw)
			break
		}
		if t.Elem != nil && t.Elem.Family == types.Float4 && t.Domain == "" {
			// An embedding: straight into a []float32 (see
			// exec.Runtime.Params), or through the array literal
			// when it is anything but plain numbers.
			if xs, ok := types.ParseJSONFloat4s(nil, raw); ok {
				return xs, nil
			}
		}
		lit, err := appendArrayLiteral(nil, raw)
		if err != nil {
			return nil, err
		}
		// As for a string: an element's \u0000 escape made a NUL.
		if err := checkText(string(lit)); err != nil {
			return nil, err
		}
		text = string(lit)
	default: // numbers, true, false, objects
		text = string(raw)
	}
	v, err := parseText(text, t, opts)
	if pgerr.Code(err) == pgerrcode.InternalError {
		// A codec error without a SQLSTATE: bad input, as for Bind.
		err = pgerr.New(pgerrcode.InvalidTextRepresentation, "invalid input for type %s: %s", t, err.Error())
	}
	return v, err
}

// trimJSON drops the white space around a JSON value.
func trimJSON(raw json.RawMessage) json.RawMessage {
	return bytes.TrimSpace(raw)
}

// appendArrayLiteral appends the PostgreSQL array literal of a JSON array:
// nested arrays are sub-arrays, null is NULL, numbers and booleans are
// bare, strings and objects are quoted elements.
func appendArrayLiteral(dst []byte, raw json.RawMessage) ([]byte, error) {
	if !bytes.ContainsAny(raw, `"{`) {
		// Numbers, booleans, nulls and nested arrays only (an embedding):
		// the JSON text is the literal but for its brackets, since array
		// input reads null as NULL and skips white space.
		for _, c := range raw {
			switch c {
			case '[':
				c = '{'
			case ']':
				c = '}'
			}
			dst = append(dst, c)
		}
		return dst, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, err
	}
	dst = append(dst, '{')
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		e = trimJSON(e)
		switch e[0] {
		case 'n':
			dst = append(dst, "NULL"...)
		case '[':
			var err error
			if dst, err = appendArrayLiteral(dst, e); err != nil {
				return nil, err
			}
		case '"':
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return nil, err
			}
			dst = types.AppendQuotedElement(dst, s)
		case '{':
			dst = types.AppendQuotedElement(dst, string(e))
		default:
			dst = append(dst, e...)
		}
	}
	return append(dst, '}'), nil
}

// rowsEncoder encodes result batches as the elements of a JSON array of
// rows, each row an array of values (appendJSONValue). The rows are held
// until the statement ends, so that an error gets an error answer; past
// limit bytes (the session's statement_mem, 0 for none) they fail with
// 53200 as a statement's other buffered rows do, instead of growing the
// process without bound (a 3GB result took a server past its memory).
type rowsEncoder struct {
	opts  *types.TextOptions
	limit int64
	buf   []byte // the encoded rows, comma separated
}

// add encodes the rows of rec, whose columns cols describes; the record
// is not retained.
func (e *rowsEncoder) add(cols []session.Column, rec arrow.Record) error {
	if int(rec.NumCols()) != len(cols) {
		return pgerr.New(pgerrcode.InternalError, "result batch has %d columns, expected %d", rec.NumCols(), len(cols))
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		if len(e.buf) > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '[')
		for j, arr := range rec.Columns() {
			if j > 0 {
				e.buf = append(e.buf, ',')
			}
			var err error
			if e.buf, err = appendJSONValue(e.buf, arr, i, cols[j].Type, e.opts); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
		if e.limit > 0 && int64(len(e.buf)) > e.limit {
			return pgerr.New(pgerrcode.OutOfMemory, "out of memory").
				WithDetail("The result's JSON passed the statement_mem of %d bytes: the HTTP API holds a result until the statement ends.", e.limit).
				WithHint("Use LIMIT or fewer columns, raise statement_mem, or read large results over the PostgreSQL protocol, which streams them.")
		}
	}
	return nil
}

// appendJSONValue appends row i of arr, of SQL type t, as a JSON value:
// null for NULL; a number for integers, floats and numeric (NaN and
// infinities, which JSON lacks, as the strings PostgreSQL prints); true
// or false; the document itself for json and jsonb; an array for arrays
// and vectors (embeddings as arrays of numbers); PostgreSQL's text output
// as a string for everything else (text, dates, timestamps, uuid, bytea
// as '\x...' hex, intervals, ...).
func appendJSONValue(dst []byte, arr arrow.Array, i int, t types.T, opts *types.TextOptions) ([]byte, error) {
	if isNull(arr, i) {
		return append(dst, "null"...), nil
	}
	if list, ok := arr.(array.ListLike); ok && (t.Family == types.ArrayFamily || t.Family == types.Vector) {
		return appendJSONArray(dst, list, i, t, opts)
	}
	start := len(dst)
	dst, err := appendValue(dst, arr, i, t, pgproto3.TextFormat, opts)
	if err != nil {
		return dst[:start], err
	}
	text := dst[start:]
	switch t.Family {
	case types.Int2, types.Int4, types.Int8, types.Oid, types.JSON, types.JSONB:
		return dst, nil
	case types.Float4, types.Float8, types.Numeric:
		switch string(text) {
		case "NaN", "Infinity", "-Infinity":
		default:
			return dst, nil
		}
	case types.Bool:
		if string(text) == "t" {
			return append(dst[:start], "true"...), nil
		}
		return append(dst[:start], "false"...), nil
	}
	return appendJSONString(dst[:start], string(text)), nil
}

// appendJSONArray appends row i of a list column of array or vector type
// t as a JSON array; a 2-D array's rows are lists of lists.
func appendJSONArray(dst []byte, list array.ListLike, i int, t types.T, opts *types.TextOptions) ([]byte, error) {
	elem := types.Float4T // a vector's elements
	if t.Family == types.ArrayFamily && t.Elem != nil {
		elem = *t.Elem
	}
	child := list.ListValues()
	if _, nested := child.(array.ListLike); nested {
		elem = t // the next dimension
	}
	from, to := list.ValueOffsets(i)
	dst = append(dst, '[')
	for j := int(from); j < int(to); j++ {
		if j > int(from) {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJSONValue(dst, child, j, elem, opts); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendJSONStrings appends names as a JSON array of strings.
func appendJSONStrings(dst []byte, names []string) []byte {
	dst = append(dst, '[')
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, n)
	}
	return append(dst, ']')
}

// errorAt prefixes err's message with where it happened (a parameter, an
// ingested cell, an item of a batch), keeping its SQLSTATE, detail and
// hint.
func errorAt(err error, format string, args ...any) error {
	pe := *pgerr.From(err)
	pe.Message = fmt.Sprintf(format, args...) + ": " + pe.Message
	return &pe
}
