package syscat

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/ident"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/sql/types/tsearch"
)

// View is the catalog as one statement sees it: cairn's catalog, the
// session's user, database and search path, and the objects PostgreSQL
// would list for them (each table's implicit indexes and constraints,
// sequences) with their OIDs. Build it with NewView (and fill in
// Settings); it is read-only after that.
type View struct {
	Cat        *catalog.Catalog
	User       string
	Database   string
	SearchPath []string
	// Settings are the session's run-time parameters, which pg_settings
	// lists; the session fills them in after NewView (none: pg_settings
	// is empty).
	Settings []Setting
	// PreparedStatements are the session's, which pg_prepared_statements
	// lists (pg_prepared_statements.go).
	PreparedStatements []PreparedStatement
	// Cursors are the session's open named portals, which pg_cursors
	// lists (pg_cursors.go).
	Cursors []Cursor
	// Activity are the engine's sessions, which pg_stat_activity lists.
	Activity []Activity
	// TableStats are the tables' activity counters by table ID, which
	// pg_stat_user_tables lists (a table without any reads zero), and
	// DatabaseStats the database's, which pg_stat_database lists
	// (pg_stat_tables.go).
	TableStats    map[uint64]TableStat
	DatabaseStats DatabaseStat
	// IndexStats are the searches of each index searched since the
	// server started, which pg_stat_user_indexes lists.
	IndexStats map[IndexRef]IndexStat
	// Statements are the engine's statement statistics, which
	// pg_stat_statements lists.
	Statements []StatementStat
	// Locks are the locks held and waited for, which pg_locks lists.
	Locks []Lock
	// Progress are the running COPY and CREATE INDEX statements, which
	// pg_stat_progress_copy and pg_stat_progress_create_index list.
	Progress []Progress
	// ViewUpdatability tells what can be written through a view, which
	// information_schema's is_updatable and is_insertable_into columns
	// show; the binder knows it (sql.ViewUpdatability). nil: nothing.
	ViewUpdatability func(*catalog.Catalog, *catalog.ViewDef) Updatability
	// RuleText prints the stored text of an expression as PostgreSQL's
	// ruleutils.c prints its analysed tree (the binder knows the types
	// that takes, sql.RuleText); an error keeps the stored text. nil: the
	// stored text is shown.
	RuleText func(*catalog.Catalog, string, ExprContext) (string, error)

	tables      []*catalog.TableDef
	indexes     []*index
	constraints []*constraint
	domChecks   []*domainCheck
	sequences   []*catalog.SequenceDef
	views       []*catalog.ViewDef
	byOID       map[int64]any

	// ruleMu guards ruleTexts, the expressions ruleText printed: a
	// catalog query prints each many times (pg_get_expr's pretty form
	// looks for the stored text behind the plain one), and the
	// statement's parallel partitions share the view.
	ruleMu    sync.Mutex
	ruleTexts map[ruleKey]ruleResult
}

// ruleKey is what ruleText's result depends on.
type ruleKey struct {
	text          string
	table         *catalog.TableDef
	value, column string
	schema        string
	pretty        bool
}

// ruleResult is a ruleText result.
type ruleResult struct {
	text string
	ok   bool
}

// Updatability is what INSERT, UPDATE and DELETE can write through a
// view, as PostgreSQL's pg_relation_is_updatable and
// pg_column_is_updatable tell it: Columns says for each of the view's
// columns whether UPDATE can write it.
type Updatability struct {
	Insert, Update, Delete bool
	Columns                []bool
}

// ExprContext is what printing a stored expression needs besides its
// text: the table whose columns it reads (Table), or the base type of
// the domain whose VALUE it checks (Value, the domain in Schema); for a
// DEFAULT or generated column the column's type (Column), which the
// expression is coerced to; the pretty form (pg_get_expr(..., true)) or
// the plain one; how a user type's name prints (Qualified: bare where the
// search path finds it).
type ExprContext struct {
	Table     *catalog.TableDef
	Value     *types.T
	Schema    string
	Column    *types.T
	Pretty    bool
	Qualified func(schema, name string) string
}

// ruleText is text printed as PostgreSQL prints the expression (RuleText),
// or text itself when that cannot be done.
func (v *View) ruleText(text string, ec ExprContext) (string, bool) {
	if v.RuleText == nil {
		return text, false
	}
	key := ruleKey{text: text, table: ec.Table, schema: ec.Schema, pretty: ec.Pretty}
	if ec.Value != nil {
		key.value = ec.Value.String()
	}
	if ec.Column != nil {
		key.column = ec.Column.String()
	}
	v.ruleMu.Lock()
	r, ok := v.ruleTexts[key]
	v.ruleMu.Unlock()
	if ok {
		return r.text, r.ok
	}
	ec.Qualified = v.qualified
	r = ruleResult{text: text}
	if out, err := v.RuleText(v.Cat, text, ec); err == nil {
		r = ruleResult{text: out, ok: true}
	}
	v.ruleMu.Lock()
	if v.ruleTexts == nil {
		v.ruleTexts = map[ruleKey]ruleResult{}
	}
	v.ruleTexts[key] = r
	v.ruleMu.Unlock()
	return r.text, r.ok
}

