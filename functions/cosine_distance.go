package functions

// cosine_distance(vector, vector) -> double precision and the operator
// vector <=> vector (pgvector's 1 - cosine, in [0, 2], lower is closer),
// and cosine_distance(float4[], float4[]).
//
// A zero vector has no direction: pgvector returns NaN for it on vector
// operands, and cairn does the same there; on float4[] the Deeplake rule
// (SPEC 3.1) applies and the result is NULL. Other rules as in
// l2_distance.go.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
)

// cosineDistanceFn is cosine_distance's per-row math under the rules of f;
// it uses a constant's precomputed norm.
func cosineDistanceFn(f vecFlavor) vecBinaryFn {
	return func(_ *vecScratch, a, b *vecVal) (float64, bool, error) {
		if ok, err := f.pairCheck(a, b); !ok {
			return 0, false, err
		}
		c, ok := cosineVals(a, b)
		if !ok {
			if f == flavorVector {
				return math.NaN(), true, nil
			}
			return 0, false, nil
		}
		return 1 - c, true, nil
	}
}

func init() {
	Register(ranksVectors("cosine", false,
		vecBinary[float64]("cosine_distance", tF4Arr, tF4Arr, types.Float8T, true, cosineDistanceFn(flavorArray)),
		vecBinary[float64]("cosine_distance", tVec, tVec, types.Float8T, true, cosineDistanceFn(flavorVector)),
		vecBinary[float64]("<=>", tVec, tVec, types.Float8T, true, cosineDistanceFn(flavorVector)),
	)...)
}
