package sql

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

func (b *Binder) bindInsert(s *pg_query.InsertStmt) (Node, error) {
	if s.WithClause != nil {
		defer b.popWith()
		if err := b.bindWith(s.WithClause, s, nil); err != nil {
			return nil, err
		}
	}
	def, w, iv, err := b.writeTarget(s.Relation, "insert into")
	if err != nil {
		return nil, err
	}
	var colNames []string
	var locs []int32
	for _, c := range s.Cols {
		rt := c.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, pgerr.NotSupported("INSERT into a subfield or array element")
		}
		colNames = append(colNames, rt.Name)
		locs = append(locs, rt.Location)
	}
	// Through a view, targets are the view's columns until the source is
	// bound (VALUES without a column list fills only the first ones),
	// then the table's columns they are (throughView).
	var targets []int
	if w != nil {
		targets, err = w.targetColumns(colNames, locs)
	} else {
		targets, err = targetColumns(def, colNames, locs)
	}
	if err != nil {
		return nil, err
	}
	throughView := func() error {
		if w == nil {
			return nil
		}
		for i, c := range targets {
			if targets[i], err = w.base(c, "insert into"); err != nil {
				return err
			}
			// Two view columns may be one column of the table.
			if slices.Contains(targets[:i], targets[i]) {
				return pgerr.New(pgerrcode.SyntaxError, "multiple assignments to same column \"%s\"", def.Columns[targets[i]].Name)
			}
		}
		return nil
	}
	// The columns INSERT needs are known once the source is bound.
	insert := b.needTarget(def, w, iv, catalog.PrivInsert)
	if len(s.ReturningList) > 0 {
		b.needTarget(def, w, iv, catalog.PrivSelect)
	}
	if oc := s.OnConflictClause; oc != nil && oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		b.needTarget(def, w, iv, catalog.PrivUpdate)
	}
	want := make([]types.T, len(targets))
	names := make([]string, len(targets))
	for i, pos := range targets {
		if w != nil {
			want[i], names[i] = w.cols[pos].T, w.cols[pos].Name
		} else {
			want[i], names[i] = def.Columns[pos].Type, def.Columns[pos].Name
		}
	}

	var source Node
	if s.SelectStmt == nil {
		// DEFAULT VALUES
		source = &Values{Rows: [][]Expr{{}}}
		targets = nil
	} else if sel := s.SelectStmt.GetSelectStmt(); len(sel.ValuesLists) > 0 && (sel.Op == pg_query.SetOperation_SETOP_NONE || sel.Op == pg_query.SetOperation_SET_OPERATION_UNDEFINED) && len(sel.SortClause) == 0 && sel.LimitCount == nil {
		for _, l := range sel.ValuesLists {
			if n := len(l.GetList().Items); n > len(targets) {
				return nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more expressions than target columns")
			} else if n < len(targets) {
				if len(colNames) > 0 {
					return nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more target columns than expressions")
				}
				// Without a column list the values fill the first
				// columns; the rest take their defaults.
				targets, want, names = targets[:n], want[:n], names[:n]
			}
		}
		vals, err := b.bindValues(sel.ValuesLists, want, names, nil)
		if err != nil {
			return nil, err
		}
		if err := throughView(); err != nil {
			return nil, err
		}
		for _, row := range vals.Rows {
			for c, e := range row {
				_, isDefault := e.(*defaultMarker)
				if !isDefault {
					if err := generatedValue(def.Columns[targets[c]]); err != nil {
						return nil, err
					}
					if isDefault, err = identityValue(def.Columns[targets[c]], s.Override); err != nil {
						return nil, err
					}
				}
				if isDefault {
					if row[c], err = b.columnDefault(def, targets[c]); err != nil {
						return nil, err
					}
				}
			}
		}
		source = vals
	} else {
		outerSelect, outerTypes := b.insertSelect, b.insertTypes
		b.insertSelect, b.insertTypes = sel, want
		plan, err := b.bindSelect(sel, nil)
		b.insertSelect, b.insertTypes = outerSelect, outerTypes
		if err != nil {
			return nil, err
		}
		cols := plan.Columns()
		if len(cols) > len(targets) {
			return nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(cols) < len(targets) {
			if len(colNames) > 0 {
				return nil, pgerr.New(pgerrcode.SyntaxError, "INSERT has more target columns than expressions")
			}
			targets, want = targets[:len(cols)], want[:len(cols)]
		}
		if err := throughView(); err != nil {
			return nil, err
		}
		proj := &Project{Input: plan}
		for i, c := range cols {
			e, err := b.coerceColumn(&ColumnRef{Index: i, Name: c.Name, T: c.T}, def.Columns[targets[i]].Name, want[i])
			if err != nil {
				return nil, err
			}
			if err := generatedValue(def.Columns[targets[i]]); err != nil {
				return nil, err
			}
			if useDefault, err := identityValue(def.Columns[targets[i]], s.Override); err != nil {
				return nil, err
			} else if useDefault {
				if e, err = b.columnDefault(def, targets[i]); err != nil {
					return nil, err
				}
			}
			proj.Exprs = append(proj.Exprs, e)
			proj.Out = append(proj.Out, Col{Name: def.Columns[targets[i]].Name, T: want[i]})
		}
		source = proj
	}

	b.accesses[insert].Columns = targets
	row, err := b.tableRow(def, targets, source)
	if err != nil {
		return nil, err
	}
	ins := &Insert{Table: def, Input: row, Instead: triggerView(w, iv) != nil}
	// DO UPDATE reads the existing row: the SELECT policies apply.
	upsert := s.OnConflictClause != nil && s.OnConflictClause.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE
	alias := def.Name
	if w != nil {
		alias, ins.ViewChecks = w.view.Name, w.checks()
	}
	if s.Relation.Alias != nil {
		alias = s.Relation.Alias.Aliasname
	}
	if s.OnConflictClause != nil {
		if ins.OnConflict, err = b.bindOnConflict(def, w, alias, s.OnConflictClause); err != nil {
			return nil, err
		}
	}
	// Through a view, the policies are its owner's.
	err = b.asOwner(w, func() error {
		if ins.Policies, err = b.writeChecks(def, catalog.PolicyInsert, len(s.ReturningList) > 0 || upsert); err != nil {
			return err
		}
		if !upsert || ins.Policies == nil {
			return nil
		}
		oc := ins.OnConflict
		if oc.Existing, err = b.policyChecks(def, catalog.PolicyUpdate, true); err != nil {
			return err
		}
		sel, err := b.policyChecks(def, catalog.PolicySelect, true)
		if err != nil {
			return err
		}
		oc.Existing = append(oc.Existing, sel...)
		oc.Updated, err = b.writeChecks(def, catalog.PolicyUpdate, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	ins.Returning, ins.Out, err = b.bindReturning(def, w, iv, alias, s.ReturningList, nil)
	return ins, err
}

// identityValue applies the identity rules to a value INSERT gives
// column col: a GENERATED ALWAYS column refuses it unless OVERRIDING
// SYSTEM VALUE, and OVERRIDING USER VALUE replaces it with the column's
// default (useDefault) for either kind of identity column.
func identityValue(col catalog.ColumnDef, override pg_query.OverridingKind) (useDefault bool, err error) {
	switch {
	case col.Identity == "":
		return false, nil
	case override == pg_query.OverridingKind_OVERRIDING_USER_VALUE:
		return true, nil
	case col.Identity == "a" && override != pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE:
		return false, pgerr.New(pgerrcode.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", col.Name).
			WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", col.Name).
			WithHint("Use OVERRIDING SYSTEM VALUE to override.")
	}
	return false, nil
}

// targetColumns resolves the column list of INSERT or COPY to column
// positions: the named columns, or all of them in order when names is
// empty. locs holds the names' statement locations, for errors (nil: none).
func targetColumns(def *catalog.TableDef, names []string, locs []int32) ([]int, error) {
	var targets []int
	if len(names) == 0 {
		for i := range def.Columns {
			targets = append(targets, i)
		}
		return targets, nil
	}
	seen := map[int]bool{}
	for i, name := range names {
		var pos int32
		if locs != nil {
			pos = locs[i] + 1
		}
		p, col := def.Column(name)
		if col == nil {
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, def.Name).WithPosition(pos)
		}
		if seen[p] {
			return nil, pgerr.New(pgerrcode.DuplicateColumn, "column \"%s\" specified more than once", name).WithPosition(pos)
		}
		seen[p] = true
		targets = append(targets, p)
	}
	return targets, nil
}

// tableRow computes a whole row of def from source, whose columns are the
// target columns (positions) in order: one expression per table column,
// the source's value or the column's DEFAULT. INSERT and COPY FROM insert
// its rows.
func (b *Binder) tableRow(def *catalog.TableDef, targets []int, source Node) (*Project, error) {
	srcCols := source.Columns()
	vals := make([]Expr, len(targets))
	for i, pos := range targets {
		vals[i] = &ColumnRef{Index: i, Name: def.Columns[pos].Name, T: srcCols[i].T}
	}
	exprs, err := b.rowExprs(def, targets, vals)
	if err != nil {
		return nil, err
	}
	row := &Project{Input: source, Exprs: exprs}
	for _, col := range def.Columns {
		row.Out = append(row.Out, Col{Name: col.Name, T: col.Type})
	}
	gen, err := b.generatedExprs(def)
	if err != nil || gen == nil {
		return row, err
	}
	// The generated columns are computed from the row made above.
	out := &Project{Input: row, Out: row.Out}
	for pos, col := range def.Columns {
		e, ok := gen[pos]
		if !ok {
			e = &ColumnRef{Index: pos, Name: col.Name, T: col.Type}
		}
		out.Exprs = append(out.Exprs, e)
	}
	return out, nil
}

// rowExprs is a whole row of def: one expression per table column, the
// value vals gives the target columns (positions, vals in the same
// order) or the column's DEFAULT. INSERT, COPY FROM and MERGE's INSERT
// make their rows with it.
func (b *Binder) rowExprs(def *catalog.TableDef, targets []int, vals []Expr) ([]Expr, error) {
	row := make([]Expr, len(def.Columns))
	for i, pos := range targets {
		row[pos] = vals[i]
	}
	for pos, e := range row {
		if e == nil {
			var err error
			if row[pos], err = b.columnDefault(def, pos); err != nil {
				return nil, err
			}
		}
	}
	return row, nil
}

// columnDefault binds the DEFAULT of column pos (NULL when it has none,
// and for a generated column, whose value the write computes from the
// rest of the row).
func (b *Binder) columnDefault(def *catalog.TableDef, pos int) (Expr, error) {
	col := def.Columns[pos]
	text := col.Default
	if text == "" && col.Generated == "" {
		// A column of a domain without a DEFAULT of its own takes the
		// domain's, as it is when the row is written.
		text = domainDefault(b.Catalog, col.Domain)
	}
	if text == "" || col.Generated != "" {
		return &Const{Value: nil, T: col.Type}, nil
	}
	n, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	e, err := b.bindExpr(&scope{}, n)
	if err != nil {
		return nil, err
	}
	return b.coerceColumn(e, col.Name, col.Type)
}

// bindOnConflict binds INSERT's ON CONFLICT clause; through view w (nil
// for none) its column names are the view's.
func (b *Binder) bindOnConflict(def *catalog.TableDef, w *writableView, alias string, oc *pg_query.OnConflictClause) (*OnConflict, error) {
	out := &OnConflict{}
	if oc.Infer != nil {
		if name := oc.Infer.Conname; name != "" {
			var ids []int
			if len(def.PrimaryKey) > 0 && def.PrimaryKeyConstraint() == name {
				ids = def.PrimaryKey
			}
			for _, u := range def.Uniques {
				if u.Name == name {
					ids = u.Columns
				}
			}
			for _, ix := range b.Catalog.IndexesOf(def.ID) {
				if ix.PlainUnique() && ix.Name == name {
					ids = ix.Columns
				}
			}
			if ids == nil {
				return nil, pgerr.New(pgerrcode.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, def.Name)
			}
			for _, id := range ids {
				pos, _ := def.ColumnByID(id)
				out.Columns = append(out.Columns, pos)
			}
		}
		var exprs []*pg_query.Node
		for _, el := range oc.Infer.IndexElems {
			ie := el.GetIndexElem()
			if ie.Expr != nil {
				exprs = append(exprs, ie.Expr)
				continue
			}
			pos, col := def.Column(ie.Name)
			if w != nil {
				pos, col = -1, nil
				for i, c := range w.cols {
					if p, err := w.base(i, "insert into"); c.Name == ie.Name && err == nil {
						pos = p
					}
				}
				if pos >= 0 {
					col = &def.Columns[pos]
				}
			}
			if col == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			out.Columns = append(out.Columns, pos)
		}
		switch {
		case len(exprs) == 0 && (hasUniqueOn(def, out.Columns) || b.uniqueIndexOn(def, out.Columns)):
		case len(oc.Infer.IndexElems) > 0 && w == nil:
			ix, err := b.inferComputedIndex(def, out.Columns, exprs, oc.Infer.WhereClause)
			if err != nil {
				return nil, err
			}
			if ix == nil {
				return nil, noConflictTarget()
			}
			out.Columns, out.Index = nil, ix.Name
		default:
			return nil, noConflictTarget()
		}
	}
	if oc.Action != pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		return out, nil
	}
	if len(out.Columns) == 0 && out.Index == "" {
		return nil, pgerr.New(pgerrcode.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name).")
	}
	out.DoUpdate = true
	cols := append(tableCols(def, alias), tableCols(def, "excluded")...)
	var rebase func(Expr) Expr
	if w != nil {
		// The existing row's view columns, then the proposed row's.
		cols = append(w.scopeCols(alias), w.scopeCols("excluded")...)
		rebase = func(e Expr) Expr {
			return substituteRefs(e, func(r *ColumnRef) Expr {
				if r.Index < len(w.exprs) {
					return w.exprs[r.Index]
				}
				return shiftRefs(w.exprs[r.Index-len(w.exprs)], len(def.Columns))
			})
		}
	}
	sc := &scope{cols: cols}
	set, err := b.bindSetList(def, w, "insert into", sc, oc.TargetList, rebase)
	if err != nil {
		return nil, err
	}
	out.Set = set
	if out.Gen, err = b.generatedExprs(def); err != nil {
		return nil, err
	}
	if oc.WhereClause != nil {
		if out.Where, err = b.bindCondition(sc, oc.WhereClause, "WHERE"); err != nil {
			return nil, err
		}
		if rebase != nil {
			out.Where = rebase(out.Where)
		}
	}
	return out, nil
}

func noConflictTarget() error {
	return pgerr.New(pgerrcode.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
}

// inferComputedIndex finds the unique index on expressions or partial
// one (catalog.IndexDef.ComputedKey) that ON CONFLICT (keys) WHERE pred
// infers, nil when none does: as PostgreSQL's infer_arbiter_indexes, its
// column keys are the column positions cols and its expression keys the
// expressions exprs (each as a set: order and repeats do not matter),
// and pred implies its predicate, if it has one. Expressions are
// compared bound, as PostgreSQL compares them, so that the predicate
// pg_get_indexdef prints (which Rails' upsert repeats) matches the one
// written. pred implies the index's predicate here when each of its
// conjuncts (the operands of its top-level ANDs) is one of pred's;
// PostgreSQL's proof of implication goes further.
func (b *Binder) inferComputedIndex(def *catalog.TableDef, cols []int, exprs []*pg_query.Node, pred *pg_query.Node) (*catalog.IndexDef, error) {
	sc := &scope{cols: tableCols(def, def.Name)}
	inferCols := map[int]bool{}
	for _, p := range cols {
		inferCols[def.Columns[p].ID] = true
	}
	inferExprs := map[string]bool{}
	for _, x := range exprs {
		e, err := b.bindExpr(sc, x)
		if err != nil {
			return nil, err
		}
		inferExprs[exprIdentity(e)] = true
	}
	given := map[string]bool{}
	if pred != nil {
		e, err := b.bindCondition(sc, pred, "WHERE")
		if err != nil {
			return nil, err
		}
		for _, c := range conjuncts(e) {
			given[exprIdentity(c)] = true
		}
	}
	for _, ix := range b.Catalog.IndexesOf(def.ID) {
		if !ix.ComputedKey() {
			continue
		}
		if ix.Pred != "" {
			p, err := BindIndexExpr(b.Catalog, def, ix.Pred)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(conjuncts(p), func(c Expr) bool { return !given[exprIdentity(c)] }) {
				continue
			}
		}
		keyCols := map[int]bool{}
		var keyExprs []string
		switch {
		case ix.Expr != "":
			keyExprs = []string{ix.Expr}
		case len(ix.Keys) > 0:
			for _, k := range ix.Keys {
				if k.Expr != "" {
					keyExprs = append(keyExprs, k.Expr)
				} else {
					keyCols[k.Column] = true
				}
			}
		default:
			for _, id := range ix.Columns {
				keyCols[id] = true
			}
		}
		if !maps.Equal(keyCols, inferCols) {
			continue
		}
		idents := map[string]bool{}
		for _, text := range keyExprs {
			e, err := BindIndexExpr(b.Catalog, def, text)
			if err != nil {
				return nil, err
			}
			idents[exprIdentity(e)] = true
		}
		if maps.Equal(idents, inferExprs) {
			return ix, nil
		}
	}
	return nil, nil
}

// exprIdentity is a bound expression's text for comparing it with
// another: its String, which shortens long constants, followed by every
// constant in full.
func exprIdentity(e Expr) string {
	var b strings.Builder
	b.WriteString(e.String())
	WalkExpr(e, func(x Expr) {
		if c, ok := x.(*Const); ok && c.Value != nil {
			b.WriteString("\x00" + types.FormatText(c.Value, c.T))
		}
	})
	return b.String()
}

// uniqueIndexOn reports whether a unique index of the table covers
// exactly the given column positions.
func (b *Binder) uniqueIndexOn(def *catalog.TableDef, positions []int) bool {
	for _, ix := range b.Catalog.IndexesOf(def.ID) {
		if !ix.PlainUnique() || len(ix.Columns) != len(positions) {
			continue
		}
		all := true
		for _, p := range positions {
			all = all && slices.Contains(ix.Columns, def.Columns[p].ID)
		}
		if all {
			return true
		}
	}
	return false
}

// hasUniqueOn reports whether the table has a primary key or unique
// constraint on exactly the given column positions.
func hasUniqueOn(def *catalog.TableDef, positions []int) bool {
	ids := map[int]bool{}
	for _, p := range positions {
		ids[def.Columns[p].ID] = true
	}
	match := func(cols []int) bool {
		if len(cols) != len(ids) {
			return false
		}
		for _, c := range cols {
			if !ids[c] {
				return false
			}
		}
		return true
	}
	if len(def.PrimaryKey) > 0 && match(def.PrimaryKey) {
		return true
	}
	for _, u := range def.Uniques {
		if match(u.Columns) {
			return true
		}
	}
	return false
}

// bindSetList binds "SET col = expr, ..." into column position -> value.
// Through view w (nil for none) the columns are the view's, a computed
// one refused for the statement's verb ("update", "insert into" for ON
// CONFLICT DO UPDATE, as PostgreSQL words it), and rebase makes an
// expression over sc one over the row the write reads.
func (b *Binder) bindSetList(def *catalog.TableDef, w *writableView, verb string, sc *scope, targets []*pg_query.Node, rebase func(Expr) Expr) (map[int]Expr, error) {
	set := map[int]Expr{}
	for _, t := range targets {
		rt := t.GetResTarget()
		pos, col := def.Column(rt.Name)
		if w != nil {
			i, err := w.column(rt.Name, verb, rt.Location)
			if err != nil {
				return nil, err
			}
			if pos, err = w.base(i, verb); err != nil {
				return nil, err
			}
			col = &def.Columns[pos]
		}
		if col == nil { // SET t.col = ... names a column t, as in PostgreSQL
			return nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, def.Name).WithPosition(rt.Location + 1)
		}
		if len(rt.Indirection) > 0 {
			return nil, pgerr.NotSupported("assignment to a subfield or array element")
		}
		val := rt.Val
		if m := val.GetMultiAssignRef(); m != nil {
			var err error
			if val, err = multiAssignValue(m); err != nil {
				return nil, err
			}
		}
		if _, dup := set[pos]; dup {
			return nil, pgerr.New(pgerrcode.SyntaxError, "multiple assignments to same column \"%s\"", col.Name)
		}
		var e Expr
		var err error
		if val.GetSetToDefault() != nil && w != nil {
			// A view column's DEFAULT is its own, which cairn's views
			// lack: NULL, as in PostgreSQL for a view without one.
			e = &Const{Value: nil, T: col.Type}
		} else if val.GetSetToDefault() != nil {
			e, err = b.columnDefault(def, pos)
		} else if col.Generated != "" {
			return nil, pgerr.New(pgerrcode.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", col.Name).
				WithDetail("Column \"%s\" is a generated column.", col.Name)
		} else if col.Identity == "a" {
			return nil, pgerr.New(pgerrcode.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", col.Name).
				WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", col.Name)
		} else if e, err = b.bindExpr(sc, val); err == nil {
			if rebase != nil {
				e = rebase(e)
			}
			e, err = b.coerceColumn(e, col.Name, col.Type)
		}
		if err != nil {
			return nil, err
		}
		set[pos] = e
	}
	return set, nil
}

// multiAssignValue is the value one column of UPDATE's SET (a, b, ...) =
// source takes: the matching element of a row (b, a), or the matching
// column of a subquery (SELECT x, y ...), which is read through a
// subquery of that column alone (so the source query runs once per
// column; PostgreSQL runs it once).
func multiAssignValue(m *pg_query.MultiAssignRef) (*pg_query.Node, error) {
	mismatch := pgerr.New(pgerrcode.SyntaxError, "number of columns does not match number of values")
	switch src := m.Source.Node.(type) {
	case *pg_query.Node_RowExpr:
		if len(src.RowExpr.Args) != int(m.Ncolumns) {
			return nil, mismatch
		}
		return src.RowExpr.Args[m.Colno-1], nil
	case *pg_query.Node_SubLink:
		sel := src.SubLink.Subselect
		if src.SubLink.SubLinkType != pg_query.SubLinkType_EXPR_SUBLINK || sel.GetSelectStmt() == nil {
			break
		}
		names := make([]*pg_query.Node, m.Ncolumns)
		for i := range names {
			names[i] = &pg_query.Node{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "c" + strconv.Itoa(i+1)}}}
		}
		targets := sel.GetSelectStmt().TargetList
		star := slices.ContainsFunc(targets, func(t *pg_query.Node) bool {
			cr := t.GetResTarget().GetVal().GetColumnRef()
			return cr != nil && isStar(cr)
		})
		if star {
			return nil, pgerr.NotSupported("* in the subquery of a multiple-column assignment (name its columns)")
		}
		if len(targets) > 0 && len(targets) != int(m.Ncolumns) {
			return nil, mismatch
		}
		ref := &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{
			{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "multiassign"}}}, names[m.Colno-1]}}}}
		one := &pg_query.SelectStmt{
			TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: ref}}}},
			FromClause: []*pg_query.Node{{Node: &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
				Subquery: sel, Alias: &pg_query.Alias{Aliasname: "multiassign", Colnames: names}}}}},
		}
		return &pg_query.Node{Node: &pg_query.Node_SubLink{SubLink: &pg_query.SubLink{SubLinkType: pg_query.SubLinkType_EXPR_SUBLINK,
			Subselect: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: one}}, Location: src.SubLink.Location}}}, nil
	}
	return nil, pgerr.NotSupported("this source of a multiple-column assignment")
}

