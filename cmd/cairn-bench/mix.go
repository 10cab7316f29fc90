package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// mixResult is the outcome of one query at one client count.
type mixResult struct {
	Query   string  `json:"query"`
	Clients int     `json:"clients"`
	N       int     `json:"n"`       // timed executions that succeeded
	P50ms   float64 `json:"p50_ms"`  // latency percentiles of those
	P90ms   float64 `json:"p90_ms"`  //
	P99ms   float64 `json:"p99_ms"`  //
	QPS     float64 `json:"qps"`     // succeeded executions per second of wall time, all clients together
	Errors  int     `json:"errors"`  // executions (warm-up included) the server answered with an error
	Wrong   int     `json:"wrong"`   // executions (warm-up included) whose result failed its check
	Checked int     `json:"checked"` // executions whose result was checked
	// First is the first error or failed check, empty when there was none.
	First string `json:"first,omitempty"`
}

// ok reports whether every execution succeeded and passed its check.
func (m *mixResult) ok() bool { return m.Errors == 0 && m.Wrong == 0 && m.N > 0 }

// status is the table's last column: "ok", or what went wrong.
func (m *mixResult) status() string {
	if m.ok() {
		return "ok"
	}
	var parts []string
	if m.Errors > 0 {
		parts = append(parts, fmt.Sprintf("FAIL %d errors", m.Errors))
	}
	if m.Wrong > 0 {
		parts = append(parts, fmt.Sprintf("WRONG %d/%d results", m.Wrong, m.Checked))
	}
	if len(parts) == 0 {
		parts = append(parts, "FAIL nothing timed")
	}
	return strings.Join(parts, ", ") + ": " + m.First
}

// client is one connection that prepares each statement of the mix the
// first time it runs it.
type client struct {
	dsn     string
	table   string
	timeout time.Duration // per execution; 0 for none
	conn    *pgx.Conn
	// prepared holds, by query name, the outcome of preparing it on conn.
	prepared map[string]error
}

// stmtName is the prepared statement name of a query.
func stmtName(q *querySpec) string { return "bench_" + q.name }

// ensure (re)connects when the connection is gone (an error of severity
// FATAL closes it) and prepares q on it unless it has already tried.
func (c *client) ensure(ctx context.Context, q *querySpec) error {
	if c.conn == nil || c.conn.IsClosed() {
		conn, err := pgx.Connect(ctx, c.dsn)
		if err != nil {
			return err
		}
		c.conn, c.prepared = conn, map[string]error{}
	}
	if q == nil {
		return nil
	}
	err, tried := c.prepared[q.name]
	if !tried {
		if _, err = c.conn.Prepare(ctx, stmtName(q), fmt.Sprintf(q.sql, c.table)); err != nil {
			err = fmt.Errorf("prepare: %w", err)
		}
		c.prepared[q.name] = err
	}
	return err
}

// exec runs q's prepared statement with p's arguments and reads the result.
func (c *client) exec(ctx context.Context, q *querySpec, p *queryParams) ([]resultRow, error) {
	if err := c.ensure(ctx, q); err != nil {
		return nil, err
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	r, err := c.conn.Query(ctx, stmtName(q), q.args(p)...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []resultRow
	for r.Next() {
		row, err := q.scan(r)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, r.Err()
}

// close closes the connection.
func (c *client) close(ctx context.Context) {
	if c.conn != nil {
		c.conn.Close(ctx)
	}
}

// execution is one run of a query: its parameters, result and latency.
type execution struct {
	p   *queryParams
	res []resultRow
	err error
	dur time.Duration
}

// mixRunner runs the query mix on a set of clients.
type mixRunner struct {
	clients []*client
	gen     *paramGen
	chk     *checker
	n       int // timed executions per query and client count
	warmup  int // warm-up executions per client
}

// run runs q on the first nc clients: warmup executions on each client,
// then n timed executions shared among them (each takes the next index),
// and checks every result.
func (m *mixRunner) run(ctx context.Context, q *querySpec, nc int) *mixResult {
	res := &mixResult{Query: q.name, Clients: nc}
	note := func(msg string) {
		if res.First == "" {
			res.First = msg
		}
	}
	// Warm-up executions take the indexes after the timed ones.
	warm := make([]execution, nc*m.warmup)
	var wg sync.WaitGroup
	for k := 0; k < nc; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for j := 0; j < m.warmup; j++ {
				e := &warm[k*m.warmup+j]
				e.p = m.gen.params(m.n + k*m.warmup + j)
				e.res, e.err = m.clients[k].exec(ctx, q, e.p)
			}
		}(k)
	}
	wg.Wait()

	timed := make([]execution, m.n)
	var next atomic.Int64
	start := time.Now()
	for k := 0; k < nc; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= m.n {
					return
				}
				e := &timed[i]
				e.p = m.gen.params(i)
				t0 := time.Now()
				e.res, e.err = m.clients[k].exec(ctx, q, e.p)
				e.dur = time.Since(t0)
			}
		}(k)
	}
	wg.Wait()
	wall := time.Since(start)

	var durs []time.Duration
	for _, e := range timed {
		if e.err == nil {
			durs = append(durs, e.dur)
		}
	}
	all := append(warm, timed...)
	for _, e := range all {
		if e.err != nil {
			res.Errors++
			note(fmt.Sprintf("execution %d: %v", e.p.index, e.err))
		}
	}
	res.Checked, res.Wrong = m.check(q, all, note)
	res.N = len(durs)
	if len(durs) > 0 {
		sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
		res.P50ms = ms(percentile(durs, 50))
		res.P90ms = ms(percentile(durs, 90))
		res.P99ms = ms(percentile(durs, 99))
		res.QPS = float64(len(durs)) / wall.Seconds()
	}
	return res
}

