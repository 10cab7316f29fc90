package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// querySeed seeds the query parameters; execution i of every query kind
// draws its parameters from querySeed+i, so the cosine, cosine_similarity,
// hybrid and filtered queries of index i share one query vector.
const querySeed = 7_000_000

// topK is the LIMIT of the ranked queries.
const topK = 10

// scoreTolerance is how far a returned similarity may be from the client's
// own float64 computation over the same float32 inputs.
const scoreTolerance = 1e-4

// querySpec is one query of the mix: its SQL (a prepared statement with
// parameters), the arguments it takes and the sanity check of its result.
type querySpec struct {
	name string
	// sql has %[1]s where the table name goes.
	sql string
	// args returns the statement's arguments for the given parameters.
	args func(p *queryParams) []any
	// scan reads one result row.
	scan func(r pgx.Rows) (resultRow, error)
	// check returns why res is not a plausible answer for p, or nil.
	check func(c *checker, p *queryParams, res []resultRow) error
}

// queryParams are the parameters of one execution, deterministic in its index.
type queryParams struct {
	index int
	vec   []float32 // query embedding, near a random cluster centre
	text  string    // two or three vocabulary words
	terms []string  // tokenize(text)
	repo  string    // filter value for metadata->>'repo'
	id    int64     // id for the point lookup
}

// resultRow is one row of a query's result.
type resultRow struct {
	id    int64
	task  string
	score pgtype.Float8 // ranked queries
	meta  []byte        // point lookup
}

// paramGen draws the parameters of execution i.
type paramGen struct {
	dim     int
	centers [][]float32
	ids     []int64
}

// newParamGen returns the parameter generator for dim-dimensional query
// vectors near the dataset's cluster centres, looking up ids among ids.
func newParamGen(dim int, ids []int64) *paramGen {
	return &paramGen{dim: dim, centers: newDataset(dim).centers, ids: ids}
}

// params returns the parameters of execution i.
func (g *paramGen) params(i int) *queryParams {
	rng := rand.New(rand.NewSource(querySeed + int64(i)))
	p := &queryParams{index: i}
	p.vec = unitVector(rng, g.dim, g.centers[rng.Intn(len(g.centers))], 0.05)
	words := rng.Perm(len(vocabulary))[:2+rng.Intn(2)]
	var ws []string
	for _, w := range words {
		ws = append(ws, vocabulary[w])
	}
	p.text = strings.Join(ws, " ")
	p.terms = tokenize(p.text)
	p.repo = repos[rng.Intn(len(repos))]
	p.id = g.ids[rng.Intn(len(g.ids))]
	return p
}

// scanScored reads (id, task, score).
func scanScored(r pgx.Rows) (resultRow, error) {
	var row resultRow
	err := r.Scan(&row.id, &row.task, &row.score)
	return row, err
}

// queries is the mix, in the order it runs.
var queries = []*querySpec{
	{
		name:  "cosine",
		sql:   `SELECT id, task, embedding <#> $1::float4[] AS score FROM %[1]s ORDER BY score DESC LIMIT 10`,
		args:  func(p *queryParams) []any { return []any{p.vec} },
		scan:  scanScored,
		check: func(c *checker, p *queryParams, res []resultRow) error { return c.checkCosine(p, "", res) },
	},
	{
		name:  "cosine_similarity",
		sql:   `SELECT id, task, cosine_similarity(embedding, $1::float4[]) AS score FROM %[1]s ORDER BY cosine_similarity(embedding, $1::float4[]) DESC LIMIT 10`,
		args:  func(p *queryParams) []any { return []any{p.vec} },
		scan:  scanScored,
		check: func(c *checker, p *queryParams, res []resultRow) error { return c.checkCosine(p, "", res) },
	},
	{
		name:  "hybrid",
		sql:   `SELECT id, task, (embedding, task)::deeplake_hybrid_record <#> deeplake_hybrid_record($1::float4[], $2, 0.5, 0.5) AS score FROM %[1]s ORDER BY score DESC LIMIT 10`,
		args:  func(p *queryParams) []any { return []any{p.vec, p.text} },
		scan:  scanScored,
		check: (*checker).checkHybrid,
	},
	{
		name:  "filtered_cosine",
		sql:   `SELECT id, task, embedding <#> $1::float4[] AS score FROM %[1]s WHERE metadata->>'repo' = $2 ORDER BY score DESC LIMIT 10`,
		args:  func(p *queryParams) []any { return []any{p.vec, p.repo} },
		scan:  scanScored,
		check: func(c *checker, p *queryParams, res []resultRow) error { return c.checkCosine(p, p.repo, res) },
	},
	{
		name:  "bm25",
		sql:   `SELECT id, task, task <#> $1 AS score FROM %[1]s ORDER BY score DESC LIMIT 10`,
		args:  func(p *queryParams) []any { return []any{p.text} },
		scan:  scanScored,
		check: (*checker).checkBM25,
	},
	{
		name: "point",
		sql:  `SELECT id, task, metadata FROM %[1]s WHERE id = $1`,
		args: func(p *queryParams) []any { return []any{p.id} },
		scan: func(r pgx.Rows) (resultRow, error) {
			var row resultRow
			err := r.Scan(&row.id, &row.task, &row.meta)
			return row, err
		},
		check: (*checker).checkPoint,
	},
}

