package storage

// This file is the contract between storage and its callers (exec, sql).
// Method bodies live in the other files of the package.

import (
	"github.com/cairn-db/cairn/sql/types"
)

// Catalog is an immutable snapshot of every schema, table, sequence and
// index definition. A transaction sees the catalog as of its start plus its
// own DDL; callers never mutate a Catalog they were handed (use Clone).
type Catalog struct {
	Schemas   map[string]*SchemaDef   `json:"schemas"`
	Tables    map[uint64]*TableDef    `json:"tables"`
	Sequences map[string]*SequenceDef `json:"sequences"`       // key: schema + "." + name
	Indexes   map[string]*IndexDef    `json:"indexes"`         // key: schema + "." + name
	Views     map[string]*ViewDef     `json:"views,omitempty"` // key: schema + "." + name
	// NextID hands out table IDs; IDs are never reused.
	NextID uint64 `json:"next_id"`
}

// SchemaDef is a schema (a workspace).
type SchemaDef struct {
	Name string `json:"name"`
}

// TableDef is a table's definition. Column positions are the order of
// Columns; a column's ID is stable across renames and never reused, and is
// what segment files are matched by.
type TableDef struct {
	ID      uint64      `json:"id"`
	Schema  string      `json:"schema"`
	Name    string      `json:"name"`
	Columns []ColumnDef `json:"columns"`
	// PrimaryKey holds column IDs; empty when the table has none.
	PrimaryKey []int `json:"primary_key,omitempty"`
	// PrimaryKeyName names the primary key constraint in errors; "" means
	// "<table>_pkey" as of the table's current name.
	PrimaryKeyName string `json:"primary_key_name,omitempty"`
	// Uniques are UNIQUE constraints (column IDs each), enforced by storage
	// at insert and at commit like the primary key.
	Uniques []UniqueDef `json:"uniques,omitempty"`
	// Checks and ForeignKeys are SQL text that storage only keeps; the
	// executor evaluates them.
	Checks      []CheckDef      `json:"checks,omitempty"`
	ForeignKeys []ForeignKeyDef `json:"foreign_keys,omitempty"`
	// NextColumnID hands out column IDs.
	NextColumnID int `json:"next_column_id"`
	// Comment is COMMENT ON TABLE's text ("" for none).
	Comment string `json:"comment,omitempty"`
}

// ColumnDef is one column.
type ColumnDef struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Type    types.T `json:"type"`
	NotNull bool    `json:"not_null,omitempty"`
	// Default is the SQL text of the DEFAULT expression, "" for none;
	// storage does not interpret it.
	Default string `json:"default,omitempty"`
	// Comment is COMMENT ON COLUMN's text ("" for none).
	Comment string `json:"comment,omitempty"`
	// Identity is "a" for GENERATED ALWAYS AS IDENTITY, "d" for GENERATED
	// BY DEFAULT AS IDENTITY, "" for neither (pg_attribute.attidentity);
	// Default then draws from the column's sequence.
	Identity string `json:"identity,omitempty"`
}

// UniqueDef is a UNIQUE (or PRIMARY KEY) constraint.
type UniqueDef struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"` // column IDs
}

// CheckDef is a CHECK constraint as SQL text.
type CheckDef struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	// Columns are the IDs of the columns Expr reads, in order of
	// appearance (pg_constraint.conkey); empty in catalogs written before
	// they were recorded.
	Columns []int `json:"columns,omitempty"`
}

// ForeignKeyDef is FOREIGN KEY (Columns) REFERENCES RefSchema.RefTable (RefColumns).
type ForeignKeyDef struct {
	Name       string `json:"name"`
	Columns    []int  `json:"columns"`
	RefTable   uint64 `json:"ref_table"`
	RefColumns []int  `json:"ref_columns"`
}

// ViewDef is a view: the SQL text of its query, bound again wherever the
// view is read (under the search path it was created with, so its names
// mean what they meant then), and the columns it had when created.
type ViewDef struct {
	Schema     string      `json:"schema"`
	Name       string      `json:"name"`
	Query      string      `json:"query"`
	SearchPath []string    `json:"search_path"`
	Columns    []ColumnDef `json:"columns"`
	// QueryColumns are the names the query gave its columns (before the
	// view's own column names), to tell when a changed table makes the
	// query answer other columns than the view was made of.
	QueryColumns []string `json:"query_columns"`
}

// SequenceDef is a sequence (serial columns own one).
type SequenceDef struct {
	Schema    string `json:"schema"`
	Name      string `json:"name"`
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
}

// IndexDef is a recorded index (deeplake_index, hnsw, ivfflat, btree).
type IndexDef struct {
	Schema  string            `json:"schema"`
	Name    string            `json:"name"`
	Table   uint64            `json:"table"`
	Method  string            `json:"method"`
	Columns []int             `json:"columns"`
	Options map[string]string `json:"options,omitempty"`
	Unique  bool              `json:"unique,omitempty"`
}
