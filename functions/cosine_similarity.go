package functions

// cosine_similarity(float4[], float4[]) -> real, its pg_deeplake name
// deeplake_cosine_similarity, and the operator float4[] <#> float4[]
// (pg_deeplake's vector similarity; on pgvector's vector type <#> is the
// negative inner product instead, see inner_product.go).
//
// The value is the plain cosine in [-1, 1], higher is better. When either
// operand is 2-D (float4[][], one row of several vectors) it is MaxSim
// instead, as in pg_deeplake, where the same C function switches on the
// left array's dimensions (see maxsim.go).
//
// Rules (SPEC 3.1): NULL, empty or zero-norm operand -> NULL; different
// dimensions -> 22000 "vector dimensions differ: 384 and 3" (pg_deeplake
// logs a warning and returns 0; a silent 0 ranks a wrong row, so cairn
// raises); a NULL element -> 22004; a NaN or infinite element -> NULL, a
// vector without a direction, as a vector index leaves it out (see
// vecBinary; pgvector's vector rejects both on input, so only float4[] can
// hold them).

import (
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// similarity is cosine_similarity's per-row math: the cosine of two
// vectors, or MaxSim when either operand is 2-D. It uses a constant's
// precomputed norm, so a scan against a query vector reads each row once
// and computes one dot product and one norm.
func similarity(s *vecScratch, a, b *vecVal) (float64, bool, error) {
	if a.empty() || b.empty() {
		return 0, false, nil
	}
	if a.dim != b.dim {
		return 0, false, flavorArray.errDims(a.dim, b.dim)
	}
	if a.nd > 1 || b.nd > 1 {
		return maxSim(s, a, b)
	}
	c, ok := cosineVals(a, b)
	return c, ok, nil
}

// cosineVals is the cosine of two single vectors of equal length (see
// cosineOf), using whichever squared norm is already known.
func cosineVals(a, b *vecVal) (float64, bool) {
	var d, aa, bb float64
	switch {
	case b.norms != nil:
		d, aa = vecmath.DotNorm(a.data, b.data, a.next)
		bb = b.norms[0]
	case a.norms != nil:
		d, bb = vecmath.DotNorm(b.data, a.data, b.next)
		aa = a.norms[0]
	default:
		d, aa, bb = vecmath.DotNorms(a.data, b.data)
	}
	return cosineOf(d, aa, bb)
}

func init() {
	for _, name := range []string{"cosine_similarity", "deeplake_cosine_similarity", "<#>"} {
		Register(ranksVectors("cosine", true, higherIsBetter(vecBinary[float32](name, tF4Arr, tF4Arr, types.Float4T, true, similarity)))...)
	}
}
