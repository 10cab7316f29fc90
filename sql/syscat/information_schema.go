package syscat

import (
	"strings"

	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// The information_schema relations, with PostgreSQL 15's columns in its
// order: the SQL-standard metadata views that JDBC/ODBC drivers, ORMs and
// BI tools read. Their domains map to plain types: sql_identifier is name,
// cardinal_number int4, character_data and yes_or_no text, time_stamp
// timestamptz. The values follow PostgreSQL's view definitions for what
// cairn has: tables, their columns and constraints, sequences. cairn has
// no views, functions or triggers, so those relations have no rows.

// charOctetsUnbounded is character_octet_length of a text column or of a
// varchar or char without a length: PostgreSQL's 2^30.
const charOctetsUnbounded = 1 << 30

// maxCharBytes is the longest character in bytes in the database encoding
// (UTF8): character_octet_length is the length times this.
const maxCharBytes = 4

func init() {
	const is = "information_schema"

	register(is, "schemata", 0, "catalog_name name, schema_name name, schema_owner name, default_character_set_catalog name, default_character_set_schema name, default_character_set_name name, sql_path text", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.schemas() {
			rows = append(rows, []any{v.Database, s, v.User, nil, nil, nil, nil})
		}
		return rows
	})

	register(is, "tables", 0, "table_catalog name, table_schema name, table_name name, table_type text, self_referencing_column_name name, reference_generation text, user_defined_type_catalog name, user_defined_type_schema name, user_defined_type_name name, is_insertable_into text, is_typed text, commit_action text", func(v *View) [][]any {
		var rows [][]any
		row := func(schema, name, kind, insertable string) {
			rows = append(rows, []any{v.Database, schema, name, kind, nil, nil, nil, nil, nil, insertable, "NO", nil})
		}
		for _, t := range v.tables {
			if catalog.IsTempSchema(t.Schema) {
				row(t.Schema, t.Name, "LOCAL TEMPORARY", "YES")
			} else {
				row(t.Schema, t.Name, "BASE TABLE", "YES")
			}
		}
		for _, d := range v.views {
			row(d.Schema, d.Name, "VIEW", yesNo(v.updatability(d).Insert))
		}
		// System relations are read-only in cairn, so none is insertable
		// (PostgreSQL says YES for its catalog tables, to a superuser).
		for _, r := range allRelations() {
			kind := "BASE TABLE"
			if r.isView() {
				kind = "VIEW"
			}
			row(r.Schema, r.Name, kind, "NO")
		}
		return rows
	})

	register(is, "table_privileges", 0, "grantor name, grantee name, table_catalog name, table_schema name, table_name name, privilege_type text, is_grantable text, with_hierarchy text", func(v *View) [][]any {
		var rows [][]any
		add := func(schema, name string, owner uint32, acl []catalog.ACLItem) {
			v.aclGrants(catalog.EffectiveACL(acl, catalog.OwnerOID(owner), catalog.TablePrivs), owner, catalog.TablePrivs, func(grantor, grantee, priv, grantable string) {
				hierarchy := "NO"
				if priv == "SELECT" {
					hierarchy = "YES"
				}
				rows = append(rows, []any{grantor, grantee, v.Database, schema, name, priv, grantable, hierarchy})
			})
		}
		for _, t := range v.tables {
			add(t.Schema, t.Name, t.Owner, t.ACL)
		}
		for _, d := range v.views {
			add(d.Schema, d.Name, d.Owner, d.ACL)
		}
		return rows
	})

	// column_privileges lists each column's privileges, from the table's
	// ACL and the column's, once each (PostgreSQL's view is a UNION).
	register(is, "column_privileges", 0, "grantor name, grantee name, table_catalog name, table_schema name, table_name name, column_name name, privilege_type text, is_grantable text", func(v *View) [][]any {
		var rows [][]any
		add := func(schema, name string, owner uint32, acl []catalog.ACLItem, cols []string, colACL func(i int) []catalog.ACLItem) {
			for i, col := range cols {
				seen := map[[4]string]bool{}
				emit := func(grantor, grantee, priv, grantable string) {
					if k := [4]string{grantor, grantee, priv, grantable}; !seen[k] {
						seen[k] = true
						rows = append(rows, []any{grantor, grantee, v.Database, schema, name, col, priv, grantable})
					}
				}
				v.aclGrants(catalog.EffectiveACL(acl, catalog.OwnerOID(owner), catalog.TablePrivs), owner, catalog.ColumnPrivs, emit)
				// A column's default ACL is empty.
				v.aclGrants(colACL(i), owner, catalog.ColumnPrivs, emit)
			}
		}
		for _, t := range v.tables {
			cols := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				cols[i] = c.Name
			}
			add(t.Schema, t.Name, t.Owner, t.ACL, cols, func(i int) []catalog.ACLItem { return t.Columns[i].ACL })
		}
		for _, d := range v.views {
			cols := make([]string, len(d.Columns))
			for i, c := range d.Columns {
				cols[i] = c.Name
			}
			add(d.Schema, d.Name, d.Owner, d.ACL, cols, func(int) []catalog.ACLItem { return nil })
		}
		return rows
	})

	register(is, "columns", 0, "table_catalog name, table_schema name, table_name name, column_name name, ordinal_position int4, column_default text, is_nullable text, data_type text, character_maximum_length int4, character_octet_length int4, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text, interval_precision int4, character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, collation_name name, domain_catalog name, domain_schema name, domain_name name, udt_catalog name, udt_schema name, udt_name name, scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name, is_self_referencing text, is_identity text, identity_generation text, identity_start text, identity_increment text, identity_maximum text, identity_minimum text, identity_cycle text, is_generated text, generation_expression text, is_updatable text", func(v *View) [][]any {
		var rows [][]any
		row := func(schema, table string, rel *catalog.TableDef, i int, c catalog.ColumnDef, nullable, updatable string) {
			var def, collCatalog, collSchema, collName any
			isIdentity := "NO"
			var generation, start, increment, maximum, minimum, genExpr any
			isGenerated := "NEVER"
			switch {
			case c.Generated != "":
				isGenerated, genExpr = "ALWAYS", v.columnDefault(rel, &c, false)
			case c.Identity != "":
				isIdentity, generation = "YES", map[string]string{"a": "ALWAYS", "d": "BY DEFAULT"}[c.Identity]
				if s := v.ColumnSequence(c.Default); s != nil {
					start, increment = strconv.FormatInt(s.Start, 10), strconv.FormatInt(s.Increment, 10)
					maximum, minimum = strconv.FormatInt(s.Max, 10), strconv.FormatInt(s.Min, 10)
				}
			case c.Default != "":
				def = v.columnDefault(rel, &c, false)
			}
			// name is the one type whose collation (C) is not the
			// default, which PostgreSQL leaves out.
			if c.Type.Family == types.Name {
				collCatalog, collSchema, collName = v.Database, "pg_catalog", "C"
			}
			udtSchema, udtName := udtOf(c.Type)
			charLen, octets := charLengths(c.Type)
			precision, radix, scale := numericFacets(c.Type)
			var domCatalog, domSchema, domName any
			if td := v.Cat.DomainByOID(c.Domain); td != nil {
				domCatalog, domSchema, domName = v.Database, td.Schema, td.Name
			}
			rows = append(rows, []any{v.Database, schema, table, c.Name, int64(i + 1), def, nullable, sqlDataType(c.Type),
				charLen, octets, precision, radix, scale, datetimePrecision(c.Type), intervalType(c.Type), nil,
				nil, nil, nil, collCatalog, collSchema, collName, domCatalog, domSchema, domName,
				v.Database, udtSchema, udtName, nil, nil, nil, nil, strconv.Itoa(i + 1),
				"NO", isIdentity, generation, start, increment, maximum, minimum, "NO", isGenerated, genExpr, updatable})
		}
		for _, t := range v.tables {
			for i, c := range t.Columns {
				nullable := "YES"
				if notNull(t, c) {
					nullable = "NO"
				}
				row(t.Schema, t.Name, t, i, c, nullable, "YES")
			}
		}
		for _, d := range v.views {
			u := v.updatability(d)
			for i, c := range d.Columns {
				row(d.Schema, d.Name, nil, i, c, "YES", yesNo(u.Delete && i < len(u.Columns) && u.Columns[i]))
			}
		}
		return rows
	})

	register(is, "domains", 0, "domain_catalog name, domain_schema name, domain_name name, data_type text, character_maximum_length int4, character_octet_length int4, character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, collation_name name, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text, interval_precision int4, domain_default text, udt_catalog name, udt_schema name, udt_name name, scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name", func(v *View) [][]any {
		var rows [][]any
		for _, td := range v.userTypes() {
			d := td.Domain
			if d == nil {
				continue
			}
			var def any
			if d.Default != "" {
				def = d.Default
			}
			charLen, octets := charLengths(d.Base)
			precision, radix, scale := numericFacets(d.Base)
			udtSchema, udtName := udtOf(d.Base)
			// An array base type is named as format_type names it.
			dataType := sqlDataType(d.Base)
			if d.Base.IsArray() {
				dataType = d.Base.String()
			}
			rows = append(rows, []any{v.Database, td.Schema, td.Name, dataType, charLen, octets, nil, nil, nil, nil, nil, nil,
				precision, radix, scale, datetimePrecision(d.Base), intervalType(d.Base), nil, def,
				v.Database, udtSchema, udtName, nil, nil, nil, nil, "1"})
		}
		return rows
	})

	register(is, "column_domain_usage", 0, "domain_catalog name, domain_schema name, domain_name name, table_catalog name, table_schema name, table_name name, column_name name", func(v *View) [][]any {
		var rows [][]any
		for _, t := range v.tables {
			for _, c := range t.Columns {
				if td := v.Cat.DomainByOID(c.Domain); td != nil {
					rows = append(rows, []any{v.Database, td.Schema, td.Name, v.Database, t.Schema, t.Name, c.Name})
				}
			}
		}
		return rows
	})

	register(is, "domain_udt_usage", 0, "udt_catalog name, udt_schema name, udt_name name, domain_catalog name, domain_schema name, domain_name name", func(v *View) [][]any {
		var rows [][]any
		for _, td := range v.userTypes() {
			if td.Domain != nil {
				udtSchema, udtName := udtOf(td.Domain.Base)
				rows = append(rows, []any{v.Database, udtSchema, udtName, v.Database, td.Schema, td.Name})
			}
		}
		return rows
	})

	register(is, "domain_constraints", 0, "constraint_catalog name, constraint_schema name, constraint_name name, domain_catalog name, domain_schema name, domain_name name, is_deferrable text, initially_deferred text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.domChecks {
			rows = append(rows, []any{v.Database, c.domain.Schema, c.check.Name, v.Database, c.domain.Schema, c.domain.Name, "NO", "NO"})
		}
		return rows
	})

	register(is, "table_constraints", 0, "constraint_catalog name, constraint_schema name, constraint_name name, table_catalog name, table_schema name, table_name name, constraint_type text, is_deferrable text, initially_deferred text, enforced text, nulls_distinct text", func(v *View) [][]any {
		var rows [][]any
		yesNo := map[bool]string{true: "YES", false: "NO"}
		row := func(t *catalog.TableDef, name, kind string, deferrable, deferred bool, nullsDistinct any) {
			rows = append(rows, []any{v.Database, t.Schema, name, v.Database, t.Schema, t.Name, kind, yesNo[deferrable], yesNo[deferred], "YES", nullsDistinct})
		}
		for _, c := range v.constraints {
			var nullsDistinct any
			if c.kind == 'u' {
				nullsDistinct = "YES"
			}
			row(c.table, c.name, constraintTypes[c.kind], c.deferrable, c.deferred, nullsDistinct)
		}
		// PostgreSQL 15 also lists each NOT NULL column as a CHECK
		// constraint named <schema oid>_<table oid>_<attnum>_not_null.
		for _, t := range v.tables {
			for i, c := range t.Columns {
				if notNull(t, c) {
					row(t, notNullName(t, i), "CHECK", false, false, nil)
				}
			}
		}
		return rows
	})

	register(is, "key_column_usage", 0, "constraint_catalog name, constraint_schema name, constraint_name name, table_catalog name, table_schema name, table_name name, column_name name, ordinal_position int4, position_in_unique_constraint int4", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			if c.kind == 'c' {
				continue
			}
			var key *index
			if c.fk != nil {
				key, _ = v.referencedKey(c.fk)
			}
			for i, id := range c.columns {
				_, col := c.table.ColumnByID(id)
				if col == nil {
					continue
				}
				var pos any
				if key != nil && i < len(c.fk.RefColumns) {
					if p := slices.Index(key.columns, c.fk.RefColumns[i]); p >= 0 {
						pos = int64(p + 1)
					}
				}
				rows = append(rows, []any{v.Database, c.table.Schema, c.name, v.Database, c.table.Schema, c.table.Name, col.Name, int64(i + 1), pos})
			}
		}
		return rows
	})

	register(is, "referential_constraints", 0, "constraint_catalog name, constraint_schema name, constraint_name name, unique_constraint_catalog name, unique_constraint_schema name, unique_constraint_name name, match_option text, update_rule text, delete_rule text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			if c.fk == nil {
				continue
			}
			var catalog, schema, name any
			if _, uc := v.referencedKey(c.fk); uc != nil {
				catalog, schema, name = v.Database, uc.table.Schema, uc.name
			}
			match := "NONE"
			if c.fk.MatchFull {
				match = "FULL"
			}
			rows = append(rows, []any{v.Database, c.table.Schema, c.name, catalog, schema, name, match, fkActionRule(c.fk.OnUpdate), fkActionRule(c.fk.OnDelete)})
		}
		return rows
	})

	register(is, "constraint_column_usage", 0, "table_catalog name, table_schema name, table_name name, column_name name, constraint_catalog name, constraint_schema name, constraint_name name", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			t, ids := c.table, c.columns
			switch c.kind {
			case 'f':
				if t = v.Cat.TableByID(c.fk.RefTable); t == nil {
					continue
				}
				ids = c.fk.RefColumns
			case 'c':
				ids = checkColumns(t, c.check)
			}
			// One row per column in table order, as PostgreSQL's join with
			// pg_attribute gives them.
			for _, col := range t.Columns {
				if slices.Contains(ids, col.ID) {
					rows = append(rows, []any{v.Database, t.Schema, t.Name, col.Name, v.Database, c.table.Schema, c.name})
				}
			}
		}
		return rows
	})

	register(is, "sequences", 0, "sequence_catalog name, sequence_schema name, sequence_name name, data_type text, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, start_value text, minimum_value text, maximum_value text, increment text, cycle_option text", func(v *View) [][]any {
		var rows [][]any
		for _, s := range v.sequences {
			typ, bits := "bigint", int64(64)
			switch s.Type {
			case "smallint":
				typ, bits = s.Type, 16
			case "integer":
				typ, bits = s.Type, 32
			}
			rows = append(rows, []any{v.Database, s.Schema, s.Name, typ, bits, int64(2), int64(0),
				strconv.FormatInt(s.Start, 10), strconv.FormatInt(s.Min, 10), strconv.FormatInt(s.Max, 10), strconv.FormatInt(s.Increment, 10), yesNo(s.Cycle)})
		}
		return rows
	})

	register(is, "views", 0, "table_catalog name, table_schema name, table_name name, view_definition text, check_option text, is_updatable text, is_insertable_into text, is_trigger_updatable text, is_trigger_deletable text, is_trigger_insertable_into text", func(v *View) [][]any {
		var rows [][]any
		for _, d := range v.views {
			def, _ := v.ViewDef(ViewOID(d.Schema, d.Name))
			check := map[string]string{"": "NONE", "local": "LOCAL", "cascaded": "CASCADED"}[d.CheckOption]
			u := v.updatability(d)
			// is_trigger_*: an INSTEAD OF row trigger for the event,
			// enabled or not, as PostgreSQL reads pg_trigger.tgtype.
			trig := func(event string) string {
				return yesNo(slices.ContainsFunc(d.Triggers, func(t catalog.TriggerDef) bool {
					return t.Instead && t.ForEachRow && slices.Contains(t.Events, event)
				}))
			}
			rows = append(rows, []any{v.Database, d.Schema, d.Name, def, check, yesNo(u.Update && u.Delete), yesNo(u.Insert), trig("UPDATE"), trig("DELETE"), trig("INSERT")})
		}
		return rows
	})
	// The user functions (cairn's built-in ones are PostgreSQL's and
	// extensions', which a database's own routines leave out of
	// schema tools' lists).
	register(is, "routines", 0, routineColumns, func(v *View) [][]any {
		var rows [][]any
		for _, f := range userFunctions(v.Cat) {
			udtSchema, udtName := udtOf(f.Returns)
			dataType := sqlDataType(f.Returns)
			switch {
			case f.Trigger:
				udtSchema, udtName, dataType = "pg_catalog", "trigger", "trigger"
			case len(f.Columns) > 0:
				udtSchema, udtName, dataType = "pg_catalog", "record", "record"
			case f.SetofTable != "":
				udtSchema, udtName, dataType = f.SetofSchema, f.SetofTable, "USER-DEFINED"
			}
			body, language := "SQL", "SQL"
			if f.Language != "sql" {
				body, language = "EXTERNAL", strings.ToUpper(f.Language)
			}
			rows = append(rows, namedRow(routineColumns, map[string]any{
				"specific_catalog": v.Database, "specific_schema": f.Schema, "specific_name": specificName(f),
				"routine_catalog": v.Database, "routine_schema": f.Schema, "routine_name": f.Name, "routine_type": "FUNCTION",
				"data_type": dataType, "type_udt_catalog": v.Database, "type_udt_schema": udtSchema, "type_udt_name": udtName,
				"dtd_identifier": "0", "routine_body": body, "routine_definition": f.Body, "external_language": language,
				"parameter_style": "GENERAL", "is_deterministic": yesNo(f.Volatility == "i"), "sql_data_access": "MODIFIES",
				"is_null_call": yesNo(f.Strict), "schema_level_routine": "YES", "max_dynamic_result_sets": int64(0),
				"security_type": "INVOKER", "as_locator": "NO", "is_udt_dependent": "NO",
			}))
		}
		return rows
	})
	// The parameters of the user functions, RETURNS TABLE's columns as
	// OUT parameters after the inputs.
	register(is, "parameters", 0, parameterColumns, func(v *View) [][]any {
		var rows [][]any
		for _, f := range userFunctions(v.Cat) {
			param := func(i int, mode, name string, t types.T, def any) {
				var pname any
				if name != "" {
					pname = name
				}
				udtSchema, udtName := udtOf(t)
				rows = append(rows, namedRow(parameterColumns, map[string]any{
					"specific_catalog": v.Database, "specific_schema": f.Schema, "specific_name": specificName(f),
					"ordinal_position": int64(i + 1), "parameter_mode": mode, "is_result": "NO", "as_locator": "NO",
					"parameter_name": pname, "data_type": sqlDataType(t), "udt_catalog": v.Database, "udt_schema": udtSchema,
					"udt_name": udtName, "dtd_identifier": strconv.Itoa(i + 1), "parameter_default": def,
				}))
			}
			for i, t := range f.ArgTypes {
				var name string
				var def any
				if i < len(f.ArgNames) {
					name = f.ArgNames[i]
				}
				if i < len(f.ArgDefaults) && f.ArgDefaults[i] != "" {
					def = f.ArgDefaults[i]
				}
				param(i, "IN", name, t, def)
			}
			for i, c := range f.Columns {
				param(len(f.ArgTypes)+i, "OUT", c.Name, c.Type, nil)
			}
		}
		return rows
	})
	register(is, "triggers", 0, "trigger_catalog name, trigger_schema name, trigger_name name, event_manipulation text, event_object_catalog name, event_object_schema name, event_object_table name, action_order int4, action_condition text, action_statement text, action_orientation text, action_timing text, action_reference_old_table name, action_reference_new_table name, action_reference_old_row name, action_reference_new_row name, created timestamptz", triggersRows)
	// The tables and views each view's query reads (its _RETURN rule's
	// pg_depend rows), which schema tools order views by.
	register(is, "view_table_usage", 0, "view_catalog name, view_schema name, view_name name, table_catalog name, table_schema name, table_name name", func(v *View) [][]any {
		var rows [][]any
		for _, d := range v.views {
			_, refs := v.viewQuery(d)
			for _, ref := range refs {
				if schema, name, kind, ok := v.Relation(ref); ok && (kind == 'r' || kind == 'v') {
					rows = append(rows, []any{v.Database, d.Schema, d.Name, v.Database, schema, name})
				}
			}
		}
		return rows
	})
	// The CHECK constraints of tables and domains, PostgreSQL 15's NOT
	// NULL columns among them (as table_constraints names them).
	register(is, "check_constraints", 0, "constraint_catalog name, constraint_schema name, constraint_name name, check_clause text", func(v *View) [][]any {
		var rows [][]any
		for _, c := range v.constraints {
			if c.kind != 'c' {
				continue
			}
			def, _ := v.ConstraintDef(c.oid, false)
			rows = append(rows, []any{v.Database, c.table.Schema, c.name, strings.TrimPrefix(def, "CHECK ")})
		}
		for _, c := range v.domChecks {
			def, _ := v.ConstraintDef(c.oid, false)
			rows = append(rows, []any{v.Database, c.domain.Schema, c.check.Name, strings.TrimPrefix(def, "CHECK ")})
		}
		for _, t := range v.tables {
			for i, c := range t.Columns {
				if notNull(t, c) {
					rows = append(rows, []any{v.Database, t.Schema, notNullName(t, i), c.Name + " IS NOT NULL"})
				}
			}
		}
		return rows
	})
}

