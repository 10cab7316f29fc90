package main

// The --commits mode measures what a COMMIT costs: single-session commit
// latency (p50/p99) and commits/s with several concurrent sessions, each
// commit one agent-memory row (text, JSONB, a 384-d embedding) written by an
// autocommit INSERT, so each is acknowledged only after its WAL record is
// fsynced (sessions committing together share an fsync). It runs each
// client count --runs times and reports the medians.
//
//	go run ./cmd/cairn-bench --commits --addr 127.0.0.1:5432 --clients 1,8,32 --duration 5s --runs 3
//
// --addr may list several servers on one object store (host:port,...):
// the sessions are spread over them in turn, and a commit that loses the
// log to another server (40001) is retried until it commits; its latency
// runs from the first try to the acknowledged one, and the retries are
// counted.
//
// The mode is dispatched from init (it has flags of its own), so main.go
// needs no hook.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func init() {
	for _, a := range os.Args[1:] {
		if a == "--commits" || a == "-commits" {
			os.Exit(commitsMain(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
}

// commitsResult is one run with some number of sessions.
type commitsResult struct {
	clients int
	commits int
	errors  int
	// retries counts the tries that lost the log to another server (40001).
	retries int
	elapsed time.Duration
	p50     time.Duration
	p99     time.Duration
}

func (r commitsResult) perSecond() float64 { return float64(r.commits) / r.elapsed.Seconds() }

func commitsMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cairn-bench --commits", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("commits", true, "measure commits (this mode)")
	addrList := fs.String("addr", "127.0.0.1:5432", "server host:port, or several servers on one object store (host:port,host:port,...)")
	clients := fs.String("clients", "1,8,32", "comma-separated numbers of concurrent sessions")
	duration := fs.Duration("duration", 5*time.Second, "how long each run commits")
	runs := fs.Int("runs", 3, "runs per session count (the medians are reported)")
	dim := fs.Int("dim", 384, "embedding dimensions")
	table := fs.String("table", "bench_commits", "table to (re)create")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	counts, err := parseInts(*clients)
	if err != nil || *runs < 1 || *dim < 1 || *duration <= 0 {
		fmt.Fprintln(stderr, "cairn-bench --commits: bad --clients, --runs, --dim or --duration")
		return 2
	}
	addrs := strings.Split(*addrList, ",")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsnFor(addrs[0]))
	if err != nil {
		fmt.Fprintln(stderr, "cairn-bench:", err)
		return 1
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + *table,
		"CREATE TABLE " + *table + " (id bigserial PRIMARY KEY, session int, task text, metadata jsonb, embedding float4[])",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			fmt.Fprintln(stderr, "cairn-bench:", err)
			return 1
		}
	}
	// The other servers see the table once they caught up with the log
	// (at once by default; within --max-staleness otherwise).
	for _, a := range addrs[1:] {
		if err := waitForTable(ctx, a, *table); err != nil {
			fmt.Fprintln(stderr, "cairn-bench:", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "commits: %s, %s\none autocommit INSERT of one row (text, jsonb, %d-d float4[]) per commit; %d server(s); %d runs of %v per line, medians\n\n",
		machine(), today(), *dim, len(addrs), *runs, *duration)
	fmt.Fprintf(stdout, "%8s %12s %10s %10s %8s %8s\n", "sessions", "commits/s", "p50 ms", "p99 ms", "retries", "errors")
	failed := false
	for _, n := range counts {
		var res []commitsResult
		for r := 0; r < *runs; r++ {
			res = append(res, commitRun(ctx, addrs, *table, n, *dim, *duration))
		}
		m := medianResult(res)
		var errs, retries int
		for _, r := range res {
			errs += r.errors
			retries += r.retries
		}
		failed = failed || errs > 0
		var each []string
		for _, r := range res {
			each = append(each, fmt.Sprintf("%.0f", r.perSecond()))
		}
		fmt.Fprintf(stdout, "%8d %12.0f %10.2f %10.2f %8d %8d   (runs: %s commits/s)\n", n, m.perSecond(), ms(m.p50), ms(m.p99), retries, errs, strings.Join(each, ", "))
	}
	var rows int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+*table).Scan(&rows); err != nil {
		fmt.Fprintln(stderr, "cairn-bench:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\n%d rows committed in all\n", rows)
	if failed {
		return 1
	}
	return 0
}

// commitRun commits from n sessions, spread over the servers at addrs,
// for d and returns the throughput and the latency percentiles of single
// commits (40001 retried).
func commitRun(ctx context.Context, addrs []string, table string, n, dim int, d time.Duration) commitsResult {
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		c, err := pgx.Connect(ctx, dsnFor(addrs[i%len(addrs)]))
		if err != nil {
			return commitsResult{clients: n, errors: 1, elapsed: time.Second}
		}
		conns[i] = c
		defer c.Close(ctx)
	}
	insert := "INSERT INTO " + table + " (session, task, metadata, embedding) VALUES ($1, $2, $3, $4)"
	var mu sync.Mutex
	var lat []time.Duration
	failures, retries := 0, 0
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(i)))
			emb := make([]float32, dim)
			var mine []time.Duration
			bad, again := 0, 0
			for k := 0; time.Now().Before(deadline); k++ {
				for j := range emb {
					emb[j] = rng.Float32()*2 - 1
				}
				t0 := time.Now()
				var err error
				for {
					_, err = c.Exec(ctx, insert, i, fmt.Sprintf("session %d remembers fact %d", i, k),
						fmt.Sprintf(`{"session": %d, "n": %d}`, i, k), emb)
					if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "40001" {
						break
					}
					again++
				}
				if err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			failures += bad
			retries += again
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	r := commitsResult{clients: n, commits: len(lat), errors: failures, retries: retries, elapsed: elapsed}
	if len(lat) > 0 {
		r.p50, r.p99 = percentile(lat, 50), percentile(lat, 99)
	}
	return r
}

// waitForTable waits up to 10 s for the server at addr to see table.
func waitForTable(ctx context.Context, addr, table string) error {
	c, err := pgx.Connect(ctx, dsnFor(addr))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, err := c.Exec(ctx, "SELECT 1 FROM "+table+" LIMIT 0")
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// medianResult picks, field by field, the median of several runs.
func medianResult(res []commitsResult) commitsResult {
	pick := func(key func(commitsResult) float64) commitsResult {
		s := append([]commitsResult(nil), res...)
		sort.Slice(s, func(a, b int) bool { return key(s[a]) < key(s[b]) })
		return s[len(s)/2]
	}
	m := pick(func(r commitsResult) float64 { return r.perSecond() })
	m.p50 = pick(func(r commitsResult) float64 { return float64(r.p50) }).p50
	m.p99 = pick(func(r commitsResult) float64 { return float64(r.p99) }).p99
	return m
}
