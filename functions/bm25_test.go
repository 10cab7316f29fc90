package functions

import (
	"math"
	"testing"
)

// hybridSearchKeywords is the keywords column of pg_deeplake's own
// hybrid_search test (postgres/tests/sql/hybrid_search.sql), rows 1..26.
var hybridSearchKeywords = []string{
	"machine learning algorithms introduction",
	"data science guide methodologies",
	"artificial intelligence neural networks deep learning",
	"python programming tutorial advanced",
	"database design optimization principles",
	"nlp natural language processing ai",
	"cloud computing infrastructure distributed systems",
	"computer vision image recognition object detection",
	"big data architecture scalability",
	"reinforcement learning agents decision making",
	"devops automation ci/cd pipelines",
	"cybersecurity threats vulnerabilities protection",
	"edge computing low latency data processing",
	"graph databases relationships queries",
	"quantum computing algorithms qubits",
	"explainable ai model interpretability",
	"time series analysis forecasting temporal",
	"generative models gans vae synthetic data",
	"feature engineering model performance",
	"model deployment production environments",
	"ai ethics ethical considerations",
	"data privacy principles techniques",
	"robotics automation ai integration",
	"ai-driven decision making complex processes",
	"ai in healthcare medical research",
	"ai in finance banking financial services",
}

// texts is a Corpus of a column without a text index.
type texts []string

func (texts) IndexStats([]string) (int64, int64, []int64, bool, error) { return 0, 0, nil, false, nil }

func (c texts) Texts(fn func(string)) error {
	for _, t := range c {
		fn(t)
	}
	return nil
}

// statsOf computes corpus statistics as BM25's Prepare hook does for a
// column without a text index.
func statsOf(docs []string, terms []string) *BM25Stats {
	s, err := corpusStats(texts(docs), terms)
	if err != nil {
		panic(err)
	}
	return s
}

// TestBM25PgDeeplake reproduces pg_deeplake's expected BM25 scores for
// 'machine learning' over its 26-row test corpus.
func TestBM25PgDeeplake(t *testing.T) {
	stats := statsOf(hybridSearchKeywords, []string{"machine", "learning"})
	q := PrepareBM25("machine learning", stats)
	want := map[int]float64{1: 5.057182, 10: 1.8425648, 3: 1.6849195}
	var tf []int
	for i, doc := range hybridSearchKeywords {
		var got float64
		got, tf = q.Score(doc, tf)
		w, match := want[i+1]
		if !match {
			if got != 0 {
				t.Errorf("row %d scores %v, want 0", i+1, got)
			}
			continue
		}
		if math.Abs(got-w) > 1e-5 {
			t.Errorf("row %d scores %.7f, want %.7f", i+1, got, w)
		}
	}
}

func BenchmarkBM25Score(b *testing.B) {
	stats := statsOf(hybridSearchKeywords, []string{"machine", "learning"})
	q := PrepareBM25("machine learning", stats)
	var tf []int
	for i := 0; i < b.N; i++ {
		_, tf = q.Score(hybridSearchKeywords[i%len(hybridSearchKeywords)], tf)
	}
}
