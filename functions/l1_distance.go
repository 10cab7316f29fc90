package functions

// l1_distance(vector, vector) -> double precision and the operator
// vector <+> vector (pgvector's taxicab distance, lower is closer), and
// l1_distance(float4[], float4[]). Rules as in l2_distance.go.

import "github.com/cairn-db/cairn/sql/types"

// l1DistanceFn is l1_distance's per-row math under the rules of f.
func l1DistanceFn(f vecFlavor) vecBinaryFn {
	return func(_ *vecScratch, a, b *vecVal) (float64, bool, error) {
		if ok, err := f.pairCheck(a, b); !ok {
			return 0, false, err
		}
		return l1Distance(a.data, b.data), true, nil
	}
}

func init() {
	Register(
		vecBinary[float64]("l1_distance", tF4Arr, tF4Arr, types.Float8T, false, l1DistanceFn(flavorArray)),
		vecBinary[float64]("l1_distance", tVec, tVec, types.Float8T, false, l1DistanceFn(flavorVector)),
		vecBinary[float64]("<+>", tVec, tVec, types.Float8T, false, l1DistanceFn(flavorVector)),
	)
}