// ExprDef is pg_get_expr: the text of a stored expression over the
// columns of relation rel, plain or pretty. The catalog's expression
// columns (adbin, conbin, indpred, indexprs) hold the plain form, which is
// returned as it is; for the pretty one the stored expression it came
// from is printed again (the plain text need not analyse back to the same
// tree: ARRAY[...]::text[] casts each element). Text that matches none is
// printed again itself, or returned as it is when that cannot be done.
func (v *View) ExprDef(text string, rel int64, pretty bool) string {
	t, ok := v.byOID[rel].(*catalog.TableDef)
	if !ok || !pretty {
		return text
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.Default != "" && v.columnDefault(t, c, false) == text {
			return v.columnDefault(t, c, true)
		}
	}
	for _, c := range v.constraints {
		if c.kind == 'c' && c.table == t && v.checkExpr(t, c.check, false) == text {
			return v.checkExpr(t, c.check, true)
		}
	}
	for _, ix := range v.indexes {
		if ix.table != t || ix.def == nil {
			continue
		}
		if v.indexPred(ix, false) == text {
			return v.indexPred(ix, true)
		}
		keys := []string{ix.def.Expr}
		for _, k := range ix.def.Keys {
			keys = append(keys, k.Expr)
		}
		for _, k := range keys {
			if k != "" && v.checkExpr(t, k, false) == text {
				return v.checkExpr(t, k, true)
			}
		}
	}
	out, _ := v.ruleText(text, ExprContext{Table: t, Pretty: true})
	return out
}

// columnDefault is column c of table t's DEFAULT or generation
// expression as pg_get_expr prints it (a view's column, t nil, keeps its
// text).
func (v *View) columnDefault(t *catalog.TableDef, c *catalog.ColumnDef, pretty bool) string {
	if t == nil {
		return v.defaultExpr(c.Default)
	}
	text, _ := v.ruleText(c.Default, ExprContext{Table: t, Column: &c.Type, Pretty: pretty})
	return v.defaultExpr(text)
}

// checkExpr is an expression over table t's columns as PostgreSQL prints
// it: a CHECK's inside CHECK (...), an index key's.
func (v *View) checkExpr(t *catalog.TableDef, expr string, pretty bool) string {
	text, _ := v.ruleText(expr, ExprContext{Table: t, Pretty: pretty})
	return text
}

// updatability is what can be written through view d.
func (v *View) updatability(d *catalog.ViewDef) Updatability {
	if v.ViewUpdatability == nil {
		return Updatability{}
	}
	return v.ViewUpdatability(v.Cat, d)
}

// index is an index as pg_index lists it: a recorded one, or the one
// behind a primary key or unique constraint.
type index struct {
	oid     int64
	schema  string
	name    string
	table   *catalog.TableDef
	method  string
	columns []int // column IDs
	unique  bool
	primary bool
	// nullsNotDistinct is NULLS NOT DISTINCT (pg_index.indnullsnotdistinct).
	nullsNotDistinct bool
	def              *catalog.IndexDef // nil for a key constraint's index
}

// attributes are the names and types of ix's attributes, as
// pg_attribute lists them: a column key's column, an expression key's
// name (indexColumnName, numbered where it repeats an earlier one, as
// ChooseIndexColumnNames does) and type.
func (ix *index) attributes() ([]string, []types.T) {
	var names []string
	var ts []types.T
	add := func(name string, t types.T) {
		try := name
		for i := 1; slices.Contains(names, try); i++ {
			try = name + strconv.Itoa(i)
		}
		names, ts = append(names, try), append(ts, t)
	}
	exprKey := func(text string, t *types.T) {
		if t == nil {
			t = &types.TextT // (catalogs written before the type was recorded)
		}
		add(indexColumnName(text), *t)
	}
	switch d := ix.def; {
	case d != nil && d.Expr != "":
		exprKey(d.Expr, d.ExprType)
	case d != nil && len(d.Keys) > 0:
		for _, k := range d.Keys {
			if k.Expr != "" {
				exprKey(k.Expr, k.Type)
			} else if _, c := ix.table.ColumnByID(k.Column); c != nil {
				add(c.Name, c.Type)
			}
		}
	default:
		for _, id := range ix.columns {
			if _, c := ix.table.ColumnByID(id); c != nil {
				add(c.Name, c.Type)
			}
		}
	}
	return names, ts
}

// constraint is a table constraint as pg_constraint lists it.
type constraint struct {
	oid     int64
	name    string
	kind    byte // p, u, c, f
	table   *catalog.TableDef
	columns []int // column IDs
	index   *index
	check   string
	fk      *catalog.ForeignKeyDef
	// deferrable and deferred are DEFERRABLE and INITIALLY DEFERRED.
	deferrable, deferred bool
	// notValid: a check or foreign key added NOT VALID, not validated
	// since (pg_constraint.convalidated false).
	notValid bool
}

