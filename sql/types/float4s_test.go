package types

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestParseFloat4 checks the fast float parser of real[] text (COPY) and
// JSON (HTTP) input
// against strconv (correct rounding) on the shortest texts of random
// float32s, on random digit strings (9 to 17 digits, which round), on
// halfway cases, and that what it leaves to the input function (zero,
// out of range, not a plain number) it does not take.
func TestParseFloat4(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	check := func(s string) {
		t.Helper()
		want, err := strconv.ParseFloat(s, 32)
		got, ok := parseFloat4([]byte(s))
		if err != nil || want == 0 || math.IsInf(want, 0) || math.IsNaN(want) || strings.ContainsAny(s, "xX ") {
			if ok {
				t.Fatalf("%q: took %v, want it left to the input function", s, got)
			}
			return
		}
		if !ok || got != float32(want) {
			t.Fatalf("%q: %v (%v), want %v", s, got, ok, float32(want))
		}
	}
	for range 200000 {
		x := math.Float32frombits(rng.Uint32())
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			continue
		}
		check(strconv.FormatFloat(float64(x), 'g', -1, 32))
		check(strconv.FormatFloat(float64(x), 'e', 12, 32))
		check(strconv.FormatFloat(rng.NormFloat64()*0.05, 'g', -1, 32))
		check(strconv.FormatFloat(rng.NormFloat64()*0.05, 'f', 9+rng.Intn(9), 64))
		// Halfway between two float32s, and one float64 ulp either side.
		mid := (float64(x) + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
		check(strconv.FormatFloat(mid, 'g', -1, 64))
		check(strconv.FormatFloat(math.Nextafter(mid, 0), 'g', -1, 64))
		check(strconv.FormatFloat(math.Nextafter(mid, math.Inf(1)), 'g', -1, 64))
	}
	for _, s := range []string{"0", "-0", "0.000", "1e-50", "1e39", "3.4028236e38", "1.17549435e-38", "1e-40",
		"+1.5", "-.5", "5.", ".", "-", "1e", "1e+", "1.2.3", "--1", "1e5e5", "0x1p3", "inf", "NaN", " 1", "1 ",
		"123456789012345678901234567890", "0.0000000000000000000000001234", "1e0000000000000000000007"} {
		check(s)
	}
}

// BenchmarkParseFloat4 times the fast float parser on embedding-like
// numbers, against strconv.
func BenchmarkParseFloat4(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	toks := make([][]byte, 1024)
	for i := range toks {
		toks[i] = strconv.AppendFloat(nil, rng.NormFloat64()*0.05, 'g', -1, 32)
	}
	b.Run("fast", func(b *testing.B) {
		for i := range b.N {
			parseFloat4(toks[i%len(toks)])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := range b.N {
			parseFloat4Slow(toks[i%len(toks)])
		}
	})
}