// constraintTypes are information_schema's constraint_type for each
// pg_constraint.contype.
var constraintTypes = map[byte]string{'p': "PRIMARY KEY", 'u': "UNIQUE", 'c': "CHECK", 'f': "FOREIGN KEY"}

// isView reports whether PostgreSQL has the system relation as a view
// rather than a catalog table: every information_schema relation, and the
// pg_catalog ones of viewNames.
func (r *Relation) isView() bool {
	return r.Schema == "information_schema" || viewNames[r.Name]
}

// notNull reports whether a column rejects NULLs (pg_attribute.attnotnull):
// declared NOT NULL or part of the primary key.
func notNull(t *catalog.TableDef, c catalog.ColumnDef) bool {
	return c.NotNull || slices.Contains(t.PrimaryKey, c.ID)
}

// routineColumns and parameterColumns are information_schema.routines'
// and parameters' columns.
const (
	routineColumns   = "specific_catalog name, specific_schema name, specific_name name, routine_catalog name, routine_schema name, routine_name name, routine_type text, module_catalog name, module_schema name, module_name name, udt_catalog name, udt_schema name, udt_name name, data_type text, character_maximum_length int4, character_octet_length int4, character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, collation_name name, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text, interval_precision int4, type_udt_catalog name, type_udt_schema name, type_udt_name name, scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name, routine_body text, routine_definition text, external_name text, external_language text, parameter_style text, is_deterministic text, sql_data_access text, is_null_call text, sql_path text, schema_level_routine text, max_dynamic_result_sets int4, is_user_defined_cast text, is_implicitly_invocable text, security_type text, to_sql_specific_catalog name, to_sql_specific_schema name, to_sql_specific_name name, as_locator text, created timestamptz, last_altered timestamptz, new_savepoint_level text, is_udt_dependent text, result_cast_from_data_type text, result_cast_as_locator text, result_cast_char_max_length int4, result_cast_char_octet_length int4, result_cast_char_set_catalog name, result_cast_char_set_schema name, result_cast_char_set_name name, result_cast_collation_catalog name, result_cast_collation_schema name, result_cast_collation_name name, result_cast_numeric_precision int4, result_cast_numeric_precision_radix int4, result_cast_numeric_scale int4, result_cast_datetime_precision int4, result_cast_interval_type text, result_cast_interval_precision int4, result_cast_type_udt_catalog name, result_cast_type_udt_schema name, result_cast_type_udt_name name, result_cast_scope_catalog name, result_cast_scope_schema name, result_cast_scope_name name, result_cast_maximum_cardinality int4, result_cast_dtd_identifier name"
	parameterColumns = "specific_catalog name, specific_schema name, specific_name name, ordinal_position int4, parameter_mode text, is_result text, as_locator text, parameter_name name, data_type text, character_maximum_length int4, character_octet_length int4, character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, collation_name name, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type text, interval_precision int4, udt_catalog name, udt_schema name, udt_name name, scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name, parameter_default text"
)

