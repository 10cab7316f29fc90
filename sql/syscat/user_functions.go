package syscat

// The functions of CREATE FUNCTION and the triggers of CREATE TRIGGER in
// pg_proc and pg_trigger, and what pg_get_function_result,
// pg_get_function_arguments and pg_get_triggerdef print for them (psql's
// \df and \d).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/types"
)

// Language OIDs of the user functions' languages (pg_language).
const (
	langSQL     = 14
	langPLpgSQL = 13563
	// triggerOID is the trigger pseudo-type's OID, a trigger function's
	// prorettype.
	triggerOID = 2279
)

// FunctionOID is the OID of the user function of key (catalog.FunctionDef.Key).
func FunctionOID(key string) int64 { return hashOID("f:" + key) }

// TriggerOID is the OID of table tableID's trigger name.
func TriggerOID(tableID uint64, name string) int64 {
	return hashOID("t:" + strconv.FormatUint(tableID, 10) + "." + name)
}

// viewTriggerOID is the OID of a trigger of view schema.view.
func viewTriggerOID(schema, view, name string) int64 {
	return hashOID("tv:" + schema + "." + view + "." + name)
}

// userFunctions are the catalog's functions in key order.
func userFunctions(c *catalog.Catalog) []*catalog.FunctionDef {
	keys := make([]string, 0, len(c.Functions))
	for k := range c.Functions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*catalog.FunctionDef, len(keys))
	for i, k := range keys {
		out[i] = c.Functions[k]
	}
	return out
}

// userProcRows are pg_proc's rows of the catalog's functions.
func userProcRows(v *View) [][]any {
	var rows [][]any
	for _, f := range userFunctions(v.Cat) {
		lang := int64(langSQL)
		if f.Language == "plpgsql" {
			lang = langPLpgSQL
		}
		ret := int64(f.Returns.OID())
		if f.Trigger {
			ret = triggerOID
		}
		args := make([]int64, len(f.ArgTypes))
		for i, t := range f.ArgTypes {
			args[i] = int64(t.OID())
		}
		// RETURNS TABLE's columns are parameters of mode t after the
		// inputs (proallargtypes, proargmodes, proargnames).
		var all, modes any
		argNames := slices.Clone(f.ArgNames)
		if len(f.Columns) > 0 {
			allOIDs := slices.Clone(args)
			modeList := make([]any, len(args), len(args)+len(f.Columns))
			for i := range modeList {
				modeList[i] = "i"
			}
			for _, c := range f.Columns {
				allOIDs = append(allOIDs, int64(c.Type.OID()))
				modeList = append(modeList, "t")
				argNames = append(argNames, c.Name)
			}
			all, modes = oids(allOIDs...), types.NewArray(types.TextT, modeList...)
		}
		var names any
		if slices.ContainsFunc(argNames, func(n string) bool { return n != "" }) {
			elems := make([]any, len(argNames))
			for i, n := range argNames {
				elems[i] = n
			}
			names = types.NewArray(types.TextT, elems...)
		}
		var nDefaults int64
		var defaults any
		for _, d := range f.ArgDefaults {
			if d != "" {
				nDefaults++
			}
		}
		if nDefaults > 0 {
			// A node tree in PostgreSQL; the expressions' text here.
			defaults = strings.Join(f.ArgDefaults[len(f.ArgDefaults)-int(nDefaults):], ", ")
		}
		rows = append(rows, []any{FunctionOID(f.Key()), f.Name, SchemaOID(f.Schema), int64(catalog.OwnerOID(f.Owner)), lang, float64(100), float64(estimatedRows(f)),
			int64(0), int64(0), "f", false, false, f.Strict, f.Setof, f.Volatility, "u", int64(len(args)), nDefaults, ret, oids(args...),
			all, modes, names, defaults, nil, f.Body, nil, nil, nil, nil})
	}
	return rows
}

// estimatedRows is pg_proc.prorows: the planner's estimate of a set-returning
// function's rows (PostgreSQL's default 1000), 0 for others.
func estimatedRows(f *catalog.FunctionDef) int {
	if f.Setof {
		return 1000
	}
	return 0
}

// userFunctionByOID finds a user function by its OID.
func userFunctionByOID(c *catalog.Catalog, oid int64) *catalog.FunctionDef {
	for k, f := range c.Functions {
		if FunctionOID(k) == oid {
			return f
		}
	}
	return nil
}

