package sql

import (
	"maps"
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// scope is the set of columns a clause can reference: the FROM clause's
// columns, in the order of the node that produces them. outer is the scope
// of an enclosing query (references to it make a subquery correlated).
type scope struct {
	cols  []Col
	outer *scope
}

// bindSelect binds a SELECT (or VALUES, or set operation) into a plan.
func (b *Binder) bindSelect(s *pg_query.SelectStmt, outer *scope) (Node, error) {
	if s.WithClause != nil {
		defer b.popWith()
		if err := b.bindWith(s.WithClause, s, outer); err != nil {
			return nil, err
		}
	}
	if s.IntoClause != nil {
		return nil, pgerr.NotSupported("SELECT INTO")
	}
	var plan Node
	var err error
	if len(s.LockingClause) > 0 && s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "FOR UPDATE is not allowed with UNION/INTERSECT/EXCEPT")
	}
	if len(s.LockingClause) > 0 && len(s.ValuesLists) > 0 {
		return nil, pgerr.New(pgerrcode.FeatureNotSupported, "FOR UPDATE cannot be applied to VALUES")
	}
	switch {
	case s.Op != pg_query.SetOperation_SETOP_NONE && s.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED:
		plan, err = b.bindSetOp(s, outer)
	case len(s.ValuesLists) > 0:
		plan, err = b.bindValues(s.ValuesLists, nil, nil, outer)
	default:
		return b.bindPlainSelect(s, outer)
	}
	if err != nil {
		return nil, err
	}
	// ORDER BY / LIMIT over a set operation or VALUES: keys name output
	// columns.
	sc := &scope{cols: plan.Columns(), outer: outer}
	keys, err := b.bindOutputSortKeys(s.SortClause, sc)
	if err != nil {
		return nil, err
	}
	return b.finishOrderLimit(plan, keys, s, nil)
}

// bindWith binds a WITH clause's queries and makes their names visible to
// the statement it heads (SELECT, INSERT, UPDATE, DELETE) until popWith,
// which the caller defers whatever bindWith returns.
func (b *Binder) bindWith(w *pg_query.WithClause, stmt protoreflect.ProtoMessage, outer *scope) error {
	b.ctes = append(b.ctes, map[string]*cteDef{})
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if q := modifyingQuery(cte); q != nil {
			if w != b.topWith {
				return pgerr.New(pgerrcode.FeatureNotSupported, "WITH clause containing a data-modifying statement must be at the top level").
					WithPosition(cte.Location + 1)
			}
			def, err := b.bindModifyingCTE(cte, q)
			if err != nil {
				return err
			}
			b.ctes[len(b.ctes)-1][cte.Ctename] = def
			continue
		}
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			return pgerr.NotSupported("this statement in WITH")
		}
		var plan Node
		var err error
		refs := b.outerRefs
		if w.Recursive {
			plan, err = b.bindRecursiveCTE(cte, sel, outer)
		} else {
			plan, err = b.bindNotRecursive(cte, sel, outer)
		}
		if err != nil {
			return err
		}
		def := &cteDef{plan: plan, cols: strList(cte.Aliascolnames), sel: sel, outer: outer}
		if !w.Recursive && b.outerRefs > refs {
			def.correlated = true
			def.withs = append(slices.Clone(b.ctes[:len(b.ctes)-1]), maps.Clone(b.ctes[len(b.ctes)-1]))
		} else if !w.Recursive && materializeCTE(cte, stmt) {
			// (A recursive one is not: a reader may stop an endless
			// recursion with LIMIT, and computing all its rows first
			// would not end.)
			def.shared = &SharedCTE{Name: cte.Ctename, Plan: plan}
		}
		names := strList(cte.Aliascolnames)
		if n := len(plan.Columns()); len(names) > n {
			return pgerr.New(pgerrcode.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", cte.Ctename, n, len(names)).
				WithPosition(cte.Location + 1)
		}
		b.ctes[len(b.ctes)-1][cte.Ctename] = def
	}
	return nil
}

// popWith ends the scope of the innermost WITH clause (bindWith).
func (b *Binder) popWith() { b.ctes = b.ctes[:len(b.ctes)-1] }

// setOpLeaf makes s one of setOpLeaves when it is a simple SELECT (no
// DISTINCT, ORDER BY or GROUP BY, which resolve its literals to text)
// until the function it returns is called.
func (b *Binder) setOpLeaf(s *pg_query.SelectStmt) func() {
	if s.Op != pg_query.SetOperation_SETOP_NONE || s.ValuesLists != nil || len(s.DistinctClause) > 0 ||
		len(s.SortClause) > 0 || len(s.GroupClause) > 0 {
		return func() {}
	}
	if b.setOpLeaves == nil {
		b.setOpLeaves = map[*pg_query.SelectStmt]bool{}
	}
	b.setOpLeaves[s] = true
	return func() { delete(b.setOpLeaves, s) }
}

