package functions

// l1_norm(float4[]) -> double precision: Σ|x| over all the elements (of a
// float4[][] too), as Deeplake's L1_NORM. NULL for an empty array; a
// vector argument converts to float4[] implicitly.

import "github.com/cairn-db/cairn/sql/types"

// l1NormFn is l1_norm's per-row math.
func l1NormFn(a *vecVal) (float64, bool, error) {
	if a.empty() {
		return 0, false, nil
	}
	return l1Norm(a.data), true, nil
}

func init() {
	Register(vecUnary[float64]("l1_norm", tF4Arr, types.Float8T, l1NormFn))
}
