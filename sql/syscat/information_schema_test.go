package syscat

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// isCatalog is cairn's catalog after this DDL, which the expected values of
// TestInformationSchema were read from on PostgreSQL 15 (in a database
// named cairn):
//
//	CREATE TABLE mem (id int8 PRIMARY KEY, name varchar(20) CONSTRAINT mem_name_key UNIQUE,
//	  price numeric(10,2), emb float4[], task text DEFAULT 'x', n int4 NOT NULL,
//	  CONSTRAINT mem_price_check CHECK (price > 0));
//	CREATE TABLE ref (id int4 PRIMARY KEY, mem_id int8 CONSTRAINT ref_mem_id_fkey REFERENCES mem(id),
//	  mname varchar(20), CONSTRAINT ref_mname_fkey FOREIGN KEY (mname) REFERENCES mem(name));
//	CREATE TABLE u (a int4, b int4, CONSTRAINT u_a_b_key UNIQUE (a,b));
//	CREATE TABLE w (x int4, y int4, CONSTRAINT w_y_x_fkey FOREIGN KEY (y,x) REFERENCES u(b,a));
//	CREATE TABLE kinds (a varchar, b numeric, c timestamptz, d date, e float8, f int2, h name,
//	  i char(3), j real, v vector(3));
//	CREATE SEQUENCE sq START 5 INCREMENT 2 MINVALUE 1 MAXVALUE 1000;
//
// (the oracle has no pgvector; kinds.v's values are pgvector's documented
// ones).
func isCatalog() *catalog.Catalog {
	varchar20 := types.VarcharT
	varchar20.Mod = 20
	numeric102 := types.NumericT
	numeric102.Mod = 10<<16 | 2
	char3 := types.CharT
	char3.Mod = 3
	return &catalog.Catalog{
		Schemas: map[string]*catalog.SchemaDef{"public": {Name: "public"}},
		Tables: map[uint64]*catalog.TableDef{
			1: {ID: 1, Schema: "public", Name: "mem",
				Columns: []catalog.ColumnDef{
					{ID: 1, Name: "id", Type: types.Int8T, NotNull: true},
					{ID: 2, Name: "name", Type: varchar20},
					{ID: 3, Name: "price", Type: numeric102},
					{ID: 4, Name: "emb", Type: types.Float4ArrayT},
					{ID: 5, Name: "task", Type: types.TextT, Default: "'x'::text"},
					{ID: 6, Name: "n", Type: types.Int4T, NotNull: true},
				},
				PrimaryKey: []int{1},
				Uniques:    []catalog.UniqueDef{{Name: "mem_name_key", Columns: []int{2}}},
				Checks:     []catalog.CheckDef{{Name: "mem_price_check", Expr: "price > (0)::numeric"}}},
			2: {ID: 2, Schema: "public", Name: "ref",
				Columns: []catalog.ColumnDef{
					{ID: 1, Name: "id", Type: types.Int4T},
					{ID: 2, Name: "mem_id", Type: types.Int8T},
					{ID: 3, Name: "mname", Type: varchar20},
				},
				PrimaryKey: []int{1},
				ForeignKeys: []catalog.ForeignKeyDef{
					{Name: "ref_mem_id_fkey", Columns: []int{2}, RefTable: 1, RefColumns: []int{1}},
					{Name: "ref_mname_fkey", Columns: []int{3}, RefTable: 1, RefColumns: []int{2}},
				}},
			3: {ID: 3, Schema: "public", Name: "u",
				Columns: []catalog.ColumnDef{{ID: 1, Name: "a", Type: types.Int4T}, {ID: 2, Name: "b", Type: types.Int4T}},
				Uniques: []catalog.UniqueDef{{Name: "u_a_b_key", Columns: []int{1, 2}}}},
			4: {ID: 4, Schema: "public", Name: "w",
				Columns:     []catalog.ColumnDef{{ID: 1, Name: "x", Type: types.Int4T}, {ID: 2, Name: "y", Type: types.Int4T}},
				ForeignKeys: []catalog.ForeignKeyDef{{Name: "w_y_x_fkey", Columns: []int{2, 1}, RefTable: 3, RefColumns: []int{2, 1}}}},
			5: {ID: 5, Schema: "public", Name: "kinds",
				Columns: []catalog.ColumnDef{
					{ID: 1, Name: "a", Type: types.VarcharT},
					{ID: 2, Name: "b", Type: types.NumericT},
					{ID: 3, Name: "c", Type: types.TimestampTZT},
					{ID: 4, Name: "d", Type: types.DateT},
					{ID: 5, Name: "e", Type: types.Float8T},
					{ID: 6, Name: "f", Type: types.Int2T},
					{ID: 7, Name: "h", Type: types.NameT},
					{ID: 8, Name: "i", Type: char3},
					{ID: 9, Name: "j", Type: types.Float4T},
					{ID: 10, Name: "v", Type: types.VectorOf(3)},
				}},
		},
		Sequences: map[string]*catalog.SequenceDef{"public.sq": {Schema: "public", Name: "sq", Start: 5, Increment: 2, Min: 1, Max: 1000}},
	}
}

