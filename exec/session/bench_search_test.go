package session

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/storage"
)

// BenchmarkVectorTopK times a top-10 cosine search through a session
// (parse, plan, execute) over benchRows flushed rows of 384-d vectors:
// exact, without an index (whose floor is one pass over the vectors at
// the memory bandwidth), and through an hnsw index. Its profile shows
// where a search's time goes:
//
//	go test ./exec/session -run '^$' -bench VectorTopK -cpuprofile cpu.out
func BenchmarkVectorTopK(b *testing.B) {
	const benchRows, dim = 100000, 384
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := NewEngine(db, Options{}).NewSession("bench", "bench")
	benchExec(b, s, "CREATE TABLE items (id int, emb real[])")
	def := db.Catalog().Table("public", "items")
	rng := rand.New(rand.NewSource(1))
	ids := array.NewInt32Builder(memory.DefaultAllocator)
	embs := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Float32)
	vals := embs.ValueBuilder().(*array.Float32Builder)
	ids.Reserve(benchRows)
	embs.Reserve(benchRows)
	vals.Reserve(benchRows * dim)
	for i := 0; i < benchRows; i++ {
		ids.Append(int32(i))
		embs.Append(true)
		for j := 0; j < dim; j++ {
			vals.Append(float32(rng.NormFloat64()))
		}
	}
	cols := []arrow.Array{ids.NewArray(), embs.NewArray()}
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "id", Type: cols[0].DataType()}, {Name: "emb", Type: cols[1].DataType()}}, nil), cols, benchRows)
	tx := db.Begin()
	if err := tx.Insert(def.ID, rec); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	rec.Release()
	if err := db.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	q := make([]string, dim)
	for j := range q {
		q[j] = strconv.FormatFloat(rng.NormFloat64(), 'f', 4, 32)
	}
	query := fmt.Sprintf("SELECT id FROM items ORDER BY emb <#> '{%s}' DESC LIMIT 10", strings.Join(q, ","))
	search := func(b *testing.B) {
		benchExec(b, s, query) // warm the cache
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			benchExec(b, s, query)
		}
	}
	b.Run("exact", search)
	b.Run("hnsw", func(b *testing.B) {
		benchExec(b, s, "CREATE INDEX IF NOT EXISTS items_emb ON items USING hnsw (emb)")
		search(b)
	})
}

// benchExec runs one statement through the session, discarding its rows.
func benchExec(b *testing.B, s *Session, text string) {
	b.Helper()
	if _, err := s.Query(context.Background(), text, func(p *Portal) error {
		_, _, err := s.Execute(context.Background(), p, 0, func(arrow.Record) error { return nil })
		return err
	}); err != nil {
		b.Fatalf("%.60s: %v", text, err)
	}
}
