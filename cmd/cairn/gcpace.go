package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The garbage collector's pace. With GOGC at 100 a collection starts each
// time the heap has grown by as much as is live: a server whose live heap
// is small (a few tables, a warm plan cache: tens of MB) collects every few
// thousand small statements, and the marking took 15-40% of the CPU of a
// prepared lookup, an UPDATE and a simple-protocol query
// (wire.BenchmarkSmallQuery, cpu-ns/op with GOGC 100 against 800). gcPacer
// lets the heap grow by at least a fixed headroom instead: after every
// collection it sets GOGC so that the next one starts at live + max(live,
// headroom), between 100 and maxGCPercent. A large live heap keeps GOGC
// 100, and the memory limit (GOMEMLIMIT, --memory-limit) still starts a
// collection whenever the process nears it, whatever GOGC says. A GOGC set
// in the environment turns the pacer off.

// maxGCPercent bounds the GOGC the pacer sets, so that a nearly empty
// heap is still collected before it reaches ten times its size.
const maxGCPercent = 1000

// defaultGCHeadroom is the headroom without a memory limit.
const defaultGCHeadroom = 128 << 20

// gcHeadroom is the headroom for a memory limit of limit bytes (0: none):
// a sixteenth of it (144 MiB of the default 2.25 GiB), well inside what
// the limit leaves beside the cache of decoded columns (three quarters of
// it). The marking's CPU falls as live/headroom: a 40 MB live heap is
// marked a quarter as often as under GOGC 100, for ~150 MB more memory.
func gcHeadroom(limit int64) int64 {
	if limit <= 0 {
		return defaultGCHeadroom
	}
	return limit / 16
}

// gcPercentFor is the GOGC under which a live heap of live bytes may grow
// by max(live, headroom) before the next collection.
func gcPercentFor(live, headroom int64) int {
	if live <= 0 {
		return maxGCPercent
	}
	return int(min(max(100, 100*headroom/live), maxGCPercent))
}

// gcPacer sets GOGC after each collection (see the comment above).
type gcPacer struct {
	headroom int64
	sample   []metrics.Sample
	percent  int
}

// pacerOnce makes startGCPacer's pacer once per process: the tests run
// many servers in one.
var pacerOnce sync.Once

// startGCPacer starts pacing collections with the given headroom, for the
// life of the process.
func startGCPacer(headroom int64) {
	pacerOnce.Do(func() {
		p := &gcPacer{headroom: headroom, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, percent: 100}
		p.adjust()
		p.arm()
	})
}

// gcSentinel is garbage from the moment it is made: its finalizer runs
// after the first collection that finds it, and arms the next one.
type gcSentinel struct{ p *gcPacer }

func (p *gcPacer) arm() {
	runtime.SetFinalizer(&gcSentinel{p}, func(s *gcSentinel) {
		s.p.adjust()
		s.p.arm()
	})
}

// adjust sets GOGC from the live heap the last collection measured.
func (p *gcPacer) adjust() {
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	percent := gcPercentFor(int64(p.sample[0].Value.Uint64()), p.headroom)
	// Small moves are not worth a new goal.
	if percent*8 < p.percent*7 || percent*8 > p.percent*9 {
		debug.SetGCPercent(percent)
		p.percent = percent
	}
}