// selectQueries returns the queries named in the comma-separated list
// ("all" for every one, "none" for none).
func selectQueries(list string) ([]*querySpec, error) {
	switch list {
	case "all", "":
		return queries, nil
	case "none":
		return nil, nil
	}
	var out []*querySpec
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, q := range queries {
			if q.name == name {
				out, found = append(out, q), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown query %q (have %s)", name, queryNames())
		}
	}
	return out, nil
}

// checker checks results against the client's reference copy of the table,
// caching the exact top-k computations (safe for concurrent use).
type checker struct {
	ref   *reference
	mu    sync.Mutex
	exact map[string]*exactTop
}

// exactTop is the client's own top-k by cosine for one query vector and filter.
type exactTop struct {
	once   sync.Once
	scores []float64
	ids    []int64
}

// newChecker returns a checker over ref.
func newChecker(ref *reference) *checker {
	return &checker{ref: ref, exact: map[string]*exactTop{}}
}

// top returns the exact top-k by cosine for p's vector over repo's rows
// (all rows when repo is ""), or nil when the reference holds no embeddings.
func (c *checker) top(p *queryParams, repo string) *exactTop {
	if c.ref.emb == nil {
		return nil
	}
	key := fmt.Sprintf("%d/%s", p.index, repo)
	c.mu.Lock()
	t := c.exact[key]
	if t == nil {
		t = &exactTop{}
		c.exact[key] = t
	}
	c.mu.Unlock()
	t.once.Do(func() { t.scores, t.ids = c.ref.topCosine(p.vec, repo, topK) })
	return t
}

// checkRows checks what every query's result must satisfy: want rows, ids
// that exist, each once, with the task the table holds for them.
func (c *checker) checkRows(res []resultRow, want int) error {
	if len(res) != want {
		return fmt.Errorf("%d rows, want %d", len(res), want)
	}
	seen := map[int64]bool{}
	for _, r := range res {
		i, ok := c.ref.byID[r.id]
		if !ok {
			return fmt.Errorf("id %d is not in the table", r.id)
		}
		if seen[r.id] {
			return fmt.Errorf("id %d returned twice", r.id)
		}
		seen[r.id] = true
		if r.task != c.ref.tasks[i] {
			return fmt.Errorf("id %d: task %q, the table has %q", r.id, r.task, c.ref.tasks[i])
		}
	}
	return nil
}

// checkOrder checks that every score is non-NULL, finite and no higher than
// the one before.
func checkOrder(res []resultRow) error {
	for j, r := range res {
		if !r.score.Valid {
			return fmt.Errorf("row %d (id %d): NULL score", j, r.id)
		}
		if math.IsNaN(r.score.Float64) || math.IsInf(r.score.Float64, 0) {
			return fmt.Errorf("row %d (id %d): score %v", j, r.id, r.score.Float64)
		}
		if j > 0 && r.score.Float64 > res[j-1].score.Float64 {
			return fmt.Errorf("scores increase at row %d: %v after %v", j, r.score.Float64, res[j-1].score.Float64)
		}
	}
	return nil
}

