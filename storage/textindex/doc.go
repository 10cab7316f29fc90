// Package textindex is the immutable inverted index storage keeps per
// segment and per in-memory batch: for one text column, each row's length
// in terms and, per term, the rows holding it with their term frequencies.
// Terms are those of sql/textsearch. It knows nothing of tables, files or
// SQL.
package textindex
