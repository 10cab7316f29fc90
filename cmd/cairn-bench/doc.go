// Command cairn-bench is cairn's load generator: it drives a running
// server over the PostgreSQL wire protocol with a deterministic
// agent-memory dataset and prints throughput and latency figures.
//
// It loads the dataset (N rows of debugging tasks with JSONB metadata and
// clustered, unit-normalised embeddings, fixed seed) and times the inserts
// and full scans; then it runs a mix of recall queries as prepared
// statements — exact cosine, cosine_similarity, hybrid, filtered cosine,
// BM25 top-10 and a point lookup — for each client count, and prints
// latency percentiles and queries/s. Every result is checked against the
// client's own copy of the table (row counts, filters, terms, order and,
// with --verify, the exact cosine top-10), so a query that errs or answers
// wrongly is reported as FAIL or WRONG instead of being timed silently.
//
//	go run ./cmd/cairn-bench --addr 127.0.0.1:5432 --rows 100000 --dim 384
//	go run ./cmd/cairn-bench --addr 127.0.0.1:5432 --load=false --queries cosine,bm25 --clients 1,4 --n 200 --json out.json
//
// With --vector-index it instead compares cairn's HNSW index with
// PostgreSQL + pgvector's on the same data (bench/vector_index.sh starts
// both servers): it copies --vi-rows clustered vectors into both, times
// CREATE INDEX ... USING hnsw (emb vector_cosine_ops) WITH (m = 16,
// ef_construction = 64) on each, and for each --ef prints top-10 and
// filtered top-10 (a tag selecting --filter-pct of the rows) latency and
// recall@10 against the client's exact answers, with the cairn/pg ratios
// (cairn alone without --pg-addr). --vi-latent-dim L draws the vectors on
// an L-dimensional latent space projected to --vi-dim, as real embeddings
// lie, instead of in clusters of the full space (the hard default):
//
//	go run ./cmd/cairn-bench --vector-index --addr 127.0.0.1:5432 --pg-addr 127.0.0.1:5433 --vi-rows 100000 --ef 40,100
//
// With --copy-files DIR it instead writes --rows rows (a ~200-byte task,
// JSONB metadata, a --dim real[] embedding) as COPY FROM data in CSV, text
// and binary into DIR and exits; bench/copy.sh loads them into cairn and
// PostgreSQL.
//
// The exit status is 1 when any query failed or answered wrongly.
package main
