package functions

import "testing"

// l2_norm (Deeplake's, over all elements).
func TestL2Norm(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"l2_norm", []string{"'{3,4}'::float4[]"}, "5", "double precision"},
		{"l2_norm", []string{"'{-3,-4}'::float4[]"}, "5", "double precision"},
		{"l2_norm", []string{"'{0.1,0.2,0.3}'::float4[]"}, "0.37416575022665244", "double precision"},
		{"l2_norm", []string{"'{0,0}'::float4[]"}, "0", "double precision"},
		{"l2_norm", []string{"'{{3,4},{0,0}}'::float4[][]"}, "5", "double precision"},
		{"l2_norm", []string{"'{}'::float4[]"}, NULL, "double precision"},
		{"l2_norm", []string{"NULL::float4[]"}, NULL, "double precision"},
		{"l2_norm", []string{"'{1,NULL}'::float4[]"}, "ERROR 22004: array must not contain nulls", ""},
		{"l2_norm", []string{"'{3e30,4e30}'::float4[]"}, "4.999999984567896e+30", "double precision"},
		{"l2_norm", []string{"'[3,4]'::vector"}, "5", "double precision"},
	})
}
