package functions

// The search operators of pg_deeplake, overloads of <#> besides the
// vector similarity (cosine_similarity.go) and pgvector's negative inner
// product (inner_product.go):
//
//   - text <#> text: the Okapi BM25 score of the row's text for the query
//     (bm25.go), over the corpus statistics of the text's column;
//   - (embedding, text) <#> deeplake_hybrid_record(query vector, query
//     text[, vector weight, text weight]): the hybrid score, fusing the
//     cosine of the embeddings (the vector arm) with the BM25 score of the
//     texts (the text arm), each turned into a softmax over its own
//     candidates.
//
// Their scores depend on more than the row, so they are not evaluated
// per row: the binder plans each as its own node (sql/search.go), the
// executor scores it (exec/bm25.go, exec/hybrid_topk.go), and the Prepare
// hook gives it the corpus statistics once per statement.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Search is the kind of a search operator (Overload.Search).
type Search uint8

const (
	// NotSearch is an ordinary function or operator, evaluated per row.
	NotSearch Search = iota
	// SearchBM25 is text <#> text: the Okapi BM25 score of the row's text
	// for the query, over the corpus statistics of the text's column.
	SearchBM25
	// SearchHybrid is (embedding, text) <#> deeplake_hybrid_record(...):
	// the vector and BM25 scores fused over the candidates of both arms.
	SearchHybrid
)

// Corpus is the table column a search operator scores, as the executor
// offers it to a Prepare hook: the statistics of its text index, or its
// texts. Both answer for the rows visible to the statement; a Corpus is
// used by one goroutine, during one call of Prepare.
type Corpus interface {
	// IndexStats returns, from the column's text index, the number of
	// documents (non-NULL rows), their total length in tokens and the
	// number of documents holding each of terms; ok is false when the
	// column has no text index.
	IndexStats(terms []string) (docs, tokens int64, docFreq []int64, ok bool, err error)
	// Texts calls fn with each non-NULL text of the column.
	Texts(fn func(text string)) error
}

// HybridRecordT is the type deeplake_hybrid_record (and its weighted
// form, which binds to the same type): a record of an embedding and a
// text, and the weights of the two arms.
var HybridRecordT = types.T{Family: types.Record, Mod: -1, Domain: "deeplake_hybrid_record"}

// searchOp is the overload of <#> of a search operator: a similarity, its
// result depending on the snapshot's corpus, with BM25's Prepare hook.
func searchOp(kind Search, left, right types.T) *Overload {
	return stable(&Overload{Name: "<#>", Args: []types.T{left, right}, Result: types.Float4T,
		HigherIsBetter: true, Search: kind, Prepare: prepareBM25, Eval: searchEval})
}

// searchEval is the Eval of a search operator, which the binder plans as
// its own node: it is reached only by calling <#> by name, as a function.
func searchEval(*Context, []any) (any, error) {
	return nil, pgerr.NotSupported("the search operator <#> called as a function")
}

func init() {
	Register(
		searchOp(SearchBM25, types.TextT, types.TextT),
		// The left operand is any record: the binder takes a row of two
		// fields, (embedding, text), as a hybrid record.
		searchOp(SearchHybrid, types.RecordT, HybridRecordT),
	)
}