// NewView prepares the system relations' view of cat for a session.
func NewView(cat *catalog.Catalog, user, database string, searchPath []string) *View {
	v := &View{Cat: cat, User: user, Database: database, SearchPath: searchPath, byOID: map[int64]any{}}
	for _, t := range cat.Tables {
		v.tables = append(v.tables, t)
	}
	sort.Slice(v.tables, func(i, j int) bool { return v.tables[i].ID < v.tables[j].ID })
	for _, t := range v.tables {
		toid := TableOID(t.ID)
		v.byOID[toid] = t
		pkName := ""
		if len(t.PrimaryKey) > 0 {
			name := t.PrimaryKeyConstraint()
			pkName = name
			ix := &index{oid: IndexOID(t.Schema, name), schema: t.Schema, name: name, table: t, method: "btree", columns: t.PrimaryKey, unique: true, primary: true}
			v.indexes = append(v.indexes, ix)
			deferrable := slices.ContainsFunc(t.Uniques, func(u catalog.UniqueDef) bool { return u.Name == name && u.Deferrable })
			v.constraints = append(v.constraints, &constraint{oid: ConstraintOID(toid, name), name: name, kind: 'p', table: t, columns: t.PrimaryKey, index: ix, deferrable: deferrable})
		}
		for _, u := range t.Uniques {
			if u.Name == pkName {
				continue // storage lists the primary key among the unique keys
			}
			ix := &index{oid: IndexOID(t.Schema, u.Name), schema: t.Schema, name: u.Name, table: t, method: "btree", columns: u.Columns, unique: true, nullsNotDistinct: u.NullsNotDistinct}
			v.indexes = append(v.indexes, ix)
			v.constraints = append(v.constraints, &constraint{oid: ConstraintOID(toid, u.Name), name: u.Name, kind: 'u', table: t, columns: u.Columns, index: ix, deferrable: u.Deferrable})
		}
		for _, c := range t.Checks {
			v.constraints = append(v.constraints, &constraint{oid: ConstraintOID(toid, c.Name), name: c.Name, kind: 'c', table: t, check: c.Expr, columns: c.Columns, notValid: c.NotValid})
		}
		for i := range t.ForeignKeys {
			fk := &t.ForeignKeys[i]
			v.constraints = append(v.constraints, &constraint{oid: ConstraintOID(toid, fk.Name), name: fk.Name, kind: 'f', table: t, columns: fk.Columns, fk: fk,
				deferrable: fk.Deferrable, deferred: fk.InitiallyDeferred, notValid: fk.NotValid})
		}
	}
	v.domChecks = v.domainChecks()
	for _, c := range v.domChecks {
		v.byOID[c.oid] = c
	}
	for _, ix := range cat.Indexes {
		t := cat.TableByID(ix.Table)
		if t == nil {
			continue
		}
		cols := ix.Columns
		if ix.Expr != "" {
			cols = cols[:1] // one key, the expression: one attribute
		}
		if len(ix.Keys) > 0 {
			// An attribute a key: a column key's column, an expression's
			// first column (as for one expression).
			cols = make([]int, len(ix.Keys))
			for i, k := range ix.Keys {
				cols[i] = k.Column
				if k.Expr != "" {
					cols[i] = ix.Columns[0]
				}
			}
		}
		v.indexes = append(v.indexes, &index{oid: IndexOID(ix.Schema, ix.Name), schema: ix.Schema, name: ix.Name, table: t, method: ix.Method, columns: cols, unique: ix.Unique, nullsNotDistinct: ix.NullsNotDistinct, def: ix})
	}
	// A foreign key depends on the unique index of the key it references
	// (pg_constraint.conindid), as in PostgreSQL.
	for _, c := range v.constraints {
		if c.kind != 'f' {
			continue
		}
		for _, ix := range v.indexes {
			if ix.unique && (ix.def == nil || ix.def.PlainUnique()) && ix.table.ID == c.fk.RefTable && sameColumns(ix.columns, c.fk.RefColumns) {
				c.index = ix
				break
			}
		}
	}
	sort.Slice(v.indexes, func(i, j int) bool { return v.indexes[i].oid < v.indexes[j].oid })
	for _, ix := range v.indexes {
		v.byOID[ix.oid] = ix
	}
	for _, c := range v.constraints {
		v.byOID[c.oid] = c
	}
	for _, s := range cat.Sequences {
		v.sequences = append(v.sequences, s)
	}
	sort.Slice(v.sequences, func(i, j int) bool {
		return SequenceOID(v.sequences[i].Schema, v.sequences[i].Name) < SequenceOID(v.sequences[j].Schema, v.sequences[j].Name)
	})
	for _, s := range v.sequences {
		v.byOID[SequenceOID(s.Schema, s.Name)] = s
	}
	for _, d := range cat.Views {
		v.views = append(v.views, d)
	}
	sort.Slice(v.views, func(i, j int) bool {
		return ViewOID(v.views[i].Schema, v.views[i].Name) < ViewOID(v.views[j].Schema, v.views[j].Name)
	})
	for _, d := range v.views {
		v.byOID[ViewOID(d.Schema, d.Name)] = d
	}
	for _, r := range relations {
		v.byOID[r.OID] = r
	}
	return v
}

