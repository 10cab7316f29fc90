package functions

// inner_product(vector, vector) -> double precision (pgvector), the
// operator vector <#> vector, which is the NEGATIVE inner product so that
// ascending order is best first (pgvector: "since Postgres only supports
// ASC order index scans on operators"), and inner_product(float4[],
// float4[]).
//
// The operand types decide what <#> means: on float4[] it is pg_deeplake's
// cosine similarity, higher is better (cosine_similarity.go); on vector it
// is this distance-like negative inner product, lower is better. Rules as
// in l2_distance.go.

import "github.com/cairn-db/cairn/sql/types"

// innerProductFn is inner_product's per-row math under the rules of f,
// negated for <#>.
func innerProductFn(f vecFlavor, negate bool) vecBinaryFn {
	return func(_ *vecScratch, a, b *vecVal) (float64, bool, error) {
		if ok, err := f.pairCheck(a, b); !ok {
			return 0, false, err
		}
		ip := innerProduct(a.data, b.data)
		if negate {
			ip = -ip
		}
		return ip, true, nil
	}
}

func init() {
	Register(ranksVectors("ip", true,
		vecBinary[float64]("inner_product", tF4Arr, tF4Arr, types.Float8T, false, innerProductFn(flavorArray, false)),
		vecBinary[float64]("inner_product", tVec, tVec, types.Float8T, false, innerProductFn(flavorVector, false)),
	)...)
	Register(ranksVectors("ip", false,
		vecBinary[float64]("<#>", tVec, tVec, types.Float8T, false, innerProductFn(flavorVector, true)),
	)...)
}