// checkCosine checks a cosine top-k, over the rows of repo when repo is not
// "": min(k, qualifying rows) rows, all of repo, scores non-increasing and
// in [-1, 1]; with embeddings in the reference, each score is the row's
// cosine and the scores are the exact top-k's.
func (c *checker) checkCosine(p *queryParams, repo string, res []resultRow) error {
	qualifying := c.ref.rows()
	if repo != "" {
		qualifying = c.ref.repoRows[repo]
	}
	if err := c.checkRows(res, min(topK, qualifying)); err != nil {
		return err
	}
	if err := checkOrder(res); err != nil {
		return err
	}
	for _, r := range res {
		i := c.ref.byID[r.id]
		if repo != "" && c.ref.repos[i] != repo {
			return fmt.Errorf("id %d has repo %q, the filter asks for %q", r.id, c.ref.repos[i], repo)
		}
		if s := r.score.Float64; s < -1-scoreTolerance || s > 1+scoreTolerance {
			return fmt.Errorf("id %d: cosine %v outside [-1, 1]", r.id, s)
		}
	}
	t := c.top(p, repo)
	if t == nil {
		return nil
	}
	for j, r := range res {
		if want := c.ref.cosine(c.ref.byID[r.id], p.vec); math.Abs(r.score.Float64-want) > scoreTolerance {
			return fmt.Errorf("id %d: score %v, its cosine is %v", r.id, r.score.Float64, want)
		}
		if math.Abs(r.score.Float64-t.scores[j]) > scoreTolerance {
			return fmt.Errorf("rank %d: score %v (id %d), the exact top-%d has %v (id %d) there", j+1, r.score.Float64, r.id, topK, t.scores[j], t.ids[j])
		}
	}
	return nil
}

// checkBM25 checks a BM25 top-k: min(k, rows containing a query term) rows,
// each of which contains a query term, scores positive and non-increasing.
func (c *checker) checkBM25(p *queryParams, res []resultRow) error {
	if err := c.checkRows(res, c.ref.textMatches(p.terms, topK)); err != nil {
		return err
	}
	if err := checkOrder(res); err != nil {
		return err
	}
	for _, r := range res {
		if !containsAny(r.task, p.terms) {
			return fmt.Errorf("id %d: task %q contains none of %q", r.id, r.task, p.text)
		}
		if r.score.Float64 <= 0 {
			return fmt.Errorf("id %d: BM25 score %v for a matching row", r.id, r.score.Float64)
		}
	}
	return nil
}

// checkHybrid checks a hybrid top-k: k rows (the vector arm alone has k
// candidates), scores in (0, 1] and non-increasing, each row a candidate of
// an arm: among the exact cosine top-k (when the reference has embeddings)
// or containing a query term.
func (c *checker) checkHybrid(p *queryParams, res []resultRow) error {
	if err := c.checkRows(res, min(topK, c.ref.rows())); err != nil {
		return err
	}
	if err := checkOrder(res); err != nil {
		return err
	}
	t := c.top(p, "")
	for _, r := range res {
		if s := r.score.Float64; s <= 0 || s > 1+scoreTolerance {
			return fmt.Errorf("id %d: fused score %v outside (0, 1]", r.id, s)
		}
		if containsAny(r.task, p.terms) || t == nil {
			continue
		}
		// Tolerate ties at the k-th place: a row whose cosine equals the
		// k-th best is as good a vector-arm candidate.
		if cos := c.ref.cosine(c.ref.byID[r.id], p.vec); cos < t.scores[len(t.scores)-1]-scoreTolerance {
			return fmt.Errorf("id %d (cosine %v, task %q) is in neither arm: not in the cosine top-%d (k-th %v), no term of %q",
				r.id, cos, r.task, topK, t.scores[len(t.scores)-1], p.text)
		}
	}
	return nil
}

// checkPoint checks a point lookup: exactly the row with the id, with the
// task and repo the table holds.
func (c *checker) checkPoint(p *queryParams, res []resultRow) error {
	if err := c.checkRows(res, 1); err != nil {
		return err
	}
	if res[0].id != p.id {
		return fmt.Errorf("id %d, want %d", res[0].id, p.id)
	}
	var m struct {
		Repo string `json:"repo"`
	}
	if err := json.Unmarshal(res[0].meta, &m); err != nil {
		return fmt.Errorf("id %d: metadata %q: %v", p.id, res[0].meta, err)
	}
	if want := c.ref.repos[c.ref.byID[p.id]]; m.Repo != want {
		return fmt.Errorf("id %d: metadata repo %q, the table has %q", p.id, m.Repo, want)
	}
	return nil
}

// containsAny reports whether text has one of terms as a token.
func containsAny(text string, terms []string) bool {
	for _, tok := range tokenize(text) {
		for _, t := range terms {
			if tok == t {
				return true
			}
		}
	}
	return false
}
