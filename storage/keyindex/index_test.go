package keyindex

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefixedMatchesBruteForce builds indexes of random keys over a
// small alphabet (many shared prefixes and duplicates, some rows without
// a key) and checks every prefix lookup against a scan of the rows.
func TestPrefixedMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		n := rng.IntN(300)
		keys := make([][]byte, n)
		var b Builder
		for i := range keys {
			if rng.IntN(10) == 0 {
				b.Skip()
				continue
			}
			k := make([]byte, 1+rng.IntN(4))
			for j := range k {
				k[j] = byte('a' + rng.IntN(3))
			}
			keys[i] = k
			b.Add(k)
		}
		ix := b.Build()
		if ix.Rows() != n {
			t.Fatalf("Rows() = %d, want %d", ix.Rows(), n)
		}
		for _, prefix := range [][]byte{{}, []byte("a"), []byte("b"), []byte("ab"), []byte("cca"), []byte("abca"), []byte("d"), []byte("abcab")} {
			var want []uint32
			for i, k := range keys {
				if k != nil && bytes.HasPrefix(k, prefix) {
					want = append(want, uint32(i))
				}
			}
			var got []uint32
			var last []byte
			ix.Prefixed(prefix, func(pos []uint32) {
				if !slices.IsSorted(pos) || len(pos) == 0 {
					t.Fatalf("positions %v", pos)
				}
				// Each call is one key, in ascending key order.
				k := keys[pos[0]]
				if last != nil && bytes.Compare(last, k) >= 0 {
					t.Fatalf("keys out of order: %q then %q", last, k)
				}
				for _, p := range pos {
					if !bytes.Equal(keys[p], k) {
						t.Fatalf("one call holds keys %q and %q", k, keys[p])
					}
				}
				last = k
				got = append(got, pos...)
			})
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d prefix %q: %v, want %v", round, prefix, got, want)
			}
		}
	}
}

// TestEmpty: an index of no rows, or of rows without keys, finds nothing.
func TestEmpty(t *testing.T) {
	var b Builder
	ix := b.Build()
	ix.Prefixed(nil, func([]uint32) { t.Fatal("found a row in an empty index") })
	b.Skip()
	b.Skip()
	ix = b.Build()
	if ix.Rows() != 2 || ix.Keys() != 0 {
		t.Fatalf("rows %d keys %d", ix.Rows(), ix.Keys())
	}
	ix.Prefixed(nil, func([]uint32) { t.Fatal("found a row without a key") })
}

// TestRangeMatchesBruteForce checks Range against a scan of the rows for
// bounds inside, between and outside the keys.
func TestRangeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b Builder
	var keys [][]byte
	for i := 0; i < 500; i++ {
		k := []byte{byte('a' + rng.IntN(4)), byte('a' + rng.IntN(4))}
		keys = append(keys, k)
		b.Add(k)
	}
	ix := b.Build()
	bounds := [][]byte{nil, []byte("a"), []byte("ab"), []byte("b"), []byte("bc"), []byte("dd"), []byte("e")}
	for _, start := range bounds {
		for _, stop := range bounds {
			var want []uint32
			for i, k := range keys {
				if bytes.Compare(k, start) >= 0 && (stop == nil || bytes.Compare(k, stop) < 0) {
					want = append(want, uint32(i))
				}
			}
			var got []uint32
			ix.Range(start, stop, func(pos []uint32) { got = append(got, pos...) })
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("[%q, %q): %d rows, want %d", start, stop, len(got), len(want))
			}
		}
	}
}
