package exec

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// trueRows agrees with a row-by-row reading of the mask for every length,
// density, NULL pattern and slice offset (aligned or not).
func TestTrueRows(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 1000} {
		for _, density := range []float64{0, 0.2, 1} {
			for _, withNulls := range []bool{false, true} {
				b := array.NewBooleanBuilder(memory.NewGoAllocator())
				for i := 0; i < n+24; i++ {
					if withNulls && rng.Intn(4) == 0 {
						b.AppendNull()
					} else {
						b.Append(rng.Float64() < density)
					}
				}
				whole := b.NewBooleanArray()
				b.Release()
				for _, off := range []int{0, 3, 8, 16, 21} {
					mask := array.NewSlice(whole, int64(off), int64(off+n)).(*array.Boolean)
					var want []int
					for i := 0; i < n; i++ {
						if mask.IsValid(i) && mask.Value(i) {
							want = append(want, i)
						}
					}
					got := trueRows[int](mask)
					got32 := trueRows[int32](mask)
					if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) || len(got32) != len(want) {
						t.Fatalf("n=%d density=%v nulls=%v off=%d: got %v, want %v", n, density, withNulls, off, got, want)
					}
					for i, r := range got32 {
						if int(r) != want[i] {
							t.Fatalf("n=%d off=%d: int32 rows %v, want %v", n, off, got32, want)
						}
					}
					mask.Release()
				}
				whole.Release()
			}
		}
	}
}
