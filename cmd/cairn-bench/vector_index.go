package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The --vector-index mode compares cairn's HNSW index with PostgreSQL +
// pgvector's on the same data in one run (or measures cairn alone when no
// --pg-addr is given): it loads the same vectors into both servers, times exact top-10 search before the index and CREATE
// INDEX on each, and measures top-10 and filtered top-10 latency and
// recall@10 (against the client's exact answers) at each hnsw.ef_search.
// On cairn it also times what only cairn has, over a text column of the
// same rows: hybrid top-10 (vector arm from the index, text arm from the
// BM25 index) and BM25 top-10.

// viTable is the table the mode (re)creates on both servers.
const viTable = "vi_items"

// viIndexSQL builds the index under test, with the same statement on both
// servers (m and ef_construction are pgvector's defaults, spelled out).
const viIndexSQL = "CREATE INDEX vi_items_emb ON " + viTable +
	" USING hnsw (emb vector_cosine_ops) WITH (m = 16, ef_construction = 64)"

// viOptions are the flags of the --vector-index mode.
type viOptions struct {
	enabled   bool
	pgAddr    string
	rows      int
	dim       int
	queries   int
	clusters  int
	latentDim int
	efs       []int
	iterative []string
	filterPct float64
	exactN    int
	cairnPID  int
	pgPID     int
	// existing queries a table an earlier run left instead of loading and
	// indexing one: the first query is timed on its own (a server that
	// has not read the table yet), then the usual configurations.
	existing bool
	// dataDir holds the rows of a streamed dataset (more than
	// viStreamRows rows) while they are loaded.
	dataDir string
}

// register adds the mode's flags to fs.
func (v *viOptions) register(fs *flag.FlagSet) {
	v.efs = []int{40, 100}
	v.iterative = []string{"off", "relaxed_order"}
	fs.BoolVar(&v.enabled, "vector-index", false, "compare cairn's HNSW index with PostgreSQL + pgvector's (at --addr and --pg-addr; cairn alone without --pg-addr) instead of running the query mix")
	fs.StringVar(&v.pgAddr, "pg-addr", "", "with --vector-index: PostgreSQL host:port (user and database cairn, pgvector installed); empty: cairn alone")
	fs.IntVar(&v.rows, "vi-rows", 100000, "with --vector-index: rows to load into both servers")
	fs.IntVar(&v.dim, "vi-dim", 384, "with --vector-index: vector dimensions")
	fs.IntVar(&v.queries, "vi-queries", 200, "with --vector-index: timed queries per configuration")
	fs.IntVar(&v.clusters, "vi-clusters", 500, "with --vector-index: Gaussian cluster centres the vectors gather around")
	fs.IntVar(&v.latentDim, "vi-latent-dim", 0, "with --vector-index: draw the vectors on a latent space of this many dimensions, projected to --vi-dim plus small noise, as real embeddings lie (0: clusters in the full space, the hard dataset)")
	fs.Func("ef", "with --vector-index: comma-separated hnsw.ef_search values (default 40,100)", func(s string) (err error) {
		v.efs, err = parseInts(s)
		return err
	})
	fs.Func("iterative-scan", "with --vector-index: comma-separated hnsw.iterative_scan modes for the filtered queries (default off,relaxed_order)", func(s string) error {
		v.iterative = nil
		for _, m := range strings.Split(s, ",") {
			switch m = strings.TrimSpace(m); m {
			case "off", "relaxed_order", "strict_order":
				v.iterative = append(v.iterative, m)
			default:
				return fmt.Errorf("%q is not off, relaxed_order or strict_order", m)
			}
		}
		return nil
	})
	fs.IntVar(&v.exactN, "vi-exact-queries", 20, "with --vector-index: timed exact top-10 queries per server before the index exists (0: none)")
	fs.StringVar(&v.dataDir, "vi-data-dir", os.TempDir(), fmt.Sprintf("with --vector-index and more than %d --vi-rows (the dataset is then streamed, and cairn measured alone): where its rows are written while they are loaded", viStreamRows))
	fs.Float64Var(&v.filterPct, "filter-pct", 1, "with --vector-index: percentage of rows the filtered queries' tag selects")
	fs.IntVar(&v.cairnPID, "cairn-pid", 0, "with --vector-index: cairn's process id, to report its memory (0: skip)")
	fs.BoolVar(&v.existing, "vi-existing", false, "with --vector-index: query the table an earlier run with the same --vi-* flags left (cairn alone), timing the first query on its own (cold: the server has not read the table yet), instead of loading and indexing it")
	fs.IntVar(&v.pgPID, "pg-pid", 0, "with --vector-index: the postmaster's process id, to report the memory of its processes (0: skip)")
}

