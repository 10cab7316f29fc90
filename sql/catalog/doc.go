// Package catalog is the vocabulary every layer shares about what exists:
// schemas, tables and their columns and constraints, views, sequences and
// indexes, as plain definitions in an immutable snapshot (Catalog). The
// binder plans against it, storage persists and versions it, the system
// catalogs (pg_class, ...) are drawn from it. It imports only sql/types.
package catalog
