package main

// The --trigram mode: substring search (col ILIKE '%term%') over the same
// generated text in cairn and in PostgreSQL 15 + pg_trgm, each timed
// without an index (a scan) and with a trigram GIN index, with the counts
// checked equal across all four.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// tgOptions are the flags of the --trigram mode.
type tgOptions struct {
	enabled bool
	rows    int
	n       int
	scans   int
}

// register adds the mode's flags to fs (--pg-addr, --cairn-pid and
// --pg-pid are --vector-index's).
func (o *tgOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.enabled, "trigram", false, "compare cairn's trigram index with PostgreSQL + pg_trgm's GIN index on ILIKE '%term%' (at --addr and --pg-addr) instead of running the query mix")
	fs.IntVar(&o.rows, "tg-rows", 1000000, "with --trigram: text rows to load into both servers")
	fs.IntVar(&o.n, "tg-n", 50, "with --trigram: timed executions per query with the index (after 3 warm-ups)")
	fs.IntVar(&o.scans, "tg-scans", 3, "with --trigram: timed executions per query without the index")
}

// tgTable is the benchmark's table.
const tgTable = "bench_trgm"

// tgWords are the words the rows are made of: every row takes several,
// each chosen by a different stride, so a word is in about 1/len of rows.
var tgWords = strings.Fields(`agent memory trace tool output summary session error retry timeout
	deadlock panic stack overflow parser token request response client server cache eviction
	latency index segment flush compaction vector search query plan filter join sort limit
	commit rollback snapshot replica leader follower quorum lease heartbeat`)

// tgInsert is the SQL that loads rows [lo, hi): a session, a step, five
// words (one of them upper-cased), a rare word in 1 row of 1,000 and an
// md5 id, the same text in both servers.
func tgInsert(lo, hi int) string {
	arr := "ARRAY['" + strings.Join(tgWords, "','") + "']"
	word := func(stride int) string {
		return fmt.Sprintf("(%s)[1 + (i * %d) %% %d]", arr, stride, len(tgWords))
	}
	return fmt.Sprintf(`INSERT INTO %s SELECT i, 'session ' || (i %% 997) || ' step ' || i || ': ' || %s || ' ' || upper(%s) || ' ' || %s || ' ' || %s || ' ' || %s || CASE WHEN i %% 1000 = 7 THEN ' Zanzibar' ELSE '' END || ' id=' || md5(i::text) FROM generate_series(%d, %d) i`,
		tgTable, word(7), word(13), word(31), word(37), word(3), lo, hi-1)
}

// tgQuery is one timed query: its pattern and what it shows.
type tgQuery struct {
	name, sql, pattern string
}

var tgQueries = []tgQuery{
	{"rare word, 1 row in 1,000 (ILIKE, count)", "SELECT count(*) FROM " + tgTable + " WHERE body ILIKE $1", "%zanzibar%"},
	{"rare word, 1 row in 1,000 (ILIKE, rows)", "SELECT id, body FROM " + tgTable + " WHERE body ILIKE $1", "%zanzibar%"},
	{"common word (ILIKE, count)", "SELECT count(*) FROM " + tgTable + " WHERE body ILIKE $1", "%quorum%"},
	{"two words (ILIKE, count)", "SELECT count(*) FROM " + tgTable + " WHERE body ILIKE $1", "%deadlock%LEASE%"},
	{"md5 fragment (LIKE, rows)", "SELECT id, body FROM " + tgTable + " WHERE body LIKE $1", "%id=c4ca42%"},
	{"2 letters: no trigram (ILIKE, count)", "SELECT count(*) FROM " + tgTable + " WHERE body ILIKE $1", "%qx%"},
}

// tgResult is one query's figures on one system.
type tgResult struct {
	rows          int64 // the count, or the rows returned
	scanP50       time.Duration
	p50, p90, p99 time.Duration
}

// tgSystem is one server under test.
type tgSystem struct {
	name    string
	conn    *pgx.Conn
	index   string // CREATE INDEX statement
	pid     int
	pg      bool
	load    time.Duration
	build   time.Duration
	results []tgResult
}