// bindReturning binds a RETURNING list over the table's columns.
//
// from are the columns of the relations of UPDATE ... FROM or DELETE ...
// USING, which the list may read too (and * includes), as in PostgreSQL:
// they follow the system columns, the values of the row the target row
// was joined with.
//
// Through view w (nil for none) the list reads the view's columns, as
// PostgreSQL's does, and so it does of view iv, whose INSTEAD OF trigger
// runs (def is its TriggerTable): clients read them as the view's.
func (b *Binder) bindReturning(def *catalog.TableDef, w *writableView, iv *catalog.ViewDef, alias string, list []*pg_query.Node, from []Col) ([]Expr, []Col, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	cols := tableCols(def, alias)
	switch {
	case w != nil:
		cols = w.scopeCols(alias)
	case iv != nil:
		for i := range cols {
			cols[i].TableOID = uint32(syscat.ViewOID(iv.Schema, iv.Name))
		}
	}
	for _, name := range ReturningSystemColumns {
		cols = append(cols, Col{Name: name, T: types.XidT, Table: alias, Hidden: true})
	}
	cols = append(cols, from...)
	items, err := b.bindTargets(&scope{cols: cols}, list, nil)
	if err != nil {
		return nil, nil, err
	}
	exprs := make([]Expr, len(items))
	out := make([]Col, len(items))
	for i, it := range items {
		exprs[i] = it.expr
		out[i] = colFor(it.expr, it.name, cols)
		if w != nil {
			exprs[i] = w.overTable(it.expr)
		}
	}
	return exprs, out, nil
}