// row is a row of a system relation by column name.
type row map[string]any

// relationRows computes an information_schema relation's rows by column
// name.
func relationRows(t *testing.T, v *View, name string) []row {
	t.Helper()
	r := Lookup("information_schema", name)
	if r == nil {
		t.Fatalf("no relation information_schema.%s", name)
	}
	var out []row
	for _, datums := range r.Rows(v) {
		m := row{}
		for i, c := range r.Cols {
			m[c.Name] = datums[i]
		}
		out = append(out, m)
	}
	return out
}

// The rows PostgreSQL 15 gives for isCatalog's DDL.
func TestInformationSchema(t *testing.T) {
	v := NewView(isCatalog(), "cairn", "cairn", []string{"public"})
	tests := []struct {
		rel  string
		key  row // the values that pick out one row
		want row
	}{
		{"columns", row{"table_name": "mem", "column_name": "id"}, row{
			"table_catalog": "cairn", "table_schema": "public", "ordinal_position": int64(1), "column_default": nil,
			"is_nullable": "NO", "data_type": "bigint", "character_maximum_length": nil, "character_octet_length": nil,
			"numeric_precision": int64(64), "numeric_precision_radix": int64(2), "numeric_scale": int64(0),
			"datetime_precision": nil, "collation_name": nil, "udt_catalog": "cairn", "udt_schema": "pg_catalog",
			"udt_name": "int8", "dtd_identifier": "1", "is_self_referencing": "NO", "is_identity": "NO",
			"identity_cycle": "NO", "is_generated": "NEVER", "is_updatable": "YES"}},
		{"columns", row{"table_name": "mem", "column_name": "name"}, row{
			"ordinal_position": int64(2), "is_nullable": "YES", "data_type": "character varying",
			"character_maximum_length": int64(20), "character_octet_length": int64(80), "numeric_precision": nil,
			"numeric_precision_radix": nil, "numeric_scale": nil, "udt_name": "varchar", "dtd_identifier": "2"}},
		{"columns", row{"table_name": "mem", "column_name": "price"}, row{
			"data_type": "numeric", "numeric_precision": int64(10), "numeric_precision_radix": int64(10),
			"numeric_scale": int64(2), "udt_name": "numeric"}},
		{"columns", row{"table_name": "mem", "column_name": "emb"}, row{
			"data_type": "ARRAY", "udt_schema": "pg_catalog", "udt_name": "_float4", "numeric_precision": nil}},
		{"columns", row{"table_name": "mem", "column_name": "task"}, row{
			"column_default": "'x'::text", "is_nullable": "YES", "data_type": "text",
			"character_maximum_length": nil, "character_octet_length": int64(1 << 30), "udt_name": "text"}},
		{"columns", row{"table_name": "mem", "column_name": "n"}, row{
			"is_nullable": "NO", "data_type": "integer", "numeric_precision": int64(32), "udt_name": "int4"}},
		{"columns", row{"table_name": "ref", "column_name": "id"}, row{"is_nullable": "NO"}},
		{"columns", row{"table_name": "kinds", "column_name": "a"}, row{
			"data_type": "character varying", "character_maximum_length": nil, "character_octet_length": int64(1 << 30)}},
		{"columns", row{"table_name": "kinds", "column_name": "b"}, row{
			"numeric_precision": nil, "numeric_precision_radix": int64(10), "numeric_scale": nil}},
		{"columns", row{"table_name": "kinds", "column_name": "c"}, row{
			"data_type": "timestamp with time zone", "datetime_precision": int64(6), "udt_name": "timestamptz"}},
		{"columns", row{"table_name": "kinds", "column_name": "d"}, row{"data_type": "date", "datetime_precision": int64(0)}},
		{"columns", row{"table_name": "kinds", "column_name": "e"}, row{
			"data_type": "double precision", "numeric_precision": int64(53), "numeric_precision_radix": int64(2), "numeric_scale": nil}},
		{"columns", row{"table_name": "kinds", "column_name": "f"}, row{
			"data_type": "smallint", "numeric_precision": int64(16), "numeric_scale": int64(0), "udt_name": "int2"}},
		{"columns", row{"table_name": "kinds", "column_name": "h"}, row{
			"data_type": "name", "collation_catalog": "cairn", "collation_schema": "pg_catalog", "collation_name": "C"}},
		{"columns", row{"table_name": "kinds", "column_name": "i"}, row{
			"data_type": "character", "character_maximum_length": int64(3), "character_octet_length": int64(12), "udt_name": "bpchar"}},
		{"columns", row{"table_name": "kinds", "column_name": "j"}, row{
			"data_type": "real", "numeric_precision": int64(24), "numeric_precision_radix": int64(2), "numeric_scale": nil, "udt_name": "float4"}},
		{"columns", row{"table_name": "kinds", "column_name": "v"}, row{
			"data_type": "USER-DEFINED", "udt_schema": "public", "udt_name": "vector"}},

		{"table_constraints", row{"constraint_name": "mem_pkey"}, row{
			"constraint_catalog": "cairn", "constraint_schema": "public", "table_catalog": "cairn", "table_schema": "public",
			"table_name": "mem", "constraint_type": "PRIMARY KEY", "is_deferrable": "NO", "initially_deferred": "NO",
			"enforced": "YES", "nulls_distinct": nil}},
		{"table_constraints", row{"constraint_name": "mem_name_key"}, row{"constraint_type": "UNIQUE", "nulls_distinct": "YES"}},
		{"table_constraints", row{"constraint_name": "mem_price_check"}, row{"table_name": "mem", "constraint_type": "CHECK", "nulls_distinct": nil}},
		{"table_constraints", row{"constraint_name": "ref_mname_fkey"}, row{"table_name": "ref", "constraint_type": "FOREIGN KEY", "nulls_distinct": nil}},
		// PostgreSQL names these from its OIDs (2200_16439_6_not_null
		// there); cairn from its own.
		{"table_constraints", row{"constraint_name": fmt.Sprintf("2200_%d_6_not_null", TableOID(1))}, row{"table_name": "mem", "constraint_type": "CHECK"}},
		{"table_constraints", row{"constraint_name": fmt.Sprintf("2200_%d_1_not_null", TableOID(2))}, row{"table_name": "ref", "constraint_type": "CHECK"}},

		{"key_column_usage", row{"constraint_name": "mem_pkey"}, row{
			"constraint_catalog": "cairn", "constraint_schema": "public", "table_catalog": "cairn", "table_schema": "public",
			"table_name": "mem", "column_name": "id", "ordinal_position": int64(1), "position_in_unique_constraint": nil}},
		{"key_column_usage", row{"constraint_name": "ref_mem_id_fkey"}, row{
			"table_name": "ref", "column_name": "mem_id", "ordinal_position": int64(1), "position_in_unique_constraint": int64(1)}},
		{"key_column_usage", row{"constraint_name": "ref_mname_fkey"}, row{"column_name": "mname", "position_in_unique_constraint": int64(1)}},
		{"key_column_usage", row{"constraint_name": "u_a_b_key", "column_name": "b"}, row{"ordinal_position": int64(2), "position_in_unique_constraint": nil}},
		{"key_column_usage", row{"constraint_name": "w_y_x_fkey", "column_name": "y"}, row{"ordinal_position": int64(1), "position_in_unique_constraint": int64(2)}},
		{"key_column_usage", row{"constraint_name": "w_y_x_fkey", "column_name": "x"}, row{"ordinal_position": int64(2), "position_in_unique_constraint": int64(1)}},

		{"referential_constraints", row{"constraint_name": "ref_mem_id_fkey"}, row{
			"constraint_catalog": "cairn", "constraint_schema": "public", "unique_constraint_catalog": "cairn",
			"unique_constraint_schema": "public", "unique_constraint_name": "mem_pkey", "match_option": "NONE",
			"update_rule": "NO ACTION", "delete_rule": "NO ACTION"}},
		{"referential_constraints", row{"constraint_name": "ref_mname_fkey"}, row{"unique_constraint_name": "mem_name_key"}},
		{"referential_constraints", row{"constraint_name": "w_y_x_fkey"}, row{"unique_constraint_name": "u_a_b_key"}},

		{"constraint_column_usage", row{"constraint_name": "mem_price_check"}, row{
			"table_catalog": "cairn", "table_schema": "public", "table_name": "mem", "column_name": "price",
			"constraint_catalog": "cairn", "constraint_schema": "public"}},
		{"constraint_column_usage", row{"constraint_name": "ref_mem_id_fkey"}, row{"table_name": "mem", "column_name": "id"}},
		{"constraint_column_usage", row{"constraint_name": "w_y_x_fkey", "column_name": "a"}, row{"table_name": "u"}},

		{"sequences", row{"sequence_name": "sq"}, row{
			"sequence_catalog": "cairn", "sequence_schema": "public", "data_type": "bigint", "numeric_precision": int64(64),
			"numeric_precision_radix": int64(2), "numeric_scale": int64(0), "start_value": "5", "minimum_value": "1",
			"maximum_value": "1000", "increment": "2", "cycle_option": "NO"}},

		{"tables", row{"table_name": "mem"}, row{
			"table_catalog": "cairn", "table_schema": "public", "table_type": "BASE TABLE", "is_insertable_into": "YES",
			"is_typed": "NO", "commit_action": nil}},
		{"tables", row{"table_name": "pg_tables"}, row{"table_schema": "pg_catalog", "table_type": "VIEW"}},
		{"tables", row{"table_name": "columns"}, row{"table_schema": "information_schema", "table_type": "VIEW"}},
		// cairn's catalog tables are read-only: not insertable, unlike
		// PostgreSQL's to a superuser.
		{"tables", row{"table_name": "pg_class"}, row{"table_schema": "pg_catalog", "table_type": "BASE TABLE", "is_insertable_into": "NO"}},

		{"schemata", row{"schema_name": "public"}, row{"catalog_name": "cairn", "schema_owner": "cairn", "sql_path": nil}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v", tc.rel, tc.key), func(t *testing.T) {
			var found []row
			for _, r := range relationRows(t, v, tc.rel) {
				if matches(r, tc.key) {
					found = append(found, r)
				}
			}
			if len(found) != 1 {
				t.Fatalf("%d rows match, want 1", len(found))
			}
			for col, want := range tc.want {
				got, ok := found[0][col]
				if !ok {
					t.Fatalf("no column %s", col)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", col, got, want)
				}
			}
		})
	}
}

// The relations list every row PostgreSQL 15 does for isCatalog's DDL, and
// no more.
func TestInformationSchemaRowCounts(t *testing.T) {
	v := NewView(isCatalog(), "cairn", "cairn", []string{"public"})
	tests := []struct {
		rel  string
		want int
	}{
		{"table_constraints", 11},
		{"key_column_usage", 9},
		{"referential_constraints", 3},
		{"constraint_column_usage", 10},
		{"sequences", 1},
		{"views", 0},
		{"routines", 0},
	}
	for _, tc := range tests {
		if got := len(relationRows(t, v, tc.rel)); got != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.rel, got, tc.want)
		}
	}
	cols := 0
	for _, r := range relationRows(t, v, "columns") {
		if r["table_name"] != "kinds" {
			cols++
		}
	}
	if cols != 13 {
		t.Errorf("columns: %d rows for mem, ref, u and w, want 13", cols)
	}
}

// matches reports whether r has every value of key.
func matches(r, key row) bool {
	for col, want := range key {
		if r[col] != want {
			return false
		}
	}
	return true
}
