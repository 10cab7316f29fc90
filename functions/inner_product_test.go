package functions

import "testing"

// inner_product and vector <#> vector (the negative inner product).
func TestInnerProduct(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"inner_product", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "32", "double precision"},
		{"<#>", []string{"'[1,2,3]'::vector", "'[4,5,6]'::vector"}, "-32", "double precision"},
		{"<#>", []string{"'[1,2,3]'::vector", "'[-4,-5,-6]'::vector"}, "32", "double precision"},
		{"<#>", []string{"'[1,2,3]'::vector", "'[1,2]'::vector"}, "ERROR 22000: different vector dimensions 3 and 2", ""},
		{"<#>", []string{"'[1,2,3]'::vector", "NULL::vector"}, NULL, "double precision"},
		{"inner_product", []string{"'{1,2,3}'::float4[]", "'{4,5,6}'::float4[]"}, "32", "double precision"},
		{"inner_product", []string{"'{0.1,0.2,0.3}'::float4[]", "'{0.4,0.5,0.6}'::float4[]"}, "0.32000001698732405", "double precision"},
		{"inner_product", []string{"'{1,2,3}'::float4[]", "'{4,5}'::float4[]"}, "ERROR 22000: vector dimensions differ: 3 and 2", ""},
		{"inner_product", []string{"'{}'::float4[]", "'{4,5}'::float4[]"}, NULL, "double precision"},
		{"inner_product", []string{"'{{1,2}}'::float4[][]", "'{4,5}'::float4[]"}, "ERROR 22000: array must be 1-D", ""},
		{"inner_product", []string{"'{NaN,2}'::float4[]", "'{4,5}'::float4[]"}, NULL, "double precision"},
		{"inner_product", []string{"'{Infinity,2}'::float4[]", "'{4,5}'::float4[]"}, NULL, "double precision"},
	})
}
