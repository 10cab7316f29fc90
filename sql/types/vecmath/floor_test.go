package vecmath

import (
	"flag"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"
)

var floorRows = flag.Int("vecmath.floor-rows", 1_000_000, "384-d rows BenchmarkMemoryPass reads")

// BenchmarkMemoryPass measures the floor of an exact search over
// --vecmath.floor-rows 384-d float32 vectors: one read-only pass over them
// by GOMAXPROCS goroutines at the machine's memory bandwidth, with two
// kernels (a plain sum of 64-bit words, and DotNorm, which an exact cosine
// search runs), reporting the faster one's median pass. bench/exact_search.sh
// compares a server's exact top-10 with it.
func BenchmarkMemoryPass(b *testing.B) {
	const dim = 384
	data := make([]float32, *floorRows*dim)
	for i := range data {
		data[i] = float32(i%1000) * 0.001
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&data[0])), len(data)/2)
	q := data[:dim]
	workers := runtime.GOMAXPROCS(0)
	pass := func(part func(w int) float64) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		sums := make([]float64, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[w] = part(w)
			}()
		}
		wg.Wait()
		benchSink += sums[0]
		return time.Since(start)
	}
	sumWords := func(w int) float64 {
		per := len(words) / workers
		part := words[w*per : (w+1)*per]
		var s0, s1, s2, s3, s4, s5, s6, s7 uint64
		for i := 0; i+8 <= len(part); i += 8 {
			p := part[i : i+8 : i+8]
			s0, s1, s2, s3 = s0+p[0], s1+p[1], s2+p[2], s3+p[3]
			s4, s5, s6, s7 = s4+p[4], s5+p[5], s6+p[6], s7+p[7]
		}
		return float64(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7)
	}
	dotRows := func(w int) float64 {
		per := *floorRows / workers
		var s float64
		for r := w * per; r < (w+1)*per; r++ {
			d, n := DotNorm(data[r*dim:(r+1)*dim], q, nil)
			s += d + n
		}
		return s
	}
	var sums, dots []time.Duration
	for b.Loop() {
		sums = append(sums, pass(sumWords))
		dots = append(dots, pass(dotRows))
	}
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	floor := min(median(sums), median(dots))
	b.ReportMetric(float64(floor.Microseconds())/1000, "pass-ms")
	b.ReportMetric(float64(len(data)*4)/floor.Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(median(dots).Microseconds())/1000, "dotnorm-pass-ms")
}
