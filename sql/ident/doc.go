// Package ident is the vocabulary of SQL identifiers every layer shares:
// PostgreSQL 15's keyword list and the one rule for quoting an identifier
// (quote_ident, format's %I, the names psql and pg_get_* print, and SQL
// that cairn writes itself). It is a leaf.
package ident
