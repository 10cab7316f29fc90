package wire

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// TestParamValue converts JSON parameter values to datums of the
// inferred types and checks them by their PostgreSQL text output.
func TestParamValue(t *testing.T) {
	int4Array := types.ArrayOf(types.Int4T, 1)
	textArray := types.ArrayOf(types.TextT, 1)
	for _, tc := range []struct {
		raw  string
		t    types.T
		want string // text output; "NULL" for nil
	}{
		{`null`, types.Int8T, "NULL"},
		{` 42 `, types.Int8T, "42"},
		{`-7`, types.Int4T, "-7"},
		{`1.5`, types.Float8T, "1.5"},
		{`1e3`, types.Float8T, "1000"},
		{`12.50`, types.NumericT, "12.50"},
		{`true`, types.BoolT, "t"},
		{`false`, types.BoolT, "f"},
		{`"hello \"world\"\n"`, types.TextT, "hello \"world\"\n"},
		{`5`, types.TextT, "5"}, // a number for a text parameter is its literal
		{`"2024-02-29"`, types.DateT, "2024-02-29"},
		{`"2024-02-29 12:00:00+02"`, types.TimestampTZT, "2024-02-29 10:00:00+00"},
		{`"550e8400-e29b-41d4-a716-446655440000"`, types.UUIDT, "550e8400-e29b-41d4-a716-446655440000"},
		{`"\\x0102ff"`, types.ByteaT, `\x0102ff`},
		{`{"b": [1, 2], "a": null}`, types.JSONBT, `{"a": null, "b": [1, 2]}`},
		{`{"a":1}`, types.JSONT, `{"a":1}`},
		{`[1, 2, {"x": "y"}]`, types.JSONBT, `[1, 2, {"x": "y"}]`},
		{`"{\"a\": 1}"`, types.JSONBT, `{"a": 1}`}, // the docs' form: a JSON string cast to jsonb
		{`[0.5, -1, 2e-3]`, types.Float4ArrayT, "{0.5,-1,0.002}"},
		{`[]`, types.Float4ArrayT, "{}"},
		{`[1, null, 3]`, int4Array, "{1,NULL,3}"},
		{`[[1, 2], [3, 4]]`, types.ArrayOf(types.Float4T, 2), "{{1,2},{3,4}}"},
		{`["a\"b", null, "c,d", "NULL", "x\\y"]`, textArray, `{"a\"b",NULL,"c,d","NULL","x\\y"}`},
		{`[{"k": 1}]`, types.ArrayOf(types.JSONBT, 1), `{"{\"k\": 1}"}`},
		{`[1, 2, 3]`, types.VectorOf(3), "[1,2,3]"},
	} {
		v, err := paramValue(json.RawMessage(tc.raw), tc.t, nil)
		if err != nil {
			t.Errorf("paramValue(%s, %s): %v", tc.raw, tc.t, err)
			continue
		}
		got := "NULL"
		if v != nil {
			got = types.FormatText(v, tc.t)
		}
		if got != tc.want {
			t.Errorf("paramValue(%s, %s) = %s, want %s", tc.raw, tc.t, got, tc.want)
		}
	}
}

func TestParamValueErrors(t *testing.T) {
	for _, tc := range []struct {
		raw, code string
		t         types.T
	}{
		{`"x"`, "22P02", types.Int4T},
		{`1.5`, "22P02", types.Int8T},
		{`99999999999`, "22003", types.Int4T},
		{`[1, "a"]`, "22P02", types.ArrayOf(types.Int4T, 1)},
		{`[[1, 2], [3]]`, "22P02", types.Float4ArrayT},
		{`{"a": 1}`, "22P02", types.Int4T},
		{`"not json"`, "22P02", types.JSONBT},
	} {
		_, err := paramValue(json.RawMessage(tc.raw), tc.t, nil)
		if code := pgerr.Code(err); code != tc.code {
			t.Errorf("paramValue(%s, %s): error %v (%s), want SQLSTATE %s", tc.raw, tc.t, err, code, tc.code)
		}
	}
}

