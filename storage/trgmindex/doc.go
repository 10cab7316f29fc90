// Package trgmindex is the immutable trigram index storage keeps per
// segment for a column with a pg_trgm (gin_trgm_ops, gist_trgm_ops) or
// pg_deeplake exact_text index: for every trigram of the rows' lower-cased
// text, the positions of the rows holding it, as a roaring bitmap. A LIKE
// or ILIKE pattern yields the trigrams every matching row must hold
// (LikeKeys), so intersecting their postings gives a superset of the
// matching rows, which the caller rechecks. It knows nothing of tables,
// files or SQL.
package trgmindex