// specificName is information_schema's specific_name of a user function:
// its name and OID, which tell overloads apart.
func specificName(f *catalog.FunctionDef) string {
	return f.Name + "_" + strconv.FormatInt(FunctionOID(f.Key()), 10)
}

// namedRow is a row of a relation whose columns are columns (as register
// takes them), with the values vals names and NULL in the others.
func namedRow(columns string, vals map[string]any) []any {
	cols := strings.Split(columns, ", ")
	row := make([]any, len(cols))
	for i, c := range cols {
		name, _, _ := strings.Cut(c, " ")
		row[i] = vals[name]
	}
	return row
}

// notNullName is the name information_schema gives the NOT NULL of
// column i of t: <schema oid>_<table oid>_<attnum>_not_null.
func notNullName(t *catalog.TableDef, i int) string {
	return fmt.Sprintf("%d_%d_%d_not_null", SchemaOID(t.Schema), TableOID(t.ID), i+1)
}

// sqlDataType is information_schema's data_type: "ARRAY" for an array,
// "USER-DEFINED" for a type outside pg_catalog (vector), else the type's
// format_type name without modifiers. A domain counts as its base type,
// as cairn's pg_attribute reports it.
func sqlDataType(t types.T) string {
	if t.IsArray() {
		return "ARRAY"
	}
	if schema, _ := udtOf(t); schema != "pg_catalog" {
		return "USER-DEFINED"
	}
	return types.T{Family: t.Family, Mod: -1}.String()
}

