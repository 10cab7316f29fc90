// Command cairn-bench is cairn's load generator: it drives a running
// server over the PostgreSQL wire protocol with a deterministic
// agent-memory dataset and prints throughput and latency figures.
//
//	go run ./cmd/cairn-bench --addr 127.0.0.1:5432 --rows 100000 --dim 384
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5432", "server host:port")
	rows := flag.Int("rows", 100000, "rows to load")
	dim := flag.Int("dim", 384, "embedding dimensions")
	perStmt := flag.Int("rows-per-insert", 500, "rows per multi-row INSERT")
	perBatch := flag.Int("inserts-per-batch", 4, "INSERT statements per pgx batch")
	scans := flag.Int("scans", 5, "full scans to time")
	table := flag.String("table", "bench_memory", "table to (re)create")
	flag.Parse()
	if err := run(*addr, *table, *rows, *dim, *perStmt, *perBatch, *scans); err != nil {
		fmt.Fprintln(os.Stderr, "cairn-bench:", err)
		os.Exit(1)
	}
}

// dataset makes the deterministic rows: tasks from a debugging vocabulary,
// JSONB metadata and unit-normalised clustered embeddings (fixed seed).
type dataset struct {
	rng     *rand.Rand
	dim     int
	centers [][]float32
}

var vocabulary = strings.Fields("fix crash oom memory leak timeout retry parquet csv etl pipeline " +
	"deadlock race null pointer panic index query slow cache miss auth token expired flaky test " +
	"docker build dependency upgrade migration schema rollback latency spike disk full")

var repos = []string{"data-pipeline", "api-gateway", "web-frontend", "ml-training", "billing"}

func newDataset(dim int) *dataset {
	d := &dataset{rng: rand.New(rand.NewSource(42)), dim: dim}
	for c := 0; c < 32; c++ {
		d.centers = append(d.centers, d.unit(nil, 1))
	}
	return d
}

// unit returns a unit vector: around center (with noise) or random.
func (d *dataset) unit(center []float32, noise float64) []float32 {
	v := make([]float32, d.dim)
	var norm float64
	for i := range v {
		x := d.rng.NormFloat64() * noise
		if center != nil {
			x += float64(center[i])
		}
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}

func (d *dataset) row() (task, meta string, emb []float32) {
	words := make([]string, 6)
	for i := range words {
		words[i] = vocabulary[d.rng.Intn(len(vocabulary))]
	}
	c := d.rng.Intn(len(d.centers))
	meta = fmt.Sprintf(`{"repo": %q, "memory_type": %q}`, repos[c%len(repos)], []string{"episodic", "semantic", "procedural"}[c%3])
	return strings.Join(words, " "), meta, d.unit(d.centers[c], 0.05)
}

func run(addr, table string, rows, dim, perStmt, perBatch, scans int) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://cairn@"+addr+"/cairn?sslmode=disable")
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id bigserial PRIMARY KEY, task text, metadata jsonb, embedding float4[])"); err != nil {
		return err
	}
	d := newDataset(dim)
	var sb strings.Builder
	sb.WriteString("INSERT INTO " + table + " (task, metadata, embedding) VALUES ")
	for i := 0; i < perStmt; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "($%d, $%d::jsonb, $%d)", 3*i+1, 3*i+2, 3*i+3)
	}
	insert := sb.String()

	start := time.Now()
	loaded := 0
	for loaded < rows {
		b := &pgx.Batch{}
		for s := 0; s < perBatch && loaded < rows; s++ {
			n := min(perStmt, rows-loaded)
			args := make([]any, 0, 3*perStmt)
			for i := 0; i < n; i++ {
				task, meta, emb := d.row()
				args = append(args, task, meta, emb)
			}
			if n == perStmt {
				b.Queue(insert, args...)
			} else {
				b.Queue(insert[:strings.Index(insert, fmt.Sprintf(", ($%d,", 3*n+1))], args...)
			}
			loaded += n
		}
		if err := conn.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
	}
	insertDur := time.Since(start)
	fmt.Printf("insert: %d rows x %d-d in %.2fs = %.0f rows/s\n", rows, dim, insertDur.Seconds(), float64(rows)/insertDur.Seconds())

	var durs []time.Duration
	for s := 0; s < scans; s++ {
		start := time.Now()
		r, err := conn.Query(ctx, "SELECT id, task, metadata, embedding FROM "+table)
		if err != nil {
			return err
		}
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil {
			return err
		}
		if n != rows {
			return fmt.Errorf("scan returned %d rows, want %d", n, rows)
		}
		durs = append(durs, time.Since(start))
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	med := durs[len(durs)/2]
	fmt.Printf("full scan over the wire (binary, all columns): median %.3fs of %d = %.0f rows/s\n", med.Seconds(), scans, float64(rows)/med.Seconds())

	durs = durs[:0]
	for s := 0; s < scans; s++ {
		start := time.Now()
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE embedding IS NOT NULL").Scan(&n); err != nil {
			return err
		}
		durs = append(durs, time.Since(start))
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	med = durs[len(durs)/2]
	fmt.Printf("server-side scan (count over embedding column): median %.3fs = %.0f rows/s\n", med.Seconds(), float64(rows)/med.Seconds())
	return nil
}
