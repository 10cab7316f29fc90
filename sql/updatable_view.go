package sql

// Automatically updatable views: INSERT, UPDATE and DELETE on a simple
// view write the table under it, as PostgreSQL's rewriter makes them. A
// view is simple when its query reads one table or updatable view and has
// no DISTINCT, GROUP BY, HAVING, set operation, WITH, LIMIT, OFFSET,
// aggregate, window or set-returning function; its columns that are plain
// references to the table's columns can be written, the others only read.
// UPDATE and DELETE see only the rows the view shows (its WHERE and those
// of the views it reads), and the view's owner's privileges and row-level
// security policies on the table apply, as PostgreSQL's (security_invoker
// off) do.

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// ViewCheck is a view's WITH CHECK OPTION on a write through it: each new
// row of the table must meet Cond (over the table's row), or the write
// fails with 44000 naming View.
type ViewCheck struct {
	View string
	Cond Expr
}

// writableView is a view resolved down to the table a write through it
// writes.
type writableView struct {
	view  *catalog.ViewDef
	table *catalog.TableDef
	// instead is the view at the bottom of the chain whose INSTEAD OF
	// trigger for the write runs in place of writing a table, nil for
	// none: table is then its catalog.ViewDef.TriggerTable, whose rows
	// are the view's.
	instead *catalog.ViewDef
	// chain is the view and the views under it down to the table,
	// outermost first: each is read as the owner of the one above it
	// (the first as the statement's role), the table as the last's.
	chain []*catalog.ViewDef
	// cols are the view's columns; exprs their values over a row of
	// table; refs the column of the relation it reads (inner's, else
	// table's) each is, -1 for a computed one, which cannot be written.
	cols  []Col
	exprs []Expr
	refs  []int
	// inner is the view this one reads, nil when it reads table.
	inner *writableView
	// conds are the WHEREs of chain (nil for none), innermost first, over
	// a row of table: the rows the view shows meet them all.
	conds []Expr
}

// owner is the role the table is read and written as.
func (w *writableView) owner() uint32 {
	return catalog.OwnerOID(w.chain[len(w.chain)-1].Owner)
}

// cond is the condition of the rows the view shows (nil for all).
func (w *writableView) cond() Expr {
	var conds []Expr
	for _, c := range w.conds {
		if c != nil {
			conds = append(conds, c)
		}
	}
	if len(conds) == 0 {
		return nil
	}
	return andAll(conds)
}

// checks are the CHECK OPTIONs a row written through the view must meet,
// innermost view first (the order PostgreSQL tests them in): a view's own
// check option tests its WHERE, and a CASCADED one those of the views
// under it too.
func (w *writableView) checks() []ViewCheck {
	var out []ViewCheck
	cascade := false
	for i, v := range w.chain {
		if cond := w.conds[len(w.chain)-1-i]; cond != nil && (cascade || v.CheckOption != "") {
			out = append([]ViewCheck{{View: v.Name, Cond: cond}}, out...)
		}
		cascade = cascade || v.CheckOption == "cascaded"
	}
	return out
}

// scopeCols are the view's columns as a statement writing it under alias
// sees them.
func (w *writableView) scopeCols(alias string) []Col {
	cols := make([]Col, len(w.cols))
	for i, c := range w.cols {
		c.Table = alias
		cols[i] = c
	}
	return cols
}

// overTable rewrites e, an expression over the view's columns followed by
// other columns, as one over a row of the table followed by the same
// others: a view column becomes its value.
func (w *writableView) overTable(e Expr) Expr {
	return substituteRefs(e, func(r *ColumnRef) Expr {
		if r.Index < len(w.exprs) {
			return w.exprs[r.Index]
		}
		c := *r
		c.Index += len(w.table.Columns) - len(w.exprs)
		return &c
	})
}

// substituteRefs replaces each column reference of e with what sub makes
// of it.
func substituteRefs(e Expr, sub func(*ColumnRef) Expr) Expr {
	out, _ := transformExpr(e, func(x Expr) (Expr, error) {
		if r, ok := x.(*ColumnRef); ok {
			return sub(r), nil
		}
		return nil, nil
	})
	return out
}

// column finds a view column by name for a write (verb "insert into" or
// "update"): its position among the view's columns, 42703 when there is
// none, 0A000 when it is computed.
func (w *writableView) column(name, verb string, location int32) (int, error) {
	for i, c := range w.cols {
		if c.Name == name {
			_, err := w.base(i, verb)
			return i, err
		}
	}
	return 0, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, w.view.Name).WithPosition(location + 1)
}

