// Package textindex is the BM25 tokenizer and the immutable inverted index
// storage keeps per segment and per in-memory batch: for one text column,
// each row's length in tokens and, per term, the rows holding it with
// their term frequencies. It is a leaf: it knows nothing of tables, files
// or SQL.
package textindex