// bindSetOp binds UNION / INTERSECT / EXCEPT, unifying column types.
func (b *Binder) bindSetOp(s *pg_query.SelectStmt, outer *scope) (Node, error) {
	defer b.setOpLeaf(s.Larg)()
	defer b.setOpLeaf(s.Rarg)()
	left, err := b.bindSelect(s.Larg, outer)
	if err != nil {
		return nil, err
	}
	right, err := b.bindSelect(s.Rarg, outer)
	if err != nil {
		return nil, err
	}
	lc, rc := left.Columns(), right.Columns()
	opName := map[pg_query.SetOperation]string{
		pg_query.SetOperation_SETOP_UNION:     "UNION",
		pg_query.SetOperation_SETOP_INTERSECT: "INTERSECT",
		pg_query.SetOperation_SETOP_EXCEPT:    "EXCEPT",
	}[s.Op]
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "each %s query must have the same number of columns", opName)
	}
	target := make([]types.T, len(lc))
	for i := range lc {
		t, err := commonType(opName, []types.T{lc[i].T, rc[i].T})
		if err != nil {
			return nil, err
		}
		target[i] = t
	}
	if err := b.resolveUnknownColumns(left, target); err != nil {
		return nil, err
	}
	if err := b.resolveUnknownColumns(right, target); err != nil {
		return nil, err
	}
	left, err = b.castColumns(left, target)
	if err != nil {
		return nil, err
	}
	right, err = b.castColumns(right, target)
	if err != nil {
		return nil, err
	}
	out := make([]Col, len(lc))
	for i := range lc {
		out[i] = Col{Name: lc[i].Name, T: target[i]}
	}
	kind := map[pg_query.SetOperation]SetOpKind{
		pg_query.SetOperation_SETOP_UNION:     Union,
		pg_query.SetOperation_SETOP_INTERSECT: Intersect,
		pg_query.SetOperation_SETOP_EXCEPT:    Except,
	}[s.Op]
	return &SetOp{Kind: kind, All: s.All, Left: left, Right: right, Out: out}, nil
}

// resolveUnknownColumns gives the untyped literals and parameters a set
// operation's input left unresolved (setOpLeaves) the type of their
// column, target: they are in the select list of the input's Project,
// under a LIMIT maybe.
func (b *Binder) resolveUnknownColumns(n Node, target []types.T) error {
	if l, ok := n.(*Limit); ok {
		n = l.Input
	}
	p, ok := n.(*Project)
	if !ok {
		return nil
	}
	for i, c := range p.Out {
		if c.T.Family != types.Unknown || i >= len(target) {
			continue
		}
		e, err := b.coerce(p.Exprs[i], target[i], castImplicit)
		if err != nil {
			return err
		}
		p.Exprs[i], p.Out[i].T = e, target[i]
	}
	return nil
}

// castColumns wraps n in a Project casting its columns to target where
// they differ.
func (b *Binder) castColumns(n Node, target []types.T) (Node, error) {
	cols := n.Columns()
	same := true
	for i, c := range cols {
		if !c.T.Equal(target[i]) {
			same = false
		}
	}
	if same {
		return n, nil
	}
	exprs := make([]Expr, len(cols))
	out := make([]Col, len(cols))
	for i, c := range cols {
		e, err := b.coerce(&ColumnRef{Index: i, Name: c.Name, T: c.T}, target[i], castImplicit)
		if err != nil {
			return nil, err
		}
		exprs[i] = e
		out[i] = Col{Name: c.Name, T: target[i]}
	}
	return &Project{Input: n, Exprs: exprs, Out: out}, nil
}