// check reports what is wrong with the flags, or nil.
func (v *viOptions) check() error {
	switch {
	case v.rows < 1 || v.dim < 1 || v.queries < 1 || v.clusters < 1:
		return errors.New("--vi-rows, --vi-dim, --vi-queries and --vi-clusters must be positive")
	case v.exactN < 0:
		return errors.New("--vi-exact-queries must not be negative")
	case v.streamed() && v.pgAddr != "":
		return fmt.Errorf("more than %d --vi-rows are streamed and measured on cairn alone: drop --pg-addr", viStreamRows)
	case v.latentDim < 0 || v.latentDim > v.dim:
		return errors.New("--vi-latent-dim must be in [0, --vi-dim]")
	case v.filterPct <= 0 || v.filterPct > 100:
		return errors.New("--filter-pct must be in (0, 100]")
	case v.existing && v.pgAddr != "":
		return errors.New("--vi-existing queries cairn alone: drop --pg-addr")
	}
	return nil
}

// streamed reports whether the dataset is too large to keep in memory.
func (v *viOptions) streamed() bool { return v.rows > viStreamRows }

// tags is how many tag values the rows are spread over, so that one tag
// selects about filterPct percent of them.
func (v *viOptions) tags() int { return max(1, int(math.Round(100/v.filterPct))) }

// viData is the mode's dataset, deterministic in datasetSeed: rows
// unit-normalised vectors (see newVIData for the two ways they are drawn),
// a tag per row drawn independently of the vector (so a filter cuts
// across clusters, the hard case for a graph index), and a text of
// viTextWords words drawn from a Zipf distribution over viVocabulary
// synthetic words (as word frequencies in prose are). ref holds the
// vectors under ids 1..rows for the exact answers.
type viData struct {
	ref     *reference
	tags    []int32
	texts   []string
	ntags   int
	centers [][]float32
	// noise is the per-component standard deviation around a centre,
	// 1/sqrt of the centres' dimensions: a point's cosine to its centre
	// is about 0.7 at any dimension.
	noise float64
	// proj, on the latent dataset, maps a latent point to the full
	// space: dim rows of len(centers[0]) Gaussian weights of variance
	// 1/dim, so it keeps lengths and angles on average. nil on the
	// clustered one.
	proj [][]float32
}

// viLatentNoise is the length of the isotropic full-space noise added to
// a projected latent point of length 1 (before normalising): small, as
// the residual of a real embedding off its manifold is.
const viLatentNoise = 0.1

