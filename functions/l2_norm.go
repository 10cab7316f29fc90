package functions

// l2_norm(float4[]) -> double precision: the Euclidean norm √Σx² of all the
// elements (of a float4[][] too), as Deeplake's L2_NORM. NULL for an empty
// array; a vector argument converts to float4[] implicitly. pgvector's
// name for the norm of a vector is vector_norm (vector_norm.go).

import "github.com/cairn-db/cairn/sql/types"

// l2NormFn is l2_norm's per-row math.
func l2NormFn(a *vecVal) (float64, bool, error) {
	if a.empty() {
		return 0, false, nil
	}
	return l2Norm(a.data), true, nil
}

func init() {
	Register(vecUnary[float64]("l2_norm", tF4Arr, types.Float8T, l2NormFn))
}
