package functions

import "testing"

// l2_distance and vector <-> vector. Values as pgvector prints them
// (small integers: exact in float4 and float8 alike) or computed in
// float64 from the float4 elements.
func TestL2Distance(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"l2_distance", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "5.196152422706632", "double precision"},
		{"<->", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "5.196152422706632", "double precision"},
		{"<->", []string{"'[1,2,3]'::vector", "'[4,5,6]'"}, "5.196152422706632", "double precision"},
		{"<->", []string{"'[1,2,3]'::vector", "'[1,2,3]'::vector"}, "0", "double precision"},
		{"<->", []string{"'[0,0]'::vector", "'[3,4]'::vector"}, "5", "double precision"},
		{"<->", []string{"'[1,2,3]'::vector", "'[1,2]'::vector"}, "ERROR 22000: different vector dimensions 3 and 2", ""},
		{"<->", []string{"NULL::vector", "'[1,2]'::vector"}, NULL, "double precision"},
		{"l2_distance", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "5.196152422706632", "double precision"},
		{"l2_distance", []string{"'{0.1,0.2,0.3}'::float4[]", "'{0.4,0.5,0.6}'::float4[]"}, "0.5196152500135338", "double precision"},
		{"l2_distance", []string{"'{1,2,3}'::float4[]", "'{1,2}'::float4[]"}, "ERROR 22000: vector dimensions differ: 3 and 2", ""},
		{"l2_distance", []string{"'{}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
		{"l2_distance", []string{"'{{1,2},{3,4}}'::float4[][]", "'{1,2}'::float4[]"}, "ERROR 22000: array must be 1-D", ""},
		{"l2_distance", []string{"'{1,NULL}'::float4[]", "'{1,2}'::float4[]"}, "ERROR 22004: array must not contain nulls", ""},
		{"l2_distance", []string{"'{NaN,1}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
		{"l2_distance", []string{"'{Infinity,1}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
		// A vector and a float4[] meet as float4[] (vector -> real[] is
		// implicit, the reverse only on assignment).
		{"l2_distance", []string{"'[1,2,3]'::vector", "'{4,5,6}'::float4[]"}, "5.196152422706632", "double precision"},
		{"<->", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "ERROR 42883: operator does not exist: real[] <-> real[]", ""},
	})
}
