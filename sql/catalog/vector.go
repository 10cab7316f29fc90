package catalog

// VectorMetric is the metric a vector index on table t ranks by, as the
// functions registry names metrics (functions.Overload.VectorMetric):
// "cosine" for vector_cosine_ops, "l2" for vector_l2_ops, "ip" for
// vector_ip_ops (EffectiveOpClass: real[] columns default to cosine, the
// meaning of cairn's <#>), and "cosine" for a deeplake_index of a vector
// index_type (pg_deeplake's <#> is cosine similarity) and for the vector
// arm of a hybrid index, whose embedding is Columns[0]. "" for every other
// index, vector_l1_ops among them (no L1 index yet: such an index is
// recorded and searched exactly).
func (ix *IndexDef) VectorMetric(t *TableDef) string {
	if len(ix.Columns) == 0 || len(ix.Columns) > 1 && ix.Options["index_type"] != "hybrid" {
		return ""
	}
	switch ix.Method {
	case "hnsw", "ivfflat":
		switch ix.EffectiveOpClass(t) {
		case OpClassL2:
			return "l2"
		case OpClassIP:
			return "ip"
		case OpClassCosine:
			return "cosine"
		}
	case "deeplake_index":
		switch ix.Options["index_type"] {
		case "clustered", "clustered_quantized", "hybrid":
			return "cosine"
		}
	}
	return ""
}
