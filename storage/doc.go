// Package storage keeps cairn's data: the catalog, tables as immutable
// Parquet segments plus an in-memory tail, a checksummed write-ahead log
// with group commit, snapshot-isolated transactions, unique-key indexes,
// sequences, a cache of decoded segment columns and BM25 text indexes. It
// knows no SQL; rows cross its boundary as Arrow records. Its durable bytes
// live in the data directory, or in an object store with the directory as
// a cache (home.go, objhome.go).
package storage
