// Package textsearch is the vocabulary BM25 scoring and the inverted text
// index share: what a term of a text is. The bm25 functions tokenize query
// and row text with it and storage's textindex builds postings with it, so
// the two can never disagree on a term. It is a leaf.
package textsearch
