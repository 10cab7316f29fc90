package storage

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// embeddingDB is a database holding benchRows rows of embeddingTable in
// segments (checkpointed, so the cache was warmed by the flush).
func embeddingDB(b *testing.B, opts Options) (*DB, *catalog.TableDef) {
	rng := rand.New(rand.NewSource(1))
	opts.FlushRows, opts.WALCheckpointBytes = 1<<30, 1<<40
	db := openDB(b, b.TempDir(), opts)
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
	return db, def
}

func drainRows(b *testing.B, r array.RecordReader) int {
	rows := 0
	for r.Next() {
		rows += int(r.Record().NumRows())
	}
	if r.Err() != nil {
		b.Fatal(r.Err())
	}
	r.Release()
	return rows
}

// BenchmarkScanCached scans (id, embedding) of 100k rows x 384-d whose
// row groups are in the column cache: what a warm exact vector search
// pays for its input. Reported as rows/s.
func BenchmarkScanCached(b *testing.B) {
	for _, deleted := range []int{0, 100} {
		b.Run(fmt.Sprintf("deleted=%d", deleted), func(b *testing.B) {
			db, def := embeddingDB(b, Options{})
			defer closeUntimed(b, db)
			if deleted > 0 {
				tx := db.Begin()
				var ids []int64
				for i := 0; i < deleted; i++ {
					ids = append(ids, int64(1+i*benchRows/deleted))
				}
				tx.Delete(def.ID, ids)
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				tx := db.Begin()
				r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, false)
				if err != nil {
					b.Fatal(err)
				}
				if n := drainRows(b, r); n != benchRows-deleted {
					b.Fatalf("%d rows", n)
				}
				tx.Rollback()
			}
			b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
			st := db.CacheStats()
			b.ReportMetric(float64(st.Bytes)/(1<<20), "cacheMB")
		})
	}
}

// BenchmarkScanTail scans (id, embedding) of 100k rows x 384-d still in
// the in-memory tail, committed 1000 rows at a time.
func BenchmarkScanTail(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40})
	defer closeUntimed(b, db)
	def := embeddingTable(b, db)
	for i := 0; i < benchRows; i += 1000 {
		tx := db.Begin()
		tx.Insert(def.ID, embeddingRecord(def, i, 1000, rng))
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		tx := db.Begin()
		r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, false)
		if err != nil {
			b.Fatal(err)
		}
		if n := drainRows(b, r); n != benchRows {
			b.Fatalf("%d rows", n)
		}
		tx.Rollback()
	}
	b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkScanPartitionsCached reads the same table as two partitions
// on two goroutines.
func BenchmarkScanPartitionsCached(b *testing.B) {
	db, def := embeddingDB(b, Options{})
	defer closeUntimed(b, db)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		tx := db.Begin()
		rs, err := tx.ScanPartitions(context.Background(), def.ID, []int{0, 2}, false, 2)
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for _, r := range rs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := drainRows(b, r)
				mu.Lock()
				total += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if total != benchRows {
			b.Fatalf("%d rows", total)
		}
		tx.Rollback()
	}
	b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
}

// memoryTexts returns n short agent-memory-like texts: 8 to 20 words
// drawn from a Zipf distribution over a 5000-word vocabulary.
func memoryTexts(n int) []string {
	rng := rand.New(rand.NewSource(5))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	copy(vocab, strings.Fields("the agent user memory prefers dark mode search vector cache deploy token error test"))
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	out := make([]string, n)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		for k := 8 + rng.Intn(13); k > 0; k-- {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[z.Uint64()])
		}
		out[i] = sb.String()
	}
	return out
}

