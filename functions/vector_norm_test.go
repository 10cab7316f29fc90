package functions

import "testing"

// vector_norm (pgvector's).
func TestVectorNorm(t *testing.T) {
	runCasesNoOracle(t, []tc{
		{"vector_norm", []string{"'[3,4]'::vector"}, "5", "double precision"},
		{"vector_norm", []string{"'[3,4]'"}, "5", "double precision"},
		{"vector_norm", []string{"'[0,0,0]'::vector"}, "0", "double precision"},
		{"vector_norm", []string{"'[1,2,3]'::vector"}, "3.7416573867739413", "double precision"},
		{"vector_norm", []string{"NULL::vector"}, NULL, "double precision"},
		// As in PostgreSQL with pgvector: real[] -> vector is an
		// assignment cast, not an implicit one.
		{"vector_norm", []string{"'{3,4}'::float4[]"}, "ERROR 42883: function vector_norm(real[]) does not exist", ""},
	})
}
