package functions

// maxsim(document float4[][], query float4[][]) -> real and its pg_deeplake
// name deeplake_maxsim: ColBERT's late-interaction score. For each query
// vector, the best cosine against the document's vectors; the sum of those.
// A 1-D operand is a single vector (so maxsim of two 1-D arrays is their
// cosine, and a 1-D query against a 2-D document is its best cosine).
// float4[][] <#> float4[] and cosine_similarity with a 2-D operand give the
// same value (cosine_similarity.go); the rules for NULL, empty, zero-norm
// (any vector of either operand) and mismatched widths are cosine's.

import (
	"math"

	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/vecmath"
)

// maxSim is the MaxSim of doc against query, both non-empty with equal
// widths. The rows' squared norms come from a constant's precomputed ones
// or are computed once per row into scratch space; then each (query,
// document) pair costs one dot product. A NaN cosine makes the result NaN.
func maxSim(s *vecScratch, doc, query *vecVal) (float64, bool, error) {
	dn, ok := rowNorms(s, 0, doc)
	if !ok {
		return 0, false, nil
	}
	qn, ok := rowNorms(s, 1, query)
	if !ok {
		return 0, false, nil
	}
	sum, nan := 0.0, false
	for j := 0; j < query.rows; j++ {
		q := query.row(j)
		best := math.Inf(-1)
		for i := 0; i < doc.rows; i++ {
			c, _ := cosineOf(vecmath.Dot(doc.row(i), q), dn[i], qn[j])
			if c > best {
				best = c
			} else if c != c {
				nan = true
			}
		}
		sum += best
	}
	if nan {
		return math.NaN(), true, nil
	}
	return sum, true, nil
}

// rowNorms returns the squared norms of v's rows (its precomputed ones or
// computed into scratch slot i); ok is false when one of them is zero.
func rowNorms(s *vecScratch, i int, v *vecVal) ([]float64, bool) {
	ns := v.norms
	if ns == nil {
		ns = s.floats(i, v.rows)
		for r := range ns {
			ns[r] = vecmath.SqNorm(v.row(r))
		}
	}
	for _, n := range ns {
		if n == 0 {
			return nil, false
		}
	}
	return ns, true
}

func init() {
	for _, name := range []string{"maxsim", "deeplake_maxsim"} {
		Register(higherIsBetter(vecBinary[float32](name, tF4Arr, tF4Arr, types.Float4T, true, similarity)))
	}
}
