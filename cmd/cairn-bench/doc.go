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
// The exit status is 1 when any query failed or answered wrongly.
package main
