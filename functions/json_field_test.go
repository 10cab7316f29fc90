package functions

import (
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

// jsonFieldDocs are documents for the scan, as json (written) and, once
// normalised, as jsonb.
var jsonFieldDocs = []string{
	`{}`, ` { } `, `{"a": 1}`, `{"a":1,"b":"x"}`, "{\n\t\"a\" :\r\n [1, {\"b\": [2, \"]\"]}] , \"c\": null }",
	`{"repo": "r5", "n": 7, "memory_type": "episodic"}`, `{"a": "x\"y", "b": "\\"}`, `{"a": 1, "a": 2}`,
	`{"a\u0062": 1, "ab": 2}`, `{"a": {"a": {"a": 3}}}`, `{"a": true, "b": false, "c": null, "d": -1.5e3}`,
	`{"a": "{\"b\": 1}", "b": "é\u00e9"}`, `[1, 2]`, `"a"`, `3`, `null`, `{"a": [[[[]]]], "b": {}}`,
	`{"": 1, " ": 2}`, `{"a": "\u0000"}`, `{"a":1`, `{"a" 1}`, `{"a": 1,}`, `{"a": }`, `{"a": "x}`, `{"a": 1} x`,
}

var jsonFieldKeys = []string{"a", "b", "c", "d", "ab", "repo", "n", "memory_type", "missing", "", " ", `a"`, `\`}

// TestJSONFieldMatchesParser checks the scan against the parser: where it
// answers (ok), -> and ->> give what the parsed tree gives, for json as
// written and jsonb in normal form.
func TestJSONFieldMatchesParser(t *testing.T) {
	answered := 0
	for _, written := range jsonFieldDocs {
		docs := map[string]bool{written: false} // doc -> is jsonb
		if norm, err := types.NormalizeJSONB(written); err == nil {
			docs[norm] = true
		}
		for doc, isB := range docs {
			j, perr := parseJSON(doc)
			for _, key := range jsonFieldKeys {
				raw, found, ok := jsonField(doc, key)
				if !ok {
					continue
				}
				if perr != nil {
					// Invalid JSON (never a datum), or valid json the tree
					// parser refuses (a \u0000 escape).
					continue
				}
				answered++
				var want *jnode
				if j.kind == jsonObject {
					want = j.get(key)
				}
				if found != (want != nil) {
					t.Fatalf("%q -> %q: found %v, the parser %v", doc, key, found, want != nil)
				}
				if !found {
					continue
				}
				wantRaw := jsonRaw(want)
				if isB {
					wantRaw = jsonbText(want)
				}
				if raw != wantRaw {
					t.Fatalf("%q -> %q = %q, the parser %q", doc, key, raw, wantRaw)
				}
				if text, null, ok := jsonFieldText(raw); ok {
					switch {
					case null != (want.kind == jsonNull):
						t.Fatalf("%q ->> %q: null %v, kind %v", doc, key, null, want.kind)
					case want.kind == jsonString && text != want.str:
						t.Fatalf("%q ->> %q = %q, the parser %q", doc, key, text, want.str)
					case want.kind != jsonString && !null && text != wantRaw:
						t.Fatalf("%q ->> %q = %q, want %q", doc, key, text, wantRaw)
					}
				}
			}
		}
	}
	if answered < 100 {
		t.Fatalf("the scan answered only %d lookups", answered)
	}
}

// FuzzJSONField checks that the scan answers as the parser does for valid
// JSON (a datum always is; on other text it only has to stop).
func FuzzJSONField(f *testing.F) {
	for _, d := range jsonFieldDocs {
		f.Add(d, "a")
	}
	f.Fuzz(func(t *testing.T, doc, key string) {
		raw, found, ok := jsonField(doc, key)
		if !ok || types.ValidateJSON(doc) != nil {
			return
		}
		j, err := parseJSON(doc)
		if err != nil {
			return // valid json the tree parser refuses (a \u0000 escape)
		}
		want := j.get(key)
		if found != (want != nil) || found && raw != jsonRaw(want) {
			t.Fatalf("%q -> %q = %q, %v; the parser %v", doc, key, raw, found, want)
		}
	})
}

// BenchmarkJSONField compares the scan with parsing the document, on an
// agent memory's metadata.
func BenchmarkJSONField(b *testing.B) {
	doc, _ := types.NormalizeJSONB(`{"repo": "cairn", "memory_type": "episodic", "n": 12345, "tags": ["a", "b"]}`)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if _, found, ok := jsonField(doc, "repo"); !found || !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			j, _ := parseJSON(doc)
			if j.get("repo") == nil {
				b.Fatal("not found")
			}
		}
	})
}