// schemas lists the schemas, system ones included, by name.
func (v *View) schemas() []string {
	names := []string{"pg_catalog", "information_schema"}
	for name := range v.Cat.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// visible reports whether unqualified names in schema resolve there (the
// search path, after the implicit pg_catalog).
func (v *View) visible(schema string) bool {
	return schema == "pg_catalog" || slices.Contains(v.SearchPath, schema)
}

// qualified is name as PostgreSQL prints a reg* value: bare when the
// schema is on the search path, schema-qualified otherwise; identifiers
// quoted when they need it.
func (v *View) qualified(schema, name string) string {
	if v.visible(schema) {
		return ident.Quote(name)
	}
	return ident.Quote(schema) + "." + ident.Quote(name)
}

// Relation describes the relation with the given OID: its schema, name
// and kind (pg_class.relkind: r table, i index, S sequence, v view).
func (v *View) Relation(oid int64) (schema, name string, kind byte, ok bool) {
	switch x := v.byOID[oid].(type) {
	case *catalog.TableDef:
		return x.Schema, x.Name, 'r', true
	case *index:
		return x.schema, x.name, 'i', true
	case *catalog.SequenceDef:
		return x.Schema, x.Name, 'S', true
	case *catalog.ViewDef:
		return x.Schema, x.Name, 'v', true
	case *Relation:
		kind := byte('r')
		if x.isView() {
			kind = 'v'
		}
		return x.Schema, x.Name, kind, true
	}
	return "", "", 0, false
}

// Name is the text form of oid as a value of a reg* type: the object's
// name (qualified when it is not on the search path). ok is false when no
// such object exists; PostgreSQL then prints the number.
func (v *View) Name(family types.Family, oid int64) (string, bool) {
	switch family {
	case types.RegClass:
		if schema, name, _, ok := v.Relation(oid); ok {
			return v.qualified(schema, name), true
		}
	case types.RegType:
		if t, ok := types.ByOID(uint32(oid)); ok {
			return t.String(), true
		}
		if name, ok := pseudoTypeName(oid); ok {
			return name, true
		}
		if td := v.Cat.TypeByOID(uint32(oid)); td != nil {
			name := v.qualified(td.Schema, td.Name)
			if td.ArrayOID() == uint32(oid) {
				name += "[]"
			}
			return name, true
		}
	case types.RegNamespace:
		for _, s := range v.schemas() {
			if SchemaOID(s) == oid {
				return ident.Quote(s), true
			}
		}
	case types.RegRole:
		if r := v.Cat.RoleByOID(uint32(oid)); r != nil {
			return ident.Quote(r.Name), true
		}
	case types.RegConfig:
		if c, ok := tsearch.ConfigByOID(oid); ok {
			return v.qualified("pg_catalog", c.Name), true
		}
	case types.RegProc:
		if schema, name, ok := procName(oid); ok {
			return v.qualified(schema, name), true
		}
	}
	return "", false
}

// Lookup is the input function of a reg* type: the OID of the named
// object, or of a number given as text.
func (v *View) Lookup(family types.Family, text string) (int64, error) {
	if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil {
		return n, nil
	}
	if strings.TrimSpace(text) == "-" {
		return 0, nil // no object, as reg* output prints 0
	}
	schema, name := splitQualified(text)
	switch family {
	case types.RegClass:
		for _, s := range v.candidates(schema) {
			if oid, ok := v.relationOID(s, name); ok {
				return oid, nil
			}
		}
		return 0, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", text)
	case types.RegType:
		t, schema, ok := typeByName(text)
		if ok {
			return int64(t.OID()), nil
		}
		if oid, ok := pseudoTypeOID(text); ok {
			return oid, nil
		}
		base, array := strings.CutSuffix(strings.TrimSpace(text), "[]")
		us, un := splitQualified(base)
		for _, s := range v.candidates(us) {
			if td := v.Cat.Type(s, un); td != nil {
				if array {
					return int64(td.ArrayOID()), nil
				}
				return int64(td.OID()), nil
			}
			if td := v.Cat.ArrayType(s, un); td != nil && !array {
				return int64(td.ArrayOID()), nil
			}
		}
		if _, known := v.Cat.Schemas[schema]; schema != "" && schema != "pg_catalog" && !known {
			return 0, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
		return 0, pgerr.New(pgerrcode.UndefinedObject, "type \"%s\" does not exist", text)
	case types.RegNamespace:
		for _, s := range v.schemas() {
			if s == name {
				return SchemaOID(s), nil
			}
		}
		return 0, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", text)
	case types.RegRole:
		if r := v.Cat.Role(name); r != nil {
			return int64(r.OID), nil
		}
		if v.Cat.Role(v.User) == nil && name == v.User {
			return BootstrapUserOID, nil // a login name that is no role
		}
		return 0, pgerr.New(pgerrcode.UndefinedObject, "role \"%s\" does not exist", text)
	case types.RegConfig:
		if c, ok := tsearch.ConfigByName(text); ok {
			return c.OID, nil
		}
		return 0, tsearch.ErrNoConfig(text)
	case types.RegProc:
		if oid, ok := procByName(v.candidates(schema), name); ok {
			return oid, nil
		}
		for _, s := range v.candidates(schema) {
			switch fs := v.Cat.FunctionsNamed(s, name); len(fs) {
			case 0:
				continue
			case 1:
				return FunctionOID(fs[0].Key()), nil
			default:
				return 0, pgerr.New(pgerrcode.AmbiguousFunction, "more than one function named \"%s\"", text)
			}
		}
		return 0, pgerr.New(pgerrcode.UndefinedFunction, "function \"%s\" does not exist", text)
	}
	return 0, pgerr.NotSupported("input of type %s by name", types.T{Family: family}.String())
}

// typeByName reads a type name as regtype's input does: SQL's spelling
// ("double precision", "character varying(20)"), optionally qualified with
// pg_catalog or quoted, with array brackets ("float4[]", "int[][]") or as
// the array type's own name ("_float4"). schema is the qualifying schema,
// if any; every type cairn has is in pg_catalog.
func typeByName(text string) (t types.T, schema string, ok bool) {
	s := strings.TrimSpace(text)
	dims := 0
	for strings.HasSuffix(s, "]") {
		open := strings.LastIndexByte(s, '[')
		if open < 0 {
			return types.T{}, "", false
		}
		s, dims = strings.TrimSpace(s[:open]), dims+1
	}
	if open := strings.IndexByte(s, '('); open >= 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:open]) // a type modifier names the same type
	}
	schema, name := splitQualified(s)
	if schema != "" && schema != "pg_catalog" {
		return types.T{}, schema, false
	}
	if strings.HasSuffix(s, `"char"`) {
		name = `"char"` // quoted, the one-byte type; bare, SQL's character
	}
	name = strings.Join(strings.Fields(name), " ")
	if elem, isArray := strings.CutPrefix(name, "_"); isArray && dims == 0 {
		name, dims = elem, 1
	}
	t, ok = types.Named(name)
	if !ok || dims == 0 {
		return t, schema, ok
	}
	if t.IsArray() {
		return types.T{}, schema, false
	}
	return types.ArrayOf(t, 1), schema, true
}

// candidates are the schemas an unqualified name is looked up in.
func (v *View) candidates(schema string) []string {
	if schema == "pg_temp" {
		// The session's temporary schema, which its search path holds
		// once it exists (and no other session's).
		for _, s := range v.SearchPath {
			if catalog.IsTempSchema(s) {
				return []string{s}
			}
		}
	}
	if schema != "" {
		return []string{schema}
	}
	return append([]string{"pg_catalog"}, v.SearchPath...)
}

// relationOID finds a relation (table, index, sequence, system relation)
// by schema and name.
func (v *View) relationOID(schema, name string) (int64, bool) {
	if r := Lookup(schema, name); r != nil {
		return r.OID, true
	}
	if t := v.Cat.Table(schema, name); t != nil {
		return TableOID(t.ID), true
	}
	for _, ix := range v.indexes {
		if ix.schema == schema && ix.name == name {
			return ix.oid, true
		}
	}
	if s := v.Cat.Sequence(schema, name); s != nil {
		return SequenceOID(schema, name), true
	}
	if v.Cat.View(schema, name) != nil {
		return ViewOID(schema, name), true
	}
	return 0, false
}

