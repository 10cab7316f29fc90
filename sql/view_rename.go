package sql

// Views follow renames: PostgreSQL keeps a view as a parse tree bound to
// OIDs, so renaming a table, a column or a view that a view reads leaves
// the view reading the same thing under its new name. cairn keeps a
// view's query as text (view.go), so a rename rewrites the text of each
// view that reads what was renamed: the query is bound as it was, the
// binder noting which table, view or column each name in it resolved to
// (bindTrace), and the names that resolved to the renamed object are
// changed in a fresh parse of the text, which is then printed again. The
// new text is bound in turn: it must resolve every name to what the old
// text did, or the rename is refused (0A000) for that view.

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
)

// ViewRename is a rename that the views reading its object follow.
type ViewRename struct {
	// Table or View (one of them is set) is the relation renamed
	// (Column "") or whose column Column is renamed.
	Table  *catalog.TableDef
	View   *catalog.ViewDef
	Column string
	// NewName is the table's, view's or column's new name; NewSchema is
	// the relation's new schema for ALTER ... SET SCHEMA (NewName its
	// name then), "" for a rename.
	NewName, NewSchema string
}

// newSchema is the renamed relation's schema after the rename.
func (r ViewRename) newSchema() string {
	if r.NewSchema != "" {
		return r.NewSchema
	}
	return r.relSchema()
}

// what is the rename's object, as the 0A000 for a view that cannot follow
// it names it.
func (r ViewRename) what() string {
	rel := fmt.Sprintf("table \"%s\"", r.relName())
	if r.View != nil {
		rel = fmt.Sprintf("view \"%s\"", r.relName())
	}
	if r.Column != "" {
		return fmt.Sprintf("column \"%s\" of %s", r.Column, rel)
	}
	return rel
}

// relKey is what bindTrace notes for the relation renamed or whose
// column is.
func (r ViewRename) relKey() string {
	if r.View != nil {
		return viewKey(r.View)
	}
	return tableKey(r.Table.ID)
}

// relName is the relation's name before the rename.
func (r ViewRename) relName() string {
	if r.View != nil {
		return r.View.Name
	}
	return r.Table.Name
}

// relSchema is the relation's schema before the rename.
func (r ViewRename) relSchema() string {
	if r.View != nil {
		return r.View.Schema
	}
	return r.Table.Schema
}

