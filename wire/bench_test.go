package wire

import (
	"context"
	"encoding/binary"
	"fmt"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// benchRows is the size of the table the small-query benchmarks read.
const benchRows = 10000

// startBenchTable starts a server with table t (id bigint primary key,
// path text unique, task text) of benchRows rows and returns a
// connection to it.
func startBenchTable(b *testing.B) *pgconn.PgConn {
	ts := startServer(b)
	c := ts.connect(b)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE t (id bigint PRIMARY KEY, path text UNIQUE, task text)",
		fmt.Sprintf("INSERT INTO t SELECT g, '/sessions/' || g, 'task number ' || g FROM generate_series(1, %d) g", benchRows),
	} {
		if err := c.Exec(ctx, q).Close(); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	return c
}

// BenchmarkSmallQuery times small statements over a real socket, the
// way a driver sends them: prepared (Bind, Execute, Sync with binary
// parameters and results) and in the simple protocol.
func BenchmarkSmallQuery(b *testing.B) {
	c := startBenchTable(b)
	ctx := context.Background()
	for name, q := range map[string]string{
		"by_id":   "SELECT id, task FROM t WHERE id = $1",
		"by_path": "SELECT id, task FROM t WHERE path = $1",
		"upd":     "UPDATE t SET task = task WHERE id = $1",
		"ins":     "INSERT INTO t (id, path, task) VALUES ($1, NULL, 'new')",
	} {
		if _, err := c.Prepare(ctx, name, q, nil); err != nil {
			b.Fatal(err)
		}
	}
	bin := []int16{1}
	run := func(b *testing.B, name string, param func(i int) []byte, wantRows int) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			res := c.ExecPrepared(ctx, name, [][]byte{param(i)}, bin, bin).Read()
			if res.Err != nil {
				b.Fatal(res.Err)
			}
			if len(res.Rows) != wantRows {
				b.Fatalf("%d rows, want %d", len(res.Rows), wantRows)
			}
		}
	}
	id := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i%benchRows+1)) }
	b.Run("prepared-by-id", func(b *testing.B) {
		run(b, "by_id", id, 1)
	})
	b.Run("prepared-by-path", func(b *testing.B) {
		run(b, "by_path", func(i int) []byte { return fmt.Appendf(nil, "/sessions/%d", i%benchRows+1) }, 1)
	})
	b.Run("prepared-update", func(b *testing.B) {
		run(b, "upd", id, 0)
	})
	next := uint64(benchRows) // ids inserted so far, across the runs of the sub-benchmark
	b.Run("prepared-insert", func(b *testing.B) {
		run(b, "ins", func(int) []byte { next++; return binary.BigEndian.AppendUint64(nil, next) }, 0)
	})
	b.Run("simple-by-id", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			res, err := c.Exec(ctx, fmt.Sprintf("SELECT id, task FROM t WHERE id = %d", i%benchRows+1)).ReadAll()
			if err != nil {
				b.Fatal(err)
			}
			if len(res) != 1 || len(res[0].Rows) != 1 {
				b.Fatalf("unexpected result %v", res)
			}
		}
	})
}

// reportCPU starts measuring the CPU time (user and system, all threads)
// the process spends; the function it returns reports it per operation
// as cpu-ns/op. On a shared machine it moves less than the wall-clock
// ns/op, which counts the time other processes held the cores.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// processCPU is the CPU time the process has used, in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