// splitQualified splits "schema.name" (either part possibly quoted) into
// its parts; schema is "" for a bare name. Unquoted parts are lower-cased.
func splitQualified(s string) (schema, name string) {
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted:
			cur.WriteString(strings.ToLower(string(c)))
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, strings.TrimSpace(cur.String()))
	if len(parts) >= 2 {
		return strings.TrimSpace(parts[len(parts)-2]), parts[len(parts)-1]
	}
	return "", parts[0]
}

// TableVisible is pg_table_is_visible: the relation would be found by its
// bare name.
func (v *View) TableVisible(oid int64) bool {
	schema, name, _, ok := v.Relation(oid)
	if !ok {
		return false
	}
	for _, s := range v.candidates("") {
		if o, ok := v.relationOID(s, name); ok {
			return o == oid && s == schema
		}
	}
	return false
}

// columnNames names the columns with the given IDs, quoted as needed.
func columnNames(t *catalog.TableDef, ids []int) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, c := t.ColumnByID(id); c != nil {
			out = append(out, ident.Quote(c.Name))
		}
	}
	return out
}

// IndexDef is pg_get_indexdef: the CREATE INDEX statement of an index,
// or with a column number other than 0 that key of the index alone (its
// column or expression, without operator class or ordering; "" when there
// is no such key), as PostgreSQL's pg_get_indexdef_worker prints them,
// plain or pretty (the table bare where the search path finds it,
// expressions with the parentheses precedence needs).
func (v *View) IndexDef(oid int64, column int, pretty bool) (string, bool) {
	ix, ok := v.byOID[oid].(*index)
	if !ok {
		return "", false
	}
	keys := v.indexKeys(ix, column != 0, pretty)
	if column != 0 {
		if column < 0 || column > len(keys) {
			return "", true
		}
		return keys[column-1], true
	}
	unique := ""
	if ix.unique {
		unique = "UNIQUE "
	}
	table := ident.Quote(ix.table.Schema) + "." + ident.Quote(ix.table.Name)
	if pretty {
		// PRETTYFLAG_SCHEMA: the table bare where the path finds it.
		table = v.qualified(ix.table.Schema, ix.table.Name)
	}
	def := fmt.Sprintf("CREATE %sINDEX %s ON %s USING %s (%s)", unique, ident.Quote(ix.name),
		table, ix.method, strings.Join(keys, ", "))
	if ix.nullsNotDistinct {
		def += " NULLS NOT DISTINCT"
	}
	if ix.def != nil && len(ix.def.With) > 0 {
		def += " WITH (" + reloptions(ix.def.With) + ")"
	}
	if pred := v.indexPred(ix, pretty); pred != "" {
		def += " WHERE " + pred
	}
	return def, true
}

// indexPred is a partial index's predicate as pg_get_indexdef prints it
// ("" for none).
func (v *View) indexPred(ix *index, pretty bool) string {
	if ix.def == nil || ix.def.PredDef == "" {
		return ""
	}
	if text, ok := v.ruleText(ix.def.Pred, ExprContext{Table: ix.table, Pretty: pretty}); ok {
		return text
	}
	return ix.def.PredDef
}

// indexExpr is an expression key as pg_get_indexdef prints it: in
// parentheses unless it prints as a function call. stored is the key as
// the catalog holds it, already so.
func (v *View) indexExpr(ix *index, stored string, pretty bool) string {
	text, ok := v.ruleText(stored, ExprContext{Table: ix.table, Pretty: pretty})
	if !ok {
		return stored
	}
	return IndexExprText(text)
}

// IndexExprText is an expression key printed as PostgreSQL prints the
// expression (text) as pg_get_indexdef and a unique violation's DETAIL
// print it: in parentheses unless it prints as a function call.
func IndexExprText(text string) string {
	if looksLikeFunction(text) {
		return text
	}
	return "(" + text + ")"
}

// indexKeys are the keys of an index as pg_get_indexdef prints them
// (plain or pretty): each column or expression (or pg_deeplake's hybrid
// record) with, unless attrsOnly, its
// operator class where it is not the default for the column's type, DESC
// where it is descending and NULLS FIRST or NULLS LAST where that is not
// the direction's default.
func (v *View) indexKeys(ix *index, attrsOnly, pretty bool) []string {
	names := columnNames(ix.table, ix.columns)
	d := ix.def
	if d == nil {
		return names
	}
	if d.Expr != "" {
		return []string{v.indexExpr(ix, d.Expr, pretty)}
	}
	if len(d.Keys) > 0 {
		for i, k := range d.Keys {
			if k.Expr != "" {
				names[i] = v.indexExpr(ix, k.Expr, pretty)
			}
		}
	}
	if d.Options["index_type"] == "hybrid" && len(names) == 2 {
		names = []string{"ROW(" + names[0] + ", " + names[1] + ")::deeplake_hybrid_record"}
		if !attrsOnly {
			names[0] = "(" + names[0] + ")"
		}
	}
	if attrsOnly {
		return names
	}
	if opclass := d.EffectiveOpClass(ix.table); opclass != "" && len(names) == 1 {
		_, col := ix.table.ColumnByID(d.Columns[0])
		// pgvector's hnsw has no default operator class: PostgreSQL always
		// prints the one the index has.
		if col != nil && (opclass != catalog.DefaultOpClass(d.Method, col.Type) || d.Method == "hnsw" && col.Type.Family == types.Vector) {
			names[0] += " " + opclass
		}
	}
	for i := range names {
		desc, first := d.KeyDesc(i), d.KeyNullsFirst(i)
		switch {
		case desc && first:
			names[i] += " DESC"
		case desc:
			names[i] += " DESC NULLS LAST"
		case first:
			names[i] += " NULLS FIRST"
		}
	}
	return names
}