// textDB is a database holding n memoryTexts in segments (and tail rows
// in the tail) of (id bigint, body text).
func textDB(b *testing.B, n, tail int) (*DB, *catalog.TableDef) {
	db := openDB(b, b.TempDir(), Options{FlushRows: 1 << 30, WALCheckpointBytes: 1 << 40})
	def := createTable(b, db, "notes", []catalog.ColumnDef{col("id", types.Int8T), col("body", types.TextT)})
	texts := memoryTexts(n + tail)
	add := func(from, to int) {
		schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "body", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer rb.Release()
		for i := from; i < to; i++ {
			rb.Field(0).(*array.Int64Builder).Append(int64(i))
			rb.Field(1).(*array.StringBuilder).Append(texts[i])
		}
		rec := rb.NewRecord()
		tx := db.Begin()
		if err := tx.Insert(def.ID, rec); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	add(0, n)
	if err := db.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	if tail > 0 {
		add(n, n+tail)
	}
	return db, def
}

// BenchmarkTextSearch finds the rows of 100k short texts holding any of
// two query terms (one common, one rarer) with their term frequencies,
// lengths and the corpus statistics: what BM25 top-k needs.
func BenchmarkTextSearch(b *testing.B) {
	for _, tail := range []int{0, 5000} {
		b.Run(fmt.Sprintf("tail=%d", tail), func(b *testing.B) {
			db, def := textDB(b, benchRows, tail)
			defer closeUntimed(b, db)
			terms := []string{"memory", "w250"}
			tx := db.Begin()
			m, err := tx.TextSearch(context.Background(), def.ID, 1, terms) // warm: loads indexes
			if err != nil {
				b.Fatal(err)
			}
			tx.Rollback()
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				tx := db.Begin()
				if m, err = tx.TextSearch(context.Background(), def.ID, 1, terms); err != nil {
					b.Fatal(err)
				}
				tx.Rollback()
			}
			b.StopTimer()
			b.ReportMetric(float64(m.Len()), "matches")
			b.ReportMetric(float64(textIndexBytes(db, def.ID))/(1<<20), "indexMB")
			b.ReportMetric(float64(m.Docs), "docs")
		})
	}
}

// BenchmarkTextStats is TextStats for a three-term query over 100k texts.
func BenchmarkTextStats(b *testing.B) {
	db, def := textDB(b, benchRows, 1000)
	defer closeUntimed(b, db)
	tx := db.Begin()
	// A deletion state the units compute once.
	tx.Delete(def.ID, []int64{5, 500, 50_000})
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	terms := []string{"memory", "w250", "absent"}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		tx := db.Begin()
		if _, _, _, err := tx.TextStats(def.ID, 1, terms); err != nil {
			b.Fatal(err)
		}
		tx.Rollback()
	}
}

// BenchmarkFetchRows fetches 10 scattered rows (id, embedding) of 100k
// through the column cache: the second step of a hybrid search.
func BenchmarkFetchRows(b *testing.B) {
	db, def := embeddingDB(b, Options{})
	defer closeUntimed(b, db)
	rng := rand.New(rand.NewSource(9))
	ids := make([]int64, 10)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for i := range ids {
			ids[i] = rng.Int63n(benchRows)
		}
		tx := db.Begin()
		rec, err := tx.FetchRows(context.Background(), def.ID, []int{0, 2}, ids)
		if err != nil {
			b.Fatal(err)
		}
		if rec.NumRows() != 10 {
			b.Fatalf("%d rows", rec.NumRows())
		}
		rec.Release()
		tx.Rollback()
	}
}

// textIndexBytes is the memory of the text indexes loaded for table id.
func textIndexBytes(db *DB, id uint64) int64 {
	var n int64
	ts := db.published.Load().tables[id]
	units := []*textUnit{}
	for _, s := range ts.segments {
		s.x.mu.Lock()
		if s.x.text != nil {
			units = append(units, s.x.text)
		}
		s.x.mu.Unlock()
	}
	for _, b := range ts.tail {
		units = append(units, b.textUnit())
	}
	for _, u := range units {
		u.mu.Lock()
		for _, ix := range u.cols {
			if ix != nil {
				n += ix.Bytes()
			}
		}
		u.mu.Unlock()
		n += int64(len(u.pos.ids))*8 + int64(len(u.pos.perm))*4
	}
	return n
}

// closeUntimed closes db outside the benchmark's timing.
func closeUntimed(b *testing.B, db *DB) {
	b.StopTimer()
	db.Close()
}
