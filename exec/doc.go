// Package exec runs plans: it turns a bound logical plan (package sql)
// into operators that pull Arrow batches from storage through filters,
// joins, aggregates, sorts and top-k searches, evaluates expressions with
// the kernels of package functions, and writes INSERT, UPDATE, DELETE,
// MERGE and COPY data through a storage transaction. An operator sees its
// statement's Runtime (transaction, parameters, a read-only copy of the
// session's settings), never the session itself (exec/session).
package exec
