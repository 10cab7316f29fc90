package storage

import (
	"context"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"
)

func rssMB() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var n int64
			for _, c := range l {
				if c >= '0' && c <= '9' {
					n = n*10 + int64(c-'0')
				}
			}
			return n / 1024
		}
	}
	return 0
}

func TestRSS1M(t *testing.T) {
	if os.Getenv("RSS1M") == "" {
		t.Skip()
	}
	dir := os.Getenv("RSS1M")
	db := openDB(t, dir, Options{})
	def := db.Catalog().Table("public", "memories")
	if def == nil {
		def = embeddingTable(t, db)
		rng := rand.New(rand.NewSource(1))
		for from := 0; from < 1_000_000; from += 10_000 {
			rec := embeddingRecord(def, from, 10_000, rng)
			tx := db.Begin()
			if err := tx.Insert(def.ID, rec); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, tx)
			rec.Release()
		}
		db.Close()
		t.Logf("loaded; rss %d MB", rssMB())
		return
	}
	runtime.GC()
	t.Logf("open: rss %d MB", rssMB())
	q := make([]float32, embedDim)
	for k := range q {
		q[k] = 0.5
	}
	for it := 0; it < 8; it++ {
		start := time.Now()
		tx := db.Begin()
		rs, _ := tx.ScanPartitions(context.Background(), def.ID, []int{0, 2}, false, 2)
		done := make(chan float32, len(rs))
		for _, r := range rs {
			go func() {
				best := float32(-1e30)
				for r.Next() {
					vals := r.Record().Column(1).(*array.List).ListValues().(*array.Float32).Float32Values()
					for i := 0; i+embedDim <= len(vals); i += embedDim {
						var s float32
						for k, v := range vals[i : i+embedDim] {
							s += v * q[k]
						}
						best = max(best, s)
					}
				}
				r.Release()
				done <- best
			}()
		}
		for range rs {
			<-done
		}
		tx.Rollback()
		st := db.CacheStats()
		t.Logf("scan %d: %v rss %d MB cache %d MB misses %d", it, time.Since(start), rssMB(), st.Bytes>>20, st.Misses)
	}
	db.Close()
}