// TestAppendJSONValue encodes Arrow columns of each type as JSON values.
func TestAppendJSONValue(t *testing.T) {
	for _, tc := range []struct {
		t    types.T
		text string // the datum's text input; "NULL" for NULL
		want string
	}{
		{types.BoolT, "t", `true`},
		{types.BoolT, "f", `false`},
		{types.Int2T, "-3", `-3`},
		{types.Int4T, "2147483647", `2147483647`},
		{types.Int8T, "-9223372036854775808", `-9223372036854775808`},
		{types.Float8T, "1.5", `1.5`},
		{types.Float8T, "1e300", `1e+300`},
		{types.Float8T, "NaN", `"NaN"`},
		{types.Float8T, "Infinity", `"Infinity"`},
		{types.Float8T, "-Infinity", `"-Infinity"`},
		{types.Float4T, "0.1", `0.1`},
		{types.NumericT, "12.50", `12.50`},
		{types.NumericT, "NaN", `"NaN"`},
		{types.TextT, "a \"quoted\"\n\ttab\\ é 😀 \x01", `"a \"quoted\"\n\ttab\\ é 😀 \u0001"`},
		{types.VarcharT, "", `""`},
		{types.JSONBT, `{"b": [1, 2], "a": "x"}`, `{"a": "x", "b": [1, 2]}`},
		{types.JSONT, `[1, {"k": null}]`, `[1, {"k": null}]`},
		{types.DateT, "2024-02-29", `"2024-02-29"`},
		{types.TimestampT, "2024-02-29 12:34:56.5", `"2024-02-29 12:34:56.5"`},
		{types.TimestampTZT, "2024-02-29 12:34:56+00", `"2024-02-29 12:34:56+00"`},
		{types.IntervalT, "1 day 02:00:00", `"1 day 02:00:00"`},
		{types.UUIDT, "550e8400-e29b-41d4-a716-446655440000", `"550e8400-e29b-41d4-a716-446655440000"`},
		{types.ByteaT, `\x01ff`, `"\\x01ff"`},
		{types.Float4ArrayT, "{0.5,-1,NULL}", `[0.5,-1,null]`},
		{types.Float4ArrayT, "{}", `[]`},
		{types.ArrayOf(types.Float4T, 2), "{{1,2},{3,4}}", `[[1,2],[3,4]]`},
		{types.ArrayOf(types.TextT, 1), `{"a,b",NULL,"c\"d"}`, `["a,b",null,"c\"d"]`},
		{types.ArrayOf(types.Float8T, 1), "{NaN,1}", `["NaN",1]`},
		{types.ArrayOf(types.BoolT, 1), "{t,f}", `[true,false]`},
		{types.VectorOf(3), "[1,2.5,3]", `[1,2.5,3]`},
		{types.Int4T, "NULL", `null`},
		{types.Float4ArrayT, "NULL", `null`},
	} {
		var v any
		if tc.text != "NULL" {
			var err error
			if v, err = types.ParseText(tc.text, tc.t); err != nil {
				t.Fatalf("ParseText(%q, %s): %v", tc.text, tc.t, err)
			}
		}
		b := types.NewBuilder(memory.DefaultAllocator, tc.t)
		if err := types.AppendValue(b, v, tc.t); err != nil {
			t.Fatalf("AppendValue(%q, %s): %v", tc.text, tc.t, err)
		}
		arr := b.NewArray()
		got, err := appendJSONValue([]byte("x"), arr, 0, tc.t, nil)
		arr.Release()
		b.Release()
		if err != nil {
			t.Errorf("%s %q: %v", tc.t, tc.text, err)
			continue
		}
		if string(got[1:]) != tc.want || got[0] != 'x' {
			t.Errorf("%s %q: %s, want %s", tc.t, tc.text, got[1:], tc.want)
		}
		if !json.Valid(got[1:]) {
			t.Errorf("%s %q: %s is not valid JSON", tc.t, tc.text, got[1:])
		}
	}
}