// newVIData generates the dataset. With latentDim 0 (the clustered, hard
// dataset) a vector is one of clusters random centres in the full space
// plus Gaussian noise: its members are only ~0.5 cosine-similar to each
// other and the data has no structure below the full dimension, which no
// graph index searches well at a million rows. With latentDim > 0 (the
// latent dataset, modelling real text embeddings, whose intrinsic
// dimension is far below their width) the same clustering is drawn in a
// latentDim-dimensional space, projected to dim by a fixed random linear
// map, and given full-space noise of length viLatentNoise.
func newVIData(rows, dim, clusters, latentDim, ntags int) *viData {
	rng := rand.New(rand.NewSource(datasetSeed))
	space := dim
	if latentDim > 0 {
		space = latentDim
	}
	d := &viData{ref: &reference{dim: dim, ids: make([]int64, rows), emb: make([]float32, 0, rows*dim)},
		tags: make([]int32, rows), texts: make([]string, rows), ntags: ntags, noise: 1 / math.Sqrt(float64(space))}
	for c := 0; c < clusters; c++ {
		d.centers = append(d.centers, unitVector(rng, space, nil, 1))
	}
	if latentDim > 0 {
		d.proj = make([][]float32, dim)
		scale := 1 / math.Sqrt(float64(dim))
		for i := range d.proj {
			d.proj[i] = make([]float32, latentDim)
			for j := range d.proj[i] {
				d.proj[i][j] = float32(rng.NormFloat64() * scale)
			}
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 1, viVocabulary-1)
	words := make([]string, viTextWords)
	for i := range rows {
		d.ref.ids[i] = int64(i + 1)
		d.tags[i] = int32(rng.Intn(ntags))
		d.ref.emb = append(d.ref.emb, d.draw(rng)...)
		for w := range words {
			words[w] = viWord(int(zipf.Uint64()))
		}
		d.texts[i] = strings.Join(words, " ")
	}
	return d
}

// draw returns a new vector of the dataset (a row's or a query's).
func (d *viData) draw(rng *rand.Rand) []float32 {
	v := unitVector(rng, len(d.centers[0]), d.centers[rng.Intn(len(d.centers))], d.noise)
	if d.proj == nil {
		return v
	}
	out := make([]float32, len(d.proj))
	noise := viLatentNoise / math.Sqrt(float64(len(out)))
	var norm float64
	for i, w := range d.proj {
		x := rng.NormFloat64() * noise
		for j, z := range v {
			x += float64(w[j] * z)
		}
		out[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range out {
		out[i] = float32(float64(out[i]) / norm)
	}
	return out
}

// The text column: viTextWords words per row from a vocabulary of
// viVocabulary; a query's two words are drawn uniformly from the ranks
// viQueryRanks (neither the commonest words, which match most rows, nor
// the rarest).
const (
	viTextWords  = 12
	viVocabulary = 20000
)

var viQueryRanks = [2]int{20, 2000}

// viWord is the synthetic word of the given frequency rank.
func viWord(rank int) string { return "w" + strconv.Itoa(rank) }

// vector returns row i's vector.
func (d *viData) vector(i int) []float32 { return d.ref.emb[i*d.ref.dim : (i+1)*d.ref.dim] }

// viQuery is one query: a vector drawn like the rows (query i from seed
// querySeed+i), the tag of its filtered variant, and the exact answers.
type viQuery struct {
	vec           []float32
	text          string // two words, for the hybrid and BM25 queries
	tag           int32
	exact         []int64 // exact cosine top-10 ids
	exactFiltered []int64 // exact cosine top-10 ids among the rows with tag
}

// queries draws n queries and computes their exact answers, in parallel.
func (d *viData) queries(n int) []viQuery {
	qs := make([]viQuery, n)
	for i := range qs {
		rng := rand.New(rand.NewSource(querySeed + int64(i)))
		qs[i].vec = d.draw(rng)
		qs[i].tag = int32(rng.Intn(d.ntags))
		span := viQueryRanks[1] - viQueryRanks[0]
		qs[i].text = viWord(viQueryRanks[0]+rng.Intn(span)) + " " + viWord(viQueryRanks[0]+rng.Intn(span))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				q := &qs[i]
				_, q.exact = d.ref.topCosineWhere(q.vec, topK, func(int) bool { return true })
				_, q.exactFiltered = d.ref.topCosineWhere(q.vec, topK, func(j int) bool { return d.tags[j] == q.tag })
			}
		}()
	}
	wg.Wait()
	return qs
}

// viSystem is one server under test and how its SQL spells the benchmark.
type viSystem struct {
	name        string
	conn        *pgx.Conn
	createTable string
	columns     []string // the columns COPY fills, of id, tag, emb, txt
	// topSQL and filteredSQL are the top-10 query, taking the query
	// vector as $1, and its filtered variant, taking the tag as $2.
	topSQL, filteredSQL string
	// value converts a vector to what the server's column and queries take.
	value func([]float32) any
	// memory describes the server's memory use, "" when unknown.
	memory func() string
}

// Names of the prepared statements.
const (
	viTopStmt      = "vi_top"
	viFilteredStmt = "vi_filtered"
)

// cairnSystem is cairn at addr: real[] vectors and its <#> (cosine
// similarity on real[], so DESC); pid, when known, is read for its memory.
func cairnSystem(ctx context.Context, addr string, pid int) (*viSystem, error) {
	conn, err := pgxConnect(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("cairn: %w", err)
	}
	order := " ORDER BY emb <#> $1 DESC LIMIT 10"
	return &viSystem{name: "cairn", conn: conn,
		createTable: "CREATE TABLE " + viTable + " (id int PRIMARY KEY, tag int, emb real[], txt text)",
		columns:     []string{"id", "tag", "emb", "txt"},
		topSQL:      "SELECT id FROM " + viTable + order,
		filteredSQL: "SELECT id FROM " + viTable + " WHERE tag = $2" + order,
		value:       func(v []float32) any { return v },
		memory: func() string {
			if pid == 0 {
				return ""
			}
			return processMemory(pid)
		}}, nil
}

// pgvectorSystem is PostgreSQL + pgvector at addr: vector(dim) and its
// <=> (cosine distance, so ASC); pid, when known, is the postmaster's, and
// the memory of it and its children is reported.
func pgvectorSystem(ctx context.Context, addr string, dim, pid int) (*viSystem, error) {
	conn, err := pgxConnect(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("pgvector: %w", err)
	}
	var oid uint32
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("pgvector: %w", err)
	}
	if err := conn.QueryRow(ctx, "SELECT 'vector'::regtype::oid").Scan(&oid); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("pgvector: %w", err)
	}
	// pgx sends a []byte through the bytea codec as-is, in binary format,
	// for COPY and parameters alike: pgvectorBinary's bytes, which
	// vector_recv reads.
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "vector", OID: oid, Codec: pgtype.ByteaCodec{}})
	order := " ORDER BY emb <=> $1::vector LIMIT 10"
	return &viSystem{name: "pgvector", conn: conn,
		createTable: fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, tag int, emb vector(%d))", viTable, dim),
		columns:     []string{"id", "tag", "emb"},
		topSQL:      "SELECT id FROM " + viTable + order,
		filteredSQL: "SELECT id FROM " + viTable + " WHERE tag = $2" + order,
		value:       func(v []float32) any { return pgvectorBinary(v) },
		memory: func() string {
			if pid == 0 {
				return ""
			}
			return processTreeMemory(pid)
		}}, nil
}