// reloptions prints pg_class.reloptions entries ("name=value") as
// ruleutils.c's flatten_reloptions does: name=value, the value quoted as a
// literal unless it reads as a plain identifier.
func reloptions(opts []string) string {
	out := make([]string, len(opts))
	for i, o := range opts {
		name, value, _ := strings.Cut(o, "=")
		if ident.Quote(value) != value {
			value = "'" + strings.ReplaceAll(value, "'", "''") + "'"
		}
		out[i] = ident.Quote(name) + "=" + value
	}
	return strings.Join(out, ", ")
}

// ViewDef is pg_get_viewdef: the query of a view, as cairn keeps it.
func (v *View) ViewDef(oid int64) (string, bool) {
	d, ok := v.byOID[oid].(*catalog.ViewDef)
	if !ok {
		return "", false
	}
	query, _ := v.viewQuery(d)
	return " " + query + ";", true
}

// ConstraintDef is pg_get_constraintdef: a constraint's definition as it
// would be written in CREATE TABLE, a CHECK's expression plain or pretty.
func (v *View) ConstraintDef(oid int64, pretty bool) (string, bool) {
	if d, ok := v.byOID[oid].(*domainCheck); ok {
		return v.domainCheckDef(d, pretty), true
	}
	c, ok := v.byOID[oid].(*constraint)
	if !ok {
		return "", false
	}
	cols := strings.Join(columnNames(c.table, c.columns), ", ")
	var suffix string
	if c.deferrable {
		suffix = " DEFERRABLE"
	}
	if c.deferred {
		suffix += " INITIALLY DEFERRED"
	}
	if c.notValid {
		suffix += " NOT VALID"
	}
	switch c.kind {
	case 'p':
		return "PRIMARY KEY (" + cols + ")" + suffix, true
	case 'u':
		if c.index != nil && c.index.nullsNotDistinct {
			return "UNIQUE NULLS NOT DISTINCT (" + cols + ")" + suffix, true
		}
		return "UNIQUE (" + cols + ")" + suffix, true
	case 'c':
		return "CHECK (" + v.checkExpr(c.table, c.check, pretty) + ")" + suffix, true
	case 'f':
		ref := v.Cat.TableByID(c.fk.RefTable)
		if ref == nil {
			return "", false
		}
		def := fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s(%s)", cols, v.qualified(ref.Schema, ref.Name),
			strings.Join(columnNames(ref, c.fk.RefColumns), ", "))
		if c.fk.MatchFull {
			def += " MATCH FULL"
		}
		if c.fk.OnUpdate != catalog.FKNoAction {
			def += " ON UPDATE " + fkActionRule(c.fk.OnUpdate)
		}
		if c.fk.OnDelete != catalog.FKNoAction {
			def += " ON DELETE " + fkActionRule(c.fk.OnDelete)
			if len(c.fk.DeleteSetColumns) > 0 {
				def += " (" + strings.Join(columnNames(c.table, c.fk.DeleteSetColumns), ", ") + ")"
			}
		}
		return def + suffix, true
	}
	return "", false
}

// fkActionCode is a referential action as pg_constraint.confupdtype and
// confdeltype code it.
func fkActionCode(a string) string {
	if a == catalog.FKNoAction {
		return "a"
	}
	return a
}

// fkActionRule is a referential action as SQL writes it
// (information_schema.referential_constraints, pg_get_constraintdef).
func fkActionRule(a string) string {
	switch a {
	case catalog.FKRestrict:
		return "RESTRICT"
	case catalog.FKCascade:
		return "CASCADE"
	case catalog.FKSetNull:
		return "SET NULL"
	case catalog.FKSetDefault:
		return "SET DEFAULT"
	}
	return "NO ACTION"
}

// nextvalSequence reads the default of a serial column,
// nextval('<sequence>'::regclass): the sequence's name as written (the
// text of the string literal) and what follows the literal.
func nextvalSequence(def string) (seq, rest string, ok bool) {
	lit, found := strings.CutPrefix(def, "nextval('")
	if !found {
		return "", "", false
	}
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\'' {
			b.WriteByte(lit[i])
			continue
		}
		if i+1 < len(lit) && lit[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), lit[i+1:], true
	}
	return "", "", false
}

// defaultExpr is a column default as pg_get_expr prints it. cairn stores
// a serial column's nextval('schema.seq'::regclass) schema-qualified, so
// that it resolves whatever the search path; PostgreSQL prints the
// regclass constant as a regclass value prints, bare when the schema is
// on the search path.
func (v *View) defaultExpr(def string) string {
	seq, rest, ok := nextvalSequence(def)
	if !ok {
		return v.enumDefault(def)
	}
	schema, name := splitQualified(seq)
	if schema == "" {
		return def
	}
	return "nextval('" + strings.ReplaceAll(v.qualified(schema, name), "'", "''") + "'" + rest
}

// SerialSequence is pg_get_serial_sequence: the schema-qualified name of
// the sequence a column owns (OwnedSequence), or ok false when it owns
// none: a sequence its default only draws from (DEFAULT
// nextval('shared')) is not its, as in PostgreSQL. table is read as
// regclass input (quoted parts keep their case); column is taken
// literally.
func (v *View) SerialSequence(table, column string) (seq string, ok bool, err error) {
	oid, err := v.Lookup(types.RegClass, table)
	if err != nil {
		return "", false, err
	}
	var s *catalog.SequenceDef
	switch x := v.byOID[oid].(type) {
	case *catalog.TableDef:
		_, c := x.Column(column)
		if c == nil {
			return "", false, errNoColumn(column, x.Name)
		}
		s = v.OwnedSequence(x, c)
	case *Relation:
		if !slices.ContainsFunc(x.Cols, func(c Column) bool { return c.Name == column }) {
			return "", false, errNoColumn(column, x.Name)
		}
	case *catalog.ViewDef:
		if !slices.ContainsFunc(x.Columns, func(c catalog.ColumnDef) bool { return c.Name == column }) {
			return "", false, errNoColumn(column, x.Name)
		}
	default:
		_, name, _, _ := v.Relation(oid)
		return "", false, errNoColumn(column, name)
	}
	if s == nil {
		return "", false, nil
	}
	return ident.Quote(s.Schema) + "." + ident.Quote(s.Name), true, nil
}