// bindValues binds a VALUES list. want, when given, are the types the
// columns must have (INSERT targets); otherwise each column's type is the
// common type of its items.
func (b *Binder) bindValues(lists []*pg_query.Node, want []types.T, names []string, outer *scope) (*Values, error) {
	sc := &scope{outer: outer}
	rows := make([][]Expr, len(lists))
	width := -1
	for r, l := range lists {
		items := l.GetList().Items
		if width >= 0 && len(items) != width {
			return nil, pgerr.New(pgerrcode.SyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		rows[r] = make([]Expr, len(items))
		for c, item := range items {
			if item.GetSetToDefault() != nil {
				rows[r][c] = &defaultMarker{}
				continue
			}
			e, err := b.bindExpr(sc, item)
			if err != nil {
				return nil, err
			}
			rows[r][c] = e
		}
	}
	out := make([]Col, width)
	for c := 0; c < width; c++ {
		var t types.T
		if want != nil && c < len(want) {
			t = want[c]
		} else {
			ts := make([]types.T, 0, len(rows))
			for _, row := range rows {
				if _, ok := row[c].(*defaultMarker); !ok {
					ts = append(ts, row[c].Type())
				}
			}
			var err error
			if t, err = commonType("VALUES", ts); err != nil {
				return nil, err
			}
		}
		for _, row := range rows {
			if _, ok := row[c].(*defaultMarker); ok {
				continue
			}
			var e Expr
			var err error
			if names != nil {
				e, err = b.coerceColumn(row[c], names[c], t)
			} else {
				e, err = b.coerce(row[c], t, castAssignment)
			}
			if err != nil {
				return nil, err
			}
			row[c] = e
		}
		out[c] = Col{Name: "column" + itoa(int64(c+1)), T: t}
	}
	return &Values{Rows: rows, Out: out}, nil
}

// defaultMarker stands for DEFAULT in a VALUES row until INSERT replaces
// it with the column's default expression.
type defaultMarker struct{}

func (*defaultMarker) Type() types.T  { return types.UnknownT }
func (*defaultMarker) String() string { return "DEFAULT" }

// selectItem is one bound select-list entry.
type selectItem struct {
	expr Expr
	name string
}

func (b *Binder) bindPlainSelect(s *pg_query.SelectStmt, outer *scope) (Node, error) {
	savedWindows := b.windows
	b.windows = s.WindowClause
	defer func() { b.windows = savedWindows }()
	if err := checkWindowNames(s.WindowClause); err != nil {
		return nil, err
	}
	plan, sc, err := b.bindFrom(s.FromClause, outer)
	if err != nil {
		return nil, err
	}
	if s.WhereClause != nil {
		cond, err := b.bindCondition(sc, s.WhereClause, "WHERE")
		if err != nil {
			return nil, err
		}
		plan = planWhere(b.Catalog, plan, cond)
	}

	agg := &aggCollector{}
	b.pushAgg(agg)
	var literalTypes []types.T
	// PostgreSQL resolves the select list's untyped literals to text when
	// DISTINCT, ORDER BY or GROUP BY use them, INSERT ... SELECT or not.
	if s == b.insertSelect && len(s.DistinctClause) == 0 && len(s.SortClause) == 0 && len(s.GroupClause) == 0 {
		literalTypes = b.insertTypes
	} else if b.setOpLeaves[s] {
		literalTypes = make([]types.T, len(s.TargetList)) // unknown: left as they are
	}
	items, err := b.bindTargets(sc, s.TargetList, literalTypes)
	if err != nil {
		b.popAgg()
		return nil, err
	}
	var having Expr
	if s.HavingClause != nil {
		if having, err = b.bindCondition(sc, s.HavingClause, "HAVING"); err != nil {
			b.popAgg()
			return nil, err
		}
	}
	// ORDER BY expressions may hold aggregates too: bind them while the
	// collector is active. DISTINCT ON expressions are bound the same way,
	// ahead of them (they name select-list entries or become hidden
	// columns too).
	onClause := distinctOnExprs(s)
	keys, hidden, err := b.bindSortKeys(sc, append(onClause, s.SortClause...), items)
	b.popAgg()
	if err != nil {
		return nil, err
	}
	onKeys := keys[:len(onClause)]
	keys = keys[len(onClause):]

	// FOR UPDATE / FOR SHARE: the locked tables' row IDs ride along as
	// hidden columns to the LockRows node.
	var lock *LockRows
	if locking, err := b.bindLocking(sc, s, plan); err != nil {
		return nil, err
	} else if locking != nil {
		if len(agg.calls) > 0 {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with aggregate functions", locking.strength)
		}
		for _, it := range items {
			windowed := false
			WalkExpr(it.expr, func(x Expr) { _, w := x.(*WindowCall); windowed = windowed || w })
			if windowed {
				return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s is not allowed with window functions", locking.strength)
			}
		}
		lock = &LockRows{Wait: locking.wait, Strength: locking.strength}
		for i, def := range locking.tables {
			lock.Targets = append(lock.Targets, LockTarget{Table: def, RowID: len(items) + len(hidden), Shared: locking.shared[i]})
			hidden = append(hidden, locking.rowIDs[i])
		}
	}

	// Search: a hybrid score runs as a HybridTopK under everything else;
	// ORDER BY a BM25 score with LIMIT returns only matching rows.
	searchExprs := []*Expr{&having}
	for i := range items {
		searchExprs = append(searchExprs, &items[i].expr)
	}
	for i := range hidden {
		searchExprs = append(searchExprs, &hidden[i])
	}
	if plan, sc, err = b.planHybrid(plan, sc, s, searchExprs); err != nil {
		return nil, err
	}
	if _, isHybrid := plan.(*HybridTopK); isHybrid && (len(agg.calls) > 0 || len(s.GroupClause) > 0) {
		return nil, pgerr.NotSupported("hybrid search with aggregates")
	}
	if len(keys) > 0 && s.LimitCount != nil && lock == nil && len(agg.calls) == 0 &&
		len(s.GroupClause) == 0 && s.DistinctClause == nil && !windowedOrSets(items) {
		// One table, maybe filtered: a vector index on the ORDER BY's
		// column finds the candidates; the Sort and Limit above rank them
		// exactly.
		count, err := b.bindLimit(&scope{}, s.LimitCount, "LIMIT")
		if err != nil {
			return nil, err
		}
		var offset Expr
		if s.LimitOffset != nil {
			if offset, err = b.bindLimit(&scope{}, s.LimitOffset, "OFFSET"); err != nil {
				return nil, err
			}
		}
		if vt := b.planVectorTopK(plan, keys[0], sortKeyExpr(keys[0], items, hidden), count, offset, len(keys) > 1); vt != nil {
			plan = vt
		}
	}
	if len(keys) > 0 && s.LimitCount != nil {
		if bm, ok := sortKeyExpr(keys[0], items, hidden).(*BM25Score); ok {
			if scan, isScan := plan.(*Scan); isScan && bm.RowID != nil && len(agg.calls) == 0 && len(s.GroupClause) == 0 && s.DistinctClause == nil {
				// No WHERE: the text index yields the best K rows.
				tk := &TextTopK{Scan: scan, Score: bm}
				if tk.Count, err = b.bindLimit(&scope{}, s.LimitCount, "LIMIT"); err != nil {
					return nil, err
				}
				if s.LimitOffset != nil {
					if tk.Offset, err = b.bindLimit(&scope{}, s.LimitOffset, "OFFSET"); err != nil {
						return nil, err
					}
				}
				plan = tk
			} else {
				pos, err := b.bindOperator(">", bm, &Const{Value: 0.0, T: types.Float4T})
				if err != nil {
					return nil, err
				}
				plan = &Filter{Input: plan, Cond: pos}
			}
		}
	}

	// A LIKE or ILIKE on a trigram-indexed column, an equality on a
	// btree-indexed one, reads only the rows the index finds (after the
	// vector search, which takes a filtered scan of its own).
	plan = b.planIndexScans(plan)

	groupBy, sets, err := b.bindGroupClause(sc, s, items)
	if err != nil {
		return nil, err
	}

	if len(agg.calls) > 0 || len(s.GroupClause) > 0 || having != nil || agg.grouping {
		others := []*Expr{&having}
		for i := range items {
			others = append(others, &items[i].expr)
		}
		for i := range hidden {
			others = append(others, &hidden[i])
		}
		if sets == nil {
			groupBy = withDependentColumns(sc, groupBy, others)
		}
		plan = planGroupedSRFs(plan, groupBy, others)
		aggNode := &Aggregate{Input: plan, GroupBy: groupBy, Aggs: agg.calls, Sets: sets}
		for _, g := range groupBy {
			aggNode.Out = append(aggNode.Out, Col{Name: exprName(g), T: g.Type()})
		}
		for _, a := range agg.calls {
			aggNode.Out = append(aggNode.Out, Col{Name: a.Name, T: a.T})
		}
		if sets != nil {
			aggNode.Out = append(aggNode.Out, Col{Name: "grouping set", T: types.Int4T, Hidden: true})
		}
		rw := &groupRewriter{groupBy: groupBy, nGroup: len(groupBy), sets: sets, nAggs: len(agg.calls), from: sc}
		for i := range items {
			if items[i].expr, err = rw.rewrite(items[i].expr); err != nil {
				return nil, err
			}
		}
		for i := range hidden {
			if hidden[i], err = rw.rewrite(hidden[i]); err != nil {
				return nil, err
			}
		}
		plan = aggNode
		if having != nil {
			if having, err = rw.rewrite(having); err != nil {
				return nil, err
			}
			plan = &Filter{Input: plan, Cond: having}
		}
	}

	windowed := make([]*Expr, 0, len(items)+len(hidden))
	for i := range items {
		windowed = append(windowed, &items[i].expr)
	}
	for i := range hidden {
		windowed = append(windowed, &hidden[i])
	}
	if plan, err = planWindows(plan, windowed); err != nil {
		return nil, err
	}
	if plan, err = planSRFs(plan, windowed); err != nil {
		return nil, err
	}

	proj := &Project{Input: plan}
	for _, it := range items {
		proj.Exprs = append(proj.Exprs, it.expr)
		proj.Out = append(proj.Out, colFor(it.expr, it.name, plan.Columns()))
	}
	visible := len(items)
	for i, h := range hidden {
		proj.Exprs = append(proj.Exprs, h)
		proj.Out = append(proj.Out, Col{Name: "?sort" + itoa(int64(i)), T: h.Type(), Hidden: true})
	}
	plan = proj

	if len(onKeys) > 0 {
		if plan, err = distinctOn(proj, onKeys, keys); err != nil {
			return nil, err
		}
		keys = nil
	} else if s.DistinctClause != nil {
		if len(hidden) > 0 {
			return nil, pgerr.New(pgerrcode.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
		}
		plan = &Distinct{Input: plan}
	}
	plan, err = b.finishOrderLimit(plan, keys, s, lock)
	if err != nil {
		return nil, err
	}
	if len(hidden) > 0 {
		cols := plan.Columns()
		trim := &Project{Input: plan}
		for i := 0; i < visible; i++ {
			trim.Exprs = append(trim.Exprs, &ColumnRef{Index: i, Name: cols[i].Name, T: cols[i].T})
			trim.Out = append(trim.Out, cols[i])
		}
		plan = trim
	}
	return plan, nil
}

// sortKeyExpr is the expression a bound sort key stands for.
func sortKeyExpr(k SortKey, items []selectItem, hidden []Expr) Expr {
	ref := k.Expr.(*ColumnRef)
	if ref.Index < len(items) {
		return items[ref.Index].expr
	}
	return hidden[ref.Index-len(items)]
}

// colFor names a projected column and, for a plain column reference,
// carries its table identity for RowDescription.
func colFor(e Expr, name string, in []Col) Col {
	c := Col{Name: name, T: e.Type()}
	if ref, ok := e.(*ColumnRef); ok && ref.Index < len(in) {
		c.TableOID, c.Attnum = in[ref.Index].TableOID, in[ref.Index].Attnum
	}
	return c
}

// deferrable reports whether a projection may run after the TopK (or
// Sort) that orders its rows instead of before: its expressions give the
// same values whenever they are computed, or those that do not (a volatile
// function, a sequence draw) are none the sort keys read. The projection
// then computes only the k rows the TopK keeps: a filtered vector search
// returning ten rows copies ten texts, not the text of every matching
// row. PostgreSQL computes volatile select-list expressions after the sort
// so (make_sort_input_target): nextval() in SELECT nextval('s'), g ...
// ORDER BY g LIMIT 3 draws three values, in the order of g.
func deferrable(p *Project, keys []SortKey) bool {
	sorted := map[int]bool{}
	for _, k := range keys {
		WalkExpr(k.Expr, func(x Expr) {
			if r, ok := x.(*ColumnRef); ok {
				sorted[r.Index] = true
			}
		})
	}
	for i, e := range p.Exprs {
		if sorted[i] && volatileExpr(e) {
			return false
		}
	}
	return true
}

// volatileExpr reports whether e may give another value each time it is
// computed (a volatile function call, a sequence draw).
func volatileExpr(e Expr) bool {
	volatile := false
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *NextVal, *SeqFunc:
			volatile = true
		case *Call:
			volatile = volatile || x.Overload == nil || x.Overload.Volatility == functions.Volatile
		}
	})
	return volatile
}