// check checks the results of the executions that succeeded, in parallel,
// returning how many it checked and how many failed, and noting the first
// failure.
func (m *mixRunner) check(q *querySpec, execs []execution, note func(string)) (checked, wrong int) {
	fails := make([]error, len(execs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(execs) {
					return
				}
				if e := execs[i]; e.err == nil {
					fails[i] = q.check(m.chk, e.p, e.res)
				}
			}
		}()
	}
	wg.Wait()
	for i, e := range execs {
		if e.err != nil {
			continue
		}
		checked++
		if fails[i] != nil {
			wrong++
			note(fmt.Sprintf("execution %d%s: %v", e.p.index, describe(e.p, q), fails[i]))
		}
	}
	return checked, wrong
}

// describe names the parameters of q an execution used, for messages.
func describe(p *queryParams, q *querySpec) string {
	switch q.name {
	case "bm25", "hybrid":
		return fmt.Sprintf(" (text %q)", p.text)
	case "filtered_cosine":
		return fmt.Sprintf(" (repo %q)", p.repo)
	case "point":
		return fmt.Sprintf(" (id %d)", p.id)
	}
	return ""
}

// explain returns the server's EXPLAIN ANALYZE of q with the parameters of
// execution 0, sent as parameters as the benchmark sends them.
func (m *mixRunner) explain(ctx context.Context, q *querySpec) (string, error) {
	c := m.clients[0]
	if err := c.ensure(ctx, nil); err != nil {
		return "", err
	}
	r, err := c.conn.Query(ctx, "EXPLAIN ANALYZE "+fmt.Sprintf(q.sql, c.table), q.args(m.gen.params(0))...)
	if err != nil {
		return "", err
	}
	defer r.Close()
	var lines []string
	for r.Next() {
		var line string
		if err := r.Scan(&line); err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), r.Err()
}

// percentile returns the p-th percentile of sorted durs (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// runMix prints the EXPLAIN ANALYZE of every query once, then runs each
// query at each client count, and returns the results and the plans.
func runMix(ctx context.Context, dsn, table string, specs []*querySpec, clientCounts []int, n, warmup int,
	timeout time.Duration, gen *paramGen, chk *checker, doExplain bool) ([]*mixResult, map[string]string, error) {
	maxClients := 0
	for _, c := range clientCounts {
		maxClients = max(maxClients, c)
	}
	m := &mixRunner{gen: gen, chk: chk, n: n, warmup: warmup}
	defer func() {
		for _, c := range m.clients {
			c.close(ctx)
		}
	}()
	for k := 0; k < maxClients; k++ {
		c := &client{dsn: dsn, table: table, timeout: timeout}
		if err := c.ensure(ctx, nil); err != nil {
			return nil, nil, fmt.Errorf("client %d: %w", k, err)
		}
		m.clients = append(m.clients, c)
	}
	plans := map[string]string{}
	if doExplain {
		fmt.Println()
		for _, q := range specs {
			fmt.Printf("EXPLAIN ANALYZE %s:\n", q.name)
			plan, err := m.explain(ctx, q)
			if err != nil {
				plan = "failed: " + err.Error()
			}
			plans[q.name] = plan
			for _, line := range strings.Split(plan, "\n") {
				fmt.Println("    " + line)
			}
		}
	}
	var results []*mixResult
	for _, q := range specs {
		for _, nc := range clientCounts {
			r := m.run(ctx, q, nc)
			fmt.Fprintf(os.Stderr, "cairn-bench: %s x%d: p50 %.2fms qps %.1f %s\n", q.name, nc, r.P50ms, r.QPS, r.status())
			results = append(results, r)
		}
	}
	return results, plans, nil
}
