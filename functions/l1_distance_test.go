package functions

import "testing"

// l1_distance and vector <+> vector.
func TestL1Distance(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"l1_distance", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "9", "double precision"},
		{"<+>", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "9", "double precision"},
		{"<+>", []string{"'[1,-2,3]'::vector", "'[-4,5,6]'"}, "15", "double precision"},
		{"<+>", []string{"'[1,2,3]'::vector", "'[1,2]'::vector"}, "ERROR 22000: different vector dimensions 3 and 2", ""},
		{"l1_distance", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "9", "double precision"},
		{"l1_distance", []string{"'{0.1,0.2,0.3}'::float4[]", "'{0.4,0.5,0.6}'::float4[]"}, "0.9000000134110451", "double precision"},
		{"l1_distance", []string{"'{}'::float4[]", "'{4,5,6}'::float4[]"}, NULL, "double precision"},
		{"l1_distance", []string{"'{1,2,3}'::float4[]", "'{1,2}'::float4[]"}, "ERROR 22000: vector dimensions differ: 3 and 2", ""},
		{"l1_distance", []string{"'{Infinity,2}'::float4[]", "'{1,2}'::float4[]"}, NULL, "double precision"},
	})
}