// udtOf is the schema and pg_type name of a column's type (udt_schema,
// udt_name): "int4", "varchar", "_float4", ...
func udtOf(t types.T) (schema, name string) {
	if t.Enum != nil {
		return t.Enum.Schema, t.Enum.Name
	}
	if t.IsArray() && t.Elem.Enum != nil {
		return t.Elem.Enum.Schema, "_" + t.Elem.Enum.Name
	}
	oid := int64(t.OID())
	for _, bt := range builtinTypes {
		if oid != bt.oid && (bt.array == 0 || oid != bt.array) {
			continue
		}
		schema, name = "pg_catalog", bt.name
		if bt.oid == types.VectorOID {
			schema = "public"
		}
		if oid == bt.array {
			name = "_" + name
		}
		return schema, name
	}
	return "pg_catalog", t.String()
}

// charLengths are character_maximum_length and character_octet_length:
// the declared length of varchar(n) and char(n), and the most bytes a
// value of a string type can take (NULL for other types, arrays included).
func charLengths(t types.T) (maxLen, octets any) {
	if t.Enum != nil {
		return nil, nil
	}
	switch t.Family {
	case types.Text, types.Varchar, types.Char:
		if t.Family == types.Text || t.Mod < 0 {
			return nil, int64(charOctetsUnbounded)
		}
		return int64(t.Mod), int64(t.Mod) * maxCharBytes
	}
	return nil, nil
}

