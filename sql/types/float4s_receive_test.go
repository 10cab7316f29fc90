package types

import (
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// float4ArrayBinary is the binary form of a one-dimensional real[].
func float4ArrayBinary(xs []float32) []byte {
	return AppendFloat32sBinary(nil, xs, Float4ArrayT)
}

// TestReceiveFloat4s decodes embeddings as DecodeBinary does, and leaves
// every other shape (NULL elements, bad lengths, other dimensions) to it.
func TestReceiveFloat4s(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 3, 384, 4096} {
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = rng.Float32()*200 - 100
		}
		xs[0] = float32(math.Inf(-1))
		got, ok := ReceiveFloat4s([]float32{42}, float4ArrayBinary(xs))
		if !ok || got[0] != 42 || !slices.Equal(got[1:], xs) {
			t.Fatalf("%d-d: ok %v, %d values", n, ok, len(got))
		}
	}
	good := float4ArrayBinary([]float32{1, 2, 3})
	bad := map[string][]byte{
		"NULL element":   slices.Concat(good[:28], []byte{0xff, 0xff, 0xff, 0xff}, good[36:40]),
		"element length": slices.Concat(good[:36], []byte{0, 0, 0, 8}, good[40:], []byte{0, 0, 0, 0}),
		"short":          good[:len(good)-1],
		"lower bound":    binary.BigEndian.AppendUint32(slices.Clone(good[:16]), 0),
		"no dimensions":  float4ArrayBinary(nil),
	}
	// Two dimensions, 1x3.
	two := binary.BigEndian.AppendUint32(nil, 2)
	two = binary.BigEndian.AppendUint32(two, 0)
	two = binary.BigEndian.AppendUint32(two, Float4T.OID())
	two = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(two, 1), 1)
	two = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(two, 3), 1)
	bad["two dimensions"] = append(two, good[20:]...)
	bad["lower bound"] = append(bad["lower bound"], good[20:]...)
	for name, f := range bad {
		if got, ok := ReceiveFloat4s([]float32{7}, f); ok || !slices.Equal(got, []float32{7}) {
			t.Errorf("%s: ok %v, %v", name, ok, got)
		}
	}
}

func BenchmarkReceiveFloat4s(b *testing.B) {
	xs := make([]float32, 384)
	for i := range xs {
		xs[i] = float32(i) / 7
	}
	f := float4ArrayBinary(xs)
	var dst []float32
	for b.Loop() {
		dst, _ = ReceiveFloat4s(dst[:0], f)
	}
}
