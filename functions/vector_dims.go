package functions

// vector_dims(vector) -> integer (pgvector) and vector_dims(float4[]): the
// number of dimensions of the vector. For a float4[][] (one row of several
// embeddings) it is the width of each embedding, the length of the last
// array dimension; NULL for an empty float4[].

import "github.com/cairn-db/cairn/sql/types"

// vectorDimsFn is vector_dims's per-row math.
func vectorDimsFn(a *vecVal) (float64, bool, error) {
	if a.empty() {
		return 0, false, nil
	}
	return float64(a.dim), true, nil
}

func init() {
	Register(
		vecUnary[int32]("vector_dims", tF4Arr, types.Int4T, vectorDimsFn),
		vecUnary[int32]("vector_dims", tVec, types.Int4T, vectorDimsFn),
	)
}