// targetColumns resolves INSERT's column list through the view to the
// view's columns (positions in cols): the named ones, or all in order
// when names is empty. locs holds the names' statement locations.
func (w *writableView) targetColumns(names []string, locs []int32) ([]int, error) {
	var targets []int
	if len(names) == 0 {
		for i := range w.cols {
			targets = append(targets, i)
		}
		return targets, nil
	}
	for i, name := range names {
		t := slices.IndexFunc(w.cols, func(c Col) bool { return c.Name == name })
		if t < 0 {
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, w.view.Name).WithPosition(locs[i] + 1)
		}
		if slices.Contains(targets, t) {
			return nil, pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", name).WithPosition(locs[i] + 1)
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// base is the table column (position) view column i writes, for a write
// (verb) to it: 0A000 when it, or the column of a view under it that it
// is, is computed.
func (w *writableView) base(i int, verb string) (int, error) {
	switch {
	case w.refs[i] < 0:
		return 0, w.readOnlyColumn(i, verb)
	case w.inner != nil:
		return w.inner.base(w.refs[i], verb)
	}
	return w.refs[i], nil
}

// readOnlyColumn is PostgreSQL's error for a write to computed column i.
func (w *writableView) readOnlyColumn(i int, verb string) error {
	return pgerr.New(pgerrcode.FeatureNotSupported, "cannot %s column \"%s\" of view \"%s\"", verb, w.cols[i].Name, w.view.Name).
		WithDetail("View columns that are not columns of their base relation are not updatable.")
}

// needThrough records the privileges a write through the view needs:
// privs on the view for the statement's role, on each view under it and
// on the table (columns: positions in it) for the owner of the view
// above. It returns the index of the table's access among b's.
func (b *Binder) needThrough(w *writableView, privs catalog.Priv, columns ...int) int {
	var as uint32
	for _, v := range w.chain {
		b.accesses = append(b.accesses, Access{View: v, Privs: privs, As: as})
		as = catalog.OwnerOID(v.Owner)
	}
	if w.instead != nil {
		b.accesses = append(b.accesses, Access{View: w.instead, Privs: privs, As: as})
	} else {
		b.accesses = append(b.accesses, Access{Table: w.table, Privs: privs, Columns: columns, As: as})
	}
	return len(b.accesses) - 1
}

// asOwner runs f with b's role the role the view's table is written as,
// whose row-level security policies apply.
func (b *Binder) asOwner(w *writableView, f func() error) error {
	if w == nil {
		return f()
	}
	role := b.Role
	b.Role = w.owner()
	defer func() { b.Role = role }()
	return f()
}

// notUpdatable is PostgreSQL's error for a write (verb "insert into",
// "update", "delete from") to a view that is not automatically updatable,
// detail saying why.
func notUpdatable(v *catalog.ViewDef, verb, detail string) error {
	cmd := verbCommand(verb)
	what := map[string]string{"insert into": "inserting into", "update": "updating", "delete from": "deleting from"}[verb]
	return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "cannot %s view \"%s\"", verb, v.Name).
		WithDetail("%s", detail).
		WithHint("To enable %s the view, provide an INSTEAD OF %s trigger or an unconditional ON %s DO INSTEAD rule.", what, cmd, cmd)
}

// verbCommand is the command of a write's verb ("insert into",
// "update", "delete from"): INSERT, UPDATE, DELETE.
func verbCommand(verb string) string {
	return map[string]string{"insert into": "INSERT", "update": "UPDATE", "delete from": "DELETE"}[verb]
}

// notSingleRelation is the reason a view that reads no single table or
// view cannot be written through.
const notSingleRelation = "Views that do not select from a single table or view are not automatically updatable."

// noUpdatableColumns is the reason a view none of whose columns is a
// column of its table cannot be written through (DELETE can).
const noUpdatableColumns = "Views that have no updatable columns are not automatically updatable."

// setReturning is the reason a view whose select list calls a
// set-returning function cannot be written through.
const setReturning = "Views that return set-returning functions are not automatically updatable."

// updatableQuery is why a view's query cannot be written through, as
// PostgreSQL's view_query_is_auto_updatable words it, in its order; ""
// when it can be (as far as its text tells: a set-returning function of
// CREATE FUNCTION is found once its select list is bound).
func updatableQuery(s *pg_query.SelectStmt) string {
	switch {
	case len(s.DistinctClause) > 0:
		return "Views containing DISTINCT are not automatically updatable."
	case len(s.GroupClause) > 0:
		return "Views containing GROUP BY are not automatically updatable."
	case s.HavingClause != nil:
		return "Views containing HAVING are not automatically updatable."
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable."
	case s.WithClause != nil:
		return "Views containing WITH are not automatically updatable."
	case s.LimitCount != nil || s.LimitOffset != nil:
		return "Views containing LIMIT or OFFSET are not automatically updatable."
	}
	agg, window, srf := false, false, false
	var find func(m protoreflect.Message)
	find = func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.SubLink:
			return // a subquery's functions are its own
		case *pg_query.FuncCall:
			name := strings.ToLower(nameOf(n.Funcname))
			switch {
			case n.Over != nil:
				window = true
			case functions.IsAggregate(name):
				agg = true
			case functions.SetReturningFunc(name) != nil:
				srf = true
			}
		}
		rangeMessages(m, find)
	}
	for _, t := range s.TargetList {
		find(t.ProtoReflect())
	}
	switch {
	case agg:
		return "Views that return aggregate functions are not automatically updatable."
	case window:
		return "Views that return window functions are not automatically updatable."
	case srf:
		return setReturning
	case len(s.FromClause) != 1 || s.FromClause[0].GetRangeVar() == nil:
		return notSingleRelation
	}
	return ""
}

