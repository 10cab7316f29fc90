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
// by GOMAXPROCS goroutines at the machine's memory bandwidth, with four
// kernels, reporting the fastest one's median pass: a plain sum of 64-bit
// words and DotNorm over the rows (what an exact cosine search runs), each
// read as one sequential stream per goroutine and as runs side by side
// (eight runs of words, four of rows: one stream leaves a core's prefetcher
// too few cache lines in flight; the server's vector kernels read four, see
// functions.vecStreams).
// bench/exact_search.sh compares a server's exact top-10 with it.
func BenchmarkMemoryPass(b *testing.B) {
	const dim, streams = 384, 4
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
	// runs cuts goroutine w's part of n words (rows) into k runs; the
	// stream loops read a word (a row) of each run in turn.
	runs := func(n, w, k int) (start, runLen int) {
		per := n / workers
		return w * per, per / k
	}
	sumWords := func(w int) float64 {
		start, per := runs(len(words), w, 1)
		part := words[start : start+per]
		var s0, s1, s2, s3, s4, s5, s6, s7 uint64
		for i := 0; i+8 <= len(part); i += 8 {
			p := part[i : i+8 : i+8]
			s0, s1, s2, s3 = s0+p[0], s1+p[1], s2+p[2], s3+p[3]
			s4, s5, s6, s7 = s4+p[4], s5+p[5], s6+p[6], s7+p[7]
		}
		return float64(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7)
	}
	sumWordStreams := func(w int) float64 {
		start, runLen := runs(len(words), w, 8)
		var p [8][]uint64
		for r := range p {
			p[r] = words[start+r*runLen : start+(r+1)*runLen]
		}
		var s0, s1, s2, s3, s4, s5, s6, s7 uint64
		for i := range runLen {
			s0, s1, s2, s3 = s0+p[0][i], s1+p[1][i], s2+p[2][i], s3+p[3][i]
			s4, s5, s6, s7 = s4+p[4][i], s5+p[5][i], s6+p[6][i], s7+p[7][i]
		}
		return float64(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7)
	}
	dotRows := func(k int) func(w int) float64 {
		return func(w int) float64 {
			start, runLen := runs(*floorRows, w, k)
			var s float64
			for i := range runLen {
				for r := range k {
					row := start + r*runLen + i
					d, n := DotNorm(data[row*dim:(row+1)*dim], q, nil)
					s += d + n
				}
			}
			return s
		}
	}
	kernels := []func(w int) float64{sumWords, sumWordStreams, dotRows(1), dotRows(streams)}
	times := make([][]time.Duration, len(kernels))
	for b.Loop() {
		for i, k := range kernels {
			times[i] = append(times[i], pass(k))
		}
	}
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	floor := median(times[0])
	for _, ts := range times[1:] {
		floor = min(floor, median(ts))
	}
	b.ReportMetric(float64(floor.Microseconds())/1000, "pass-ms")
	b.ReportMetric(float64(len(data)*4)/floor.Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(median(times[3]).Microseconds())/1000, "dotnorm-pass-ms")
}
