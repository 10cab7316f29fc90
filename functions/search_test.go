package functions

import (
	"reflect"
	"testing"

	"github.com/cairn-db/cairn/sql/types"
)

// TestSearchOverloads checks the properties the binder reads off each
// resolved overload of <#> and of the similarity functions.
func TestSearchOverloads(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []types.T
		search Search
		higher bool
		err    string
	}{
		{"<#>", []types.T{tF4Arr, tF4Arr}, NotSearch, true, ""},
		{"<#>", []types.T{tVec, tVec}, NotSearch, false, ""}, // pgvector's negative inner product
		{"<#>", []types.T{types.TextT, types.TextT}, SearchBM25, true, ""},
		{"<#>", []types.T{types.VarcharT, types.UnknownT}, SearchBM25, true, ""},
		{"<#>", []types.T{types.RecordT, HybridRecordT}, SearchHybrid, true, ""},
		{"<#>", []types.T{HybridRecordT, HybridRecordT}, SearchHybrid, true, ""},
		{"<#>", []types.T{HybridRecordT, types.RecordT}, NotSearch, false, "operator does not exist: deeplake_hybrid_record <#> record"},
		{"<#>", []types.T{types.TextT, types.Int4T}, NotSearch, false, "operator does not exist: text <#> integer"},
		{"cosine_similarity", []types.T{tF4Arr, tF4Arr}, NotSearch, true, ""},
		{"deeplake_cosine_similarity", []types.T{tF4Arr, tF4Arr}, NotSearch, true, ""},
		{"maxsim", []types.T{tF4Arr, tF4Arr}, NotSearch, true, ""},
		{"deeplake_maxsim", []types.T{tF4Arr, tF4Arr}, NotSearch, true, ""},
		{"inner_product", []types.T{tF4Arr, tF4Arr}, NotSearch, false, ""},
		{"<=>", []types.T{tVec, tVec}, NotSearch, false, ""},
	} {
		ov, _, err := Resolve(c.name, c.args)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s%v: error %v, want %q", c.name, c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		if ov.Search != c.search || ov.HigherIsBetter != c.higher {
			t.Errorf("%s%v: Search %d HigherIsBetter %v, want %d %v", c.name, c.args, ov.Search, ov.HigherIsBetter, c.search, c.higher)
		}
		if (ov.Search != NotSearch) != (ov.Prepare != nil) {
			t.Errorf("%s%v: a search operator, and only one, has a Prepare hook", c.name, c.args)
		}
	}
}

// indexed is a Corpus of a column with a text index.
type indexed struct {
	docs, tokens int64
	df           map[string]int64
}

func (c indexed) IndexStats(terms []string) (int64, int64, []int64, bool, error) {
	df := make([]int64, len(terms))
	for i, t := range terms {
		df[i] = c.df[t]
	}
	return c.docs, c.tokens, df, true, nil
}

func (indexed) Texts(func(string)) error { panic("read the texts of an indexed column") }

// TestCorpusStats checks that BM25's statistics come from the text index
// when the column has one and from its texts otherwise.
func TestCorpusStats(t *testing.T) {
	terms := []string{"ai", "data", "absent"}
	got, err := corpusStats(indexed{docs: 26, tokens: 121, df: map[string]int64{"ai": 7, "data": 5}}, terms)
	if err != nil {
		t.Fatal(err)
	}
	want := &BM25Stats{Docs: 26, TotalTokens: 121, DocFreq: map[string]int64{"ai": 7, "data": 5, "absent": 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("indexed: %+v, want %+v", got, want)
	}
	got, err = corpusStats(texts{"AI data, data", "no match", "ai-driven ai"}, terms)
	if err != nil {
		t.Fatal(err)
	}
	want = &BM25Stats{Docs: 3, TotalTokens: 7, DocFreq: map[string]int64{"ai": 2, "data": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("texts: %+v, want %+v", got, want)
	}
}
