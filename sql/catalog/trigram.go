package catalog

import "slices"

// The operator classes of pg_trgm's indexes (CREATE EXTENSION pg_trgm):
// cairn builds the same trigram index for both.
const (
	OpClassGinTrgm  = "gin_trgm_ops"
	OpClassGistTrgm = "gist_trgm_ops"
)

// Trigram reports whether ix is a trigram index of one text column, which
// answers LIKE and ILIKE: USING gin (col gin_trgm_ops), USING gist (col
// gist_trgm_ops), or pg_deeplake's USING deeplake_index (col) WITH
// (index_type = 'exact_text').
func (ix *IndexDef) Trigram() bool {
	if len(ix.Columns) != 1 {
		return false
	}
	switch ix.Method {
	case "gin":
		return ix.OpClass == OpClassGinTrgm
	case "gist":
		return ix.OpClass == OpClassGistTrgm
	case "deeplake_index":
		return ix.Options["index_type"] == "exact_text"
	}
	return false
}

// TrigramColumns returns the IDs of the columns of table tableID that a
// trigram index covers.
func (c *Catalog) TrigramColumns(tableID uint64) []int {
	var out []int
	for _, ix := range c.IndexesOf(tableID) {
		if ix.Trigram() && !slices.Contains(out, ix.Columns[0]) {
			out = append(out, ix.Columns[0])
		}
	}
	return out
}