// substituteKeys rewrites sort keys over a projection's output as keys
// over its input: each column reference becomes the projected expression.
func substituteKeys(keys []SortKey, exprs []Expr) []SortKey {
	out := make([]SortKey, len(keys))
	for i, k := range keys {
		out[i] = k
		out[i].Expr, _ = transformExpr(k.Expr, func(x Expr) (Expr, error) {
			if r, ok := x.(*ColumnRef); ok {
				return exprs[r.Index], nil
			}
			return nil, nil
		})
	}
	return out
}

// finishOrderLimit adds Sort/TopK/Limit for ORDER BY, LIMIT and OFFSET,
// and lock (FOR UPDATE; nil for none) between the order and the limit.
func (b *Binder) finishOrderLimit(plan Node, keys []SortKey, s *pg_query.SelectStmt, lock *LockRows) (Node, error) {
	withTies := s.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES
	if withTies && len(keys) == 0 {
		return nil, pgerr.New(pgerrcode.SyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
	}
	if withTies && (s.LimitCount == nil || isNullConst(s.LimitCount)) {
		return nil, pgerr.New(pgerrcode.InvalidRowCountInLimitClause, "row count cannot be null in FETCH FIRST ... WITH TIES clause")
	}
	sc := &scope{}
	var count, offset Expr
	var err error
	if s.LimitCount != nil && !isNullConst(s.LimitCount) {
		if count, err = b.bindLimit(sc, s.LimitCount, "LIMIT"); err != nil {
			return nil, err
		}
	}
	if s.LimitOffset != nil {
		if offset, err = b.bindLimit(sc, s.LimitOffset, "OFFSET"); err != nil {
			return nil, err
		}
	}
	if withTies && lock != nil {
		return nil, pgerr.NotSupported("%s with FETCH ... WITH TIES", lock.Strength)
	}
	if withTies && count != nil {
		// A Sort, then a Limit that lets the rows tying with the last
		// through (a TopK would cut them).
		return &Limit{Input: &Sort{Input: plan, Keys: keys}, Count: count, Offset: offset, Ties: keys}, nil
	}
	if lock != nil {
		if len(keys) > 0 {
			plan = &Sort{Input: plan, Keys: keys}
		}
		lock.Input, lock.Count, lock.Offset = plan, count, offset
		plan, keys = lock, nil
	}
	if len(keys) > 0 {
		p, ok := plan.(*Project)
		volatile := ok && slices.ContainsFunc(p.Exprs, volatileExpr)
		switch {
		case count != nil && ok && deferrable(p, keys) && (offset == nil || !volatile):
			return &Project{Input: &TopK{Input: p.Input, Keys: substituteKeys(keys, p.Exprs), Count: count, Offset: offset}, Exprs: p.Exprs, Out: p.Out}, nil
		case volatile && deferrable(p, keys):
			// Volatile expressions the keys do not read run in the
			// sorted order, after the sort, as in PostgreSQL; for the
			// rows OFFSET skips too, as there (the projection is below
			// its Limit), and for no more rows than the Limit reads.
			var sorted Node = &Sort{Input: p.Input, Keys: substituteKeys(keys, p.Exprs)}
			if count != nil {
				k, err := b.bindOperator("+", count, offset)
				if err != nil {
					return nil, err
				}
				sorted = &TopK{Input: p.Input, Keys: substituteKeys(keys, p.Exprs), Count: k}
			}
			plan = &Project{Input: sorted, Exprs: p.Exprs, Out: p.Out}
		case count != nil:
			return &TopK{Input: plan, Keys: keys, Count: count, Offset: offset}, nil
		default:
			plan = &Sort{Input: plan, Keys: keys}
		}
	}
	if count != nil || offset != nil {
		plan = &Limit{Input: plan, Count: count, Offset: offset}
	}
	return plan, nil
}

func isNullConst(n *pg_query.Node) bool {
	c := n.GetAConst()
	return c != nil && c.Isnull
}

// bindTargets binds the select list, expanding * and t.*. An untyped
// literal in it is text, or, at a position literalTypes gives a type for,
// of that type.
func (b *Binder) bindTargets(sc *scope, targets []*pg_query.Node, literalTypes []types.T) ([]selectItem, error) {
	var items []selectItem
	for _, t := range targets {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			expanded, err := expandStar(sc, cr)
			if err != nil {
				return nil, err
			}
			for _, it := range expanded {
				b.useCol(sc.cols[it.expr.(*ColumnRef).Index])
			}
			items = append(items, expanded...)
			continue
		}
		e, err := b.bindExpr(sc, rt.Val)
		if err != nil {
			return nil, err
		}
		if t := e.Type(); t.Family == types.Unknown {
			// An untyped literal in the output is text, as in PostgreSQL.
			to := types.TextT
			if len(items) < len(literalTypes) {
				to = literalTypes[len(items)]
			}
			if e, err = b.coerce(e, to, castImplicit); err != nil {
				return nil, err
			}
		}
		name := rt.Name
		if name == "" {
			name = FigureColname(rt.Val)
		}
		items = append(items, selectItem{expr: e, name: name})
	}
	if len(items) > maxTargetList {
		// A RowDescription holds at most 32767 fields: a wider result
		// would drop the connection after running the query.
		return nil, pgerr.New(pgerrcode.TooManyColumns, "target lists can have at most %d entries", maxTargetList)
	}
	return items, nil
}

