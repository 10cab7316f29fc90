package textindex

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/cairn-db/cairn/sql/textsearch"
)

// randomDocs returns n documents over a small vocabulary, with NULLs
// (nil) and empty strings.
func randomDocs(rng *rand.Rand, n int) []*string {
	vocab := strings.Fields("agent memory recall vector Vector search hybrid-search bm25 cache ci/cd token Straße the a")
	docs := make([]*string, n)
	for i := range docs {
		switch rng.Intn(10) {
		case 0:
			continue
		case 1:
			s := ""
			docs[i] = &s
			continue
		}
		words := make([]string, rng.Intn(12))
		for k := range words {
			words[k] = vocab[rng.Intn(len(vocab))]
		}
		s := strings.Join(words, " ")
		docs[i] = &s
	}
	return docs
}

func build(docs []*string) *Index {
	b := NewBuilder()
	for _, d := range docs {
		if d == nil {
			b.AddNull()
		} else {
			b.Add(*d)
		}
	}
	return b.Build()
}

// checkIndex compares x with a brute-force tokenization of docs.
func checkIndex(t *testing.T, x *Index, docs []*string) {
	t.Helper()
	if x.Rows() != len(docs) {
		t.Fatalf("%d rows, want %d", x.Rows(), len(docs))
	}
	var ndocs, ntok int64
	tf := map[string]map[int]int{}
	for i, d := range docs {
		n, null := x.Len(i)
		if d == nil {
			if !null {
				t.Fatalf("row %d: not NULL", i)
			}
			continue
		}
		toks := textsearch.Tokenize(*d)
		if null || n != len(toks) {
			t.Fatalf("row %d: length %d (null %v), want %d", i, n, null, len(toks))
		}
		ndocs++
		ntok += int64(len(toks))
		for _, tok := range toks {
			if tf[tok] == nil {
				tf[tok] = map[int]int{}
			}
			tf[tok][i]++
		}
	}
	if x.Docs() != ndocs || x.Tokens() != ntok || x.NumTerms() != len(tf) {
		t.Fatalf("docs %d tokens %d terms %d, want %d %d %d", x.Docs(), x.Tokens(), x.NumTerms(), ndocs, ntok, len(tf))
	}
	for term, rows := range tf {
		id, ok := x.Lookup(term)
		if !ok || x.Term(id) != term || x.DocFreq(id) != len(rows) {
			t.Fatalf("term %q: id %d ok %v df %d, want %d", term, id, ok, x.DocFreq(id), len(rows))
		}
		prs, tfs := x.Postings(id)
		for k, r := range prs {
			if k > 0 && r <= prs[k-1] {
				t.Fatalf("term %q: postings not ascending", term)
			}
			if rows[int(r)] != int(tfs[k]) || x.TF(int(r), id) != int(tfs[k]) || !x.HasTerm(int(r), id) {
				t.Fatalf("term %q row %d: tf %d, want %d", term, r, tfs[k], rows[int(r)])
			}
		}
	}
	if _, ok := x.Lookup("absent"); ok {
		t.Fatal("absent term found")
	}
	// The forward index lists each row's distinct terms.
	for i := range docs {
		var want []string
		if docs[i] != nil {
			seen := map[string]bool{}
			for _, tok := range textsearch.Tokenize(*docs[i]) {
				if !seen[tok] {
					seen[tok] = true
					want = append(want, tok)
				}
			}
		}
		got := x.RowTerms(i)
		if len(got) != len(want) {
			t.Fatalf("row %d: %d terms, want %d", i, len(got), len(want))
		}
		for k, id := range got {
			if k > 0 && id <= got[k-1] || tf[x.Term(int(id))][i] == 0 {
				t.Fatalf("row %d: bad forward terms %v", i, got)
			}
		}
	}
}

func TestIndexBuildAndEncode(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 1000} {
		docs := randomDocs(rng, n)
		x := build(docs)
		checkIndex(t, x, docs)
		enc := x.AppendBinary([]byte("prefix"))
		y, rest, err := Decode(append(enc[len("prefix"):], "tail"...))
		if err != nil {
			t.Fatal(err)
		}
		if string(rest) != "tail" {
			t.Fatalf("rest %q", rest)
		}
		checkIndex(t, y, docs)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	enc := build(randomDocs(rng, 200)).AppendBinary(nil)
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), enc...)
		switch i % 3 {
		case 0:
			b = b[:rng.Intn(len(b))]
		default:
			for k := 0; k < 1+rng.Intn(4); k++ {
				b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
			}
		}
		x, _, err := Decode(b) // must not panic
		if err == nil {
			// A flip the format cannot detect must still give a
			// consistent index.
			_ = x.NumTerms()
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(build(randomDocs(rand.New(rand.NewSource(3)), 20)).AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, _, err := Decode(b)
		if err != nil {
			return
		}
		for t := 0; t < x.NumTerms(); t++ {
			rows, _ := x.Postings(t)
			for _, r := range rows {
				x.RowTerms(int(r))
			}
		}
	})
}

func BenchmarkBuild(b *testing.B) {
	docs := randomDocs(rand.New(rand.NewSource(4)), 100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		build(docs)
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "docs/s")
}
