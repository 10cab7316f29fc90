package storage

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
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

// BenchmarkInsertKeys inserts 200k rows (bigint primary key, integer) in
// records of 2048 rows, as COPY does, in one transaction and commits it:
// the unique key checks, key locks and the commit's re-check, with the
// rows held in memory or spilled to segments. Reported as rows/s.
func BenchmarkInsertKeys(b *testing.B) {
	const rows, batch = 200_000, 2048
	for _, spill := range []int64{0, 1 << 20} {
		b.Run(map[int64]string{0: "memory", 1 << 20: "spilled"}[spill], func(b *testing.B) {
			db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40, SpillBytes: spill})
			defer db.Close()
			def := createTable(b, db, "k", []catalog.ColumnDef{col("id", types.Int8T), col("v", types.Int4T)}, 0)
			var recs []arrow.Record
			for from := 0; from < rows; from += batch {
				ib, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt32Builder(memory.DefaultAllocator)
				for i := from; i < min(from+batch, rows); i++ {
					ib.Append(int64(i))
					vb.Append(int32(i))
				}
				schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil)
				recs = append(recs, array.NewRecord(schema, []arrow.Array{ib.NewArray(), vb.NewArray()}, int64(min(batch, rows-from))))
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				tx := db.Begin()
				tx.Truncate(def.ID)
				mustCommit(b, tx)
				b.StartTimer()
				tx = db.Begin()
				for _, rec := range recs {
					if err := tx.Insert(def.ID, rec); err != nil {
						b.Fatal(err)
					}
				}
				mustCommit(b, tx)
			}
			b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
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

// BenchmarkDeleteCommit commits transactions that each delete one row of
// a table of 4M rows of which a fifth are already deleted (an
// UPDATE-heavy table): the commit's cost must not grow with the deleted
// set, which states share. Reported per commit (WAL fsync included).
func BenchmarkDeleteCommit(b *testing.B) {
	const rows, batch = 1 << 22, 1 << 16
	// The rows stay in memory: no flush, spill or compaction runs
	// beside the commits.
	db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40, SpillBytes: 1 << 40})
	defer db.Close()
	def := createTable(b, db, "updated", []catalog.ColumnDef{col("id", types.Int8T)})
	tx := db.Begin()
	for from := 0; from < rows; from += batch {
		ib := array.NewInt64Builder(memory.DefaultAllocator)
		for i := range batch {
			ib.Append(int64(from + i))
		}
		rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil),
			[]arrow.Array{ib.NewArray()}, batch)
		if err := tx.Insert(def.ID, rec); err != nil {
			b.Fatal(err)
		}
	}
	mustCommit(b, tx)
	// Row IDs 1..rows, shuffled: the first fifth deleted up front, the
	// rest one a commit.
	ids := rand.New(rand.NewSource(1)).Perm(rows)
	tx = db.Begin()
	del := make([]int64, rows/5)
	for i := range del {
		del[i] = int64(ids[i] + 1)
	}
	if err := tx.Delete(def.ID, del); err != nil {
		b.Fatal(err)
	}
	mustCommit(b, tx)
	next := rows / 5
	b.ResetTimer()
	for range b.N {
		if next == rows {
			b.Fatal("every row deleted")
		}
		tx := db.Begin()
		if err := tx.Delete(def.ID, []int64{int64(ids[next] + 1)}); err != nil {
			b.Fatal(err)
		}
		mustCommit(b, tx)
		next++
	}
}