// OwnedSequence is the sequence column c of table t owns, or nil: a
// serial or identity column's, or one ALTER SEQUENCE ... OWNED BY tied
// to it (pg_depend's 'a' or 'i' dependency, which psql's \d shows as
// "Owned by" and pg_dump writes as OWNED BY; TRUNCATE ... RESTART
// IDENTITY restarts it). A serial column of a catalog written before
// sequences recorded their column is known by its default drawing from
// the sequence of its serial name, table_column_seq.
func (v *View) OwnedSequence(t *catalog.TableDef, c *catalog.ColumnDef) *catalog.SequenceDef {
	for _, s := range v.sequences {
		if s.OwnedBy != nil && s.OwnedBy.Table == t.ID && s.OwnedBy.Column == c.ID {
			return s
		}
	}
	if s := v.ColumnSequence(c.Default); s != nil && s.OwnedBy == nil && s.Schema == t.Schema && s.Name == t.Name+"_"+c.Name+"_seq" {
		return s
	}
	return nil
}

// ColumnSequence is the sequence a column default nextval('seq'::regclass)
// draws from, or nil.
func (v *View) ColumnSequence(def string) *catalog.SequenceDef {
	text, _, ok := nextvalSequence(def)
	if !ok {
		return nil
	}
	soid, err := v.Lookup(types.RegClass, text)
	if err != nil {
		return nil
	}
	s, _ := v.byOID[soid].(*catalog.SequenceDef)
	return s
}

// errNoColumn is PostgreSQL's error for a column a relation lacks.
func errNoColumn(column, relation string) error {
	return pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", column, relation)
}