// TestAppendJSONString checks that every string survives a JSON round
// trip, invalid UTF-8 becoming U+FFFD as with encoding/json.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `"\`, "\x00\x1f\x7f", "line\nbreak\r\t", "é😀\u2028", "bad \xff utf8", strings.Repeat("ab", 100)} {
		enc := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Errorf("appendJSONString(%q) = %s: %v", s, enc, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Errorf("appendJSONString(%q) round trip = %q, want %q", s, back, want)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	for code, want := range map[string]int{
		"42P01": http.StatusBadRequest, "42601": http.StatusBadRequest, "22P02": http.StatusBadRequest,
		"23505": http.StatusBadRequest, "0A000": http.StatusBadRequest, "2BP01": http.StatusBadRequest,
		"XX000": http.StatusInternalServerError, "53200": http.StatusInternalServerError,
		"58030": http.StatusInternalServerError, "57014": http.StatusInternalServerError,
		"57P01": http.StatusServiceUnavailable, "40001": http.StatusConflict,
	} {
		if got := httpStatus(code); got != want {
			t.Errorf("httpStatus(%s) = %d, want %d", code, got, want)
		}
	}
}

func TestColumnType(t *testing.T) {
	for _, tc := range []struct {
		values string
		want   string // "" when nothing can be inferred
	}{
		{`[true, null]`, "boolean"},
		{`[null, 1, 2]`, "bigint"},
		{`[1, 2.5]`, "double precision"},
		{`[1, 2e3]`, "double precision"},
		{`[-0.5]`, "double precision"},
		{`[1, 9223372036854775808]`, "numeric"},
		{`[-9223372036854775808, 9223372036854775807]`, "bigint"},
		{`[123456789012345678901234567890, 0.5]`, "double precision"},
		{`["x", 1]`, "text"},
		{`[{"a": 1}]`, "jsonb"},
		{`[[0.1, 0.2], null]`, "real[]"},
		{`[[], [1]]`, "real[]"},
		{`[[], []]`, "real[]"},
		{`[[[1, 2]], [[3, 4]]]`, "real[][]"},
		{`[["a", "b"]]`, "text[]"},
		{`[[null, true]]`, "boolean[]"},
		{`[[{"a": 1}]]`, "jsonb"},
		{`[[["a"]]]`, "jsonb"},
		{`[null, null]`, ""},
		{`[]`, ""},
	} {
		var values []json.RawMessage
		if err := json.Unmarshal([]byte(tc.values), &values); err != nil {
			t.Fatal(err)
		}
		got, ok := columnType(values)
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("columnType(%s) = %q, want %q", tc.values, got, tc.want)
		}
	}
}

func TestCheckWorkspace(t *testing.T) {
	for _, ws := range []string{"agent", "My Workspace", "ws-1.prod", "é", strings.Repeat("w", 63)} {
		if err := checkWorkspace(ws); err != nil {
			t.Errorf("checkWorkspace(%q): %v", ws, err)
		}
	}
	for _, ws := range []string{`a"b`, "a,b", "a\x00b", "tab\t", "$user", "\xff", strings.Repeat("w", 64), "pg_catalog", "pg_x", "information_schema"} {
		if code := pgerr.Code(checkWorkspace(ws)); code != "42602" {
			t.Errorf("checkWorkspace(%q): SQLSTATE %q, want 42602", ws, code)
		}
	}
}

// TestHTTPPanicAnswer checks that a handler's panic is answered with a
// 500 XX000 error body rather than a dropped connection, and logged with
// its stack.
func TestHTTPPanicAnswer(t *testing.T) {
	var logged bytes.Buffer
	a := &httpAPI{maxBody: DefaultMaxBodyBytes, bodyIdle: DefaultBodyIdleTimeout, bodyTimeout: DefaultBodyTimeout,
		slots: make(chan struct{}, 1), bodyBudget: DefaultMaxBodyBytes, log: slog.New(slog.NewTextHandler(&logged, nil))}
	h := a.recoverPanics(a.guard(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/workspaces/w/tables/query", strings.NewReader(`{}`)))
	var e errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || rec.Code != 500 || e.SQLState != "XX000" || e.Code != codeQuery || e.Error != "internal error: boom" {
		t.Errorf("panic: %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(logged.String(), "panic serving http request") || !strings.Contains(logged.String(), "TestHTTPPanicAnswer") {
		t.Errorf("panic not logged with its stack: %s", logged.String())
	}
}
