package functions

import (
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

// TestContainsMembersMatchesParser checks the scanning @> against the
// parsed one on every pair of a set of documents, in jsonb's normal form.
func TestContainsMembersMatchesParser(t *testing.T) {
	docs := []string{
		`{}`, `{"repo": "r1"}`, `{"repo": "r1", "n": 1}`, `{"n": 1.0}`, `{"n": 1e0, "repo": "r2"}`,
		`{"a": {"b": [1, 2, {"c": "x"}]}, "n": 2}`, `{"a": {"b": [2]}}`, `{"a": [1, "1"]}`, `{"a": []}`,
		`{"a": null, "t": true}`, `{"a": "x\"y", "b": "é"}`, `{"a\u0062": 1}`, `{"tags": ["x", "y"], "repo": "r1"}`,
		`[1, 2]`, `"r1"`, `1`, `null`, `[{"repo": "r1"}]`, `{"a": {"b": {}}}`,
		`{"n": -2.50}`, `{"n": -2.5}`, `{"n": 100}`, `{"n": 100.00}`, `{"n": 10}`, `{"n": 0.0}`, `{"n": 0}`, `{"n": "1"}`,
	}
	for i, d := range docs {
		if docs[i], _ = types.NormalizeJSONB(d); docs[i] == "" {
			t.Fatalf("%q does not normalise", d)
		}
	}
	answered := 0
	for _, a := range docs {
		an, _ := parseJSON(a)
		for _, bText := range docs {
			b, _ := parseJSON(bText)
			if b.kind != jsonObject {
				continue
			}
			got, ok := containsMembers(a, b)
			if !ok {
				continue
			}
			answered++
			if want := jsonbContains(an, b, true); got != want {
				t.Errorf("%s @> %s = %v, the parser %v", a, bText, got, want)
			}
		}
	}
	if answered < 150 {
		t.Fatalf("the scan answered only %d pairs", answered)
	}
}
