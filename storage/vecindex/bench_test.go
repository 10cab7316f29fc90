package vecindex

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// The benchmark dataset: 100k clustered 384-d rows (a common embedding
// size) and 200 queries from the same distribution.
const (
	benchRows    = 100_000
	benchDim     = 384
	benchQueries = 200
)

var bench struct {
	data, index   sync.Once
	rows, queries [][]float32
	truth         [][]Hit // exact top-10 per query under Cosine
	x             *Index
}

func benchData() {
	bench.data.Do(func() {
		all := dataset(11, benchRows+benchQueries, benchDim, 500)
		bench.rows, bench.queries = all[:benchRows], all[benchRows:]
	})
}

func benchIndex(b *testing.B) {
	benchData()
	bench.index.Do(func() {
		x, err := Build(context.Background(), benchRows, benchDim, accessor(bench.rows), Params{Metric: Cosine, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		bench.x = x
		for _, q := range bench.queries {
			bench.truth = append(bench.truth, exact(Cosine, bench.rows, q, 10, nil))
		}
	})
}

// BenchmarkBuild builds the 100k × 384 cosine index (M 16, ef_construction
// 64) and reports its size against the raw float32 vectors.
func BenchmarkBuild(b *testing.B) {
	benchData()
	var x *Index
	for b.Loop() {
		var err error
		if x, err = Build(context.Background(), benchRows, benchDim, accessor(bench.rows), Params{Metric: Cosine, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
	b.ReportMetric(float64(x.Bytes())/(4*benchRows*benchDim), "bytes/f32-bytes")
}

// BenchmarkSearch runs top-10 searches at ef 40 and 100, unfiltered and
// with filters accepting 1% and 10% of rows, and reports the median
// latency and recall@10 against exact search.
func BenchmarkSearch(b *testing.B) {
	benchIndex(b)
	for _, sel := range []int{0, 100, 10} { // accept rows r%sel == 0
		for _, ef := range []int{40, 100} {
			name := fmt.Sprintf("ef=%d", ef)
			var allow func(uint32) bool
			truth := bench.truth
			if sel > 0 {
				name += fmt.Sprintf("/filter=%d%%", 100/sel)
				allow = func(r uint32) bool { return r%uint32(sel) == 0 }
				truth = nil
				for _, q := range bench.queries {
					truth = append(truth, exact(Cosine, bench.rows, q, 10, allow))
				}
			}
			b.Run(name, func(b *testing.B) {
				var lat []time.Duration
				var found float64
				i := 0
				for b.Loop() {
					q := i % benchQueries
					start := time.Now()
					hits := bench.x.Search(bench.queries[q], 10, Effort{Ef: ef}, allow, accessor(bench.rows))
					lat = append(lat, time.Since(start))
					found += recall(hits, truth[q])
					i++
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(found/float64(i), "recall@10")
			})
		}
	}
}