// columnNames are the relation's column names before the rename.
func (r ViewRename) columnNames() []string {
	var cols []catalog.ColumnDef
	if r.View != nil {
		cols = r.View.Columns
	} else {
		cols = r.Table.Columns
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// renamesColumn reports whether c, a column a reference reached, is the
// column renamed, reached under its own name: a column of the table the
// query level reads, or of the view under a name the query gave the view.
func (r ViewRename) renamesColumn(c Col, trace *bindTrace) bool {
	pos := slices.Index(r.columnNames(), r.Column)
	if r.Column == "" || int(c.Attnum) != pos+1 || c.Name != r.Column {
		return false
	}
	if r.View != nil {
		return c.Base == nil && c.TableOID == uint32(syscat.ViewOID(r.View.Schema, r.View.Name)) && trace.viewAliases[c.Table] == viewKey(r.View)
	}
	return c.Base != nil && c.Base.ID == r.Table.ID
}

// bindTrace is what a binder notes while it binds a view's query for
// FollowRename: what each relation name (RangeVar) and column reference
// (ColumnRef) of the query's text resolved to, by the node's location in
// the text, and the same in the order the binder resolved them.
type bindTrace struct {
	rels  map[int32]string // location: tableKey, viewKey, "w:" and a WITH query's name
	cols  map[int32]Col    // location: the column the reference reached
	order []string
	// viewAliases are the names the query gives the views it reads (an
	// alias, or the view's name): viewKey by name.
	viewAliases map[string]string
}

// tableKey is what bindTrace notes for a relation name that resolved to
// table id.
func tableKey(id uint64) string { return fmt.Sprintf("t:%d", id) }

// viewKey is what bindTrace notes for a relation name that resolved to
// view v.
func viewKey(v *catalog.ViewDef) string { return "v:" + catalog.Key(v.Schema, v.Name) }

// rel notes that the relation name at location resolved to key.
func (t *bindTrace) rel(location int32, key string) {
	t.rels[location] = key
	t.order = append(t.order, key)
}

// col notes that the column reference at location reached c.
func (t *bindTrace) col(location int32, c Col) {
	t.cols[location] = c
	t.order = append(t.order, fmt.Sprintf("c:%d.%d", c.TableOID, c.Attnum))
}

// traceView binds query (a view's, under searchPath) against cat with a
// trace; the plan's visible columns are returned too.
func traceView(cat *catalog.Catalog, searchPath []string, query string) (*pg_query.ParseResult, *bindTrace, []Col, error) {
	tree, err := parse(query)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, nil, nil, pgerr.NotSupported("a view whose query is not one SELECT")
	}
	trace := &bindTrace{rels: map[int32]string{}, cols: map[int32]Col{}, viewAliases: map[string]string{}}
	b := &Binder{Catalog: cat, SearchPath: searchPath, NoParams: true, trace: trace}
	plan, err := b.bindSelect(tree.Stmts[0].Stmt.GetSelectStmt(), nil)
	if err != nil {
		return nil, nil, nil, err
	}
	var visible []Col
	for _, c := range plan.Columns() {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	return tree, trace, visible, nil
}

// FollowRename returns view v with its query rewritten to follow rename
// r: before is the catalog before the rename, after the catalog after it
// (where the views v reads already follow it). It returns nil when v
// needs no change, and 0A000 when a name cannot be changed so that the
// query reads what it read before. The view keeps its column names: a
// renamed column the query outputs under its own name is given the old
// name as an alias, as PostgreSQL prints it, and one that a SELECT *
// outputs changes only the query's column name (QueryColumns).
func FollowRename(before, after *catalog.Catalog, v *catalog.ViewDef, r ViewRename) (*catalog.ViewDef, error) {
	tree, trace, _, err := traceView(before, v.SearchPath, v.Query)
	if err != nil {
		return nil, nil // a view that no longer binds follows nothing
	}
	action := "renaming " + r.what()
	if r.NewSchema != "" {
		action = fmt.Sprintf("moving %s to schema \"%s\"", r.what(), r.NewSchema)
	}
	refuse := pgerr.NotSupported("%s, which view \"%s\" reads in a way cairn cannot rewrite (drop the view, rename, and create it again)", action, v.Name)
	// The names are changed where they are used first, as PostgreSQL
	// prints them: a relation renamed that the query names without an
	// alias qualifies its columns with its new name. Should that not
	// read what the query read (a WITH query of the new name, a join
	// USING the renamed column), the old names stay as aliases of the
	// relation instead: s.t2 AS t, or t AS t(a, b) for a column renamed,
	// as PostgreSQL prints a join USING one.
	for _, alias := range []bool{false, true} {
		if alias {
			if tree, err = parse(v.Query); err != nil {
				return nil, err
			}
		}
		changed, ok := renameNames(tree, trace, r, alias)
		if !ok {
			continue
		}
		text := v.Query // a SELECT * names no column it reads
		if changed {
			if text, err = pg_query.Deparse(tree); err != nil {
				return nil, refuse
			}
		}
		_, got, cols, err := traceView(after, v.SearchPath, text)
		if err != nil || !sameResolution(trace.order, got.order, r) || len(cols) < len(v.Columns) {
			continue
		}
		out := *v
		out.Query = text
		out.QueryColumns = make([]string, len(v.Columns))
		for i := range v.Columns {
			if !cols[i].T.Equal(v.Columns[i].Type) {
				return nil, refuse
			}
			out.QueryColumns[i] = cols[i].Name
		}
		if !changed && slices.Equal(out.QueryColumns, v.QueryColumns) {
			return nil, nil
		}
		return &out, nil
	}
	return nil, refuse
}

// renameNames changes, in tree, the names that trace says resolved to
// what r renamed. With alias, a renamed relation named without an alias
// gets its old name as one instead of its columns' qualifiers changing
// (and its schema, so that no WITH query of its new name hides it), and
// a relation whose column is renamed gets column aliases that keep the
// column's old name instead of the references to it changing. changed
// reports whether any name changed; ok is false where the query names
// the object in a way that only alias can follow (a column renamed that
// a NATURAL or USING join matches by name).
func renameNames(tree *pg_query.ParseResult, trace *bindTrace, r ViewRename, alias bool) (changed, ok bool) {
	if alias && r.Column != "" {
		return aliasColumn(tree, trace, r), true
	}
	target, oldName := "", r.relName()
	if r.Column == "" {
		target = r.relKey()
	}
	renamedRefs := map[*pg_query.ColumnRef]bool{}
	requalify := false // an unaliased relation renamed: qualifiers follow
	ok = true
	root := tree.ProtoReflect()
	walkMessages(root, func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.RangeVar:
			if target == "" || trace.rels[n.Location] != target {
				return
			}
			n.Relname, changed = r.NewName, true
			if n.Schemaname != "" || r.NewSchema != "" {
				n.Schemaname = r.newSchema()
			}
			switch {
			case alias && n.Alias == nil && r.NewName != oldName:
				n.Alias = &pg_query.Alias{Aliasname: oldName}
				fallthrough
			case alias:
				// Qualified, the name cannot mean a WITH query.
				n.Schemaname = r.newSchema()
			case n.Alias == nil && r.NewName != oldName:
				requalify = true
			}
		case *pg_query.ColumnRef:
			c, found := trace.cols[n.Location]
			if !found || !r.renamesColumn(c, trace) {
				return
			}
			if s := n.Fields[len(n.Fields)-1].GetString_(); s != nil && s.Sval == r.Column {
				s.Sval, changed = r.NewName, true
				renamedRefs[n] = true
			}
		case *pg_query.JoinExpr:
			if r.Column != "" && (n.IsNatural || slices.Contains(strList(n.UsingClause), r.Column)) {
				ok = false
			}
		}
	})
	if !ok {
		return false, false
	}
	walkMessages(root, func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.ResTarget:
			// A renamed column output under its own name keeps it.
			if ref := n.GetVal().GetColumnRef(); n.Name == "" && ref != nil && renamedRefs[ref] {
				n.Name = r.Column
			}
		case *pg_query.ColumnRef:
			// t.a, t.* and s.t.a of a relation renamed without an alias
			// (a WITH query or alias called t that this wrongly renames
			// makes the query read something else, which FollowRename
			// sees, and tries again with the alias).
			if !requalify || len(n.Fields) < 2 {
				return
			}
			if s := n.Fields[len(n.Fields)-2].GetString_(); s != nil && s.Sval == oldName {
				s.Sval = r.NewName
			}
		}
	})
	return changed, true
}

