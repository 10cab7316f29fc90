package sql

// Views: CREATE [OR REPLACE] VIEW keeps the query's SQL text with the
// search path it was written under; a query that names the view binds that
// text again in its place, so the view always reads the current rows.

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// CreateView is CREATE [OR REPLACE] VIEW.
type CreateView struct {
	Def     *catalog.ViewDef
	Replace bool
	// Temp: Def.Schema is the session's temporary schema (see
	// CreateTable), asked for with CREATE TEMP VIEW or because the view
	// reads a temporary table; Implied is the latter, which PostgreSQL
	// announces with a notice.
	Temp, Implied bool
}

// DropView is DROP VIEW; Missing lists names that did not exist (IF EXISTS
// turns them into notices).
type DropView struct {
	Views    []*catalog.ViewDef
	Missing  []string
	IfExists bool
	// Cascade drops the views that read these too (else they make the
	// DROP fail).
	Cascade bool
}

// RenameView is ALTER VIEW name RENAME [COLUMN column] TO new_name or
// SET SCHEMA new_schema (or ALTER TABLE's of a view); the views that
// read it follow (FollowRename). Column is the column renamed, "" for
// the view. NewSchema is SET SCHEMA's ("" for a rename; NewName is the
// view's name then). Tag is the command's tag, ALTER VIEW or ALTER TABLE
// as it was spelled. Missing names the view IF EXISTS did not find (View
// nil).
type RenameView struct {
	View               *catalog.ViewDef
	Column             string
	NewName, NewSchema string
	Tag                string
	Missing            string
}

// bindRenameView binds ALTER VIEW [IF EXISTS] name RENAME [COLUMN
// column] TO new_name, and ALTER TABLE's of a view (v, which lookupView
// found), which its owner may do.
func (b *Binder) bindRenameView(s *pg_query.RenameStmt, v *catalog.ViewDef) (Statement, error) {
	tag, column := "ALTER VIEW", ""
	if s.RenameType == pg_query.ObjectType_OBJECT_TABLE || s.RenameType == pg_query.ObjectType_OBJECT_COLUMN && s.RelationType != pg_query.ObjectType_OBJECT_VIEW {
		tag = "ALTER TABLE"
	}
	if s.RenameType == pg_query.ObjectType_OBJECT_COLUMN {
		column = s.Subname
	}
	if v == nil {
		return b.noViewToAlter(s.Relation, s.MissingOk, tag)
	}
	b.accesses = append(b.accesses, Access{View: v, Owner: true})
	return &RenameView{View: v, Column: column, NewName: s.Newname, Tag: tag}, nil
}

// noViewToAlter is an ALTER VIEW (or ALTER TABLE of a view) of rel, which
// names no view: 42809 for a table, the IF EXISTS notice's statement
// with missingOK, 42P01 otherwise.
func (b *Binder) noViewToAlter(rel *pg_query.RangeVar, missingOK bool, tag string) (Statement, error) {
	if b.tableNamed(rel.Schemaname, rel.Relname) {
		return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a view", rel.Relname)
	}
	if missingOK {
		return &RenameView{Missing: rel.Relname, Tag: tag}, nil
	}
	return nil, pgerr.New(pgerrcode.UndefinedTable, "relation \"%s\" does not exist", rel.Relname)
}