// userFunctionSignature is FunctionSignature of a user function: its
// arguments with their names (and defaults, but in identity), as
// pg_get_function_arguments prints them; qualified names a table as
// the session would write it (schema-qualified unless its search path
// finds it).
func userFunctionSignature(f *catalog.FunctionDef, qualified func(schema, name string) string) (schema, result, arguments, identity string) {
	args := make([]string, len(f.ArgTypes))
	ids := make([]string, len(f.ArgTypes))
	for i, t := range f.ArgTypes {
		args[i] = t.String()
		if i < len(f.ArgNames) && f.ArgNames[i] != "" {
			args[i] = f.ArgNames[i] + " " + args[i]
		}
		ids[i] = args[i]
		if i < len(f.ArgDefaults) && f.ArgDefaults[i] != "" {
			args[i] += " DEFAULT " + f.ArgDefaults[i]
		}
	}
	result = f.Returns.String()
	switch {
	case f.Trigger:
		result = "trigger"
	case len(f.Columns) > 0:
		cols := make([]string, len(f.Columns))
		for i, c := range f.Columns {
			cols[i] = c.Name + " " + c.Type.String()
		}
		result = "TABLE(" + strings.Join(cols, ", ") + ")"
	case f.SetofTable != "":
		result = "SETOF " + qualified(f.SetofSchema, f.SetofTable)
	case f.Setof:
		result = "SETOF " + result
	}
	return f.Schema, result, strings.Join(args, ", "), strings.Join(ids, ", ")
}

// FunctionDef is pg_get_functiondef of the user function with OID oid:
// the CREATE OR REPLACE FUNCTION statement that makes it again, laid
// out as PostgreSQL's ruleutils writes it (the header, RETURNS, LANGUAGE
// and the options on lines of their own, the body dollar-quoted with a
// $function$ tag that does not occur in it); GUI clients (DBeaver,
// pgAdmin, DataGrip) and psql's \sf and \ef show and edit a function
// through it. ok is false when oid names no user function.
func (v *View) FunctionDef(oid int64) (string, bool) {
	f := userFunctionByOID(v.Cat, oid)
	if f == nil {
		return "", false
	}
	_, result, arguments, _ := userFunctionSignature(f, v.qualified)
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE FUNCTION " + ident.QualifiedName(f.Schema, f.Name) + "(" + arguments + ")\n")
	b.WriteString(" RETURNS " + result + "\n")
	b.WriteString(" LANGUAGE " + ident.Quote(f.Language) + "\n")
	var opts string
	switch f.Volatility {
	case "i":
		opts += " IMMUTABLE"
	case "s":
		opts += " STABLE"
	}
	if f.Strict {
		opts += " STRICT"
	}
	if opts != "" {
		b.WriteString(opts + "\n")
	}
	tag := "$function"
	for strings.Contains(f.Body, tag) {
		tag += "x"
	}
	tag += "$"
	b.WriteString("AS " + tag + f.Body + tag + "\n")
	return b.String(), true
}

// triggerRel is a relation that has triggers: a table, or a view as its
// catalog.ViewDef.TriggerTable, with its OID and its triggers' OIDs.
type triggerRel struct {
	oid   int64
	def   *catalog.TableDef
	trOID func(name string) int64
}

// triggerRels are the relations of the catalog with triggers: tables in
// order of ID, then views in order of name.
func triggerRels(v *View) []triggerRel {
	var rels []triggerRel
	for _, id := range sortedTableIDs(v.Cat) {
		if t := v.Cat.Tables[id]; len(t.Triggers) > 0 {
			rels = append(rels, triggerRel{oid: TableOID(id), def: t, trOID: func(name string) int64 { return TriggerOID(id, name) }})
		}
	}
	for _, d := range v.views {
		if len(d.Triggers) > 0 {
			rels = append(rels, triggerRel{oid: ViewOID(d.Schema, d.Name), def: d.TriggerTable(), trOID: func(name string) int64 {
				return viewTriggerOID(d.Schema, d.Name, name)
			}})
		}
	}
	return rels
}

// triggerRows are pg_trigger's rows.
func triggerRows(v *View) [][]any {
	var rows [][]any
	for _, rel := range triggerRels(v) {
		t := rel.def
		for _, tr := range t.Triggers {
			// tgargs: each argument followed by a zero byte.
			var args []byte
			for _, a := range tr.Args {
				args = append(append(args, a...), 0)
			}
			if args == nil {
				args = []byte{}
			}
			enabled := tr.Enabled
			if enabled == "" {
				enabled = "O"
			}
			rows = append(rows, []any{rel.trOID(tr.Name), rel.oid, int64(0), tr.Name, FunctionOID(tr.Function), int64(triggerType(tr)),
				enabled, false, int64(0), int64(0), int64(0), false, false, int64(len(tr.Args)), int2s(attnums(t, tr.Columns)...), args, nil, nil, nil})
		}
	}
	return rows
}

