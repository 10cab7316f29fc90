package vecindex

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// processCPU is the CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// The benchmark dataset: clustered 384-d rows (a common embedding size),
// 100k of them unless -vecindex.rows says otherwise (1M to time a large
// segment's build), and 200 queries from the same distribution.
const (
	benchDim     = 384
	benchQueries = 200
)

var (
	benchRows   = flag.Int("vecindex.rows", 100_000, "rows of the Build and Search benchmarks' dataset")
	benchLatent = flag.Int("vecindex.latent", 0, "draw the benchmarks' rows on a latent space of this many dimensions projected to 384 (as cairn-bench --vi-latent-dim and real text embeddings); 0: clusters in the full space, the hard dataset")
)

var bench struct {
	data, index   sync.Once
	rows, queries [][]float32
	truth         [][]Hit // exact top-10 per query under Cosine
	x             *Index
}

func benchData() {
	bench.data.Do(func() {
		var all [][]float32
		if *benchLatent > 0 {
			all = latentDataset(11, *benchRows+benchQueries, benchDim, *benchLatent, 500)
		} else {
			all = dataset(11, *benchRows+benchQueries, benchDim, 500)
		}
		bench.rows, bench.queries = all[:*benchRows], all[*benchRows:]
	})
}

// latentDataset draws n unit rows around clusters Gaussian centres in a
// latent space of latent dimensions (each row 0.7 cosine-similar to its
// centre there), projects them to dim by a fixed random linear map and adds
// full-space noise of length 0.1: rows whose intrinsic dimension is far
// below their width, as text embeddings' is.
func latentDataset(seed int64, n, dim, latent, clusters int) [][]float32 {
	rng := rand.New(rand.NewSource(seed))
	gaussian := func(k int, sd float64) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = rng.NormFloat64() * sd
		}
		return v
	}
	unit := func(v []float64) []float64 {
		var sq float64
		for _, x := range v {
			sq += x * x
		}
		for i := range v {
			v[i] /= math.Sqrt(sq)
		}
		return v
	}
	centres := make([][]float64, clusters)
	for i := range centres {
		centres[i] = unit(gaussian(latent, 1))
	}
	proj := make([][]float64, dim)
	for i := range proj {
		proj[i] = gaussian(latent, 1/math.Sqrt(float64(dim)))
	}
	rows := make([][]float32, n)
	for r := range rows {
		z := gaussian(latent, 1/math.Sqrt(float64(latent)))
		for i, c := range centres[rng.Intn(clusters)] {
			z[i] += c
		}
		z = unit(z)
		x := gaussian(dim, 0.1/math.Sqrt(float64(dim)))
		for i, w := range proj {
			for j, zj := range z {
				x[i] += w[j] * zj
			}
		}
		x = unit(x)
		rows[r] = make([]float32, dim)
		for i, f := range x {
			rows[r][i] = float32(f)
		}
	}
	return rows
}

func benchIndex(b *testing.B) {
	benchData()
	bench.index.Do(func() {
		x, err := Build(context.Background(), *benchRows, benchDim, accessor(bench.rows), Params{Metric: Cosine, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		bench.x = x
		for _, q := range bench.queries {
			bench.truth = append(bench.truth, exact(Cosine, bench.rows, q, 10, nil))
		}
	})
}

// BenchmarkBuild builds the benchmark dataset's cosine index (M 16,
// ef_construction 64) and reports its wall and CPU time and its size
// against the raw float32 vectors.
func BenchmarkBuild(b *testing.B) {
	benchData()
	var x *Index
	cpu0 := processCPU(b)
	for b.Loop() {
		var err error
		if x, err = Build(context.Background(), *benchRows, benchDim, accessor(bench.rows), Params{Metric: Cosine, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
	b.ReportMetric((processCPU(b)-cpu0).Seconds()/float64(b.N), "cpu-s/build")
	b.ReportMetric(float64(x.Bytes())/(4*float64(*benchRows)*benchDim), "bytes/f32-bytes")
}

// BenchmarkSearch runs top-10 searches at ef 40 and 100, unfiltered and
// with filters accepting 1% and 10% of rows, and reports the median
// latency, the median CPU time of the searching thread (which, unlike the
// latency, a busy shared machine barely disturbs) and recall@10 against
// exact search.
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
				var lat, cpu []time.Duration
				var found float64
				i := 0
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				for b.Loop() {
					q := i % benchQueries
					start, cpu0 := time.Now(), threadCPU(b)
					hits := bench.x.Search(bench.queries[q], 10, Effort{Ef: ef}, allow, accessor(bench.rows))
					lat = append(lat, time.Since(start))
					cpu = append(cpu, threadCPU(b)-cpu0)
					found += recall(hits, truth[q])
					i++
				}
				slices.Sort(lat)
				slices.Sort(cpu)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds()), "cpu-p50-µs")
				b.ReportMetric(found/float64(i), "recall@10")
			})
		}
	}
}