// maxTargetList is PostgreSQL's MaxTupleAttributeNumber, the most entries
// a select list (or RETURNING list) may have.
const maxTargetList = 1664

// MaxTableColumns is PostgreSQL's MaxHeapAttributeNumber, the most columns
// a table may have had (dropped ones count, as their attnums do).
const MaxTableColumns = 1600

// TooManyColumns is the error for a table beyond MaxTableColumns.
func TooManyColumns() error {
	return pgerr.New(pgerrcode.TooManyColumns, "tables can have at most %d columns", MaxTableColumns)
}

func isStar(cr *pg_query.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}

func expandStar(sc *scope, cr *pg_query.ColumnRef) ([]selectItem, error) {
	qual := ""
	if len(cr.Fields) > 1 {
		qual = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	}
	var items []selectItem
	found := false
	for i, c := range sc.cols {
		if c.Hidden || c.Merged && qual == "" {
			continue
		}
		if qual != "" && c.Table != qual {
			continue
		}
		found = true
		items = append(items, selectItem{expr: &ColumnRef{Index: i, Name: c.Name, T: c.T}, name: c.Name})
	}
	if qual != "" && !found {
		return nil, pgerr.New(pgerrcode.UndefinedTable, "missing FROM-clause entry for table \"%s\"", qual)
	}
	if qual == "" && len(sc.cols) == 0 && len(items) == 0 {
		return nil, pgerr.New(pgerrcode.SyntaxError, "SELECT * with no tables specified is not valid")
	}
	return items, nil
}

