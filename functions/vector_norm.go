package functions

// vector_norm(vector) -> double precision: pgvector's Euclidean norm
// √Σx², summed in float64 as pgvector does.

import "github.com/cairn-db/cairn/sql/types"

func init() {
	Register(vecUnary[float64]("vector_norm", tVec, types.Float8T, l2NormFn))
}