// writableView resolves view v for a write through it (verb "insert
// into", "update", "delete from"): 55000 when it is not automatically
// updatable, or a view under it is not. With triggers, a view under it
// with an INSTEAD OF trigger for the write ends the chain: the trigger
// runs on its rows (writableView.instead), as PostgreSQL's rewriter
// makes it.
func (b *Binder) writableView(v *catalog.ViewDef, verb string, triggers bool) (*writableView, error) {
	return b.writableViewUnder(v, verb, triggers, nil)
}

// writableViewUnder is writableView for a view read by the views
// expanding (schema.name), which it may not read again.
func (b *Binder) writableViewUnder(v *catalog.ViewDef, verb string, triggers bool, expanding []string) (*writableView, error) {
	key := catalog.Key(v.Schema, v.Name)
	for _, k := range expanding {
		if k == key {
			return nil, pgerr.New(pgerrcode.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", v.Name)
		}
	}
	expanding = append(expanding, key)
	stmts, err := Parse(v.Query)
	if err != nil || len(stmts) != 1 || stmts[0].node.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerrcode.DataCorrupted, "view \"%s\" has an unreadable definition", v.Name)
	}
	sel := stmts[0].node.GetSelectStmt()
	if detail := updatableQuery(sel); detail != "" {
		return nil, notUpdatable(v, verb, detail)
	}
	// The view's query is bound as its owner, under its search path.
	vb := &Binder{Catalog: b.Catalog, SearchPath: v.SearchPath, Location: b.Location, Now: b.Now, NoParams: true, Role: catalog.OwnerOID(v.Owner),
		RowSecurityOff: b.RowSecurityOff, TempSchema: b.TempSchema, consts: stmts[0].consts, expansions: b.expansions}
	rv := sel.FromClause[0].GetRangeVar()
	alias := rv.Relname
	var colNames []string
	if rv.Alias != nil {
		alias, colNames = rv.Alias.Aliasname, strList(rv.Alias.Colnames)
	}
	w := &writableView{view: v, chain: []*catalog.ViewDef{v}}
	var inner *writableView
	var cols []Col
	if iv := vb.lookupView(rv.Schemaname, rv.Relname); iv != nil && triggers && iv.InsteadOf(verbCommand(verb)) {
		w.table, w.instead = iv.TriggerTable(), iv
		cols = tableCols(w.table, alias)
	} else if iv != nil {
		if inner, err = vb.writableViewUnder(iv, verb, triggers, expanding); err != nil {
			return nil, err
		}
		w.inner, w.table, w.instead, w.chain, w.conds = inner, inner.table, inner.instead, append(w.chain, inner.chain...), slices.Clone(inner.conds)
		cols = inner.scopeCols(alias)
	} else {
		def, err := vb.lookupTable(rv.Schemaname, rv.Relname)
		if err != nil {
			if pgerr.Code(err) == pgerrcode.UndefinedTable {
				// A system catalog or other relation cairn computes.
				return nil, notUpdatable(v, verb, notSingleRelation)
			}
			return nil, err
		}
		w.table, cols = def, tableCols(def, alias)
	}
	if cols, err = aliasFrom(cols, alias, colNames); err != nil {
		return nil, err
	}
	sc := &scope{cols: cols}
	items, err := vb.bindTargets(sc, sel.TargetList, nil)
	if err != nil {
		return nil, err
	}
	if len(items) < len(v.Columns) {
		return nil, viewChanged(v, len(items), Col{})
	}
	updatable := false
	for i, col := range v.Columns {
		it := items[i]
		if it.name != v.QueryColumns[i] {
			return nil, viewChanged(v, i, Col{Name: it.name, T: it.expr.Type()})
		}
		if _, ok := it.expr.(*SRFCall); ok {
			return nil, notUpdatable(v, verb, setReturning)
		}
		ref := -1
		if r, ok := it.expr.(*ColumnRef); ok {
			ref = r.Index
		}
		updatable = updatable || ref >= 0
		e := it.expr
		if inner != nil {
			e = inner.overTable(e)
		}
		if t := e.Type(); !t.Equal(col.Type) {
			// A literal's unknown type became text when the view was
			// made; any other change is the table's (as bindView says).
			if t.Family != types.Unknown && t.Family != types.Null {
				return nil, viewChanged(v, i, Col{Name: it.name, T: t})
			}
			if e, err = vb.coerceColumn(e, col.Name, col.Type); err != nil {
				return nil, err
			}
		}
		w.cols = append(w.cols, Col{Name: col.Name, T: col.Type, TableOID: uint32(syscat.ViewOID(v.Schema, v.Name)), Attnum: int16(i + 1)})
		w.exprs, w.refs = append(w.exprs, e), append(w.refs, ref)
	}
	if !updatable && verb != "delete from" {
		return nil, notUpdatable(v, verb, noUpdatableColumns)
	}
	var cond Expr
	if sel.WhereClause != nil {
		if cond, err = vb.bindCondition(sc, sel.WhereClause, "WHERE"); err != nil {
			return nil, err
		}
		if inner != nil {
			cond = inner.overTable(cond)
		}
	}
	w.conds = append(w.conds, cond)
	// What the view's WHERE reads (a subquery's tables) is read as the
	// view's owner.
	for _, a := range vb.Accesses() {
		if a.As == 0 {
			a.As = catalog.OwnerOID(v.Owner)
		}
		b.accesses = append(b.accesses, a)
	}
	return w, nil
}

