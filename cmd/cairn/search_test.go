package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The corpus of pg_deeplake's own hybrid search test
// (postgres/tests/sql/hybrid_search.sql in activeloopai/deeplake): 26
// documents with a 5-d and a 3x8 embedding and a keywords text. Row i's
// 1-d embedding is 0.1*i .. 0.1*(i+4); its 2-d one has rows starting at
// 0.1*i, +0.2 and +0.4 (row 19 steps by 0.1 instead).
var searchKeywords = []string{
	"machine learning algorithms introduction", "data science guide methodologies",
	"artificial intelligence neural networks deep learning", "python programming tutorial advanced",
	"database design optimization principles", "nlp natural language processing ai",
	"cloud computing infrastructure distributed systems", "computer vision image recognition object detection",
	"big data architecture scalability", "reinforcement learning agents decision making",
	"devops automation ci/cd pipelines", "cybersecurity threats vulnerabilities protection",
	"edge computing low latency data processing", "graph databases relationships queries",
	"quantum computing algorithms qubits", "explainable ai model interpretability",
	"time series analysis forecasting temporal", "generative models gans vae synthetic data",
	"feature engineering model performance", "model deployment production environments",
	"ai ethics ethical considerations", "data privacy principles techniques",
	"robotics automation ai integration", "ai-driven decision making complex processes",
	"ai in healthcare medical research", "ai in finance banking financial services",
}

