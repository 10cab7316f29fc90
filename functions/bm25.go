package functions

import (
	"math"

	"github.com/cairn-db/cairn/sql/textsearch"
)

// Okapi BM25 as pg_deeplake scores text (SPEC §3.2): Robertson IDF floored
// at a small positive value, k1 = 1.5, b = 0.75, tokens lower-cased and
// split on anything that is not a letter or a digit, no stemming, no stop
// words — except that '-' and '_' inside a word do not split it
// ("ai-driven" is one term, "ci/cd" two). That exception is what
// reproduces pg_deeplake's own expected scores (its test corpus has 121
// tokens, not the 122 a split on every hyphen gives).
const (
	BM25K1 = 1.5
	BM25B  = 0.75
	// BM25MinIDF floors the IDF of terms present in more than half the
	// rows, whose Robertson IDF is zero or negative: such a term still
	// counts as a (weak) match.
	BM25MinIDF = 1e-3
)

// BM25Stats are the corpus statistics of one text column: the number of
// documents (non-NULL rows), their total length in tokens, and for each
// term of interest the number of documents containing it.
type BM25Stats struct {
	Docs        int64
	TotalTokens int64
	DocFreq     map[string]int64
}

// AvgLen is the average document length in tokens.
func (s *BM25Stats) AvgLen() float64 {
	if s.Docs == 0 {
		return 0
	}
	return float64(s.TotalTokens) / float64(s.Docs)
}

// IDF is the floored Robertson IDF of a term.
func (s *BM25Stats) IDF(term string) float64 {
	n := float64(s.DocFreq[term])
	idf := math.Log((float64(s.Docs) - n + 0.5) / (n + 0.5))
	if idf < BM25MinIDF {
		return BM25MinIDF
	}
	return idf
}

// BM25Query is a query prepared against corpus statistics: its terms (with
// repeats, as each occurrence counts) and their IDFs.
type BM25Query struct {
	Terms  []string
	IDF    []float64
	AvgLen float64
	index  map[string]int
}

// PrepareBM25 prepares query text for scoring against stats.
func PrepareBM25(query string, stats *BM25Stats) *BM25Query {
	q := &BM25Query{AvgLen: stats.AvgLen(), index: map[string]int{}}
	for _, t := range textsearch.Tokenize(query) {
		q.Terms = append(q.Terms, t)
		q.IDF = append(q.IDF, stats.IDF(t))
		if _, ok := q.index[t]; !ok {
			q.index[t] = len(q.index)
		}
	}
	return q
}

// prepareBM25 is the Prepare hook of BM25 and of the hybrid score's text
// arm: query prepared against the corpus statistics of the column c for
// the query's terms.
func prepareBM25(c Corpus, query string) (*BM25Query, error) {
	stats, err := corpusStats(c, textsearch.Tokenize(query))
	if err != nil {
		return nil, err
	}
	return PrepareBM25(query, stats), nil
}

// corpusStats reads the BM25 statistics of c for terms: from its text
// index, or by reading every text when it has none.
func corpusStats(c Corpus, terms []string) (*BM25Stats, error) {
	docs, tokens, df, ok, err := c.IndexStats(terms)
	if err != nil {
		return nil, err
	}
	stats := &BM25Stats{DocFreq: map[string]int64{}}
	if ok {
		stats.Docs, stats.TotalTokens = docs, tokens
		for i, t := range terms {
			stats.DocFreq[t] = df[i]
		}
		return stats, nil
	}
	want := map[string]bool{}
	for _, t := range terms {
		want[t] = true
	}
	seen := map[string]bool{}
	err = c.Texts(func(text string) {
		stats.Docs++
		clear(seen)
		textsearch.ForEachToken(text, func(tok string) {
			stats.TotalTokens++
			if want[tok] && !seen[tok] {
				seen[tok] = true
				stats.DocFreq[tok]++
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return stats, nil
}

// Score is the BM25 score of one document; 0 when it contains no query
// term. tf is scratch space reused between calls (len >= unique terms).
func (q *BM25Query) Score(doc string, tf []int) (float64, []int) {
	if cap(tf) < len(q.index) {
		tf = make([]int, len(q.index))
	}
	tf = tf[:len(q.index)]
	for i := range tf {
		tf[i] = 0
	}
	length := 0
	textsearch.ForEachToken(doc, func(tok string) {
		length++
		if i, ok := q.index[tok]; ok {
			tf[i]++
		}
	})
	return q.ScoreCounts(tf, length), tf
}

// ScoreCounts is the BM25 score of a document of length docLen tokens
// whose term frequencies for the query's unique terms are tf.
func (q *BM25Query) ScoreCounts(tf []int, docLen int) float64 {
	score := 0.0
	norm := BM25K1 * (1 - BM25B + BM25B*float64(docLen)/q.AvgLen)
	for i, t := range q.Terms {
		f := float64(tf[q.index[t]])
		if f == 0 {
			continue
		}
		score += q.IDF[i] * f * (BM25K1 + 1) / (f + norm)
	}
	return score
}

// UniqueTerms lists the query's distinct terms in the order of tf slots.
func (q *BM25Query) UniqueTerms() []string {
	out := make([]string, len(q.index))
	for t, i := range q.index {
		out[i] = t
	}
	return out
}