// scanForWrite is the input of UPDATE and DELETE: every column of the
// table plus its hidden row ID, then the columns of the UPDATE ... FROM or
// DELETE ... USING relations joined to it, filtered by WHERE. A row the
// join matches several times comes once (the first match), as in
// PostgreSQL, where each target row is changed at most once.
//
// Under row-level security the policies for cmd (UPDATE or DELETE)
// filter the table's rows first, and those for SELECT too when the
// statement reads them, which reads (called with the scope of the
// table's and the FROM relations' columns, before WHERE is bound) tells.
func (b *Binder) scanForWrite(rv *pg_query.RangeVar, from []*pg_query.Node, where *pg_query.Node, cmd string, reads func(*catalog.TableDef, *writableView, *scope) (bool, error)) (*writeScan, error) {
	verb := "update"
	if cmd == catalog.PolicyDelete {
		verb = "delete from"
	}
	def, w, iv, err := b.writeTarget(rv, verb)
	if err != nil {
		return nil, err
	}
	alias := def.Name
	if w != nil {
		alias = w.view.Name
	}
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	rowID := Col{Name: catalog.RowIDColumn, T: types.Int8T, Table: alias, Hidden: true}
	rowsOf := triggerView(w, iv)
	var target Node
	var targetCols []Col
	if rowsOf != nil {
		// The view's rows, whose INSTEAD OF trigger runs on each: they
		// have no row ID (NULL in its place).
		viewAlias := alias
		if w != nil {
			viewAlias = rowsOf.Name
		}
		if target, targetCols, err = b.viewRowsForWrite(rowsOf, viewAlias); err != nil {
			return nil, err
		}
	} else {
		scan := &Scan{Table: def, Alias: alias, WithRowID: true}
		for i := range def.Columns {
			scan.Cols = append(scan.Cols, i)
		}
		scan.Out = append(tableCols(def, alias), rowID)
		target, targetCols = scan, scan.Out
		if w != nil {
			scan.Alias = def.Name
		}
	}
	// The statement's expressions are bound over sc: the table's columns
	// or, through a view, the view's (rebase makes them the table's).
	sc := &scope{cols: targetCols}
	rebase := func(e Expr) Expr { return e }
	if w != nil {
		sc = &scope{cols: append(w.scopeCols(alias), rowID)}
		rebase = w.overTable
	}
	var other Node
	var otherCols []Col
	if len(from) > 0 {
		// The target's name may not come again in FROM / USING.
		if err := b.checkFromNames(append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rv}}}, from...)); err != nil {
			return nil, err
		}
		var osc *scope
		if other, osc, err = b.bindFrom(from, nil); err != nil {
			return nil, err
		}
		otherCols = osc.cols
		sc = &scope{cols: append(append([]Col{}, sc.cols...), otherCols...)}
	}
	read, err := reads(def, w, sc)
	if err != nil {
		return nil, err
	}
	// Through a view, the table's policies are the view owner's.
	err = b.asOwner(w, func() error {
		if target, err = b.securityFilter(def, target, cmd); err != nil {
			return err
		}
		if f, ok := target.(*Filter); ok && read {
			// One filter of both, which WHERE joins (filterScan).
			sel, err := b.securityQual(def, catalog.PolicySelect)
			if err != nil {
				return err
			}
			if sel.String() != f.Cond.String() { // an ALL policy gives both
				f.Cond = andAll([]Expr{f.Cond, sel})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	plan := target
	if other != nil {
		plan = &Join{Kind: CrossJoin, Left: target, Right: other, Out: append(append([]Col{}, targetCols...), otherCols...)}
	}
	var conds []Expr
	if w != nil && w.cond() != nil {
		// Only the rows the view shows.
		conds = append(conds, w.cond())
	}
	if where != nil {
		cond, err := b.bindCondition(sc, where, "WHERE")
		if err != nil {
			return nil, err
		}
		conds = append(conds, rebase(cond))
	}
	if len(conds) > 0 {
		plan = b.planIndexScans(planWhere(b.Catalog, plan, andAll(conds)))
	}
	if len(from) > 0 && rowsOf == nil {
		// A view's rows have no ID: its trigger runs on each row the
		// join makes, as in PostgreSQL.
		plan = firstPerKey(plan, []int{len(def.Columns)})
	}
	return &writeScan{def: def, w: w, iv: iv, instead: rowsOf != nil, alias: alias, input: plan}, nil
}

// writeScan is what scanForWrite binds: the table written (def), the
// view written through (w) or whose INSTEAD OF trigger runs (iv), the
// name the statement calls the target, and the rows to change (input).
// instead is set when a view's INSTEAD OF trigger runs on them (iv's, or
// that of the view under w).
type writeScan struct {
	def     *catalog.TableDef
	w       *writableView
	iv      *catalog.ViewDef
	instead bool
	alias   string
	input   Node
}

// viewRowsForWrite is the input of an UPDATE or DELETE of view v, whose
// INSTEAD OF trigger runs on each of its rows: the view's columns (as
// alias's), then a NULL row ID, which a view's rows lack.
func (b *Binder) viewRowsForWrite(v *catalog.ViewDef, alias string) (Node, []Col, error) {
	plan, cols, err := b.readView(v, alias, nil)
	if err != nil {
		return nil, nil, err
	}
	proj := &Project{Input: plan}
	for i, c := range cols {
		if !c.Hidden {
			proj.Exprs = append(proj.Exprs, &ColumnRef{Index: i, Name: c.Name, T: c.T})
			proj.Out = append(proj.Out, c)
		}
	}
	proj.Exprs = append(proj.Exprs, &Const{Value: nil, T: types.Int8T})
	proj.Out = append(proj.Out, Col{Name: catalog.RowIDColumn, T: types.Int8T, Table: alias, Hidden: true})
	return proj, proj.Out, nil
}

func (b *Binder) bindUpdate(s *pg_query.UpdateStmt) (Node, error) {
	if s.WithClause != nil {
		defer b.popWith()
		if err := b.bindWith(s.WithClause, s, nil); err != nil {
			return nil, err
		}
	}
	var set map[int]Expr
	reads := s.WhereClause != nil || len(s.ReturningList) > 0
	ws, err := b.scanForWrite(s.Relation, s.FromClause, s.WhereClause, catalog.PolicyUpdate, func(def *catalog.TableDef, w *writableView, sc *scope) (bool, error) {
		var rebase func(Expr) Expr
		if w != nil {
			rebase = w.overTable
		}
		var err error
		if set, err = b.bindSetList(def, w, "update", sc, s.TargetList, rebase); err != nil {
			return false, err
		}
		for _, e := range set {
			WalkExpr(e, func(e Expr) {
				if _, ok := e.(*ColumnRef); ok {
					reads = true
				}
			})
		}
		return reads, nil
	})
	if err != nil {
		return nil, err
	}
	def, w, alias, input := ws.def, ws.w, ws.alias, ws.input
	up := &Update{Table: def, Input: input, Set: set, Instead: ws.instead}
	b.needTarget(def, w, ws.iv, catalog.PrivUpdate, slices.Sorted(maps.Keys(set))...)
	if reads {
		b.needTarget(def, w, ws.iv, catalog.PrivSelect)
	}
	if w != nil {
		up.ViewChecks = w.checks()
	}
	if up.Gen, err = b.generatedExprs(def); err != nil {
		return nil, err
	}
	err = b.asOwner(w, func() error {
		up.Policies, err = b.writeChecks(def, catalog.PolicyUpdate, reads)
		return err
	})
	if err != nil {
		return nil, err
	}
	up.Returning, up.Out, err = b.bindReturning(def, w, ws.iv, alias, s.ReturningList, input.Columns()[len(def.Columns)+1:])
	return up, err
}

func (b *Binder) bindDelete(s *pg_query.DeleteStmt) (Node, error) {
	if s.WithClause != nil {
		defer b.popWith()
		if err := b.bindWith(s.WithClause, s, nil); err != nil {
			return nil, err
		}
	}
	reads := s.WhereClause != nil || len(s.ReturningList) > 0
	ws, err := b.scanForWrite(s.Relation, s.UsingClause, s.WhereClause, catalog.PolicyDelete, func(*catalog.TableDef, *writableView, *scope) (bool, error) {
		return reads, nil
	})
	if err != nil {
		return nil, err
	}
	def, w, alias, input := ws.def, ws.w, ws.alias, ws.input
	b.needTarget(def, w, ws.iv, catalog.PrivDelete)
	if reads {
		b.needTarget(def, w, ws.iv, catalog.PrivSelect)
	}
	del := &Delete{Table: def, Input: input, Instead: ws.instead}
	del.Returning, del.Out, err = b.bindReturning(def, w, ws.iv, alias, s.ReturningList, input.Columns()[len(def.Columns)+1:])
	return del, err
}

// tableExprBinder binds an expression kept with def as text (a CHECK,
// DEFAULT, generation or index expression) outside a statement that
// names def. The functions of CREATE FUNCTION it calls are looked for in
// def's schema, then public, then the other schemas: PostgreSQL keeps
// such an expression with its functions resolved, whatever search_path
// the writing session has.
func tableExprBinder(cat *catalog.Catalog, def *catalog.TableDef) *Binder {
	path := []string{def.Schema}
	if def.Schema != "public" {
		path = append(path, "public")
	}
	for _, name := range slices.Sorted(maps.Keys(cat.Schemas)) {
		if !slices.Contains(path, name) {
			path = append(path, name)
		}
	}
	return &Binder{Catalog: cat, SearchPath: path}
}

// BindTableExpr binds the SQL text of an expression over a table's columns
// (CHECK constraints), as a boolean condition.
func BindTableExpr(cat *catalog.Catalog, def *catalog.TableDef, text string) (Expr, error) {
	n, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	b := tableExprBinder(cat, def)
	return b.bindCondition(&scope{cols: tableCols(def, def.Name)}, n, "CHECK")
}

// BindIndexExpr binds the key of an index on an expression
// (catalog.IndexDef.Expr) over a row of def. Each write evaluates it, as
// PostgreSQL computes the key of every row it indexes: a row the
// expression fails on (a cast of text that is no number) fails the write.
func BindIndexExpr(cat *catalog.Catalog, def *catalog.TableDef, text string) (Expr, error) {
	n, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	b := tableExprBinder(cat, def)
	return b.bindExpr(&scope{cols: tableCols(def, def.Name)}, n)
}

// BindColumnDefault binds the DEFAULT of def's column at position pos
// (a NULL constant when it has none), as ON DELETE SET DEFAULT writes it.
func BindColumnDefault(cat *catalog.Catalog, def *catalog.TableDef, pos int) (Expr, error) {
	b := tableExprBinder(cat, def)
	return b.columnDefault(def, pos)
}

// IndexKeyExprs binds the key of index ix of def, an index on an
// expression or a partial one, over def's columns: one expression per
// key column, NULL in the rows the index's predicate does not hold for
// (and not computed there, as PostgreSQL computes no key for them).
// Storage enforces a unique such index on it (NULLs conflict with
// nothing: catalog.IndexDef.ComputedKey); CREATE INDEX and writes compute
// a non-unique one's for its errors alone.
func IndexKeyExprs(cat *catalog.Catalog, def *catalog.TableDef, ix *catalog.IndexDef) ([]Expr, error) {
	var keys []Expr
	if ix.Expr != "" {
		e, err := BindIndexExpr(cat, def, ix.Expr)
		if err != nil {
			return nil, err
		}
		keys = append(keys, e)
	} else if len(ix.Keys) > 0 {
		for _, k := range ix.Keys {
			if k.Expr != "" {
				e, err := BindIndexExpr(cat, def, k.Expr)
				if err != nil {
					return nil, err
				}
				keys = append(keys, e)
				continue
			}
			pos, c := def.ColumnByID(k.Column)
			if c == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column %d of index \"%s\" does not exist", k.Column, ix.Name)
			}
			keys = append(keys, &ColumnRef{Index: pos, Name: c.Name, T: c.Type})
		}
	} else {
		for _, id := range ix.Columns {
			pos, c := def.ColumnByID(id)
			if c == nil {
				return nil, pgerr.New(pgerrcode.UndefinedColumn, "column %d of index \"%s\" does not exist", id, ix.Name)
			}
			keys = append(keys, &ColumnRef{Index: pos, Name: c.Name, T: c.Type})
		}
	}
	if ix.Pred == "" {
		return keys, nil
	}
	pred, err := BindIndexExpr(cat, def, ix.Pred)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		keys[i] = &Case{Whens: []When{{Cond: pred, Result: k}}, T: k.Type()}
	}
	return keys, nil
}
