// Package types is cairn's type system: the PostgreSQL types a column or an
// expression can have, their OIDs and names as clients see them, and the
// Arrow layout a column of each type has in batches and Parquet files. It is
// a leaf shared by every stage (storage keeps types in its catalog without
// knowing any SQL).
package types
