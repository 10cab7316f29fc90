package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/jackc/pgx/v5"
)

// reference is the client's own copy of the table, read with one plain
// scan, against which the query results are checked: which repo and task
// each id has, which rows contain which tokens, and (when kept) the
// embeddings for exact top-k checks.
type reference struct {
	ids      []int64
	byID     map[int64]int // id -> position in ids
	tasks    []string
	repos    []string
	tokens   []map[string]bool
	repoRows map[string]int // rows per repo
	dim      int
	emb      []float32 // len(ids)*dim when embeddings are kept, else nil
}

// readReference scans table (id, task, metadata, embedding) into a
// reference; keepEmb keeps the embeddings for exact verification.
func readReference(ctx context.Context, conn *pgx.Conn, table string, dim int, keepEmb bool) (*reference, error) {
	ref := &reference{byID: map[int64]int{}, repoRows: map[string]int{}, dim: dim}
	r, err := conn.Query(ctx, "SELECT id, task, metadata, embedding FROM "+table)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for r.Next() {
		var (
			id   int64
			task string
			meta []byte
			emb  []float32
		)
		if err := r.Scan(&id, &task, &meta, &emb); err != nil {
			return nil, err
		}
		var m struct {
			Repo string `json:"repo"`
		}
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, fmt.Errorf("row %d: metadata %q: %w", id, meta, err)
		}
		if _, dup := ref.byID[id]; dup {
			return nil, fmt.Errorf("scan returned id %d twice", id)
		}
		if len(emb) != dim {
			return nil, fmt.Errorf("row %d: embedding has %d dimensions, want %d (see --dim)", id, len(emb), dim)
		}
		ref.byID[id] = len(ref.ids)
		ref.ids = append(ref.ids, id)
		ref.tasks = append(ref.tasks, task)
		ref.repos = append(ref.repos, m.Repo)
		ref.repoRows[m.Repo]++
		toks := map[string]bool{}
		for _, t := range tokenize(task) {
			toks[t] = true
		}
		ref.tokens = append(ref.tokens, toks)
		if keepEmb {
			ref.emb = append(ref.emb, emb...)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(ref.ids) == 0 {
		return nil, fmt.Errorf("table %s is empty", table)
	}
	return ref, nil
}

// rows returns the number of rows in the reference.
func (ref *reference) rows() int { return len(ref.ids) }

// matchesAny reports whether row i's task contains one of terms.
func (ref *reference) matchesAny(i int, terms []string) bool {
	for _, t := range terms {
		if ref.tokens[i][t] {
			return true
		}
	}
	return false
}

// textMatches returns how many rows contain one of terms, counting no
// further than limit.
func (ref *reference) textMatches(terms []string, limit int) int {
	n := 0
	for i := range ref.ids {
		if ref.matchesAny(i, terms) {
			if n++; n >= limit {
				break
			}
		}
	}
	return n
}

// cosine returns the cosine similarity of row i's embedding and q.
func (ref *reference) cosine(i int, q []float32) float64 {
	e := ref.emb[i*ref.dim : (i+1)*ref.dim]
	var dot, ne, nq float64
	for j, x := range e {
		dot += float64(x) * float64(q[j])
		ne += float64(x) * float64(x)
		nq += float64(q[j]) * float64(q[j])
	}
	return dot / math.Sqrt(ne*nq)
}

// topCosine returns the k best cosine similarities to q, best first, over
// the rows of repo (all rows when repo is ""), and the ids holding them.
func (ref *reference) topCosine(q []float32, repo string, k int) (scores []float64, ids []int64) {
	return ref.topCosineWhere(q, k, func(i int) bool { return repo == "" || ref.repos[i] == repo })
}

// topCosineWhere returns the k best cosine similarities to q, best first,
// over the rows i for which keep(i) holds, and the ids holding them.
func (ref *reference) topCosineWhere(q []float32, k int, keep func(i int) bool) (scores []float64, ids []int64) {
	for i, id := range ref.ids {
		if !keep(i) {
			continue
		}
		s := ref.cosine(i, q)
		if len(scores) == k && s <= scores[k-1] {
			continue
		}
		// Insert s after every score at least as high (ties keep scan order).
		j := sort.Search(len(scores), func(j int) bool { return scores[j] < s })
		if len(scores) < k {
			scores, ids = append(scores, 0), append(ids, 0)
		}
		copy(scores[j+1:], scores[j:])
		copy(ids[j+1:], ids[j:])
		scores[j], ids[j] = s, id
	}
	return scores, ids
}