// checkOptionAllowed refuses WITH CHECK OPTION on a view whose query sel
// cannot be written through, as PostgreSQL does (0A000, the reason as
// hint): one of its columns must be a column of the relation it reads
// (a column reference, or *), whatever that relation computes it from.
func checkOptionAllowed(sel *pg_query.SelectStmt) error {
	reason := updatableQuery(sel)
	if reason == "" && !slices.ContainsFunc(sel.TargetList, func(t *pg_query.Node) bool { return t.GetResTarget().GetVal().GetColumnRef() != nil }) {
		reason = noUpdatableColumns
	}
	if reason == "" {
		return nil
	}
	return pgerr.New(pgerrcode.FeatureNotSupported, "WITH CHECK OPTION is supported only on automatically updatable views").WithHint("%s", reason)
}

// ViewUpdatability is what INSERT, UPDATE and DELETE can write through
// view v (information_schema shows it): nothing when it is not
// automatically updatable; else DELETE, and INSERT and UPDATE of the
// columns that are its table's. Triggers do not count (those of the
// views under it neither), as in PostgreSQL's is_updatable.
func ViewUpdatability(cat *catalog.Catalog, v *catalog.ViewDef) syscat.Updatability {
	b := &Binder{Catalog: cat, SearchPath: v.SearchPath, NoParams: true}
	w, err := b.writableView(v, "delete from", false)
	if err != nil {
		return syscat.Updatability{}
	}
	u := syscat.Updatability{Delete: true, Columns: make([]bool, len(w.cols))}
	for i := range w.cols {
		_, err := w.base(i, "update")
		u.Columns[i] = err == nil
		u.Insert = u.Insert || err == nil
	}
	u.Update = u.Insert
	return u
}