// FigureColname is the name PostgreSQL gives an unnamed select-list
// expression.
func FigureColname(n *pg_query.Node) string {
	name, _ := figureColname(n)
	return name
}

// figureColname returns a column name and its strength: 2 for names that
// win (a column, a function), 1 for a cast's type name, which an outer cast
// replaces, 0 for "?column?" (PostgreSQL's FigureColnameInternal).
func figureColname(n *pg_query.Node) (string, int) {
	if tc := n.GetTypeCast(); tc != nil {
		if name, strength := figureColname(tc.Arg); strength > 1 {
			return name, strength
		}
		return nameOf(tc.TypeName.Names), 1
	}
	if ce := n.GetCaseExpr(); ce != nil {
		// CASE takes its ELSE result's name when that is a strong one
		// (CASE ... ELSE split_part(...) END is "split_part"); otherwise
		// it is "case", which a cast's type name replaces.
		if ce.Defresult != nil {
			if name, strength := figureColname(ce.Defresult); strength > 1 {
				return name, strength
			}
		}
		return "case", 1
	}
	name := figureStrong(n)
	if name == "?column?" {
		return name, 0
	}
	return name, 2
}

// figureStrong names the expression kinds whose names beat a cast's.
func figureStrong(n *pg_query.Node) string {
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		f := v.ColumnRef.Fields
		return f[len(f)-1].GetString_().GetSval()
	case *pg_query.Node_FuncCall:
		return nameOf(v.FuncCall.Funcname)
	case *pg_query.Node_CaseExpr:
		return "case"
	case *pg_query.Node_CoalesceExpr:
		return "coalesce"
	case *pg_query.Node_MinMaxExpr:
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_GREATEST {
			return "greatest"
		}
		return "least"
	case *pg_query.Node_AArrayExpr:
		return "array"
	case *pg_query.Node_RowExpr:
		return "row"
	case *pg_query.Node_GroupingFunc:
		return "grouping"
	case *pg_query.Node_AIndirection:
		// (record).field is named by the field, a[i] by a.
		ind := v.AIndirection.Indirection
		if last := ind[len(ind)-1].GetString_(); last != nil {
			return last.Sval
		}
		if name := FigureColname(v.AIndirection.Arg); name != "?column?" {
			return name
		}
	case *pg_query.Node_SubLink:
		switch v.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists"
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array"
		case pg_query.SubLinkType_EXPR_SUBLINK:
			if sel := v.SubLink.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name
				}
				return FigureColname(rt.Val)
			}
		}
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueFunctionName(v.SqlvalueFunction.Op)
	case *pg_query.Node_AExpr:
		if v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif"
		}
	}
	return "?column?"
}

// bindSortKeys binds ORDER BY of a plain SELECT. A key is an output column
// (by ordinal or alias) or an expression over the FROM clause; expressions
// that are not in the select list become hidden projected columns.
func (b *Binder) bindSortKeys(sc *scope, sortBy []*pg_query.Node, items []selectItem) ([]SortKey, []Expr, error) {
	var keys []SortKey
	var hidden []Expr
	for _, n := range sortBy {
		sb := n.GetSortBy()
		if len(sb.UseOp) > 0 {
			return nil, nil, pgerr.NotSupported("ORDER BY ... USING")
		}
		idx := -1
		if c := sb.Node.GetAConst(); c != nil {
			c = b.constant(c)
			if iv, ok := c.Val.(*pg_query.A_Const_Ival); ok {
				pos := int(iv.Ival.Ival)
				if pos < 1 || pos > len(items) {
					return nil, nil, pgerr.New(pgerrcode.InvalidColumnReference, "ORDER BY position %d is not in select list", pos).WithPosition(c.Location + 1)
				}
				idx = pos - 1
			}
		}
		if cr := sb.Node.GetColumnRef(); idx < 0 && cr != nil && len(cr.Fields) == 1 {
			name := cr.Fields[0].GetString_().GetSval()
			for i, it := range items {
				if it.name == name {
					if idx >= 0 && !sameExpr(items[idx].expr, it.expr) {
						return nil, nil, pgerr.New(pgerrcode.AmbiguousColumn, "ORDER BY \"%s\" is ambiguous", name)
					}
					if idx < 0 {
						idx = i
					}
				}
			}
		}
		var t types.T
		if idx < 0 {
			e, err := b.bindExpr(sc, sb.Node)
			if err != nil {
				return nil, nil, err
			}
			for i, it := range items {
				if sameExpr(it.expr, e) {
					idx = i
					break
				}
			}
			for i, h := range hidden {
				if idx < 0 && sameExpr(h, e) {
					idx = len(items) + i
				}
			}
			if idx < 0 {
				hidden = append(hidden, e)
				idx = len(items) + len(hidden) - 1
			}
			t = e.Type()
		} else {
			t = items[idx].expr.Type()
		}
		key := makeSortKey(sb, &ColumnRef{Index: idx, Name: "col" + itoa(int64(idx+1)), T: t})
		var target Expr
		if idx < len(items) {
			target = items[idx].expr
		} else {
			target = hidden[idx-len(items)]
		}
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_DEFAULT && IsSimilarity(target) {
			// pg_deeplake applications write ORDER BY score with no
			// direction and get the best matches first.
			key.Desc = true
		}
		if IsSimilarity(target) && sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_DEFAULT {
			// Best first: rows without a score (NULL or empty vectors)
			// come last, whatever the direction.
			key.NullsFirst = false
		}
		keys = append(keys, key)
	}
	// Name keys after the select-list entry they sort by (EXPLAIN).
	for i := range keys {
		ref := keys[i].Expr.(*ColumnRef)
		if ref.Index < len(items) {
			ref.Name = items[ref.Index].name
		} else {
			ref.Name, ref.Of = "", hidden[ref.Index-len(items)]
		}
	}
	return keys, hidden, nil
}

