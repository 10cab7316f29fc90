package main

// The --point-lookup mode times small statements on cairn and PostgreSQL
// side by side (issue 11, section 2): a table of --rows rows
// (id bigint PRIMARY KEY, path text UNIQUE, task text) is created and
// filled on both servers, then each statement runs --n times after
// --warmup untimed runs, prepared (pgx's statement cache: Parse once,
// then Bind/Execute/Sync with binary parameters), on one connection,
// the servers taking turns for --rounds rounds. It prints p50 and p99 per
// statement and server (medians over the rounds) and cairn/PostgreSQL
// ratios.
//
//	cairn-bench --point-lookup --addr 127.0.0.1:5433 --pg-addr 127.0.0.1:5432 --rows 100000
//
// The mode is dispatched from init (it has flags of its own).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

func init() {
	for _, a := range os.Args[1:] {
		if a == "--point-lookup" || a == "-point-lookup" {
			os.Exit(pointLookupMain(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
}

// pointStmt is one timed statement: its SQL and the arguments of the
// i-th execution.
type pointStmt struct {
	name string
	sql  string
	args func(i int) []any
	// rows is the number of rows each execution must return (-1: a
	// command, no rows).
	rows int
}

// pointTable is the table the mode creates on both servers.
const pointTable = "bench_point"

// pointStmts are the statements timed, over a table of rows rows; the
// keys come from rng and the inserted ids follow next.
func pointStmts(rows int, rng *rand.Rand, next int64) []pointStmt {
	id := func(int) []any { return []any{int64(rng.Intn(rows) + 1)} }
	return []pointStmt{
		{"lookup by id", "SELECT id, task FROM " + pointTable + " WHERE id = $1", id, 1},
		{"lookup by path", "SELECT id, task FROM " + pointTable + " WHERE path = $1",
			func(int) []any { return []any{fmt.Sprintf("/hivemind/sessions/%d", rng.Intn(rows)+1)} }, 1},
		{"update by id", "UPDATE " + pointTable + " SET task = $2 WHERE id = $1",
			func(i int) []any { return []any{int64(rng.Intn(rows) + 1), fmt.Sprintf("updated %d", i)} }, -1},
		{"insert one row", "INSERT INTO " + pointTable + " (id, path, task) VALUES ($1, $2, $3)",
			func(i int) []any {
				next++
				return []any{next, fmt.Sprintf("/hivemind/new/%d", next), "a new memory"}
			}, -1},
	}
}

func pointLookupMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cairn-bench --point-lookup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("point-lookup", true, "time small statements (this mode)")
	addr := fs.String("addr", "127.0.0.1:5432", "cairn's host:port")
	pgAddr := fs.String("pg-addr", "", "PostgreSQL's host:port (empty: cairn only)")
	rows := fs.Int("rows", 100000, "rows in the table")
	n := fs.Int("n", 2000, "timed executions per statement, server and round")
	warmup := fs.Int("warmup", 200, "untimed executions before each timed run")
	rounds := fs.Int("rounds", 3, "rounds, the servers taking turns (medians are reported)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *rows < 1 || *n < 1 || *warmup < 0 || *rounds < 1 {
		fmt.Fprintln(stderr, "cairn-bench --point-lookup: --rows, --n and --rounds must be positive")
		return 2
	}
	ctx := context.Background()
	servers := []struct{ name, addr string }{{"cairn", *addr}}
	if *pgAddr != "" {
		servers = append(servers, struct{ name, addr string }{"postgres", *pgAddr})
	}
	conns := make([]*pgx.Conn, len(servers))
	for i, s := range servers {
		c, err := pgx.Connect(ctx, dsnFor(s.addr))
		if err != nil {
			fmt.Fprintf(stderr, "cairn-bench: %s: %v\n", s.name, err)
			return 1
		}
		defer c.Close(ctx)
		conns[i] = c
		t0 := time.Now()
		if err := loadPointTable(ctx, c, *rows); err != nil {
			fmt.Fprintf(stderr, "cairn-bench: loading %s: %v\n", s.name, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d rows loaded in %.2f s\n", s.name, *rows, time.Since(t0).Seconds())
	}
	fmt.Fprintf(stdout, "point lookups: %s, %s\n%d rounds, %d timed executions per statement, server and round after %d warm-up; one connection, prepared\n\n",
		machine(), today(), *rounds, *n, *warmup)

	names := []string{}
	// p50s[stmt][server] and p99s hold one figure per round.
	p50s := map[string][][]time.Duration{}
	p99s := map[string][][]time.Duration{}
	for r := 0; r < *rounds; r++ {
		for si := range servers {
			// The same statements and keys on every server; each round
			// inserts ids after the last round's.
			stmts := pointStmts(*rows, rand.New(rand.NewSource(int64(r))), int64(*rows+r*(*n+*warmup)))
			for _, st := range stmts {
				lat, err := timeStmt(ctx, conns[si], st, *warmup, *n)
				if err != nil {
					fmt.Fprintf(stderr, "cairn-bench: %s: %s: %v\n", servers[si].name, st.name, err)
					return 1
				}
				if p50s[st.name] == nil {
					names = append(names, st.name)
					p50s[st.name] = make([][]time.Duration, len(servers))
					p99s[st.name] = make([][]time.Duration, len(servers))
				}
				p50s[st.name][si] = append(p50s[st.name][si], percentile(lat, 50))
				p99s[st.name][si] = append(p99s[st.name][si], percentile(lat, 99))
			}
		}
	}
	fmt.Fprintf(stdout, "%-16s", "statement")
	for _, s := range servers {
		fmt.Fprintf(stdout, " %14s %14s", s.name+" p50", s.name+" p99")
	}
	if len(servers) == 2 {
		fmt.Fprintf(stdout, " %12s %12s", "p50 ratio", "p99 ratio")
	}
	fmt.Fprintln(stdout)
	for _, name := range names {
		fmt.Fprintf(stdout, "%-16s", name)
		var m50, m99 []float64
		for si := range servers {
			a, b := medianDuration(p50s[name][si]), medianDuration(p99s[name][si])
			m50, m99 = append(m50, ms(a)), append(m99, ms(b))
			fmt.Fprintf(stdout, " %11.3f ms %11.3f ms", ms(a), ms(b))
		}
		if len(servers) == 2 {
			fmt.Fprintf(stdout, " %11.2fx %11.2fx", m50[0]/m50[1], m99[0]/m99[1])
		}
		fmt.Fprintln(stdout)
	}
	if len(servers) == 2 {
		fmt.Fprintln(stdout, "\nratio: cairn / PostgreSQL (below 1: cairn is faster)")
	}
	return 0
}

// loadPointTable (re)creates the table with rows rows.
func loadPointTable(ctx context.Context, c *pgx.Conn, rows int) error {
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + pointTable,
		"CREATE TABLE " + pointTable + " (id bigint PRIMARY KEY, path text UNIQUE, task text)",
		fmt.Sprintf("INSERT INTO %s SELECT g, '/hivemind/sessions/' || g, 'remember task ' || g || ' of the agent' FROM generate_series(1, %d) g",
			pointTable, rows),
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// timeStmt runs st warmup times, then n times, and returns the sorted
// latencies of the n; a wrong row count is an error.
func timeStmt(ctx context.Context, c *pgx.Conn, st pointStmt, warmup, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for i := 0; i < warmup+n; i++ {
		args := st.args(i)
		t0 := time.Now()
		got := 0
		if st.rows < 0 {
			if _, err := c.Exec(ctx, st.sql, args...); err != nil {
				return nil, err
			}
		} else {
			r, err := c.Query(ctx, st.sql, args...)
			if err != nil {
				return nil, err
			}
			for r.Next() {
				got++
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
		}
		d := time.Since(t0)
		if st.rows >= 0 && got != st.rows {
			return nil, fmt.Errorf("%d rows, want %d (arguments %v)", got, st.rows, args)
		}
		if i >= warmup {
			lat = append(lat, d)
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	return lat, nil
}

// medianDuration is the median of ds.
func medianDuration(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}