// runTrigram runs the --trigram mode.
func runTrigram(ctx context.Context, addr, pgAddr string, cairnPID, pgPID int, o *tgOptions) error {
	if pgAddr == "" {
		return errors.New("--trigram needs --pg-addr")
	}
	if o.rows < 1000 || o.n < 1 || o.scans < 1 {
		return errors.New("--tg-rows must be at least 1000, --tg-n and --tg-scans positive")
	}
	var systems []*tgSystem
	for _, s := range []struct {
		name, addr, index string
		pid               int
		pg                bool
	}{
		{"cairn", addr, "CREATE INDEX bench_trgm_body ON " + tgTable + " USING gin (body gin_trgm_ops)", cairnPID, false},
		{"postgres", pgAddr, "CREATE INDEX bench_trgm_body ON " + tgTable + " USING gin (body gin_trgm_ops)", pgPID, true},
	} {
		conn, err := pgxConnect(ctx, s.addr)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		defer conn.Close(ctx)
		systems = append(systems, &tgSystem{name: s.name, conn: conn, index: s.index, pid: s.pid, pg: s.pg})
	}
	fmt.Printf("%s\nrows: %d; queries timed %d times with the index (p50 of %d without)\n", machine(), o.rows, o.n, o.scans)
	for _, s := range systems {
		if err := s.run(ctx, o); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return printTrigram(os.Stdout, systems)
}

// run loads the table, times the queries with a scan, builds the index
// and times them again.
func (s *tgSystem) run(ctx context.Context, o *tgOptions) error {
	for _, q := range []string{"DROP TABLE IF EXISTS " + tgTable, "CREATE EXTENSION IF NOT EXISTS pg_trgm",
		"CREATE TABLE " + tgTable + " (id int PRIMARY KEY, body text)"} {
		if _, err := s.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	start := time.Now()
	const chunk = 100000
	for lo := 1; lo <= o.rows; lo += chunk {
		if _, err := s.conn.Exec(ctx, tgInsert(lo, min(lo+chunk, o.rows+1))); err != nil {
			return fmt.Errorf("loading: %w", err)
		}
	}
	if s.pg {
		if _, err := s.conn.Exec(ctx, "VACUUM ANALYZE "+tgTable); err != nil {
			return err
		}
	}
	s.load = time.Since(start)
	s.results = make([]tgResult, len(tgQueries))
	for i, q := range tgQueries {
		d, rows, err := s.time(ctx, q, 0, o.scans)
		if err != nil {
			return err
		}
		s.results[i].scanP50, s.results[i].rows = percentile(d, 50), rows
	}
	start = time.Now()
	if _, err := s.conn.Exec(ctx, s.index); err != nil {
		return err
	}
	if s.pg {
		if _, err := s.conn.Exec(ctx, "ANALYZE "+tgTable); err != nil {
			return err
		}
	}
	s.build = time.Since(start)
	for i, q := range tgQueries {
		d, rows, err := s.time(ctx, q, 3, o.n)
		if err != nil {
			return err
		}
		if rows != s.results[i].rows {
			return fmt.Errorf("%s: %d rows with the index, %d without", q.name, rows, s.results[i].rows)
		}
		r := &s.results[i]
		r.p50, r.p90, r.p99 = percentile(d, 50), percentile(d, 90), percentile(d, 99)
	}
	plan, err := s.plan(ctx, tgQueries[0])
	if err != nil {
		return err
	}
	fmt.Printf("%s plan of %q:\n%s\n", s.name, tgQueries[0].name, plan)
	return nil
}

// time runs q warmup times, then n timed times, and returns the sorted
// durations and the count (or number of rows) it answers.
func (s *tgSystem) time(ctx context.Context, q tgQuery, warmup, n int) ([]time.Duration, int64, error) {
	var durs []time.Duration
	var answer int64
	for i := 0; i < warmup+n; i++ {
		start := time.Now()
		rows, err := s.conn.Query(ctx, q.sql, q.pattern)
		if err != nil {
			return nil, 0, err
		}
		var got int64
		for rows.Next() {
			if strings.HasPrefix(q.sql, "SELECT count(*)") {
				if err := rows.Scan(&got); err != nil {
					return nil, 0, err
				}
			} else {
				got++
			}
		}
		if err := rows.Err(); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", q.name, err)
		}
		if i >= warmup {
			durs = append(durs, time.Since(start))
		}
		answer = got
	}
	slices.Sort(durs)
	return durs, answer, nil
}

// plan is the server's EXPLAIN of q.
func (s *tgSystem) plan(ctx context.Context, q tgQuery) (string, error) {
	rows, err := s.conn.Query(ctx, "EXPLAIN "+q.sql, q.pattern)
	if err != nil {
		return "", err
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return "  " + strings.Join(lines, "\n  "), err
}

// printTrigram prints the comparison, and fails when the systems' answers
// differ.
func printTrigram(w io.Writer, systems []*tgSystem) error {
	c, p := systems[0], systems[1]
	fmt.Fprintf(w, "\nload: cairn %.1f s, postgres %.1f s; index build: cairn %.1f s, postgres %.1f s (ratio %.2f)\n",
		c.load.Seconds(), p.load.Seconds(), c.build.Seconds(), p.build.Seconds(), c.build.Seconds()/p.build.Seconds())
	fmt.Fprintln(w, "\n| query | rows | cairn scan p50 | pg scan p50 | cairn index p50 / p90 / p99 ms | pg index p50 / p90 / p99 ms | p50 ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var wrong []string
	for i, q := range tgQueries {
		cr, pr := c.results[i], p.results[i]
		if cr.rows != pr.rows {
			wrong = append(wrong, fmt.Sprintf("%s: cairn %d, postgres %d", q.name, cr.rows, pr.rows))
		}
		fmt.Fprintf(w, "| %s `%s` | %d | %.1f | %.1f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.2f |\n", q.name, q.pattern, cr.rows,
			ms(cr.scanP50), ms(pr.scanP50), ms(cr.p50), ms(cr.p90), ms(cr.p99), ms(pr.p50), ms(pr.p90), ms(pr.p99), ms(cr.p50)/ms(pr.p50))
	}
	for _, s := range systems {
		if s.pid == 0 {
			continue
		}
		mem := processMemory(s.pid)
		if s.pg {
			mem = processTreeMemory(s.pid)
		}
		fmt.Fprintf(w, "%s memory: %s\n", s.name, mem)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("the systems' answers differ: %s", strings.Join(wrong, "; "))
	}
	return nil
}