// bindOutputSortKeys binds ORDER BY keys that can only name output columns
// (after a set operation or VALUES).
func (b *Binder) bindOutputSortKeys(sortBy []*pg_query.Node, sc *scope) ([]SortKey, error) {
	items := make([]selectItem, len(sc.cols))
	for i, c := range sc.cols {
		items[i] = selectItem{expr: &ColumnRef{Index: i, Name: c.Name, T: c.T}, name: c.Name}
	}
	keys, hidden, err := b.bindSortKeys(sc, sortBy, items)
	if err != nil {
		return nil, err
	}
	if len(hidden) > 0 {
		return nil, pgerr.NotSupported("ORDER BY on an expression of a set operation's result")
	}
	return keys, nil
}

// makeSortKey resolves direction and PostgreSQL's NULL placement default
// (NULLs sort as larger than any value).
func makeSortKey(sb *pg_query.SortBy, e Expr) SortKey {
	k := SortKey{Expr: e, Desc: sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	default:
		k.NullsFirst = k.Desc
	}
	return k
}

// bindGroupKey binds a GROUP BY item: an ordinal, an output alias, or an
// expression over the FROM clause.
func (b *Binder) bindGroupKey(sc *scope, g *pg_query.Node, targets []*pg_query.Node, items []selectItem) (Expr, error) {
	if c := g.GetAConst(); c != nil {
		c = b.constant(c)
		if iv, ok := c.Val.(*pg_query.A_Const_Ival); ok {
			pos := int(iv.Ival.Ival)
			if pos < 1 || pos > len(items) {
				return nil, pgerr.New(pgerrcode.InvalidColumnReference, "GROUP BY position %d is not in select list", pos).WithPosition(c.Location + 1)
			}
			return b.bindExpr(sc, targets[pos-1].GetResTarget().Val)
		}
	}
	if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		name := cr.Fields[0].GetString_().GetSval()
		if _, err := b.resolveColumn(sc, cr); err != nil {
			for i, it := range items {
				if it.name == name && i < len(targets) {
					return b.bindExpr(sc, targets[i].GetResTarget().Val)
				}
			}
		}
	}
	return b.bindExpr(sc, g)
}

// sameExpr reports whether two bound expressions are the same computation.
func sameExpr(a, b Expr) bool {
	if ra, ok := a.(*ColumnRef); ok {
		rb, ok := b.(*ColumnRef)
		return ok && ra.Index == rb.Index
	}
	return a.String() == b.String() && a.Type().Equal(b.Type())
}

// exprName is a display name for a bound expression.
func exprName(e Expr) string {
	if ref, ok := e.(*ColumnRef); ok {
		return ref.Name
	}
	return "?column?"
}

