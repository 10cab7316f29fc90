package syscat

import (
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
)

// More information_schema relations, with PostgreSQL 15's columns, that
// SQLAlchemy, Django, JDBC drivers and BI tools read: the roles the
// current user acts as (enabled_roles), the memberships that make it so
// (applicable_roles, administrable_role_authorizations), table and
// column grants involving them (role_table_grants, role_column_grants),
// the column types they may use (column_udt_usage), the catalog's name,
// character set and collations, the tables keys and foreign keys use and the columns of UPDATE OF triggers. cairn has no
// domains, composite types, foreign data wrappers, servers or tables,
// user mappings, transforms or SQL-standard function bodies, so the
// relations describing those have no rows.

func init() {
	const is = "information_schema"
	register(is, "enabled_roles", 0, "role_name name", func(v *View) [][]any {
		var rows [][]any
		for _, r := range v.enabledRoles() {
			rows = append(rows, []any{r.Name})
		}
		return rows
	})
	register(is, "applicable_roles", 0, "grantee name, role_name name, is_grantable text", func(v *View) [][]any {
		var rows [][]any
		enabled := map[uint32]bool{}
		for _, r := range v.enabledRoles() {
			enabled[r.OID] = true
		}
		for _, m := range v.Cat.Members {
			member, role := v.Cat.RoleByOID(m.Member), v.Cat.RoleByOID(m.Role)
			if member != nil && role != nil && enabled[m.Member] {
				rows = append(rows, []any{member.Name, role.Name, yesNo(m.Admin)})
			}
		}
		return rows
	})
	register(is, "administrable_role_authorizations", 0, "grantee name, role_name name, is_grantable text", func(v *View) [][]any {
		var rows [][]any
		for _, row := range relations[is+".applicable_roles"].rows(v) {
			if row[2] == "YES" {
				rows = append(rows, row)
			}
		}
		return rows
	})
	register(is, "role_table_grants", 0, "grantor name, grantee name, table_catalog name, table_schema name, table_name name, privilege_type text, is_grantable text, with_hierarchy text", func(v *View) [][]any {
		return v.enabledGrants(relations[is+".table_privileges"].rows(v))
	})
	register(is, "role_column_grants", 0, "grantor name, grantee name, table_catalog name, table_schema name, table_name name, column_name name, privilege_type text, is_grantable text", func(v *View) [][]any {
		return v.enabledGrants(relations[is+".column_privileges"].rows(v))
	})
	// The types of the tables' and views' columns, where the type's
	// owner is an enabled role: the built-in types' (the bootstrap
	// superuser's) for a superuser, else the user's own enums.
	register(is, "column_udt_usage", 0, "udt_catalog name, udt_schema name, udt_name name, table_catalog name, table_schema name, table_name name, column_name name", func(v *View) [][]any {
		enabled := map[uint32]bool{}
		for _, r := range v.enabledRoles() {
			enabled[r.OID] = true
		}
		var rows [][]any
		for _, c := range relations[is+".columns"].rows(v) {
			// columns: table_catalog 0, table_schema 1, table_name 2,
			// column_name 3, udt_catalog 25, udt_schema 26, udt_name 27.
			schema, _ := c[26].(string)
			udt, _ := c[27].(string)
			owner := uint32(catalog.BootstrapRoleOID)
			name := strings.TrimPrefix(udt, "_")
			if td := v.Cat.Type(schema, name); td != nil {
				owner = catalog.OwnerOID(td.Owner)
			}
			if enabled[owner] {
				rows = append(rows, []any{c[25], c[26], c[27], c[0], c[1], c[2], c[3]})
			}
		}
		return rows
	})
	register(is, "information_schema_catalog_name", 0, "catalog_name name", func(v *View) [][]any {
		return [][]any{{v.Database}}
	})
	register(is, "character_sets", 0, "character_set_catalog name, character_set_schema name, character_set_name name, character_repertoire name, form_of_use name, default_collate_catalog name, default_collate_schema name, default_collate_name name", func(v *View) [][]any {
		return [][]any{{nil, nil, "UTF8", "UCS", "UTF8", v.Database, nil, nil}}
	})
	register(is, "collations", 0, "collation_catalog name, collation_schema name, collation_name name, pad_attribute text", func(v *View) [][]any {
		var rows [][]any
		for _, name := range collationNames {
			rows = append(rows, []any{v.Database, "pg_catalog", name, "NO PAD"})
		}
		return rows
	})
	register(is, "collation_character_set_applicability", 0, "collation_catalog name, collation_schema name, collation_name name, character_set_catalog name, character_set_schema name, character_set_name name", func(v *View) [][]any {
		var rows [][]any
		for _, name := range collationNames {
			rows = append(rows, []any{v.Database, "pg_catalog", name, nil, nil, "UTF8"})
		}
		return rows
	})
	register(is, "constraint_table_usage", 0, "table_catalog name, table_schema name, table_name name, constraint_catalog name, constraint_schema name, constraint_name name", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			if c.kind == 'c' {
				continue // as in PostgreSQL, only keys and foreign keys use tables
			}
			t := c.table
			if c.fk != nil {
				if t = v.Cat.TableByID(c.fk.RefTable); t == nil {
					continue
				}
			}
			rows = append(rows, []any{v.Database, t.Schema, t.Name, v.Database, c.table.Schema, c.name})
		}
		return rows
	})
	register(is, "triggered_update_columns", 0, "trigger_catalog name, trigger_schema name, trigger_name name, event_object_catalog name, event_object_schema name, event_object_table name, event_object_column name", func(v *View) [][]any {
		var rows [][]any
		for _, rel := range triggerRels(v) {
			t := rel.def
			for _, tr := range t.Triggers {
				for _, id := range tr.Columns {
					if _, c := t.ColumnByID(id); c != nil {
						rows = append(rows, []any{v.Database, t.Schema, tr.Name, v.Database, t.Schema, t.Name, c.Name})
					}
				}
			}
		}
		return rows
	})
	typeCols := "data_type text, character_maximum_length int4, character_octet_length int4, character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, collation_name name, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text, interval_precision int4"
	register(is, "attributes", 0, "udt_catalog name, udt_schema name, udt_name name, attribute_name name, ordinal_position int4, attribute_default text, is_nullable text, "+typeCols+", attribute_udt_catalog name, attribute_udt_schema name, attribute_udt_name name, scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name, is_derived_reference_attribute text", nil)
	register(is, "user_defined_types", 0, "user_defined_type_catalog name, user_defined_type_schema name, user_defined_type_name name, user_defined_type_category text, is_instantiable text, is_final text, ordering_form text, ordering_category text, ordering_routine_catalog name, ordering_routine_schema name, ordering_routine_name name, reference_type text, "+typeCols+", source_dtd_identifier name, ref_dtd_identifier name", nil)
	register(is, "foreign_tables", 0, "foreign_table_catalog name, foreign_table_schema name, foreign_table_name name, foreign_server_catalog name, foreign_server_name name", nil)
	register(is, "foreign_table_options", 0, "foreign_table_catalog name, foreign_table_schema name, foreign_table_name name, option_name name, option_value text", nil)
	register(is, "foreign_servers", 0, "foreign_server_catalog name, foreign_server_name name, foreign_data_wrapper_catalog name, foreign_data_wrapper_name name, foreign_server_type text, foreign_server_version text, authorization_identifier name", nil)
	register(is, "foreign_server_options", 0, "foreign_server_catalog name, foreign_server_name name, option_name name, option_value text", nil)
	register(is, "foreign_data_wrappers", 0, "foreign_data_wrapper_catalog name, foreign_data_wrapper_name name, authorization_identifier name, library_name text, foreign_data_wrapper_language text", nil)
	register(is, "foreign_data_wrapper_options", 0, "foreign_data_wrapper_catalog name, foreign_data_wrapper_name name, option_name name, option_value text", nil)
	register(is, "column_options", 0, "table_catalog name, table_schema name, table_name name, column_name name, option_name name, option_value text", nil)
	register(is, "user_mappings", 0, "authorization_identifier name, foreign_server_catalog name, foreign_server_name name", nil)
	register(is, "user_mapping_options", 0, "authorization_identifier name, foreign_server_catalog name, foreign_server_name name, option_name name, option_value text", nil)
	register(is, "transforms", 0, "udt_catalog name, udt_schema name, udt_name name, specific_catalog name, specific_schema name, specific_name name, group_name name, transform_type text", nil)
	// PostgreSQL 15 records what a function's body uses only for a body
	// of BEGIN ATOMIC, which cairn refuses: none of these has a row.
	register(is, "routine_column_usage", 0, "specific_catalog name, specific_schema name, specific_name name, routine_catalog name, routine_schema name, routine_name name, table_catalog name, table_schema name, table_name name, column_name name", nil)
	register(is, "routine_routine_usage", 0, "specific_catalog name, specific_schema name, specific_name name, routine_catalog name, routine_schema name, routine_name name", nil)
	register(is, "routine_sequence_usage", 0, "specific_catalog name, specific_schema name, specific_name name, routine_catalog name, routine_schema name, routine_name name, sequence_catalog name, sequence_schema name, sequence_name name", nil)
	register(is, "routine_table_usage", 0, "specific_catalog name, specific_schema name, specific_name name, routine_catalog name, routine_schema name, routine_name name, table_catalog name, table_schema name, table_name name", nil)
}

// collationNames are the collations pg_collation lists.
var collationNames = []string{"default", "C", "POSIX"}

// enabledGrants are the rows of a privileges relation (grantor and
// grantee first) whose grantor or grantee is an enabled role, as the
// role_*_grants views filter them.
func (v *View) enabledGrants(all [][]any) [][]any {
	enabled := map[string]bool{}
	for _, r := range v.enabledRoles() {
		enabled[r.Name] = true
	}
	var rows [][]any
	for _, row := range all {
		if enabled[row[0].(string)] || enabled[row[1].(string)] {
			rows = append(rows, row)
		}
	}
	return rows
}

// enabledRoles are the roles whose privileges the current user has
// (pg_has_role(role, 'USAGE')): every role for a superuser, else the
// user and the roles it inherits from.
func (v *View) enabledRoles() []*catalog.RoleDef {
	me := v.Cat.RoleByOID(v.roleOID(v.User))
	var out []*catalog.RoleDef
	for _, r := range v.Cat.RoleList() {
		if me == nil || me.Superuser || v.Cat.Reaches(me.OID, r.OID, true) {
			out = append(out, r)
		}
	}
	return out
}
