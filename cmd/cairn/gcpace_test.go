package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, headroom int64
		want           int
	}{
		{0, 288 * mb, maxGCPercent},
		{10 * mb, 288 * mb, maxGCPercent}, // 2,880 capped
		{100 * mb, 288 * mb, 288},
		{288 * mb, 288 * mb, 100},
		{2000 * mb, 288 * mb, 100}, // a large heap keeps GOGC 100
	} {
		if got := gcPercentFor(c.live, c.headroom); got != c.want {
			t.Errorf("gcPercentFor(%d MB, %d MB) = %d, want %d", c.live/mb, c.headroom/mb, got, c.want)
		}
	}
	if gcHeadroom(0) != defaultGCHeadroom || gcHeadroom(2<<30) != 128<<20 {
		t.Errorf("gcHeadroom: %d without a limit, %d for 2 GiB", gcHeadroom(0), gcHeadroom(2<<30))
	}
}

// After a collection the pacer has set GOGC from the live heap: this test
// process's heap is far below the headroom, so above 100.
func TestGCPacerRaisesGOGC(t *testing.T) {
	startGCPacer(defaultGCHeadroom)
	sample := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the collection
		metrics.Read(sample)
		if gogc := sample[0].Value.Uint64(); gogc > 100 {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("GOGC is %d after collections with a small live heap, want it raised", gogc)
		}
	}
}
