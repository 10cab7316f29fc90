package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// options are the command-line flags.
type options struct {
	addr     string
	table    string
	rows     int
	dim      int
	perStmt  int
	perBatch int
	scans    int
	load     bool
	queries  string
	clients  []int
	n        int
	warmup   int
	timeout  time.Duration
	verify   bool
	explain  bool
	jsonPath string
}

func main() {
	var o options
	var vi viOptions
	var tg tgOptions
	var clients, copyDir string
	vi.register(flag.CommandLine)
	tg.register(flag.CommandLine)
	flag.StringVar(&o.addr, "addr", "127.0.0.1:5432", "server host:port")
	flag.StringVar(&o.table, "table", "bench_memory", "table to (re)create, or to reuse with --load=false")
	flag.IntVar(&o.rows, "rows", 100000, "rows to load")
	flag.IntVar(&o.dim, "dim", 384, "embedding dimensions (must match the table with --load=false)")
	flag.IntVar(&o.perStmt, "rows-per-insert", 500, "rows per multi-row INSERT")
	flag.IntVar(&o.perBatch, "inserts-per-batch", 4, "INSERT statements per pgx batch")
	flag.IntVar(&o.scans, "scans", 5, "full scans to time (0: none)")
	flag.BoolVar(&o.load, "load", true, "drop, create and load the table; false reuses the existing one")
	flag.StringVar(&o.queries, "queries", "all", "comma-separated queries to run: "+queryNames()+"; all or none")
	flag.StringVar(&clients, "clients", "1,4", "comma-separated numbers of concurrent clients")
	flag.IntVar(&o.n, "n", 100, "timed executions per query and client count (after the warm-up)")
	flag.IntVar(&o.warmup, "warmup", 10, "untimed warm-up executions per client before each timed run")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "give up on a query execution after this long (counted as an error; 0: never)")
	flag.BoolVar(&o.verify, "verify", true, "check cosine results against the exact top-10 computed by the client (keeps the embeddings in memory)")
	flag.BoolVar(&o.explain, "explain", true, "print the server's EXPLAIN ANALYZE of each query once")
	flag.StringVar(&o.jsonPath, "json", "", "also write the results as JSON to this file")
	flag.StringVar(&copyDir, "copy-files", "", "write --rows rows of --dim embeddings as COPY data in CSV, text and binary (copy.csv, copy.txt, copy.bin) into this directory and exit")
	flag.Parse()
	var err error
	if o.clients, err = parseInts(clients); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-bench: --clients:", err)
		os.Exit(2)
	}
	if o.n < 1 || o.warmup < 0 || o.rows < 1 || o.dim < 1 {
		fmt.Fprintln(os.Stderr, "cairn-bench: --n, --rows and --dim must be positive and --warmup not negative")
		os.Exit(2)
	}
	if copyDir != "" {
		if err := writeCopyFiles(copyDir, o.rows, o.dim); err != nil {
			fmt.Fprintln(os.Stderr, "cairn-bench:", err)
			os.Exit(1)
		}
		return
	}
	if tg.enabled {
		if err := runTrigram(context.Background(), o.addr, vi.pgAddr, vi.cairnPID, vi.pgPID, &tg); err != nil {
			fmt.Fprintln(os.Stderr, "cairn-bench:", err)
			os.Exit(1)
		}
		return
	}
	if vi.enabled {
		if err := runVectorIndex(context.Background(), o.addr, o.warmup, o.explain, &vi); err != nil {
			fmt.Fprintln(os.Stderr, "cairn-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), &o); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-bench:", err)
		os.Exit(1)
	}
}

// errWrong is returned when a query failed or answered wrongly.
var errWrong = errors.New("some queries failed or answered wrongly (see the table)")

// run loads (or reuses) the table, prints the load figures and runs the
// query mix.
func run(ctx context.Context, o *options) error {
	specs, err := selectQueries(o.queries)
	if err != nil {
		return err
	}
	dsn := dsnFor(o.addr)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)

	rep := &report{Date: today(), Machine: machine(), Addr: o.addr, Table: o.table, Loaded: o.load,
		Warmup: o.warmup, Verify: o.verify}
	rep.Load.Dim = o.dim
	var ref *reference
	if o.load {
		rep.Load.Rows = o.rows
		if err := load(ctx, conn, o.table, o.rows, o.dim, o.perStmt, o.perBatch, &rep.Load); err != nil {
			return err
		}
		if err := scanFigures(ctx, conn, o.table, o.rows, o.scans, &rep.Load); err != nil {
			return err
		}
	}
	if len(specs) > 0 || !o.load {
		if ref, err = readReference(ctx, conn, o.table, o.dim, o.verify); err != nil {
			return fmt.Errorf("reading the table for reference: %w", err)
		}
		if o.load && ref.rows() != o.rows {
			return fmt.Errorf("the table has %d rows after loading %d", ref.rows(), o.rows)
		}
	}
	if !o.load {
		rep.Load.Rows = ref.rows()
		fmt.Printf("reusing %s: %d rows x %d-d\n", o.table, ref.rows(), o.dim)
		if err := scanFigures(ctx, conn, o.table, ref.rows(), o.scans, &rep.Load); err != nil {
			return err
		}
	}
	if len(specs) > 0 {
		rep.Results, rep.Explain, err = runMix(ctx, dsn, o.table, specs, o.clients, o.n, o.warmup, o.timeout,
			newParamGen(o.dim, ref.ids), newChecker(ref), o.explain)
		if err != nil {
			return err
		}
		fmt.Printf("\nquery mix on %d rows: %d timed executions per line after %d warm-up per client; latency per query, qps of all clients together\n",
			ref.rows(), o.n, o.warmup)
		printTable(os.Stdout, rep.Results)
	}
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, rep); err != nil {
			return err
		}
	}
	for _, r := range rep.Results {
		if !r.ok() {
			return errWrong
		}
	}
	return nil
}

// parseInts parses a comma-separated list of positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// queryNames lists the query names, comma-separated.
func queryNames() string {
	var names []string
	for _, q := range queries {
		names = append(names, q.name)
	}
	return strings.Join(names, ",")
}

// pgxConnect connects to the server at addr as user cairn.
func pgxConnect(ctx context.Context, addr string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, dsnFor(addr))
}

// dsnFor is the connection URL for the server at addr.
func dsnFor(addr string) string { return "postgres://cairn@" + addr + "/cairn?sslmode=disable" }