// ramp writes n values a, a+0.1, ... as an SQL array body.
func ramp(a float64, n int) string {
	parts := make([]string, n)
	for j := range parts {
		parts[j] = fmt.Sprintf("%.1f", a+0.1*float64(j))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func loadSearchCorpus(t *testing.T, conn *pgx.Conn) {
	mustExec(t, conn, `CREATE TABLE documents (id SERIAL PRIMARY KEY, embedding_1d float4[], embedding_2d float4[][], keywords text) USING deeplake`)
	var rows []string
	for i, kw := range searchKeywords {
		n := float64(i + 1)
		step := 0.2
		if i+1 == 19 {
			step = 0.1
		}
		emb2 := "ARRAY[" + ramp(n/10, 8) + ", " + ramp(n/10+step, 8) + ", " + ramp(n/10+2*step, 8) + "]"
		rows = append(rows, fmt.Sprintf("(ARRAY%s, %s, '%s')", ramp(n/10, 5), emb2, kw))
	}
	mustExec(t, conn, `INSERT INTO documents (embedding_1d, embedding_2d, keywords) VALUES `+strings.Join(rows, ",\n"))
}

type scoredRow struct {
	id    int
	score float32
}

// checkRanking runs query and checks ids and scores (to 1e-6) in order.
func checkRanking(t *testing.T, conn *pgx.Conn, query string, want []scoredRow) {
	t.Helper()
	rows, err := conn.Query(context.Background(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (scoredRow, error) {
		var s scoredRow
		err := r.Scan(&s.id, &s.score)
		return s, err
	})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s:\n got %v\nwant %v", query, got, want)
	}
	for i := range want {
		if got[i].id != want[i].id || math.Abs(float64(got[i].score-want[i].score)) > 1e-6 {
			t.Fatalf("%s: row %d = %+v, want %+v\n got %v", query, i, got[i], want[i], got)
		}
	}
}

func ranking(ids []int, scores []float32) []scoredRow {
	out := make([]scoredRow, len(ids))
	for i := range ids {
		out[i] = scoredRow{ids[i], scores[i]}
	}
	return out
}

// TestPgDeeplakeHybridSearch reproduces pg_deeplake's hybrid_search test:
// cosine, MaxSim and BM25 scores, and the softmax-fused hybrid scores with
// default, 0.999/0.001 and 0.4/0.6 weights, for 1-d and 2-d embeddings.
func TestPgDeeplakeHybridSearch(t *testing.T) {
	conn := startServer(t, "").connect(t)
	loadSearchCorpus(t, conn)
	first10 := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	fused := []int{1, 10, 3, 2, 4, 5, 6, 7, 8, 9}
	q1 := "ARRAY[0.1, 0.2, 0.3, 0.4, 0.5]"
	q2 := "ARRAY[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]]"

	checkRanking(t, conn, "SELECT id, embedding_1d <#> "+q1+" AS score FROM documents ORDER BY score LIMIT 10",
		ranking(first10, []float32{1, 0.99493665, 0.98644006, 0.9782321, 0.9710608, 0.96495056, 0.95975995, 0.9553303, 0.95152277, 0.9482238}))
	checkRanking(t, conn, "SELECT id, embedding_2d <#> "+q2+" AS score FROM documents ORDER BY score LIMIT 10",
		ranking(first10, []float32{0.99999994, 0.997096, 0.9912933, 0.9848203, 0.97851676, 0.97267884, 0.96738243, 0.9626168, 0.9583381, 0.954494}))
	checkRanking(t, conn, "SELECT id, keywords <#> 'machine learning' AS score FROM documents ORDER BY score LIMIT 10",
		ranking([]int{1, 10, 3}, []float32{5.057182, 1.8425648, 1.6849195}))

	checkRanking(t, conn, "SELECT id, (embedding_1d, keywords) <#> deeplake_hybrid_record("+q1+", 'machine learning') AS score FROM documents ORDER BY score LIMIT 10",
		ranking(fused, []float32{0.51680136, 0.0675575, 0.06673473, 0.051201202, 0.050353017, 0.04999321, 0.04968867, 0.049431425, 0.049212944, 0.049025923}))
	checkRanking(t, conn, "SELECT id, (embedding_1d, keywords) <#> deeplake_hybrid_record("+q1+", 'machine learning', 0.999, 0.001) AS score FROM documents ORDER BY score LIMIT 10",
		ranking(first10, []float32{0.103749976, 0.1023, 0.10146642, 0.100605324, 0.09988643, 0.099277966, 0.09876399, 0.098327465, 0.0979538, 0.09766856}))
	checkRanking(t, conn, "SELECT id, (embedding_1d, keywords) <#> ("+q1+", 'machine learning', 0.4, 0.6)::deeplake_hybrid_record_weighted AS score FROM documents ORDER BY score LIMIT 10",
		ranking(fused, []float32{0.5995771, 0.06152322, 0.05977447, 0.04096096, 0.040282413, 0.039994568, 0.039750937, 0.03954514, 0.039370354, 0.03922074}))
	// The seed articles' form: an explicit cast on the left, DESC.
	checkRanking(t, conn, "SELECT id, (embedding_1d, keywords)::deeplake_hybrid_record <#> deeplake_hybrid_record("+q1+", 'machine learning', 0.5, 0.5) AS score FROM documents ORDER BY score DESC LIMIT 10",
		ranking(fused, []float32{0.51680136, 0.0675575, 0.06673473, 0.051201202, 0.050353017, 0.04999321, 0.04968867, 0.049431425, 0.049212944, 0.049025923}))

	checkRanking(t, conn, "SELECT id, (embedding_2d, keywords) <#> deeplake_hybrid_record("+q2+", 'machine learning') AS score FROM documents ORDER BY score LIMIT 10",
		ranking(fused, []float32{0.5165116, 0.067588024, 0.06669451, 0.051023006, 0.05040049, 0.05008379, 0.049792252, 0.049529232, 0.049293756, 0.049083292}))
	checkRanking(t, conn, "SELECT id, (embedding_2d, keywords) <#> deeplake_hybrid_record("+q2+", 'machine learning', 0.4, 0.6) AS score FROM documents ORDER BY score LIMIT 10",
		ranking(fused, []float32{0.5993454, 0.06154764, 0.059742294, 0.040818404, 0.040320393, 0.040067032, 0.039833803, 0.039623387, 0.039435007, 0.039266635}))
	checkRanking(t, conn, "SELECT id, (embedding_2d, keywords) <#> ("+q2+", 'machine learning', 0.4, 0.6)::deeplake_hybrid_record_weighted AS score FROM documents ORDER BY score LIMIT 10",
		ranking(fused, []float32{0.5993454, 0.06154764, 0.059742294, 0.040818404, 0.040320393, 0.040067032, 0.039833803, 0.039623387, 0.039435007, 0.039266635}))
}

// TestSearchNonFiniteEmbeddings: a real[] embedding with a NaN or infinite
// element has no similarity (NULL), as a vector index leaves it out. Such
// rows (here with no text, so BM25's corpus is unchanged) neither poison
// the hybrid softmax, which turned every fused score into NaN, nor rank
// first in an exact scan (NaN sorts above every number) while an index
// search skipped them.
func TestSearchNonFiniteEmbeddings(t *testing.T) {
	conn := startServer(t, "").connect(t)
	loadSearchCorpus(t, conn)
	mustExec(t, conn, `INSERT INTO documents (embedding_1d, embedding_2d) VALUES
		('{NaN,0.1,0.2,0.3,0.4}', '{{NaN,1,1,1,1,1,1,1}}'), ('{Infinity,0,0,0,0}', NULL), ('{0.1,-Infinity,0,0,0}', NULL)`)
	first10 := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	fused := []int{1, 10, 3, 2, 4, 5, 6, 7, 8, 9}
	q1 := "ARRAY[0.1, 0.2, 0.3, 0.4, 0.5]"
	q2 := "ARRAY[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]]"
	exact := ranking(first10, []float32{1, 0.99493665, 0.98644006, 0.9782321, 0.9710608, 0.96495056, 0.95975995, 0.9553303, 0.95152277, 0.9482238})
	hybrid := ranking(fused, []float32{0.51680136, 0.0675575, 0.06673473, 0.051201202, 0.050353017, 0.04999321, 0.04968867, 0.049431425, 0.049212944, 0.049025923})
	for _, dir := range []string{"", " DESC"} {
		checkRanking(t, conn, "SELECT id, embedding_1d <#> "+q1+" AS score FROM documents ORDER BY score"+dir+" LIMIT 10", exact)
		checkRanking(t, conn, "SELECT id, (embedding_1d, keywords) <#> deeplake_hybrid_record("+q1+", 'machine learning') AS score FROM documents ORDER BY score"+dir+" LIMIT 10", hybrid)
	}
	checkRanking(t, conn, "SELECT id, embedding_2d <#> "+q2+" AS score FROM documents ORDER BY score LIMIT 10",
		ranking(first10, []float32{0.99999994, 0.997096, 0.9912933, 0.9848203, 0.97851676, 0.97267884, 0.96738243, 0.9626168, 0.9583381, 0.954494}))
	// Without LIMIT every row comes back, the non-finite ones last with
	// no score, as NULL and empty vectors do.
	var n, nulls int
	if err := conn.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE s IS NULL) FROM
		(SELECT embedding_1d <#> `+q1+` AS s FROM documents) x`).Scan(&n, &nulls); err != nil {
		t.Fatal(err)
	}
	if n != 29 || nulls != 3 {
		t.Fatalf("rows %d, without a score %d; want 29 and 3", n, nulls)
	}
	for _, q := range []string{"cosine_similarity(embedding_1d, " + q1 + ")", "inner_product(embedding_1d, " + q1 + ")",
		"l2_distance(embedding_1d, " + q1 + ")", "l1_distance(embedding_1d, " + q1 + ")", "cosine_distance(embedding_1d, " + q1 + ")"} {
		var nonFinite int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM documents WHERE id > 26 AND `+q+` IS NOT NULL`).Scan(&nonFinite); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if nonFinite != 0 {
			t.Fatalf("%s: %d non-finite rows have a value", q, nonFinite)
		}
	}
	// The vector index answers as the scan does, and so does the hybrid
	// search through it.
	mustExec(t, conn, `CREATE INDEX ON documents USING hnsw (embedding_1d)`)
	checkRanking(t, conn, "SELECT id, embedding_1d <#> "+q1+" AS score FROM documents ORDER BY score DESC LIMIT 10", exact)
	checkRanking(t, conn, "SELECT id, (embedding_1d, keywords) <#> deeplake_hybrid_record("+q1+", 'machine learning') AS score FROM documents ORDER BY score LIMIT 10", hybrid)
}