// commonType is the type a set of expressions unify to (UNION, CASE,
// VALUES, COALESCE, ARRAY[...]), following PostgreSQL's rules: unknowns
// take the others' type, numeric types widen, strings become text.
func commonType(context string, ts []types.T) (types.T, error) {
	var res types.T
	have := false
	for _, t := range ts {
		if t.Family == types.Unknown || t.Family == types.Null {
			continue
		}
		if !have {
			res, have = t, true
			continue
		}
		if res.Equal(t) {
			if res.Mod != t.Mod {
				res.Mod = -1
			}
			continue
		}
		switch {
		case res.Enum != nil || t.Enum != nil:
			// An enum meets only itself (or an unknown literal).
			return types.UnknownT, pgerr.New(pgerrcode.DatatypeMismatch, "%s types %s and %s cannot be matched", context, res, t)
		case res.IsOID() && t.IsOID() && (res.Family == types.Oid || t.Family == types.Oid):
			// oid and a reg* alias meet at the first of them, as in
			// PostgreSQL: oid is its category's preferred type, and each
			// casts to the other implicitly. (CASE puts its ELSE first.)
		case res.IsOID() && t.IsInteger():
			// Integers cast to oid and its aliases implicitly, not the
			// other way.
		case res.IsInteger() && t.IsOID():
			res = t
		case res.IsOID() && t.IsNumeric() || res.IsNumeric() && t.IsOID():
			from, to := t, res
			if t.IsOID() {
				from, to = res, t
			}
			return types.UnknownT, pgerr.New(pgerrcode.CannotCoerce, "%s could not convert type %s to %s", context, from, to)
		case res.IsNumeric() && t.IsNumeric():
			if numericRank(t) > numericRank(res) {
				res = t
			}
		case isCharacterType(res) && isCharacterType(t):
			// PostgreSQL keeps the first type unless it is not text (the
			// category's preferred type) and converts implicitly to the
			// next one that does not convert back; text, varchar and
			// char all convert to each other, so varchar UNION text is
			// varchar and char(n) with varchar is char.
			if res.Family != types.Text {
				if toT, _, _ := functions.CastKind(res, t); toT {
					if back, _, _ := functions.CastKind(t, res); !back {
						res = t
					}
				}
			}
		case res.IsString() && t.IsString():
			res = types.TextT
		case (res.Family == types.TimestampFamily || res.Family == types.TimestampTZ || res.Family == types.DateFamily) &&
			(t.Family == types.TimestampFamily || t.Family == types.TimestampTZ || t.Family == types.DateFamily):
			if t.Family == types.TimestampTZ || res.Family == types.DateFamily {
				res = t
			}
		case res.Family == types.JSON && t.Family == types.JSONB, res.Family == types.JSONB && t.Family == types.JSON:
			res = types.JSONBT
		case res.IsFloatVector() && t.IsFloatVector():
		case res.IsNetwork() && t.IsNetwork():
			// inet, the network category's preferred type, takes cidr.
			res = types.InetT
		case (res.Family == types.MacAddr || res.Family == types.MacAddr8) && (t.Family == types.MacAddr || t.Family == types.MacAddr8):
			// Each converts to the other implicitly: the first stays.
		default:
			return types.UnknownT, pgerr.New(pgerrcode.DatatypeMismatch, "%s types %s and %s cannot be matched", context, res, t)
		}
	}
	if !have {
		return types.TextT, nil
	}
	// A type modifier survives only when every input has the same one.
	for _, t := range ts {
		if t.Family != types.Unknown && t.Family != types.Null && (!t.Equal(res) || t.Mod != res.Mod) {
			res.Mod = -1
		}
	}
	res.Domain = ""
	return res, nil
}

func numericRank(t types.T) int {
	switch t.Family {
	case types.Int2:
		return 1
	case types.Int4:
		return 2
	case types.Int8:
		return 3
	case types.Numeric:
		return 4
	case types.Float4:
		return 5
	case types.Float8:
		return 6
	}
	return 0
}

// distinctOnExprs are the expressions of DISTINCT ON (...) as sort items
// (bindSortKeys binds them), or nil for a query without.
func distinctOnExprs(s *pg_query.SelectStmt) []*pg_query.Node {
	if len(s.DistinctClause) == 0 || s.DistinctClause[0] == nil || s.DistinctClause[0].Node == nil {
		return nil
	}
	out := make([]*pg_query.Node, len(s.DistinctClause))
	for i, e := range s.DistinctClause {
		out[i] = &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{Node: e}}}
	}
	return out
}

// distinctOn keeps the first row of each group of equal onKeys, in the
// order of the ORDER BY keys, which must begin with the DISTINCT ON
// expressions (as PostgreSQL requires), or of the DISTINCT ON expressions
// when there is no ORDER BY: it sorts, then keeps a row when its DISTINCT
// ON values are new. The result has proj's columns.
func distinctOn(proj *Project, onKeys, keys []SortKey) (Node, error) {
	onCols := make([]int, len(onKeys))
	for i, k := range onKeys {
		onCols[i] = k.Expr.(*ColumnRef).Index
	}
	for i := 0; i < len(keys) && i < len(onCols); i++ {
		if !slices.Contains(onCols, keys[i].Expr.(*ColumnRef).Index) {
			return nil, pgerr.New(pgerrcode.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
	}
	if len(keys) == 0 {
		// Without ORDER BY, PostgreSQL sorts by the DISTINCT ON
		// expressions (a Unique over a Sort), and clients read its rows
		// in that order (schema tools' catalog queries do).
		keys = onKeys
	}
	return firstPerKey(&Sort{Input: proj, Keys: keys}, onCols), nil
}

// firstPerKey keeps the first row of plan for each distinct value of the
// columns keyCols. Distinct compares its first columns, so the key
// columns are put first and taken off again.
func firstPerKey(plan Node, keyCols []int) Node {
	cols := plan.Columns()
	front := &Project{Input: plan}
	for _, c := range keyCols {
		front.Exprs = append(front.Exprs, &ColumnRef{Index: c, Name: cols[c].Name, T: cols[c].T})
		front.Out = append(front.Out, Col{Name: cols[c].Name, T: cols[c].T, Hidden: true})
	}
	for i, c := range cols {
		front.Exprs = append(front.Exprs, &ColumnRef{Index: i, Name: c.Name, T: c.T})
		front.Out = append(front.Out, c)
	}
	dist := &Distinct{Input: front, OnCount: len(keyCols)}
	back := &Project{Input: dist, Out: cols}
	for i, c := range cols {
		back.Exprs = append(back.Exprs, &ColumnRef{Index: len(keyCols) + i, Name: c.Name, T: c.T})
	}
	return back
}

// isCharacterType reports whether t is text, varchar or char(n).
func isCharacterType(t types.T) bool {
	return t.Family == types.Text || t.Family == types.Varchar || t.Family == types.Char
}
