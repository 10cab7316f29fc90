// Package syscat is the system catalog as SQL sees it: the pg_catalog and
// information_schema relations that psql's \d commands, drivers' metadata
// calls and BI tools query, computed from cairn's own catalog
// (catalog.Catalog) when a statement reads them, and the name lookups of
// the reg* types and catalog functions (pg_get_indexdef, ...).
//
// cairn keeps no OIDs of its own. They are derived here, the same way
// every time: the fixed OIDs of PostgreSQL for built-in objects (pg_catalog
// is 11, public 2200, the relation pg_class 1259, type int4 23), 100000
// plus the table ID for tables, and a hash of the name above those for
// schemas, indexes, sequences and constraints.
// So an OID a client read stays valid until the object is renamed or
// dropped.
package syscat