// pgvectorBinary is v in pgvector's binary format (vector_send): the
// number of dimensions and an unused word as int16s, then the float4
// components, all big-endian.
func pgvectorBinary(v []float32) []byte {
	b := make([]byte, 4+4*len(v))
	binary.BigEndian.PutUint16(b, uint16(len(v)))
	for i, x := range v {
		binary.BigEndian.PutUint32(b[4+4*i:], math.Float32bits(x))
	}
	return b
}

// load (re)creates the table and copies the dataset into it, returning
// how long the COPY took.
func (s *viSystem) load(ctx context.Context, d *viData) (time.Duration, error) {
	for _, stmt := range []string{"DROP TABLE IF EXISTS " + viTable, s.createTable} {
		if _, err := s.conn.Exec(ctx, stmt); err != nil {
			return 0, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	start := time.Now()
	n, err := s.conn.CopyFrom(ctx, pgx.Identifier{viTable}, s.columns,
		pgx.CopyFromSlice(len(d.tags), func(i int) ([]any, error) {
			return []any{int32(i + 1), d.tags[i], s.value(d.vector(i)), d.texts[i]}[:len(s.columns)], nil
		}))
	if err != nil {
		return 0, fmt.Errorf("%s: COPY: %w", s.name, err)
	}
	if n != int64(len(d.tags)) {
		return 0, fmt.Errorf("%s: COPY loaded %d rows of %d", s.name, n, len(d.tags))
	}
	return time.Since(start), nil
}

// buildIndex creates the HNSW index, analyzes the table and prepares the
// two queries, returning how long CREATE INDEX took.
func (s *viSystem) buildIndex(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	if _, err := s.conn.Exec(ctx, viIndexSQL); err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	took := time.Since(start)
	if _, err := s.conn.Exec(ctx, "ANALYZE "+viTable); err != nil {
		return 0, fmt.Errorf("%s: %w", s.name, err)
	}
	return took, s.prepare(ctx)
}

// prepare prepares the top-10 and filtered top-10 queries measure runs.
func (s *viSystem) prepare(ctx context.Context) error {
	for name, sql := range map[string]string{viTopStmt: s.topSQL, viFilteredStmt: s.filteredSQL} {
		if _, err := s.conn.Prepare(ctx, name, sql); err != nil {
			return fmt.Errorf("%s: prepare %s: %w", s.name, sql, err)
		}
	}
	return nil
}

// args are the arguments of q's top-10 query, or its filtered variant.
func (s *viSystem) args(q *viQuery, filtered bool) []any {
	if filtered {
		return []any{s.value(q.vec), q.tag}
	}
	return []any{s.value(q.vec)}
}

// ids runs a query returning ids.
func (s *viSystem) ids(ctx context.Context, sql string, args ...any) ([]int64, error) {
	rows, err := s.conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// plan is the server's EXPLAIN of sql with q's arguments.
func (s *viSystem) plan(ctx context.Context, sql string, args []any) (string, error) {
	rows, err := s.conn.Query(ctx, "EXPLAIN "+sql, args...)
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(lines, "\n"), err
}

// vectorLiteral matches the query vector PostgreSQL prints inline in a
// custom plan, which the printed plans elide.
var vectorLiteral = regexp.MustCompile(`'\[[^\]]*\]'`)

// viConfig is one measured configuration: the search settings and whether
// the queries filter on the tag.
type viConfig struct {
	ef        int
	filtered  bool
	iterative string // hnsw.iterative_scan
}

// viRun is what one configuration measured on one server.
type viRun struct {
	p50, p99 float64 // ms
	recall   float64 // mean recall@10 against the exact answers
	// full counts the queries that returned as many rows as the exact
	// answer has (10 unless fewer rows qualify).
	full int
}

// measure sets c's search settings, runs the first warmup queries untimed
// and then all of qs, one at a time as prepared statements, and returns
// their latency percentiles and recall.
func (s *viSystem) measure(ctx context.Context, c viConfig, qs []viQuery, warmup int) (*viRun, error) {
	for _, set := range []string{fmt.Sprintf("SET hnsw.ef_search = %d", c.ef), "SET hnsw.iterative_scan = " + c.iterative} {
		if _, err := s.conn.Exec(ctx, set); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	stmt := viTopStmt
	if c.filtered {
		stmt = viFilteredStmt
	}
	return s.timed(ctx, stmt, qs, warmup, func(q *viQuery) []any { return s.args(q, c.filtered) }, func(q *viQuery) []int64 {
		if c.filtered {
			return q.exactFiltered
		}
		return q.exact
	})
}

// timed runs sql once per query (the first warmup of them untimed first)
// with the arguments args gives, and returns the latency percentiles and
// the recall@10 against want's answers (every answer counts as complete
// and exact when want is nil).
func (s *viSystem) timed(ctx context.Context, sql string, qs []viQuery, warmup int, args func(*viQuery) []any, want func(*viQuery) []int64) (*viRun, error) {
	for i := 0; i < min(warmup, len(qs)); i++ {
		if _, err := s.ids(ctx, sql, args(&qs[i])...); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	r := &viRun{}
	durs := make([]time.Duration, len(qs))
	for i := range qs {
		start := time.Now()
		got, err := s.ids(ctx, sql, args(&qs[i])...)
		durs[i] = time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("%s: query %d: %w", s.name, i, err)
		}
		var exact []int64
		if want != nil {
			exact = want(&qs[i])
			r.recall += recall(got, exact) / float64(len(qs))
		} else {
			r.recall += 1 / float64(len(qs))
		}
		if want == nil || len(got) == len(exact) {
			r.full++
		}
	}
	slices.Sort(durs)
	r.p50, r.p99 = ms(percentile(durs, 50)), ms(percentile(durs, 99))
	return r, nil
}

// recall is the fraction of exact found in got (1 when exact is empty).
func recall(got, exact []int64) float64 {
	if len(exact) == 0 {
		return 1
	}
	found := 0
	for _, id := range exact {
		if slices.Contains(got, id) {
			found++
		}
	}
	return float64(found) / float64(len(exact))
}

// runVectorIndex runs the --vector-index mode against cairn at addr and
// PostgreSQL at v.pgAddr and prints the comparison.
func runVectorIndex(ctx context.Context, addr string, warmup int, explain bool, v *viOptions) error {
	if err := v.check(); err != nil {
		return err
	}
	data := "around %d Gaussian centres in the full space"
	if v.latentDim > 0 {
		data = fmt.Sprintf("around %%d Gaussian centres in a %d-d latent space, projected to %d-d plus noise of length %g", v.latentDim, v.dim, viLatentNoise)
	}
	fmt.Printf("vector index: %d rows x %d-d, unit-normalised, "+data+" (seed %d); "+
		"tag uniform over %d values (%.3g%% of rows each, independent of the vector)\n",
		v.rows, v.dim, v.clusters, datasetSeed, v.tags(), 100/float64(v.tags()))
	start := time.Now()
	kept := v.rows
	if v.streamed() {
		kept = 0
	}
	d := newVIData(kept, v.dim, v.clusters, v.latentDim, v.tags())
	qs := d.queries(v.queries)
	var copyFile string
	if v.streamed() {
		if !v.existing {
			copyFile = filepath.Join(v.dataDir, fmt.Sprintf("cairn-bench-vi-%d.rows", os.Getpid()))
			defer os.Remove(copyFile)
		}
		if err := d.stream(v.rows, qs, copyFile); err != nil {
			return err
		}
	}
	fmt.Printf("generated the rows and the exact top-10 of %d queries (and of their filtered variants) in %.1fs\n",
		len(qs), time.Since(start).Seconds())

	cairn, err := cairnSystem(ctx, addr, v.cairnPID)
	if err != nil {
		return err
	}
	defer cairn.conn.Close(ctx)
	systems := []*viSystem{cairn}
	if v.pgAddr != "" {
		pg, err := pgvectorSystem(ctx, v.pgAddr, v.dim, v.pgPID)
		if err != nil {
			return err
		}
		defer pg.conn.Close(ctx)
		systems = append(systems, pg)
	}

	if v.existing {
		return queryExisting(ctx, cairn, qs, warmup, v)
	}
	var loads, builds [2]time.Duration
	for k, s := range systems {
		if copyFile != "" {
			loads[k], err = s.loadFile(ctx, copyFile, v.rows, v.dim)
			os.Remove(copyFile)
		} else {
			loads[k], err = s.load(ctx, d)
		}
		if err != nil {
			return err
		}
		fmt.Printf("%s: COPY %d rows in %.2fs\n", s.name, v.rows, loads[k].Seconds())
	}
	waitIdle("cairn, after the load", v.cairnPID)
	exactQs := qs[:min(v.exactN, len(qs))]
	for _, s := range systems {
		if len(exactQs) == 0 {
			break
		}
		r, err := s.timed(ctx, s.topSQL, exactQs, 2, func(q *viQuery) []any { return s.args(q, false) },
			func(q *viQuery) []int64 { return q.exact })
		if err != nil {
			return err
		}
		fmt.Printf("%s: exact top-10 before the index: p50 %.2f ms, p99 %.2f ms over %d queries, recall %.3f\n", s.name, r.p50, r.p99, len(exactQs), r.recall)
	}
	fmt.Println(viIndexSQL)
	for k, s := range systems {
		if builds[k], err = s.buildIndex(ctx); err != nil {
			return err
		}
		fmt.Printf("%s: CREATE INDEX in %.2fs\n", s.name, builds[k].Seconds())
	}
	waitIdle("cairn, after CREATE INDEX", v.cairnPID)
	if explain {
		for _, s := range systems {
			for _, q := range []struct {
				sql      string
				filtered bool
			}{{s.topSQL, false}, {s.filteredSQL, true}} {
				plan, err := s.plan(ctx, q.sql, s.args(&qs[0], q.filtered))
				if err != nil {
					plan = "failed: " + err.Error()
				}
				plan = vectorLiteral.ReplaceAllString(plan, "'[...]'")
				fmt.Printf("%s: EXPLAIN %s\n    %s\n", s.name, q.sql, strings.ReplaceAll(plan, "\n", "\n    "))
			}
		}
	}

	configs := v.configs()
	runs := make([][2]*viRun, len(configs))
	for i, c := range configs {
		for k, s := range systems {
			if runs[i][k], err = s.measure(ctx, c, qs, warmup); err != nil {
				return err
			}
		}
	}

	fmt.Printf("\n%d queries per line, one at a time as prepared statements, after %d untimed; recall@10 against exact cosine search; "+
		"'all rows': queries that returned 10 rows (or every qualifying row when fewer qualify)\n", len(qs), min(warmup, len(qs)))
	printVITable(os.Stdout, configs, runs, len(qs))
	if err := cairnTextSearches(ctx, cairn, qs, warmup, v); err != nil {
		return err
	}
	if len(systems) == 2 {
		fmt.Printf("\nindex build: cairn %.2fs, pgvector %.2fs, cairn/pg %.2f\n",
			builds[0].Seconds(), builds[1].Seconds(), builds[0].Seconds()/builds[1].Seconds())
		fmt.Printf("load (binary COPY): cairn %.2fs, pgvector %.2fs\n", loads[0].Seconds(), loads[1].Seconds())
	} else {
		fmt.Printf("\nindex build: cairn %.2fs; load (binary COPY): cairn %.2fs\n", builds[0].Seconds(), loads[0].Seconds())
	}
	fmt.Printf("raw float32 vectors: %.0f MiB\n", float64(v.rows*v.dim*4)/(1<<20))
	for _, s := range systems {
		if m := s.memory(); m != "" {
			fmt.Printf("%s memory after the run: %s\n", s.name, m)
		}
	}
	return nil
}

// queryExisting is the --vi-existing run: the first top-10 timed alone on
// a server that has not read the table (with --storage on an empty data
// directory it fetches what the query needs from the object store), then
// the configurations, hybrid and BM25 on the warm server.
func queryExisting(ctx context.Context, cairn *viSystem, qs []viQuery, warmup int, v *viOptions) error {
	first, err := cairn.timed(ctx, cairn.topSQL, qs[:1], 0, func(q *viQuery) []any { return cairn.args(q, false) },
		func(q *viQuery) []int64 { return q.exact })
	if err != nil {
		return err
	}
	fmt.Printf("cairn: first top-10 on this server (cold): %.2f ms, recall %.3f\n", first.p50, first.recall)
	if err := cairn.prepare(ctx); err != nil {
		return err
	}
	configs := v.configs()
	runs := make([][2]*viRun, len(configs))
	for i, c := range configs {
		if runs[i][0], err = cairn.measure(ctx, c, qs, warmup); err != nil {
			return err
		}
	}
	fmt.Printf("\n%d queries per line after the first, one at a time as prepared statements, after %d untimed; recall@10 against exact cosine search\n", len(qs), min(warmup, len(qs)))
	printVITable(os.Stdout, configs, runs, len(qs))
	if err := cairnTextSearches(ctx, cairn, qs, warmup, v); err != nil {
		return err
	}
	if m := cairn.memory(); m != "" {
		fmt.Printf("cairn memory after the run: %s\n", m)
	}
	return nil
}

// configs are the measured configurations: per ef, the unfiltered
// top-10, then the filtered one under each iterative scan mode.
func (v *viOptions) configs() []viConfig {
	var configs []viConfig
	for _, ef := range v.efs {
		configs = append(configs, viConfig{ef: ef, iterative: "off"})
		for _, it := range v.iterative {
			configs = append(configs, viConfig{ef: ef, filtered: true, iterative: it})
		}
	}
	return configs
}

// cairnTextSearches times cairn's hybrid and BM25 top-10 at the last ef.
func cairnTextSearches(ctx context.Context, cairn *viSystem, qs []viQuery, warmup int, v *viOptions) error {
	hybridSQL := "SELECT id FROM " + viTable + " ORDER BY (emb, txt)::deeplake_hybrid_record <#> deeplake_hybrid_record($1::real[], $2, 0.5, 0.5) DESC LIMIT 10"
	bm25SQL := "SELECT id FROM " + viTable + " ORDER BY txt <#> $1 DESC LIMIT 10"
	if _, err := cairn.conn.Exec(ctx, fmt.Sprintf("SET hnsw.ef_search = %d", v.efs[len(v.efs)-1])); err != nil {
		return err
	}
	fmt.Printf("\ncairn only, %d queries each (two words of frequency rank %d-%d), hnsw.ef_search = %d:\n", len(qs), viQueryRanks[0], viQueryRanks[1], v.efs[len(v.efs)-1])
	for _, t := range []struct {
		name, sql string
		args      func(*viQuery) []any
	}{
		{"hybrid top-10", hybridSQL, func(q *viQuery) []any { return []any{q.vec, q.text} }},
		{"BM25 top-10", bm25SQL, func(q *viQuery) []any { return []any{q.text} }},
	} {
		r, err := cairn.timed(ctx, t.sql, qs, warmup, t.args, nil)
		if err != nil {
			return err
		}
		fmt.Printf("  %-14s p50 %.2f ms, p99 %.2f ms\n", t.name, r.p50, r.p99)
	}
	return nil
}

// printVITable writes one line per configuration with both servers'
// figures and the latency ratios.
func printVITable(w io.Writer, configs []viConfig, runs [][2]*viRun, n int) {
	const row = "%-9s %4v %-13s | %8v %8v %7v %9v | %8v %8v %7v %9v | %9v %9v\n"
	fmt.Fprintf(w, row, "", "", "", "cairn", "", "", "", "pgvector", "", "", "", "cairn/pg", "")
	fmt.Fprintf(w, row, "query", "ef", "iterative", "p50 ms", "p99 ms", "recall", "all rows", "p50 ms", "p99 ms", "recall", "all rows", "p50", "p99")
	f2 := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	for i, c := range configs {
		query, iterative := "top-10", "-"
		if c.filtered {
			query, iterative = "filtered", c.iterative
		}
		a, b := runs[i][0], runs[i][1]
		if b == nil { // cairn alone
			fmt.Fprintf(w, row, query, c.ef, iterative,
				f2(a.p50), f2(a.p99), strconv.FormatFloat(a.recall, 'f', 3, 64), fmt.Sprintf("%d/%d", a.full, n),
				"-", "-", "-", "-", "-", "-")
			continue
		}
		fmt.Fprintf(w, row, query, c.ef, iterative,
			f2(a.p50), f2(a.p99), strconv.FormatFloat(a.recall, 'f', 3, 64), fmt.Sprintf("%d/%d", a.full, n),
			f2(b.p50), f2(b.p99), strconv.FormatFloat(b.recall, 'f', 3, 64), fmt.Sprintf("%d/%d", b.full, n),
			f2(a.p50/b.p50), f2(a.p99/b.p99))
	}
}

// waitIdle waits until process pid has used less than 5% of a core for
// five seconds in a row (a compaction fsyncing a 1.6 GB segment idles for
// seconds), up to an hour, so that timings do not include the
// background work a load or an index build leaves behind (compaction of
// spilled segments, per-segment index builds); it does nothing when pid is
// 0 or its CPU time cannot be read.
func waitIdle(what string, pid int) {
	if pid == 0 {
		return
	}
	start := time.Now()
	prev, ok := processCPUTicks(pid)
	idle := 0 // consecutive idle seconds
	for ok && time.Since(start) < time.Hour {
		time.Sleep(time.Second)
		cur, ok2 := processCPUTicks(pid)
		if !ok2 {
			return
		}
		if cur-prev >= 5 { // clock ticks are 1/100 s on Linux
			idle = 0
		} else if idle++; idle == 5 {
			fmt.Printf("%s: idle after %.1fs\n", what, time.Since(start).Seconds())
			return
		}
		prev = cur
	}
}

// processCPUTicks returns the user and system CPU time of process pid in
// clock ticks, from /proc/<pid>/stat.
func processCPUTicks(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the parenthesised command start with state (field
	// 3); utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	return user + sys, err1 == nil && err2 == nil
}

// processMemory describes process pid's resident memory now and at its
// peak, from /proc/<pid>/status, with the part of it that is anonymous
// (the heap) and the part that is mapped files (cairn's raw vector files:
// clean page cache the kernel may drop); "" when it cannot be read.
func processMemory(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	st := string(b)
	mib := func(field string) float64 { return float64(procField(st, field)) / 1024 }
	return fmt.Sprintf("RSS %.0f MiB (peak %.0f MiB; anonymous %.0f MiB, mapped files %.0f MiB)",
		mib("VmRSS:"), mib("VmHWM:"), mib("RssAnon:"), mib("RssFile:"))
}

// processTreeMemory describes the memory of process pid and its children
// as the sum of their proportional set sizes (PSS, from
// /proc/<pid>/smaps_rollup), which counts shared memory such as
// PostgreSQL's shared buffers once rather than once per process.
func processTreeMemory(pid int) string {
	pids := []int{pid}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// The fields after the parenthesised command are state, ppid, ...
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			pids = append(pids, child)
		}
	}
	var pss int64
	n := 0
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			if p == pid {
				return ""
			}
			continue // a child that has exited
		}
		pss += procField(string(b), "Pss:")
		n++
	}
	return fmt.Sprintf("PSS %.0f MiB over %d processes", float64(pss)/1024, n)
}

// procField returns the kB figure on the line of a /proc file starting
// with key, 0 when there is none.
func procField(text, key string) int64 {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
