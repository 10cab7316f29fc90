package storage

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

const benchRows = 100_000

// BenchmarkInsert commits 100k rows of (id, text, 384-d embedding) in
// transactions of 1000 rows: WAL encoding, write and fsync, unique key
// checks. Reported as rows/s.
func BenchmarkInsert(b *testing.B) {
	const batch = 1000
	rng := rand.New(rand.NewSource(1))
	db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40})
	defer db.Close()
	def := embeddingTable(b, db)
	recs := make([]arrow.Record, benchRows/batch)
	b.ResetTimer()
	b.StopTimer()
	for it := 0; it < b.N; it++ {
		for i := range recs {
			recs[i] = embeddingRecord(def, it*benchRows+i*batch, batch, rng)
		}
		b.StartTimer()
		for _, rec := range recs {
			tx := db.Begin()
			if err := tx.Insert(def.ID, rec); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		// Keep memory bounded between iterations.
		tx := db.Begin()
		tx.Truncate(def.ID)
		tx.Commit()
	}
	b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFlush writes 100k rows of 384-d embeddings from the tail to a
// Parquet segment.
func BenchmarkFlush(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40})
	defer db.Close()
	def := embeddingTable(b, db)
	var elapsed time.Duration
	for it := 0; it < b.N; it++ {
		tx := db.Begin()
		tx.Truncate(def.ID)
		for i := 0; i < benchRows; i += 10_000 {
			tx.Insert(def.ID, embeddingRecord(def, i, 10_000, rng))
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := db.flushTable(def.ID, true); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
	}
	b.ReportMetric(float64(b.N*benchRows)/elapsed.Seconds(), "rows/s")
}

// BenchmarkScan scans 100k rows of (id, embedding) from Parquet segments,
// decoding them every time (no column cache; BenchmarkScanCached is the
// warm case), reported as rows/s.
func BenchmarkScan(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	dir := b.TempDir()
	db := openDB(b, dir, Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40, CacheBytes: -1})
	def := embeddingTable(b, db)
	tx := db.Begin()
	for i := 0; i < benchRows; i += 10_000 {
		tx.Insert(def.ID, embeddingRecord(def, i, 10_000, rng))
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if err := db.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var floats int
	for it := 0; it < b.N; it++ {
		tx := db.Begin()
		r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, false)
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rows += int(r.Record().NumRows())
			floats += r.Record().Column(1).(*array.List).ListValues().Len()
		}
		if r.Err() != nil || rows != benchRows {
			b.Fatalf("%d rows, %v", rows, r.Err())
		}
		r.Release()
		tx.Rollback()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
	b.SetBytes(int64(benchRows * embedDim * 4))
	db.Close()
}