// numericFacets are numeric_precision, numeric_precision_radix and
// numeric_scale: binary digits for integers and floats (scale 0 for
// integers only), decimal digits for numeric(p,s), NULL where undeclared.
func numericFacets(t types.T) (precision, radix, scale any) {
	switch t.Family {
	case types.Int2:
		return int64(16), int64(2), int64(0)
	case types.Int4:
		return int64(32), int64(2), int64(0)
	case types.Int8:
		return int64(64), int64(2), int64(0)
	case types.Float4:
		return int64(24), int64(2), nil
	case types.Float8:
		return int64(53), int64(2), nil
	case types.Numeric:
		if t.Mod < 0 {
			return nil, int64(10), nil
		}
		return int64(t.Mod >> 16), int64(10), int64(t.Mod & 0xffff)
	}
	return nil, nil, nil
}

// yesNo is information_schema's yes_or_no of b.
func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// datetimePrecision is datetime_precision: the fractional second digits
// the time types keep (6 unless declared), 0 for date, NULL for other
// types.
func datetimePrecision(t types.T) any {
	switch t.Family {
	case types.DateFamily:
		return int64(0)
	case types.Time, types.TimestampFamily, types.TimestampTZ:
		if t.Mod >= 0 {
			return int64(t.Mod)
		}
		return int64(6)
	case types.Interval:
		return int64(types.IntervalPrecision(t.Mod))
	}
	return nil
}

