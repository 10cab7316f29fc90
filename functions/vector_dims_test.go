package functions

import "testing"

// vector_dims on vector (pgvector) and float4[].
func TestVectorDims(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"vector_dims", []string{"'[1,2,3]'::vector"}, "3", "integer"},
		{"vector_dims", []string{"'{1,2,3,4}'::float4[]"}, "4", "integer"},
		{"vector_dims", []string{"'{{1,2,3},{4,5,6}}'::float4[][]"}, "3", "integer"},
		{"vector_dims", []string{"'{}'::float4[]"}, NULL, "integer"},
		{"vector_dims", []string{"NULL::vector"}, NULL, "integer"},
		{"vector_dims", []string{"'{1,NULL}'::float4[]"}, "ERROR 22004: array must not contain nulls", ""},
	})
}