// aliasColumn gives each relation name in tree that trace says resolved
// to the relation whose column r renames column aliases up to that
// column, which keep its old name for the query (FROM t becomes FROM t
// t(a, b)); it reports whether any did.
func aliasColumn(tree *pg_query.ParseResult, trace *bindTrace, r ViewRename) bool {
	names := r.columnNames()
	pos := slices.Index(names, r.Column)
	changed := false
	walkMessages(tree.ProtoReflect(), func(m protoreflect.Message) {
		rv, ok := m.Interface().(*pg_query.RangeVar)
		if !ok || trace.rels[rv.Location] != r.relKey() {
			return
		}
		if rv.Alias == nil {
			rv.Alias = &pg_query.Alias{Aliasname: rv.Relname}
		}
		for i := len(rv.Alias.Colnames); i <= pos; i++ {
			rv.Alias.Colnames = append(rv.Alias.Colnames, pg_query.MakeStrNode(names[i]))
			changed = true
		}
	})
	return changed
}

// sameResolution reports whether a query's rewritten text resolves its
// names (got, bindTrace.order) to what its old text did (want), a
// renamed view being the same view under its new name.
func sameResolution(want, got []string, r ViewRename) bool {
	if r.View != nil && r.Column == "" {
		oldKey, newKey := viewKey(r.View), "v:"+catalog.Key(r.newSchema(), r.NewName)
		oldOID := fmt.Sprintf("c:%d.", uint32(syscat.ViewOID(r.View.Schema, r.View.Name)))
		newOID := fmt.Sprintf("c:%d.", uint32(syscat.ViewOID(r.newSchema(), r.NewName)))
		want = slices.Clone(want)
		for i, w := range want {
			switch {
			case w == oldKey:
				want[i] = newKey
			case len(w) > len(oldOID) && w[:len(oldOID)] == oldOID:
				want[i] = newOID + w[len(oldOID):]
			}
		}
	}
	return slices.Equal(want, got)
}
