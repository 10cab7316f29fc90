package functions

import "testing"

// l1_norm (Deeplake's, over all elements).
func TestL1Norm(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"l1_norm", []string{"'{-3,4}'::float4[]"}, "7", "double precision"},
		{"l1_norm", []string{"'{0.1,0.2,0.3}'::float4[]"}, "0.6000000163912773", "double precision"},
		{"l1_norm", []string{"'{{1,-2},{3,-4}}'::float4[][]"}, "10", "double precision"},
		{"l1_norm", []string{"'{}'::float4[]"}, NULL, "double precision"},
		{"l1_norm", []string{"'{NaN}'::float4[]"}, "NaN", "double precision"},
		{"l1_norm", []string{"'[-1,2,-3]'::vector"}, "6", "double precision"},
	})
}
