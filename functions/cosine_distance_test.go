package functions

import "testing"

// cosine_distance and vector <=> vector.
func TestCosineDistance(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"cosine_distance", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "0.025368153802923787", "double precision"},
		{"<=>", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "0.025368153802923787", "double precision"},
		{"<=>", []string{"'[1,2,3]'::vector", "'[4,5,6]'"}, "0.025368153802923787", "double precision"},
		{"<=>", []string{"'[1,1]'::vector", "'[-1,-1]'::vector"}, "2", "double precision"},
		{"<=>", []string{"'[1,1]'::vector", "'[2,2]'::vector"}, "0", "double precision"},
		{"<=>", []string{"'[1,0]'::vector", "'[0,1]'::vector"}, "1", "double precision"},
		// pgvector: a zero vector gives NaN.
		{"<=>", []string{"'[0,0]'::vector", "'[1,2]'::vector"}, "NaN", "double precision"},
		{"<=>", []string{"'[1,2,3]'::vector", "'[1,2]'::vector"}, "ERROR 22000: different vector dimensions 3 and 2", ""},
		{"cosine_distance", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "0.025368153802923787", "double precision"},
		{"cosine_distance", []string{"'{0.1,0.2,0.3}'::float4[]", "'{0.4,0.5,0.6}'::float4[]"}, "0.025368153272451677", "double precision"},
		// Deeplake's rule on float4[]: a zero vector gives NULL.
		{"cosine_distance", []string{"'{0,0}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
		{"cosine_distance", []string{"'{}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
		{"cosine_distance", []string{"'{1,2,3}'::float4[]", "'{1,2}'::float4[]"}, "ERROR 22000: vector dimensions differ: 3 and 2", ""},
		{"cosine_distance", []string{"'{{1,2}}'::float4[][]", "'{1,2}'::float4[]"}, "ERROR 22000: array must be 1-D", ""},
	})
}
