package functions

// l2_distance(vector, vector) -> double precision and the operator
// vector <-> vector (pgvector's Euclidean distance, lower is closer), and
// l2_distance(float4[], float4[]) on Deeplake's embedding columns.
//
// pgvector's rules on vector: different dimensions -> 22000 "different
// vector dimensions 3 and 2". On float4[]: NULL for an empty array,
// "vector dimensions differ: 3 and 2", 22000 "array must be 1-D" for a
// float4[][] (as pgvector's array_to_vector), IEEE arithmetic for NaN and
// infinite elements. Sums are in float64 (pgvector sums in float4, so the
// last digits can differ from it on real data; small integers agree).

import "github.com/cairn-db/cairn/sql/types"

// l2DistanceFn is l2_distance's per-row math under the rules of f.
func l2DistanceFn(f vecFlavor) vecBinaryFn {
	return func(_ *vecScratch, a, b *vecVal) (float64, bool, error) {
		if ok, err := f.pairCheck(a, b); !ok {
			return 0, false, err
		}
		return l2Distance(a.data, b.data), true, nil
	}
}

func init() {
	Register(ranksVectors("l2", false,
		vecBinary[float64]("l2_distance", tF4Arr, tF4Arr, types.Float8T, false, l2DistanceFn(flavorArray)),
		vecBinary[float64]("l2_distance", tVec, tVec, types.Float8T, false, l2DistanceFn(flavorVector)),
		vecBinary[float64]("<->", tVec, tVec, types.Float8T, false, l2DistanceFn(flavorVector)),
	)...)
}
