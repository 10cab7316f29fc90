package types

import (
	"math/rand"
	"strings"
	"testing"
)

// TestJSONBNormalizer: texts PostgreSQL 15's jsonb_out prints come out
// as they are; other spacing and key orders come out as PostgreSQL prints
// them (the expected outputs are PostgreSQL's); anything else the general
// path would change or reject is left to it.
func TestJSONBNormalizer(t *testing.T) {
	var z JSONBNormalizer // one for every case: its scratch space is reused
	normal := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `0.0`, `0.000`, `1.50`, `-1.5`, `"x"`, `""`,
		`123456789012345678901234567890.000100`,
		`"\u001f\u0001\b\f\n//"`, "\"\x7f é\"",
		`{"a": 4, "b": 1, "aa": 3}`,
		`{"z": 2, "é": 1}`,
		`["a", {"": 1}, [], {}, true, false, null, -1.5]`,
		`{"n": 3, "repo": "cairn-db/cairn", "tags": ["copy", "jsonb"]}`,
		`{"a": {"b": [{"c": null}]}}`,
		strings.Repeat("[", jsonMaxDepth) + strings.Repeat("]", jsonMaxDepth),
	}
	for _, s := range normal {
		for _, out := range []func() ([]byte, bool){
			func() ([]byte, bool) { return appendNormalJSONB(&z, nil, s) },
			func() ([]byte, bool) { return z.Append([]byte("x"), []byte(s)) },
		} {
			if got, ok := out(); !ok || strings.TrimPrefix(string(got), "x") != s {
				t.Errorf("Append(%.40s) = %.40s, %v; want it unchanged", s, got, ok)
			}
		}
		if got, err := reformatJSONB(s); err != nil || got != s {
			t.Errorf("reformatJSONB(%.40s) = %.40s, %v: the case is not normal", s, got, err)
		}
	}
	for in, want := range map[string]string{
		`{"repo":"cairn","tags":["a","b"],"n":3}`:         `{"n": 3, "repo": "cairn", "tags": ["a", "b"]}`,
		`{"n": 3, "n": 4, "repo": "x"}`:                   `{"n": 4, "repo": "x"}`,
		` { "b" : 1 ,"a":2,"aa" :3, "a" : 4 } `:           `{"a": 4, "b": 1, "aa": 3}`,
		"[1,\t2 ,\r\n{\"b\":{\"d\":1,\"c\":[]},\"a\":0}]": `[1, 2, {"a": 0, "b": {"c": [], "d": 1}}]`,
		`{"é": 1, "z": 2}`:                                `{"z": 2, "é": 1}`,
		`[ ]`:                                             `[]`,
		`{ }`:                                             `{}`,
	} {
		got, ok := appendNormalJSONB(&z, nil, in)
		if !ok || string(got) != want {
			t.Errorf("Append(%s) = %s, %v; want %s", in, got, ok, want)
		}
		if got, err := reformatJSONB(in); err != nil || got != want {
			t.Errorf("reformatJSONB(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, s := range []string{
		``, ` `, `{"\u0061": 1}`, `{"a\n": 1}`, `-0`, `-0.0`, `1e3`, `1E3`, `1.0e0`, `01`, `1.`, `.5`, `+1`, `-`, `1x`, `NaN`,
		`"\/"`, `"\u0041"`, `"\u000a"`, `"\u0008"`, `"\u0000"`, `"\u001F"`, `"\u0020"`, `"\x"`, "\"\x01\"", `"abc`, `"\`, `"\u001`,
		`tru`, `truex`, `nul`, `[true false]`, `{"a": }`, `{"a"}`, `[1,]`, `[1, ]`, `{,}`, `{"a": 1, }`, `{1: 2}`,
		`[`, `]`, `{`, `[[]`, `[]]`, `{"a" 1}`, `[1 2]`, "\v1", "1\v",
		strings.Repeat("[", jsonMaxDepth+1) + strings.Repeat("]", jsonMaxDepth+1),
	} {
		if got, ok := appendNormalJSONB(&z, nil, s); ok {
			t.Errorf("Append(%.40q) = %.40s, true; want it left to the general path", s, got)
		}
	}
}

// TestJSONBNormalizerAgreesWithReformat: whatever JSONBNormalizer
// prints, the general path prints too, for random documents, their
// normal forms (every one of which it takes) and every one-byte change
// of those (deleted, repeated, replaced by a byte JSON gives meaning to).
func TestJSONBNormalizerAgreesWithReformat(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var z JSONBNormalizer
	taken := 0
	check := func(s string) {
		got, ok := appendNormalJSONB(&z, nil, s)
		if !ok {
			return
		}
		taken++
		if want, err := reformatJSONB(s); err != nil || string(got) != want {
			t.Fatalf("Append(%q) = %q, but its normal form is %q (%v)", s, got, want, err)
		}
	}
	const bytes = "{}[],: \"\\/0-.1eEatnu\x01é\t"
	for range 3000 {
		doc := randJSON(rng, 0)
		check(doc)
		norm, err := NormalizeJSONB(doc)
		if err != nil {
			t.Fatalf("NormalizeJSONB(%s): %v", doc, err)
		}
		if got, ok := appendNormalJSONB(&z, nil, norm); !ok || string(got) != norm { // randJSON's keys have no escapes
			t.Fatalf("Append(%q) = %q, %v for a normal form", norm, got, ok)
		}
		for i := 0; i < len(norm); i++ {
			check(norm[:i] + norm[i+1:])
			check(norm[:i] + norm[i:i+1] + norm[i:])
			c := bytes[rng.Intn(len(bytes))]
			check(norm[:i] + string(c) + norm[i+1:])
		}
	}
	if taken < 10000 {
		t.Fatalf("only %d documents taken: a weak test", taken)
	}
}

// BenchmarkNormalizeJSONB: jsonb input of an agent-memory row's
// metadata: already in jsonb's form (the scanner's path; "reformat" is
// the same document through the general path, as before the scanner),
// and as json.dumps prints it, keys in the caller's order.
func BenchmarkNormalizeJSONB(b *testing.B) {
	const normal = `{"n": 3, "repo": "cairn-db/cairn", "tags": ["copy", "jsonb", "bench"], "session": "s-000042"}`
	for _, c := range []struct {
		name, doc string
		f         func(string) (string, error)
	}{
		{"normal", normal, NormalizeJSONB},
		{"normal-reformat", normal, reformatJSONB},
		{"unsorted", `{"repo": "cairn-db/cairn", "tags": ["copy", "jsonb", "bench"], "n": 3, "session": "s-000042"}`, NormalizeJSONB},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			for range b.N {
				if _, err := c.f(c.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// COPY's path: one normalizer and output buffer per parse worker.
	doc := []byte(`{"repo": "cairn-db/cairn", "tags": ["copy", "jsonb", "bench"], "n": 3, "session": "s-000042"}`)
	b.Run("unsorted-copy", func(b *testing.B) {
		var z JSONBNormalizer
		var out []byte
		b.SetBytes(int64(len(doc)))
		for range b.N {
			var ok bool
			if out, ok = z.Append(out[:0], doc); !ok {
				b.Fatal("not taken")
			}
		}
	})
}
