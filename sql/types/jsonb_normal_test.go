package types

import (
	"math/rand"
	"strings"
	"testing"
)

// TestIsNormalJSONB: texts PostgreSQL 15's jsonb_out prints are taken as
// they are (the expected outputs were printed by PostgreSQL), anything the
// general path would change or reject is not.
func TestIsNormalJSONB(t *testing.T) {
	normal := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `0.0`, `0.000`, `1.50`, `-1.5`, `"x"`, `""`,
		`123456789012345678901234567890.000100`,
		`"\u001f\u0001\b\f\n//"`, "\"\x7f é\"",
		`{"a": 4, "b": 1, "aa": 3}`,
		`{"z": 2, "é": 1}`,
		`["a", {"": 1}, [], {}, true, false, null, -1.5]`,
		`{"n": 3, "repo": "cairn-db/cairn", "tags": ["copy", "jsonb"]}`,
		`{"a": {"b": [{"c": null}]}}`,
	}
	for _, s := range normal {
		if !IsNormalJSONB(s) || !IsNormalJSONB([]byte(s)) {
			t.Errorf("IsNormalJSONB(%s) = false, want true", s)
		}
		if got, err := reformatJSONB(s); err != nil || got != s {
			t.Errorf("reformatJSONB(%s) = %s, %v: the case is not normal", s, got, err)
		}
	}
	notNormal := []string{
		``, ` `, ` {}`, `{} `, `{ }`, `[ ]`, `{"a":1}`, `{"a" : 1}`, `[1,2]`, `[1 ,2]`, `[1,  2]`,
		`{"b": 1, "a": 2}`, `{"aa": 1, "b": 2}`, `{"a": 1, "a": 2}`, `{"\u0061": 1}`, `{"a\n": 1}`,
		`-0`, `-0.0`, `1e3`, `1E3`, `1.0e0`, `01`, `1.`, `.5`, `+1`, `-`, `1x`, `NaN`,
		`"\/"`, `"\u0041"`, `"\u000a"`, `"\u0008"`, `"\u0000"`, `"\u001F"`, `"\u0020"`, `"\x"`, "\"\x01\"", `"abc`, `"\`, `"\u001`,
		`tru`, `truex`, `nul`, `[true false]`, `{"a": }`, `{"a"}`, `[1,]`, `[1, ]`, `{,}`, `{"a": 1, }`, `{1: 2}`,
		`[`, `]`, `{`, `[[]`, `[]]`,
		strings.Repeat("[", jsonMaxDepth+1) + strings.Repeat("]", jsonMaxDepth+1),
	}
	for _, s := range notNormal {
		if IsNormalJSONB(s) {
			t.Errorf("IsNormalJSONB(%q) = true, want false", s)
		}
	}
	deep := strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth)
	if !IsNormalJSONB(deep) {
		t.Errorf("IsNormalJSONB of %d nested arrays = false, want true", jsonMaxDepth)
	}
}

// TestIsNormalJSONBAgreesWithReformat: what the scanner accepts, the
// general path prints unchanged, for random documents, their normal forms
// (every one of which it takes) and every one-byte change of those (deleted, repeated, replaced by a
// byte JSON gives meaning to).
func TestIsNormalJSONBAgreesWithReformat(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	check := func(s string) {
		if !IsNormalJSONB(s) {
			return
		}
		if got, err := reformatJSONB(s); err != nil || got != s {
			t.Fatalf("IsNormalJSONB(%q) = true, but its normal form is %q (%v)", s, got, err)
		}
	}
	const bytes = "{}[],: \"\\/0-.1eEatnu\x01é"
	for range 3000 {
		doc := randJSON(rng, 0)
		check(doc)
		norm, err := NormalizeJSONB(doc)
		if err != nil {
			t.Fatalf("NormalizeJSONB(%s): %v", doc, err)
		}
		if !IsNormalJSONB(norm) { // randJSON's keys have no escapes
			t.Fatalf("IsNormalJSONB(%q) = false for a normal form", norm)
		}
		for i := 0; i < len(norm); i++ {
			check(norm[:i] + norm[i+1:])
			check(norm[:i] + norm[i:i+1] + norm[i:])
			c := bytes[rng.Intn(len(bytes))]
			check(norm[:i] + string(c) + norm[i+1:])
		}
	}
}

// BenchmarkNormalizeJSONB: an agent-memory row's metadata, already in
// jsonb's form (the fast path) and compact (the general path).
func BenchmarkNormalizeJSONB(b *testing.B) {
	for _, c := range []struct{ name, doc string }{
		{"normal", `{"n": 3, "repo": "cairn-db/cairn", "tags": ["copy", "jsonb", "bench"], "session": "s-000042"}`},
		{"compact", `{"repo":"cairn-db/cairn","tags":["copy","jsonb","bench"],"n":3,"session":"s-000042"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for range b.N {
				if _, err := NormalizeJSONB(c.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
