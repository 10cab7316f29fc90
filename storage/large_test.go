package storage

import (
	"context"
	"math/rand"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

const embedDim = 384

// embeddingTable is (id bigint primary key, body text, embedding float4[]).
func embeddingTable(t testing.TB, db *DB) *catalog.TableDef {
	return createTable(t, db, "memories", []catalog.ColumnDef{
		col("id", types.Int8T), col("body", types.TextT), col("embedding", types.Float4ArrayT)}, 0)
}

// embeddingRecord builds rows [from, from+n) with deterministic vectors.
func embeddingRecord(def *catalog.TableDef, from, n int, rng *rand.Rand) arrow.Record {
	fields := make([]arrow.Field, len(def.Columns))
	for i, c := range def.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	ids := b.Field(0).(*array.Int64Builder)
	body := b.Field(1).(*array.StringBuilder)
	lb := b.Field(2).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	vb.Reserve(n * embedDim)
	vec := make([]float32, embedDim)
	for i := 0; i < n; i++ {
		ids.Append(int64(from + i))
		body.Append("agent memory")
		for k := range vec {
			vec[k] = rng.Float32()
		}
		lb.Append(true)
		vb.AppendValues(vec, nil)
	}
	return b.NewRecord()
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestLargeEmbeddingsStreaming inserts 200k rows of 384-d embeddings
// (about 300 MB of floats), reopens the database and scans it: batches are
// row groups, and the heap stays far below the table's size.
func TestLargeEmbeddingsStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("large test")
	}
	const total, batch = 200_000, 10_000
	dir := t.TempDir()
	// A column cache far smaller than the table: it must not make the
	// scan hold the table.
	defer func(m bool) { mergeSpills = m }(mergeSpills)
	mergeSpills = false // the spilled segments stay as they are
	opts := Options{CacheBytes: 16 << 20}
	db := openDB(t, dir, opts)
	def := embeddingTable(t, db)
	rng := rand.New(rand.NewSource(1))
	var checksum float64
	for from := 0; from < total; from += batch {
		rec := embeddingRecord(def, from, batch, rng)
		for _, v := range rec.Column(2).(*array.List).ListValues().(*array.Float32).Float32Values() {
			checksum += float64(v)
		}
		tx := db.Begin()
		if err := tx.Insert(def.ID, rec); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, tx)
		rec.Release()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	db = openDB(t, dir, opts)
	defer db.Close()
	runtime.GC()
	base := heapInUse()

	tx := db.Begin()
	defer tx.Rollback()
	r, err := tx.Scan(context.Background(), def.ID, []int{0, 2}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	rows, batches, maxBatch := 0, 0, 0
	var peak uint64
	var sum float64
	seen := make([]bool, total)
	for r.Next() {
		rec := r.Record()
		n := int(rec.NumRows())
		rows += n
		batches++
		maxBatch = max(maxBatch, n)
		ids := rec.Column(0).(*array.Int64).Int64Values()
		for _, id := range ids {
			seen[id] = true
		}
		emb := rec.Column(1).(*array.List)
		if emb.Len() != n || emb.NullN() != 0 {
			t.Fatalf("embedding column: %d rows, %d nulls", emb.Len(), emb.NullN())
		}
		vals := emb.ListValues().(*array.Float32).Float32Values()
		if len(vals) != n*embedDim {
			t.Fatalf("%d floats for %d rows", len(vals), n)
		}
		for _, v := range vals {
			sum += float64(v)
		}
		if batches%4 == 0 {
			peak = max(peak, heapInUse())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != total {
		t.Fatalf("scanned %d rows", rows)
	}
	for id, ok := range seen {
		if !ok {
			t.Fatalf("row %d missing", id)
		}
	}
	if sum != checksum {
		t.Fatalf("float checksum %v, want %v", sum, checksum)
	}
	if maxBatch > segmentMaxGroupRows {
		t.Fatalf("batch of %d rows", maxBatch)
	}
	tableBytes := uint64(total * embedDim * 4)
	growth := int64(peak) - int64(base)
	t.Logf("%d batches, largest %d rows; heap %d MB above base during scan (table %d MB)",
		batches, maxBatch, growth>>20, tableBytes>>20)
	if growth > int64(tableBytes/2) {
		t.Fatalf("scan heap grew by %d MB: not streaming", growth>>20)
	}
}
