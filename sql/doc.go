// Package sql turns SQL text into bound, typed logical plans. It parses with
// pg_query (PostgreSQL's own grammar), resolves names against a storage
// catalog snapshot, types every expression, infers parameter types and
// rewrites queries into plan nodes. It executes nothing: package exec runs
// what it produces.
package sql