// triggersRows are information_schema.triggers' rows: one for each event
// of each trigger, action_order its rank by name among the triggers of
// its relation of the same event, timing and level (the order they fire
// in), action_statement the EXECUTE FUNCTION part of its definition.
func triggersRows(v *View) [][]any {
	var rows [][]any
	for _, rel := range triggerRels(v) {
		t := rel.def
		for _, tr := range t.Triggers {
			def := v.triggerDef(t, tr, false)
			action := def[strings.Index(def, " EXECUTE FUNCTION ")+1:]
			var cond any
			if tr.When != "" {
				cond = "(" + tr.When + ")"
			}
			for _, e := range tr.Events {
				if e == "TRUNCATE" {
					continue // not a column of the SQL standard's view
				}
				order := int64(1)
				for _, o := range t.Triggers {
					if o.Name < tr.Name && slices.Contains(o.Events, e) && o.Timing() == tr.Timing() && o.ForEachRow == tr.ForEachRow {
						order++
					}
				}
				rows = append(rows, []any{v.Database, t.Schema, tr.Name, e, v.Database, t.Schema, t.Name, order, cond, action,
					triggerLevel(tr), tr.Timing(), nil, nil, nil, nil, nil})
			}
		}
	}
	return rows
}

// sortedTableIDs are the catalog's table IDs in order.
func sortedTableIDs(c *catalog.Catalog) []uint64 {
	ids := make([]uint64, 0, len(c.Tables))
	for id := range c.Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// triggerType is pg_trigger.tgtype of a trigger.
func triggerType(tr catalog.TriggerDef) int {
	n := 0
	if tr.ForEachRow {
		n |= 1
	}
	if tr.Before {
		n |= 2
	}
	if tr.Instead {
		n |= 64
	}
	for _, e := range tr.Events {
		switch e {
		case "INSERT":
			n |= 4
		case "DELETE":
			n |= 8
		case "UPDATE":
			n |= 16
		case "TRUNCATE":
			n |= 32
		}
	}
	return n
}

// TriggerDef is pg_get_triggerdef of the trigger with OID oid: its
// CREATE TRIGGER statement; ok is false when there is none. The table is
// schema-qualified, unless pretty and the search path finds it.
func (v *View) TriggerDef(oid int64, pretty bool) (string, bool) {
	for _, rel := range triggerRels(v) {
		for _, tr := range rel.def.Triggers {
			if rel.trOID(tr.Name) == oid {
				return v.triggerDef(rel.def, tr, pretty), true
			}
		}
	}
	return "", false
}

// triggerDef is the CREATE TRIGGER statement of trigger tr of table (or
// view) t, as TriggerDef makes it.
func (v *View) triggerDef(t *catalog.TableDef, tr catalog.TriggerDef, pretty bool) string {
	f := v.Cat.Functions[tr.Function]
	fname := tr.Function
	if f != nil {
		fname = ident.Quote(f.Name)
		if !slices.Contains(v.SearchPath, f.Schema) {
			fname = ident.Quote(f.Schema) + "." + fname
		}
	}
	table := ident.QualifiedName(t.Schema, t.Name)
	if pretty && slices.Contains(v.SearchPath, t.Schema) {
		table = ident.Quote(t.Name)
	}
	when := ""
	if tr.When != "" {
		when = " WHEN ((" + tr.When + "))"
	}
	args := make([]string, len(tr.Args))
	for i, a := range tr.Args {
		args[i] = ident.QuoteLiteral(a)
	}
	events := slices.Clone(tr.Events)
	for i, e := range events {
		if e != "UPDATE" || tr.Columns == nil {
			continue
		}
		var names []string
		for _, id := range tr.Columns {
			if _, c := t.ColumnByID(id); c != nil {
				names = append(names, ident.Quote(c.Name))
			}
		}
		events[i] += " OF " + strings.Join(names, ", ")
	}
	return "CREATE TRIGGER " + ident.Quote(tr.Name) + " " + tr.Timing() + " " + strings.Join(events, " OR ") + " ON " + table +
		" FOR EACH " + triggerLevel(tr) + when + " EXECUTE FUNCTION " + fname + "(" + strings.Join(args, ", ") + ")"
}

// triggerLevel is a trigger's FOR EACH: ROW or STATEMENT.
func triggerLevel(tr catalog.TriggerDef) string {
	if tr.ForEachRow {
		return "ROW"
	}
	return "STATEMENT"
}