// bindViewSetSchema binds ALTER VIEW [IF EXISTS] name SET SCHEMA
// new_schema, and ALTER TABLE's of a view (v, which lookupView found):
// its owner may, with CREATE on the new schema; a temporary view stays
// in its schema, as PostgreSQL's.
func (b *Binder) bindViewSetSchema(s *pg_query.AlterObjectSchemaStmt, v *catalog.ViewDef) (Statement, error) {
	tag := "ALTER VIEW"
	if s.ObjectType == pg_query.ObjectType_OBJECT_TABLE {
		tag = "ALTER TABLE"
	}
	if v == nil {
		return b.noViewToAlter(s.Relation, s.MissingOk, tag)
	}
	schema := s.Newschema
	if schema == "pg_temp" {
		schema = b.TempSchema
	}
	if catalog.IsTempSchema(v.Schema) || catalog.IsTempSchema(schema) {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if _, ok := b.Catalog.Schemas[schema]; !ok {
		return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	b.accesses = append(b.accesses, Access{View: v, Owner: true}, Access{Schema: schema, Privs: catalog.PrivCreate})
	return &RenameView{View: v, NewName: v.Name, NewSchema: schema, Tag: tag}, nil
}

// bindCreateView binds CREATE [OR REPLACE] VIEW name [(columns)] AS query:
// the query is bound now, to check it and learn its columns.
func (b *Binder) bindCreateView(s *pg_query.ViewStmt) (Statement, error) {
	checkOption, err := viewOptions(s)
	if err != nil {
		return nil, err
	}
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.NotSupported("CREATE VIEW of a statement other than SELECT")
	}
	schema, temp, err := b.relationSchema(s.View)
	if err != nil {
		return nil, err
	}
	if _, ok := b.Catalog.Schemas[schema]; !ok && !temp {
		return nil, pgerr.New(pgerrcode.InvalidSchemaName, "schema \"%s\" does not exist", schema)
	}
	// A view's query stands alone: no parameters, no outer CTEs.
	vb := &Binder{Catalog: b.Catalog, SearchPath: b.SearchPath, Location: b.Location, Now: b.Now, NoParams: true, Role: b.Role,
		TempSchema: b.TempSchema, expansions: b.expansions}
	plan, err := vb.bindSelect(sel, nil)
	if err != nil {
		return nil, err
	}
	// A view of a temporary relation is temporary too, as PostgreSQL
	// makes it (with a notice), unless its name puts it elsewhere.
	implied := false
	for _, a := range vb.accesses {
		if !temp && (a.Table != nil && catalog.IsTempSchema(a.Table.Schema) || a.View != nil && catalog.IsTempSchema(a.View.Schema)) {
			if s.View.Schemaname != "" {
				return nil, pgerr.New(pgerrcode.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
			}
			schema, temp, implied = b.TempSchema, true, true
		}
	}
	names := strList(s.Aliases)
	// A permanent view keeps the search path without the session's
	// temporary schema, which goes with the session.
	path := slices.Clone(b.SearchPath)
	if !temp {
		path = slices.DeleteFunc(path, func(s string) bool { return s == b.TempSchema && s != "" })
	}
	def := &catalog.ViewDef{Schema: schema, Name: s.View.Relname, SearchPath: path, CheckOption: checkOption}
	var visible []Col
	for _, c := range plan.Columns() {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	if len(names) > len(visible) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	for i, c := range visible {
		name, t := c.Name, c.T
		if i < len(names) {
			name = names[i]
		}
		if t.Family == types.Unknown || t.Family == types.Null {
			t = types.TextT
		}
		for _, d := range def.Columns {
			if d.Name == name {
				return nil, pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", name)
			}
		}
		def.Columns = append(def.Columns, catalog.ColumnDef{Name: name, Type: t})
		def.QueryColumns = append(def.QueryColumns, c.Name)
	}
	b.accesses = append(b.accesses, Access{Schema: schema, Privs: catalog.PrivCreate})
	if old := b.Catalog.View(schema, def.Name); old != nil && s.Replace {
		b.accesses = append(b.accesses, Access{View: old, Owner: true})
		if err := checkViewReplacement(old, def); err != nil {
			return nil, err
		}
	}
	text, err := pg_query.Deparse(&pg_query.ParseResult{Stmts: []*pg_query.RawStmt{{Stmt: s.Query}}})
	if err != nil {
		return nil, err
	}
	def.Query = text
	if def.CheckOption != "" {
		if err := checkOptionAllowed(sel); err != nil {
			return nil, err
		}
	}
	return &CreateView{Def: def, Replace: s.Replace, Temp: temp, Implied: implied}, nil
}

// viewOptions reads CREATE VIEW's check option: WITH [LOCAL | CASCADED]
// CHECK OPTION, or its spelling as an option, WITH (check_option =
// local | cascaded), which pg_dump writes. It is "local", "cascaded" or
// "" for none. The other options (security_barrier, security_invoker)
// are 0A000.
func viewOptions(s *pg_query.ViewStmt) (string, error) {
	check := map[pg_query.ViewCheckOption]string{pg_query.ViewCheckOption_LOCAL_CHECK_OPTION: "local", pg_query.ViewCheckOption_CASCADED_CHECK_OPTION: "cascaded"}[s.WithCheckOption]
	seen := false
	for _, o := range s.Options {
		d := o.GetDefElem()
		if d.Defname != "check_option" {
			return "", pgerr.NotSupported("view option \"%s\"", d.Defname)
		}
		if seen {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"check_option\" specified more than once")
		}
		seen = true
		v := strings.ToLower(defString(d.Arg))
		if d.Arg == nil {
			v = "true"
		}
		if v != "local" && v != "cascaded" {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for enum option \"check_option\": %s", v).
				WithDetail("Valid values are \"local\" and \"cascaded\".")
		}
		if check != "" {
			return "", pgerr.New(pgerrcode.InvalidParameterValue, "parameter \"check_option\" specified more than once")
		}
		check = v
	}
	return check, nil
}

// checkViewReplacement applies PostgreSQL's rule for CREATE OR REPLACE
// VIEW: the new query keeps the old columns' names and types in order and
// may only add columns at the end.
func checkViewReplacement(old, def *catalog.ViewDef) error {
	if len(def.Columns) < len(old.Columns) {
		return pgerr.New(pgerrcode.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, o := range old.Columns {
		n := def.Columns[i]
		if o.Name != n.Name {
			return pgerr.New(pgerrcode.InvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", o.Name, n.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if !o.Type.Equal(n.Type) {
			return pgerr.New(pgerrcode.InvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", o.Name, o.Type, n.Type)
		}
	}
	return nil
}

// bindDropView binds DROP VIEW [IF EXISTS] names.
func (b *Binder) bindDropView(s *pg_query.DropStmt) (Statement, error) {
	d := &DropView{IfExists: s.MissingOk, Cascade: s.Behavior == pg_query.DropBehavior_DROP_CASCADE}
	for _, o := range s.Objects {
		names := strList(o.GetList().GetItems())
		schema, name := "", names[len(names)-1]
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		v := b.lookupView(schema, name)
		if v == nil && b.tableNamed(schema, name) {
			return nil, pgerr.New(pgerrcode.WrongObjectType, "\"%s\" is not a view", name).
				WithHint("Use DROP TABLE to remove a table.")
		}
		if v == nil {
			if s.MissingOk {
				d.Missing = append(d.Missing, name)
				continue
			}
			return nil, pgerr.New(pgerrcode.UndefinedTable, "view \"%s\" does not exist", name)
		}
		b.accesses = append(b.accesses, Access{View: v, Owner: true})
		d.Views = append(d.Views, v)
	}
	return d, nil
}

// lookupView finds the view a relation name means: in the named schema,
// or in the first schema of the search path that has a table or view of
// that name. nil when the name means no view.
func (b *Binder) lookupView(schema, name string) *catalog.ViewDef {
	if schema == "pg_temp" {
		schema = b.TempSchema
	}
	if schema != "" {
		return b.Catalog.View(schema, name)
	}
	for _, s := range b.SearchPath {
		if v := b.Catalog.View(s, name); v != nil {
			return v
		}
		if b.Catalog.Table(s, name) != nil {
			return nil
		}
	}
	return nil
}

// tableNamed reports whether a relation name means a table.
func (b *Binder) tableNamed(schema, name string) bool {
	_, err := b.lookupTable(schema, name)
	return err == nil
}

// bindView binds a view's query where a query names it, under the search
// path the view was created with. Its columns take the view's column
// names and report the view as their table, as PostgreSQL's
// RowDescription does.
func (b *Binder) bindView(v *catalog.ViewDef, alias string, colNames []string) (Node, []Col, error) {
	b.accesses = append(b.accesses, Access{View: v, Privs: catalog.PrivSelect})
	return b.readView(v, alias, colNames)
}

// readView is bindView without the SELECT privilege on v itself: an
// UPDATE or DELETE of a view with an INSTEAD OF trigger reads its rows,
// and needs SELECT on it only where the statement reads them.
func (b *Binder) readView(v *catalog.ViewDef, alias string, colNames []string) (Node, []Col, error) {
	key := v.Schema + "." + v.Name
	if slices.Contains(b.expanding, key) {
		return nil, nil, pgerr.New(pgerrcode.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", v.Name)
	}
	if err := b.expand(); err != nil {
		return nil, nil, err
	}
	stmts, err := Parse(v.Query)
	if err != nil || len(stmts) != 1 || stmts[0].node.GetSelectStmt() == nil {
		return nil, nil, pgerr.New(pgerrcode.DataCorrupted, "view \"%s\" has an unreadable definition", v.Name)
	}
	// The view reads its tables as its owner, whose policies apply.
	vb := &Binder{Catalog: b.Catalog, SearchPath: v.SearchPath, Location: b.Location, Now: b.Now, NoParams: true, expanding: append(slices.Clone(b.expanding), key),
		Role: catalog.OwnerOID(v.Owner), RowSecurityOff: b.RowSecurityOff, NoIndexScans: b.NoIndexScans, NoBitmapScans: b.NoBitmapScans, consts: stmts[0].consts,
		expansions: b.expansions}
	plan, err := vb.bindSelect(stmts[0].node.GetSelectStmt(), nil)
	for _, a := range vb.Accesses() {
		if a.As == 0 {
			a.As = catalog.OwnerOID(v.Owner)
		}
		b.accesses = append(b.accesses, a)
	}
	if err != nil {
		// A position would point into the view's text, not the query's.
		e := *pgerr.From(err)
		e.Position, e.Where = 0, "view \""+v.Name+"\""
		return nil, nil, &e
	}
	var cols []Col
	n := 0
	for _, c := range plan.Columns() {
		if !c.Hidden && n < len(v.Columns) {
			if c.Name != v.QueryColumns[n] || !c.T.Equal(v.Columns[n].Type) {
				return nil, nil, viewChanged(v, n, c)
			}
			c.Name = v.Columns[n].Name
			n++
			c.TableOID, c.Attnum = uint32(syscat.ViewOID(v.Schema, v.Name)), int16(n)
		} else {
			// Columns a table gained since the view was made (SELECT *)
			// are not the view's.
			c.Hidden = true
		}
		cols = append(cols, c)
	}
	if n < len(v.Columns) {
		return nil, nil, viewChanged(v, n, Col{})
	}
	cols, err = aliasFrom(cols, alias, colNames)
	return plan, cols, err
}

// ViewBinds returns why view v's query no longer answers the columns the
// view was made of in catalog cat, nil when it does: what an ALTER TABLE
// of a table the view reads checks before it commits.
func ViewBinds(cat *catalog.Catalog, v *catalog.ViewDef) error {
	b := &Binder{Catalog: cat, NoParams: true}
	_, _, err := b.readView(v, "", nil)
	return err
}

// viewChanged is the error for a view whose query, bound again, no longer
// answers the columns the view was made of (a table it reads lost or
// changed a column; PostgreSQL forbids that change while the view exists).
func viewChanged(v *catalog.ViewDef, i int, got Col) error {
	want := v.Columns[i]
	e := pgerr.New(pgerrcode.InvalidTableDefinition, "view \"%s\" no longer matches the tables it reads: column %d (\"%s\", %s)", v.Name, i+1, want.Name, want.Type)
	if got.Name == "" {
		return e.WithDetail("Its query now has %d columns.", i).WithHint("Recreate the view with CREATE OR REPLACE VIEW or DROP VIEW.")
	}
	return e.WithDetail("Its query now gives column \"%s\" of type %s there.", got.Name, got.T).WithHint("Recreate the view with CREATE OR REPLACE VIEW or DROP VIEW.")
}

// ViewReads returns the tables (IDs) and views (schema.name) view v's
// query reads, those that the views it reads read included: what it
// depends on, which DROP refuses to drop from under it (2BP01) or drops it
// with (CASCADE). A view whose query no longer binds reads nothing.
func ViewReads(cat *catalog.Catalog, v *catalog.ViewDef) (tables []uint64, views []string) {
	stmts, err := Parse(v.Query)
	if err != nil || len(stmts) != 1 || stmts[0].node.GetSelectStmt() == nil {
		return nil, nil
	}
	b := &Binder{Catalog: cat, SearchPath: v.SearchPath, NoParams: true, consts: stmts[0].consts}
	if _, err := b.bindSelect(stmts[0].node.GetSelectStmt(), nil); err != nil {
		return nil, nil
	}
	for _, a := range b.accesses {
		switch {
		case a.Table != nil && !slices.Contains(tables, a.Table.ID):
			tables = append(tables, a.Table.ID)
		case a.View != nil && !slices.Contains(views, catalog.Key(a.View.Schema, a.View.Name)):
			views = append(views, catalog.Key(a.View.Schema, a.View.Name))
		}
	}
	return tables, views
}

// maxExpansions bounds the views and SQL function calls one statement
// expands. Each is bound anew where it is named, so a view that reads
// another twice, itself reading another twice, ... (or a SQL function
// calling another twice) doubles the work at each level: twenty such
// levels took minutes and gigabytes to bind, and binding is not
// interrupted by statement_timeout or a cancel. PostgreSQL keeps a
// view's parsed query and plans such a tower in a fraction of that; a
// statement past the bound fails with 54001 instead.
const maxExpansions = 10000

// expand counts one view or SQL function call expanded into the
// statement, and fails once the statement has expanded maxExpansions.
func (b *Binder) expand() error {
	if b.expansions == nil {
		b.expansions = new(int)
	}
	*b.expansions++
	if *b.expansions > maxExpansions {
		return pgerr.New(pgerrcode.StatementTooComplex, "statement too complex").
			WithHint("A statement expands at most %d views and SQL function calls; a view or SQL function that reads another several times multiplies them at each level.", maxExpansions)
	}
	return nil
}
