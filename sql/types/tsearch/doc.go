// Package tsearch is PostgreSQL 15's full-text search vocabulary: the
// tsvector and tsquery values (their text and binary forms, worded and
// limited as PostgreSQL's), the default parser's tokens, the simple and
// english configurations (english.stop and Snowball's English stemmer),
// query matching (@@), ranking (ts_rank, ts_rank_cd) and headlines
// (ts_headline). The SQL
// functions over these values live in package functions; a tsvector or
// tsquery datum is its canonical text, which Parse reads back.
package tsearch