// sameColumns reports whether two lists hold the same column IDs, in any
// order.
func sameColumns(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// Description is the comment on the object with OID oid (COMMENT ON),
// or on column number sub of a table or view, or a built-in extension's,
// as pg_description holds it, in the system catalog called class (""
// for any); ok is false when there is none.
func (v *View) Description(oid int64, class string, sub int64) (string, bool) {
	if t, ok := v.byOID[oid].(*catalog.TableDef); ok && (class == "" || catalogNamed(class, pgClassOID)) {
		text := t.Comment
		if sub > 0 {
			if sub > int64(len(t.Columns)) {
				return "", false
			}
			text = t.Columns[sub-1].Comment
		}
		return text, text != ""
	}
	for _, c := range v.comments() {
		if c.objoid == oid && c.sub == sub && (class == "" || catalogNamed(class, c.classoid)) {
			return c.text, true
		}
	}
	return "", false
}

// comment is a row of pg_description: the comment on object objoid of
// the catalog with OID classoid, or on its column number sub.
type comment struct {
	objoid, classoid, sub int64
	text                  string
}

// comments are pg_description's rows: the comments COMMENT ON set on
// tables, views, their columns, schemas and functions, initdb's on the
// public schema (which pg_dump leaves out as the default) while no other
// is set, and the built-in extensions'.
func (v *View) comments() []comment {
	var out []comment
	relation := func(oid int64, text string, cols []catalog.ColumnDef) {
		if text != "" {
			out = append(out, comment{oid, pgClassOID, 0, text})
		}
		for i, c := range cols {
			if c.Comment != "" {
				out = append(out, comment{oid, pgClassOID, int64(i + 1), c.Comment})
			}
		}
	}
	for _, name := range v.schemas() {
		sd := v.Cat.Schemas[name]
		if sd == nil {
			continue // pg_catalog, information_schema
		}
		text := sd.Comment
		if text == "" && name == "public" {
			text = "standard public schema"
		}
		if text != "" {
			out = append(out, comment{SchemaOID(name), pgNamespaceOID, 0, text})
		}
	}
	for _, t := range v.tables {
		relation(TableOID(t.ID), t.Comment, t.Columns)
	}
	for _, d := range v.views {
		relation(ViewOID(d.Schema, d.Name), d.Comment, d.Columns)
	}
	for _, f := range userFunctions(v.Cat) {
		if f.Comment != "" {
			out = append(out, comment{FunctionOID(f.Key()), pgProcOID, 0, f.Comment})
		}
	}
	for _, t := range v.tables {
		toid := TableOID(t.ID)
		for _, u := range t.Uniques {
			if u.Comment != "" {
				out = append(out, comment{ConstraintOID(toid, u.Name), pgConstraintOID, 0, u.Comment})
			}
			if u.IndexComment != "" {
				out = append(out, comment{IndexOID(t.Schema, u.Name), pgClassOID, 0, u.IndexComment})
			}
		}
		for _, c := range t.Checks {
			if c.Comment != "" {
				out = append(out, comment{ConstraintOID(toid, c.Name), pgConstraintOID, 0, c.Comment})
			}
		}
		for _, f := range t.ForeignKeys {
			if f.Comment != "" {
				out = append(out, comment{ConstraintOID(toid, f.Name), pgConstraintOID, 0, f.Comment})
			}
		}
	}
	for _, rel := range triggerRels(v) {
		for _, tr := range rel.def.Triggers {
			if tr.Comment != "" {
				out = append(out, comment{rel.trOID(tr.Name), pgTriggerOID, 0, tr.Comment})
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(v.Cat.Indexes)) {
		if ix := v.Cat.Indexes[key]; ix.Comment != "" {
			out = append(out, comment{IndexOID(ix.Schema, ix.Name), pgClassOID, 0, ix.Comment})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(v.Cat.Sequences)) {
		if sq := v.Cat.Sequences[key]; sq.Comment != "" {
			out = append(out, comment{SequenceOID(sq.Schema, sq.Name), pgClassOID, 0, sq.Comment})
		}
	}
	for _, td := range v.userTypes() {
		if td.Comment != "" {
			out = append(out, comment{int64(td.OID()), pgTypeOID, 0, td.Comment})
		}
	}
	for _, e := range extensions {
		text, set := v.Cat.ExtensionComments[e.name]
		if !set {
			text = e.comment
		}
		if text != "" {
			out = append(out, comment{e.oid, pgExtensionOID, 0, text})
		}
	}
	return out
}

// sharedComments are pg_shdescription's rows: the comments COMMENT ON
// set on roles and on the database.
func (v *View) sharedComments() []comment {
	var out []comment
	for _, r := range v.Cat.RoleList() {
		if r.Comment != "" {
			out = append(out, comment{int64(r.OID), pgAuthidOID, 0, r.Comment})
		}
	}
	if v.Cat.DatabaseComment != "" {
		out = append(out, comment{DatabaseOID, pgDatabaseOID, 0, v.Cat.DatabaseComment})
	}
	return out
}

// SharedDescription is the comment on the shared object (a role, the
// database) with OID oid in the system catalog called class, as
// shobj_description answers it; ok is false when there is none.
func (v *View) SharedDescription(oid int64, class string) (string, bool) {
	for _, c := range v.sharedComments() {
		if c.objoid == oid && catalogNamed(class, c.classoid) {
			return c.text, true
		}
	}
	return "", false
}

// catalogNamed reports whether the system catalog of OID classoid is
// called name (as obj_description's second argument names it, with or
// without pg_catalog).
func catalogNamed(name string, classoid int64) bool {
	name = strings.TrimPrefix(name, "pg_catalog.")
	switch classoid {
	case pgClassOID:
		return name == "pg_class"
	case pgProcOID:
		return name == "pg_proc"
	case pgTypeOID:
		return name == "pg_type"
	case pgNamespaceOID:
		return name == "pg_namespace"
	case pgConstraintOID:
		return name == "pg_constraint"
	case pgTriggerOID:
		return name == "pg_trigger"
	case pgExtensionOID:
		return name == "pg_extension"
	case pgAuthidOID:
		return name == "pg_authid"
	case pgDatabaseOID:
		return name == "pg_database"
	}
	return false
}

// userTypes are the catalog's user types (enums and domains) by OID.
func (v *View) userTypes() []*catalog.TypeDef {
	out := make([]*catalog.TypeDef, 0, len(v.Cat.Types))
	for _, td := range v.Cat.Types {
		out = append(out, td)
	}
	slices.SortFunc(out, func(a, b *catalog.TypeDef) int { return int(a.OID()) - int(b.OID()) })
	return out
}

// enumDefault is a DEFAULT that is an enum's label or an array of them
// (catalog.EnumDefault, EnumArrayDefault, stored with the type's
// qualified name) with the name as regtype prints it; any other default
// unchanged.
func (v *View) enumDefault(def string) string {
	at := strings.LastIndex(def, "'::")
	if at < 0 || !strings.HasPrefix(def, "'") {
		return def
	}
	typ, array := strings.CutSuffix(def[at+3:], "[]")
	schema, name := splitQualified(typ)
	td := v.Cat.Type(schema, name)
	if schema == "" || td == nil || td.Enum == nil {
		return def
	}
	lit := strings.ReplaceAll(def[1:at], "''", "'")
	stored, suffix := catalog.EnumDefault(td.Enum, lit), ""
	if array {
		stored, suffix = catalog.EnumArrayDefault(td.Enum, lit), "[]"
	}
	if stored != def {
		return def
	}
	return def[:at+3] + v.qualified(schema, name) + suffix
}

// IndexKeys is functions.IndexCatalog's: the access method of the index
// with OID oid and each key's DESC and NULLS FIRST.
func (v *View) IndexKeys(oid int64) (method string, desc, nullsFirst []bool, ok bool) {
	ix, ok := v.byOID[oid].(*index)
	if !ok {
		return "", nil, nil, false
	}
	n := len(v.indexKeys(ix, true, false))
	desc, nullsFirst = make([]bool, n), make([]bool, n)
	if ix.def != nil {
		for i := range n {
			desc[i], nullsFirst[i] = ix.def.KeyDesc(i), ix.def.KeyNullsFirst(i)
		}
	}
	return ix.method, desc, nullsFirst, true
}

// AccessMethodName is functions.IndexCatalog's: the name of the access
// method with OID oid (pg_am.amname).
func (v *View) AccessMethodName(oid int64) (string, bool) {
	for _, m := range accessMethods {
		if m.oid == oid {
			return m.name, true
		}
	}
	return "", false
}

// RuleDef is functions.RuleCatalog's pg_get_ruledef: the CREATE RULE of
// the rule with OID oid, a view's ON SELECT rule (the only rules cairn
// has), naming the view qualified unless pretty and visible on the
// search path, as PostgreSQL does.
func (v *View) RuleDef(oid int64, pretty bool) (string, bool) {
	for _, d := range v.views {
		if ruleOID(d) != oid {
			continue
		}
		def, _ := v.ViewDef(ViewOID(d.Schema, d.Name))
		name := ident.Quote(d.Schema) + "." + ident.Quote(d.Name)
		if pretty && v.TableVisible(ViewOID(d.Schema, d.Name)) {
			name = ident.Quote(d.Name)
		}
		return "CREATE RULE \"_RETURN\" AS\n    ON SELECT TO " + name + " DO INSTEAD " + def, true
	}
	return "", false
}