// intervalType is interval_type: an interval column's fields, as declared
// ("DAY TO SECOND"), NULL for other types and plain intervals.
func intervalType(t types.T) any {
	if t.Family != types.Interval {
		return nil
	}
	if fields, _ := types.IntervalFields(types.IntervalRange(t.Mod)); fields != "" {
		return strings.ToUpper(fields[1:])
	}
	return nil
}

// referencedKey finds the unique index a foreign key relies on, the
// primary key first: the one on the referenced table over exactly the
// referenced columns. uc is the primary key or unique constraint behind
// it, nil for a plain unique index.
func (v *View) referencedKey(fk *catalog.ForeignKeyDef) (key *index, uc *constraint) {
	for _, ix := range v.indexes {
		if ix.table.ID != fk.RefTable || !ix.unique || len(ix.columns) != len(fk.RefColumns) {
			continue
		}
		covers := true
		for _, id := range fk.RefColumns {
			covers = covers && slices.Contains(ix.columns, id)
		}
		if covers && (key == nil || ix.primary) {
			key = ix
		}
	}
	if key == nil {
		return nil, nil
	}
	for _, c := range v.constraints {
		if c.index == key && c.kind != 'f' { // a foreign key's index is the one it references
			return key, c
		}
	}
	return key, nil
}

