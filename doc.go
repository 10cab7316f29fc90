// Package cairn is the module root of cairn, a PostgreSQL-compatible SQL
// server for the memory and traces of AI agents. The server is
// cmd/cairn; the folders are its pipeline (wire, exec/session, sql, exec,
// storage, functions). This package holds only the layering test, which
// keeps imports pointing down that pipeline.
package cairn