// checkColumns are the IDs of the columns of t that a CHECK expression
// refers to: what PostgreSQL records as the constraint's dependencies. The
// expression is parsed, so names in literals, casts and function calls do
// not count; an expression that does not parse refers to none.
func checkColumns(t *catalog.TableDef, expr string) []int {
	tree, err := pg_query.ParseToJSON("SELECT " + expr)
	if err != nil {
		return nil
	}
	var root any
	if err := json.Unmarshal([]byte(tree), &root); err != nil {
		return nil
	}
	var ids []int
	var walk func(n any)
	walk = func(n any) {
		switch n := n.(type) {
		case map[string]any:
			if ref, ok := n["ColumnRef"].(map[string]any); ok {
				fields, _ := ref["fields"].([]any)
				if len(fields) > 0 {
					last, _ := fields[len(fields)-1].(map[string]any)
					str, _ := last["String"].(map[string]any)
					name, _ := str["sval"].(string)
					if _, c := t.Column(name); c != nil && !slices.Contains(ids, c.ID) {
						ids = append(ids, c.ID)
					}
				}
			}
			for _, child := range n {
				walk(child)
			}
		case []any:
			for _, child := range n {
				walk(child)
			}
		}
	}
	walk(root)
	return ids
}

// tablePrivilegeTypes are the table privileges in aclexplode's order,
// with the names information_schema gives them.
// aclGrants calls fn for each privilege in privs that acl, of an object
// owned by owner, grants, as information_schema's privilege views list
// them: only the items the current user is involved in, as grantor or
// grantee (through a role it inherits), or PUBLIC's; grantable when held
// with grant option or by a member of the owner.
func (v *View) aclGrants(acl []catalog.ACLItem, owner uint32, privs catalog.Priv, fn func(grantor, grantee, priv, grantable string)) {
	owner = catalog.OwnerOID(owner)
	me := uint32(catalog.BootstrapRoleOID)
	if r := v.Cat.Role(v.User); r != nil {
		me = r.OID
	}
	for _, it := range acl {
		if it.Grantee != catalog.PublicOID && !v.Cat.IsMemberOf(me, it.Grantee, true) && !v.Cat.IsMemberOf(me, it.Grantor, true) {
			continue
		}
		grantee := "PUBLIC"
		if it.Grantee != catalog.PublicOID {
			grantee, _ = v.RoleName(int64(it.Grantee))
		}
		grantor, _ := v.RoleName(int64(it.Grantor))
		for _, p := range tablePrivilegeTypes {
			if it.Privs&p.bit == 0 || privs&p.bit == 0 {
				continue
			}
			grantable := "NO"
			if it.GrantOpts&p.bit != 0 || it.Grantee != catalog.PublicOID && v.Cat.Reaches(it.Grantee, owner, true) {
				grantable = "YES"
			}
			fn(grantor, grantee, p.name, grantable)
		}
	}
}

var tablePrivilegeTypes = []struct {
	bit  catalog.Priv
	name string
}{
	{catalog.PrivInsert, "INSERT"}, {catalog.PrivSelect, "SELECT"}, {catalog.PrivUpdate, "UPDATE"}, {catalog.PrivDelete, "DELETE"},
	{catalog.PrivTruncate, "TRUNCATE"}, {catalog.PrivReferences, "REFERENCES"}, {catalog.PrivTrigger, "TRIGGER"},
}
