package sql

import (
	"slices"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// bindFrom binds a FROM list (items are cross-joined) and returns the plan
// and the scope its columns form. An empty FROM yields one empty row.
func (b *Binder) bindFrom(items []*pg_query.Node, outer *scope) (Node, *scope, error) {
	if len(items) == 0 {
		return &Values{Rows: [][]Expr{{}}}, &scope{outer: outer}, nil
	}
	if err := b.checkFromNames(items); err != nil {
		return nil, nil, err
	}
	var plan Node
	sc := &scope{outer: outer}
	for _, item := range items {
		if plan != nil && isLateral(item) {
			var err error
			if plan, sc.cols, err = b.bindLateral(plan, sc.cols, item, outer, false); err != nil {
				return nil, nil, err
			}
			continue
		}
		p, cols, err := b.bindFromItem(item, outer)
		if err != nil {
			return nil, nil, err
		}
		if plan == nil {
			plan, sc.cols = p, cols
			continue
		}
		joined := append(append([]Col{}, sc.cols...), cols...)
		plan = &Join{Kind: CrossJoin, Left: plan, Right: p, Out: joined}
		sc.cols = joined
	}
	return plan, sc, nil
}

// fromName is the name a FROM item is referred to by: its alias, or an
// unaliased table's (rv set) or function's name.
type fromName struct {
	name string
	rv   *pg_query.RangeVar
}

// fromNames appends the names the FROM item item makes visible: a JOIN
// without an alias shows its sides' names, one with an alias only its
// own.
func fromNames(item *pg_query.Node, names []fromName) []fromName {
	switch v := item.Node.(type) {
	case *pg_query.Node_RangeVar:
		if a := v.RangeVar.Alias; a != nil {
			return append(names, fromName{name: a.Aliasname})
		}
		return append(names, fromName{name: v.RangeVar.Relname, rv: v.RangeVar})
	case *pg_query.Node_RangeSubselect:
		if a := v.RangeSubselect.Alias; a != nil {
			return append(names, fromName{name: a.Aliasname})
		}
	case *pg_query.Node_RangeFunction:
		rf := v.RangeFunction
		if rf.Alias != nil {
			return append(names, fromName{name: rf.Alias.Aliasname})
		}
		if len(rf.Functions) == 1 && !rf.IsRowsfrom {
			if l := rf.Functions[0].GetList(); l != nil && len(l.Items) > 0 {
				if fn := l.Items[0].GetFuncCall(); fn != nil {
					return append(names, fromName{name: nameOf(fn.Funcname)})
				}
			}
		}
	case *pg_query.Node_JoinExpr:
		if a := v.JoinExpr.Alias; a != nil {
			return append(names, fromName{name: a.Aliasname})
		}
		names = fromNames(v.JoinExpr.Rarg, fromNames(v.JoinExpr.Larg, names))
		if a := v.JoinExpr.JoinUsingAlias; a != nil {
			// USING (...) AS name: a name for the merged columns.
			names = append(names, fromName{name: a.Aliasname})
		}
		return names
	}
	return names
}

// checkFromNames refuses a FROM clause that names two items alike (42712,
// as PostgreSQL's checkNameSpaceConflicts does), where SELECT * used to
// return both and a qualified column failed as ambiguous. Two unaliased
// tables of the same name in different schemas may meet.
func (b *Binder) checkFromNames(items []*pg_query.Node) error {
	var names []fromName
	for _, item := range items {
		names = fromNames(item, names)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			x, y := names[i], names[j]
			if x.name != y.name || x.rv != nil && y.rv != nil && b.distinctTables(x.rv, y.rv) {
				continue
			}
			return pgerr.New(pgerrcode.DuplicateAlias, "table name \"%s\" specified more than once", x.name)
		}
	}
	return nil
}

// distinctTables reports whether two references to tables of the same
// name, qualified differently, are two tables.
func (b *Binder) distinctTables(x, y *pg_query.RangeVar) bool {
	if x.Schemaname == y.Schemaname {
		return false
	}
	dx, errx := b.rangeVarTable(x)
	dy, erry := b.rangeVarTable(y)
	return errx != nil || erry != nil || dx.ID != dy.ID
}

func (b *Binder) bindFromItem(item *pg_query.Node, outer *scope) (Node, []Col, error) {
	switch v := item.Node.(type) {
	case *pg_query.Node_RangeVar:
		return b.bindRangeVar(v.RangeVar, outer)
	case *pg_query.Node_RangeSubselect:
		plan, err := b.bindSelect(v.RangeSubselect.Subquery.GetSelectStmt(), outer)
		if err != nil {
			return nil, nil, err
		}
		alias := ""
		var colNames []string
		if v.RangeSubselect.Alias != nil {
			alias = v.RangeSubselect.Alias.Aliasname
			colNames = strList(v.RangeSubselect.Alias.Colnames)
		}
		cols, err := aliasFrom(plan.Columns(), alias, colNames)
		return plan, cols, err
	case *pg_query.Node_JoinExpr:
		return b.bindJoin(v.JoinExpr, outer)
	case *pg_query.Node_RangeFunction:
		return b.bindRangeFunction(v.RangeFunction, outer)
	}
	return nil, nil, pgerr.NotSupported("this kind of FROM item")
}

// aliasFrom is aliasCols for a FROM item, refusing more names than it
// has columns as PostgreSQL does (42P10); the names used to be dropped.
func aliasFrom(in []Col, alias string, names []string) ([]Col, error) {
	return aliasFromItem(in, "table", alias, names)
}

// aliasFromItem is aliasFrom naming the kind of FROM item in its error
// ("table", "join expression").
func aliasFromItem(in []Col, what, alias string, names []string) ([]Col, error) {
	visible := 0
	for _, c := range in {
		if !c.Hidden {
			visible++
		}
	}
	if len(names) > visible {
		return nil, pgerr.New(pgerrcode.InvalidColumnReference, "%s \"%s\" has %d columns available but %d columns specified", what, alias, visible, len(names))
	}
	return aliasCols(in, alias, names), nil
}

// aliasCols renames columns for a FROM alias (t(a, b)).
func aliasCols(in []Col, alias string, names []string) []Col {
	out := make([]Col, len(in))
	next := 0 // the alias names go to the visible columns in order
	for i, c := range in {
		c.Table, c.Base = alias, nil
		if !c.Hidden && next < len(names) {
			c.Name = names[next]
			next++
		}
		out[i] = c
	}
	return out
}

func (b *Binder) bindRangeVar(rv *pg_query.RangeVar, outer *scope) (Node, []Col, error) {
	location := rv.Location
	if schema, err := b.schemaName(rv.Schemaname); err != nil {
		return nil, nil, pgerr.From(err).WithPosition(rv.Location + 1)
	} else if schema != rv.Schemaname {
		rv = &pg_query.RangeVar{Catalogname: rv.Catalogname, Schemaname: schema, Relname: rv.Relname, Inh: rv.Inh,
			Relpersistence: rv.Relpersistence, Alias: rv.Alias, Location: rv.Location}
	}
	alias := rv.Relname
	var colNames []string
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
		colNames = strList(rv.Alias.Colnames)
	}
	if rv.Schemaname == "" {
		for i := len(b.ctes) - 1; i >= 0; i-- {
			if cte, ok := b.ctes[i][rv.Relname]; ok {
				if b.trace != nil {
					b.trace.rel(location, "w:"+rv.Relname)
				}
				if cte.modifying != nil && len(cte.plan.Columns()) == 0 {
					return nil, nil, pgerr.New(pgerrcode.FeatureNotSupported, "WITH query \"%s\" does not have a RETURNING clause", rv.Relname).
						WithPosition(rv.Location + 1)
				}
				plan := cte.plan
				if cte.shared != nil {
					plan = &SharedCTEScan{CTE: cte.shared, Out: slices.Clone(cte.shared.Plan.Columns())}
				}
				if cte.correlated {
					// The query reading it reads the enclosing
					// query's values too (a WITH query over it is
					// correlated).
					b.outerRefs++
				}
				if cte.correlated && cte.outer != outer {
					saved := b.ctes
					b.ctes = cte.withs
					p, err := b.bindSelect(cte.sel, outer)
					b.ctes = saved
					if err != nil {
						return nil, nil, err
					}
					plan = p
				}
				cols := aliasCols(plan.Columns(), alias, cte.cols)
				cols, err := aliasFrom(cols, alias, colNames)
				return plan, cols, err
			}
		}
	}
	if rel := b.systemRelation(rv); rel != nil {
		scan := &SystemScan{Rel: rel, Alias: alias}
		for i, c := range rel.Cols {
			scan.Out = append(scan.Out, Col{Name: c.Name, T: c.T, Table: alias, TableOID: uint32(rel.OID), Attnum: int16(i + 1)})
		}
		cols, err := aliasFrom(scan.Out, alias, colNames)
		return scan, cols, err
	}
	if v := b.lookupView(rv.Schemaname, rv.Relname); v != nil {
		if b.trace != nil {
			b.trace.rel(location, viewKey(v))
			b.trace.viewAliases[alias] = viewKey(v)
		}
		return b.bindView(v, alias, colNames)
	}
	if seq := b.findSequence(rv.Schemaname, rv.Relname); seq != nil && !b.tableNamed(rv.Schemaname, rv.Relname) {
		plan, cols := b.bindSequenceScan(seq, alias, colNames)
		return plan, cols, nil
	}
	def, err := b.rangeVarTable(rv)
	if err != nil {
		return nil, nil, pgerr.From(err).WithPosition(rv.Location + 1)
	}
	if b.trace != nil {
		b.trace.rel(location, tableKey(def.ID))
	}
	b.need(def, catalog.PrivSelect)
	// Every table scan offers its row ID as a hidden last column, which
	// search expressions use to look rows up in the text index; column
	// pruning drops it when nothing does.
	scan := &Scan{Table: def, Alias: alias, WithRowID: true}
	for i := range def.Columns {
		scan.Cols = append(scan.Cols, i)
	}
	scan.Out = append(tableCols(def, alias), Col{Name: catalog.RowIDColumn, T: types.Int8T, Table: alias, Hidden: true})
	plan, err := b.securityFilter(def, scan, catalog.PolicySelect)
	if err != nil {
		return nil, nil, err
	}
	cols, err := aliasFrom(scan.Out, alias, colNames)
	for i := range def.Columns {
		if err == nil {
			cols[i].Base = def
		}
	}
	return plan, cols, err
}

func (b *Binder) bindJoin(j *pg_query.JoinExpr, outer *scope) (Node, []Col, error) {
	left, lcols, err := b.bindFromItem(j.Larg, outer)
	if err != nil {
		return nil, nil, err
	}
	if isLateral(j.Rarg) {
		return b.bindLateralJoin(j, left, lcols, outer)
	}
	right, rcols, err := b.bindFromItem(j.Rarg, outer)
	if err != nil {
		return nil, nil, err
	}
	kind := map[pg_query.JoinType]JoinKind{
		pg_query.JoinType_JOIN_INNER: InnerJoin,
		pg_query.JoinType_JOIN_LEFT:  LeftJoin,
		pg_query.JoinType_JOIN_RIGHT: RightJoin,
		pg_query.JoinType_JOIN_FULL:  FullJoin,
	}[j.Jointype]
	cols := append(append([]Col{}, lcols...), rcols...)
	sc := &scope{cols: cols, outer: outer}
	join := &Join{Kind: kind, Left: left, Right: right, Out: cols}
	using := strList(j.UsingClause)
	if j.IsNatural {
		// The names both sides show: a nested USING or NATURAL join's
		// merged-away copies (and hidden columns) are not among them, so
		// a chain of natural joins joins on each common name once.
		for _, lc := range lcols {
			if lc.Hidden || lc.Merged || slices.Contains(using, lc.Name) {
				continue
			}
			if findCol(rcols, lc.Name) >= 0 {
				using = append(using, lc.Name)
			}
		}
	}
	var lUsing, rUsing []int
	switch {
	case len(using) > 0:
		var conds []Expr
		for _, name := range using {
			li, ri := findCol(lcols, name), findCol(rcols, name)
			if li < 0 || ri < 0 {
				return nil, nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, map[bool]string{true: "left", false: "right"}[li < 0])
			}
			b.useCol(lcols[li])
			b.useCol(rcols[ri])
			l := &ColumnRef{Index: li, Name: name, T: lcols[li].T}
			r := &ColumnRef{Index: len(lcols) + ri, Name: name, T: rcols[ri].T}
			eq, err := b.bindOperator("=", l, r)
			if err != nil {
				return nil, nil, err
			}
			conds = append(conds, eq)
			lUsing, rUsing = append(lUsing, li), append(rUsing, ri)
		}
		join.Cond = andAll(conds)
	case j.Quals != nil:
		cond, err := b.bindCondition(sc, j.Quals, "JOIN/ON")
		if err != nil {
			return nil, nil, err
		}
		join.Cond = cond
	default:
		join.Kind = CrossJoin
	}
	if join.Cond != nil {
		join.On = join.Cond
		splitEquiJoin(join, len(lcols))
	}
	var plan Node = join
	out := cols
	if len(using) > 0 {
		if plan, out, err = b.mergeUsing(join, lcols, rcols, using, lUsing, rUsing); err != nil {
			return nil, nil, err
		}
		if a := j.JoinUsingAlias; a != nil {
			// USING (...) AS name names the merged columns: copies only
			// name.column reaches, as the inputs' merged-away ones.
			p := plan.(*Project)
			for k := range using {
				c := p.Out[k]
				c.Table, c.Merged = a.Aliasname, true
				p.Exprs, p.Out = append(p.Exprs, p.Exprs[k]), append(p.Out, c)
			}
			out = p.Out
		}
	}
	if j.Alias != nil {
		if p, ok := plan.(*Project); ok {
			// Under an alias the inputs' names are gone, and with them
			// their own copies of the merged columns.
			var exprs []Expr
			var kept []Col
			for i, c := range p.Out {
				if !c.Merged {
					exprs, kept = append(exprs, p.Exprs[i]), append(kept, c)
				}
			}
			if out, err = aliasFromItem(kept, "join expression", j.Alias.Aliasname, strList(j.Alias.Colnames)); err != nil {
				return nil, nil, err
			}
			p.Exprs, p.Out = exprs, out
		} else {
			if out, err = aliasFromItem(out, "join expression", j.Alias.Aliasname, strList(j.Alias.Colnames)); err != nil {
				return nil, nil, err
			}
			join.Out = out
		}
	}
	return plan, out, nil
}

// mergeUsing projects a USING (or NATURAL) join's output as PostgreSQL
// shows it: the merged columns first, then the inputs' columns, whose own
// copies of the merged ones only their qualified names reach (Col.Merged).
// A merged column is the left value for inner and left joins, the right
// one for right joins and COALESCE of both for full joins, of the two
// columns' common type.
func (b *Binder) mergeUsing(join *Join, lcols, rcols []Col, using []string, lUsing, rUsing []int) (Node, []Col, error) {
	var exprs []Expr
	var out []Col
	for k, name := range using {
		lc, rc := lcols[lUsing[k]], rcols[rUsing[k]]
		l := &ColumnRef{Index: lUsing[k], Name: name, T: lc.T}
		r := &ColumnRef{Index: len(lcols) + rUsing[k], Name: name, T: rc.T}
		t, args, err := b.unify("JOIN/USING", []Expr{l, r})
		if err != nil {
			return nil, nil, err
		}
		col := Col{Name: name, T: t}
		switch join.Kind {
		case RightJoin:
			exprs = append(exprs, args[1])
			col.TableOID, col.Attnum = rc.TableOID, rc.Attnum
		case FullJoin:
			exprs = append(exprs, &Coalesce{Args: args, T: t})
		default:
			exprs = append(exprs, args[0])
			col.TableOID, col.Attnum = lc.TableOID, lc.Attnum
		}
		out = append(out, col)
	}
	for i, c := range join.Out {
		exprs = append(exprs, &ColumnRef{Index: i, Name: c.Name, T: c.T})
		if i < len(lcols) && slices.Contains(lUsing, i) || i >= len(lcols) && slices.Contains(rUsing, i-len(lcols)) {
			c.Merged = true
		}
		out = append(out, c)
	}
	return &Project{Input: join, Exprs: exprs, Out: out}, out, nil
}

func findCol(cols []Col, name string) int {
	for i, c := range cols {
		if c.Name == name && !c.Hidden && !c.Merged {
			return i
		}
	}
	return -1
}

func andAll(conds []Expr) Expr {
	if len(conds) == 1 {
		return conds[0]
	}
	return &BoolOp{Op: And, Args: conds}
}

// splitEquiJoin moves "left = right" conjuncts of the join condition into
// hash-join keys, leaving the rest as the residual condition.
func splitEquiJoin(j *Join, nLeft int) {
	var rest []Expr
	for _, c := range conjuncts(j.Cond) {
		call, ok := c.(*Call)
		if ok && call.Name == "=" && len(call.Args) == 2 {
			l, r := call.Args[0], call.Args[1]
			ls, rs := sideOf(l, nLeft), sideOf(r, nLeft)
			if ls == 1 && rs == 2 && l.Type().Equal(r.Type()) {
				j.EquiLeft = append(j.EquiLeft, l)
				j.EquiRight = append(j.EquiRight, shiftRefs(r, -nLeft))
				continue
			}
			if ls == 2 && rs == 1 && l.Type().Equal(r.Type()) {
				j.EquiLeft = append(j.EquiLeft, r)
				j.EquiRight = append(j.EquiRight, shiftRefs(l, -nLeft))
				continue
			}
		}
		rest = append(rest, c)
	}
	j.Cond = nil
	if len(rest) > 0 {
		j.Cond = andAll(rest)
	}
}

// conjuncts flattens nested ANDs.
func conjuncts(e Expr) []Expr {
	if bo, ok := e.(*BoolOp); ok && bo.Op == And {
		var out []Expr
		for _, a := range bo.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}

// sideOf tells which join input an expression reads: 1 left only, 2 right
// only, 0 neither, 3 both (or something not splittable, like a subquery).
func sideOf(e Expr, nLeft int) int {
	side := 0
	ok := true
	walkExpr(e, func(x Expr) {
		switch r := x.(type) {
		case *ColumnRef:
			if r.Index < nLeft {
				side |= 1
			} else {
				side |= 2
			}
		case *Subquery, *NextVal, *SeqFunc:
			ok = false
		}
	})
	if !ok {
		return 3
	}
	return side
}

// shiftRefs returns e with every column index moved by delta.
func shiftRefs(e Expr, delta int) Expr {
	out, _ := transformExpr(e, func(x Expr) (Expr, error) {
		if r, ok := x.(*ColumnRef); ok {
			return &ColumnRef{Index: r.Index + delta, Name: r.Name, T: r.T}, nil
		}
		return nil, nil
	})
	return out
}

// bindRangeFunction binds a set-returning function in FROM.
func (b *Binder) bindRangeFunction(rf *pg_query.RangeFunction, outer *scope) (Node, []Col, error) {
	if len(rf.Functions) != 1 || rf.IsRowsfrom {
		return b.bindRowsFrom(rf, outer)
	}
	fn := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fn == nil {
		return nil, nil, pgerr.NotSupported("this form of function in FROM")
	}
	name := nameOf(fn.Funcname)
	if name == "unnest" && len(fn.Args) > 1 && fn.AggOrder == nil && !fn.FuncVariadic {
		// unnest(a, b, ...) in FROM is ROWS FROM (unnest(a), unnest(b),
		// ...), as PostgreSQL expands it (Django reads pg_index's keys
		// and options so).
		calls := make([]*pg_query.Node, len(fn.Args))
		for i, a := range fn.Args {
			one := &pg_query.FuncCall{Funcname: fn.Funcname, Args: []*pg_query.Node{a}, Location: fn.Location, Funcformat: fn.Funcformat}
			calls[i] = &pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: []*pg_query.Node{{Node: &pg_query.Node_FuncCall{FuncCall: one}}}}}}
		}
		expanded := &pg_query.RangeFunction{Lateral: rf.Lateral, Ordinality: rf.Ordinality, IsRowsfrom: true, Functions: calls, Alias: rf.Alias}
		return b.bindRowsFrom(expanded, outer)
	}
	if name == "pg_show_all_settings" && len(fn.Args) == 0 && len(rf.Coldeflist) == 0 && !rf.Ordinality {
		// pg_settings is this function's rows (PostgreSQL defines the view
		// so); pgAdmin calls it when it connects.
		alias := rf.Alias
		if alias == nil {
			alias = &pg_query.Alias{Aliasname: name}
		}
		rv := &pg_query.RangeVar{Schemaname: "pg_catalog", Relname: "pg_settings", Inh: true, Relpersistence: "p", Alias: alias}
		return b.bindFromItem(&pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: rv}}, outer)
	}
	sc := &scope{outer: outer}
	argNodes, err := b.positionalArgs(sc, fn.Funcname, fn.Args)
	if err != nil {
		return nil, nil, pgerr.From(err).WithPositionIfUnset(fn.Location + 1)
	}
	args, err := b.bindExprs(sc, argNodes)
	if err != nil {
		return nil, nil, err
	}
	alias := name
	var colNames []string
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		colNames = strList(rf.Alias.Colnames)
	}
	set := functions.SetReturningFunc(name)
	if set == nil && len(functions.Overloads(name)) == 0 && !fn.FuncVariadic {
		// A set-returning function of CREATE FUNCTION.
		if def := b.lookupFunction(strList(fn.Funcname), args); def != nil && def.Setof {
			if _, inlined := returnQuery(def.Body); def.Language != "plpgsql" || inlined {
				return b.bindFunctionScan(def, fn, argNodes, rf, outer)
			}
			// A PL/pgSQL body run at each call.
			if argNodes, err = withDefaults(def, argNodes); err != nil {
				return nil, nil, err
			}
			if args, err = b.bindExprs(sc, argNodes); err != nil {
				return nil, nil, err
			}
			if set, err = b.plSetReturning(def); err != nil {
				return nil, nil, err
			}
			if rf.Ordinality || len(rf.Coldeflist) > 0 {
				return nil, nil, pgerr.NotSupported("WITH ORDINALITY or a column definition list on function %s", def.Name).WithPosition(fn.Location + 1)
			}
		}
	}
	record := set != nil && set.RecordRows != nil
	if len(rf.Coldeflist) > 0 && !record && (set != nil || len(functions.Overloads(name)) > 0) {
		// AS f(a int, ...) is for functions returning "record" only.
		err := pgerr.New(pgerrcode.SyntaxError, "a column definition list is only allowed for functions returning \"record\"")
		if cd := rf.Coldeflist[0].GetColumnDef(); cd != nil {
			err = err.WithPosition(cd.Location + 1)
		}
		return nil, nil, err
	}
	if set == nil && len(functions.Overloads(name)) > 0 {
		// A scalar function in FROM is a relation of one row.
		if rf.Ordinality {
			return nil, nil, pgerr.NotSupported("WITH ORDINALITY on a function that returns no set")
		}
		e, err := b.bindCall(name, args, nil)
		if err != nil {
			return nil, nil, pgerr.From(err).WithPosition(fn.Location + 1)
		}
		if len(colNames) == 0 {
			colNames = []string{alias}
		}
		v := &Values{Rows: [][]Expr{{e}}, Out: []Col{{Name: name, T: e.Type(), FuncValue: true}}}
		cols, err := aliasFrom(v.Out, alias, colNames)
		return v, cols, err
	}
	if set == nil {
		if functions.IsAggregate(name) {
			return nil, nil, pgerr.NotSupported("function %s in FROM", name)
		}
		return nil, nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	srf, err := b.bindSRF(set, args)
	if err != nil {
		return nil, nil, err
	}
	if record {
		if rf.Ordinality && len(rf.Coldeflist) > 0 {
			return nil, nil, pgerr.New(pgerrcode.SyntaxError, "WITH ORDINALITY cannot be used with a column definition list").
				WithHint("Put the column definition list inside ROWS FROM().")
		}
		if srf.Out, err = b.columnDefinitions(rf, fn); err != nil {
			return nil, nil, err
		}
	}
	if len(colNames) == 0 && len(srf.Out) == 1 && srf.Out[0].Name == name {
		// A function with an anonymous result (unnest, generate_series)
		// names its column after the alias; jsonb_array_elements keeps
		// "value".
		colNames = []string{alias}
	}
	if len(srf.Out) == 1 && !rf.Ordinality {
		srf.Out[0].FuncValue = true
	}
	if rf.Ordinality {
		srf.Ordinality = true
		srf.Out = append(srf.Out, Col{Name: "ordinality", T: types.Int8T})
	}
	cols, err := aliasFrom(srf.Out, alias, colNames)
	return srf, cols, err
}

// bindRowsFrom binds ROWS FROM (f(...), g(...), ...) [WITH ORDINALITY]:
// the rows of each set-returning function side by side, the shorter sets
// padded with NULLs. Each function's column is named after it.
func (b *Binder) bindRowsFrom(rf *pg_query.RangeFunction, outer *scope) (Node, []Col, error) {
	zip := &SRF{Name: "rows from"}
	sc := &scope{outer: outer}
	for _, item := range rf.Functions {
		items := item.GetList().GetItems()
		fn := items[0].GetFuncCall()
		if fn == nil || len(items) > 1 && items[1] != nil && len(items[1].GetList().GetItems()) > 0 {
			return nil, nil, pgerr.NotSupported("this form of function in ROWS FROM")
		}
		name := nameOf(fn.Funcname)
		set := functions.SetReturningFunc(name)
		if set == nil || set.RecordRows != nil {
			return nil, nil, pgerr.NotSupported("function %s in ROWS FROM (set-returning functions of known columns only)", name).WithPosition(fn.Location + 1)
		}
		args, err := b.bindExprs(sc, fn.Args)
		if err != nil {
			return nil, nil, err
		}
		srf, err := b.bindSRF(set, args)
		if err != nil {
			return nil, nil, pgerr.From(err).WithPosition(fn.Location + 1)
		}
		zip.Zip = append(zip.Zip, srf)
		zip.Out = append(zip.Out, srf.Out...)
	}
	alias := zip.Name
	var colNames []string
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		colNames = strList(rf.Alias.Colnames)
	}
	if rf.Ordinality {
		zip.Ordinality = true
		zip.Out = append(zip.Out, Col{Name: "ordinality", T: types.Int8T})
	}
	cols, err := aliasFrom(zip.Out, alias, colNames)
	return zip, cols, err
}

// columnDefinitions binds the column definition list of a function
// returning "record" in FROM (json_to_record(...) AS x(a int, b text)):
// its output columns.
func (b *Binder) columnDefinitions(rf *pg_query.RangeFunction, fn *pg_query.FuncCall) ([]Col, error) {
	if len(rf.Coldeflist) == 0 {
		return nil, pgerr.New(pgerrcode.SyntaxError, "a column definition list is required for functions returning \"record\"").
			WithPosition(fn.Location + 1)
	}
	out := make([]Col, len(rf.Coldeflist))
	for i, n := range rf.Coldeflist {
		cd := n.GetColumnDef()
		if cd == nil {
			return nil, pgerr.NotSupported("this kind of column definition")
		}
		t, err := b.typeFromName(cd.TypeName)
		if err != nil {
			return nil, err
		}
		for _, prev := range out[:i] {
			if prev.Name == cd.Colname {
				return nil, pgerr.New(pgerrcode.DuplicateColumn, "column name \"%s\" specified more than once", cd.Colname).WithPosition(cd.Location + 1)
			}
		}
		out[i] = Col{Name: cd.Colname, T: t}
	}
	return out, nil
}

// SRF is a set-returning function in FROM (generate_series, unnest,
// jsonb_array_elements, ...): it produces rows from constant arguments.
type SRF struct {
	Name string
	// Fn is the function, which generates the rows.
	Fn   *functions.SetReturning
	Args []Expr
	Out  []Col
	// Ordinality (WITH ORDINALITY) adds a last column numbering the rows
	// from 1.
	Ordinality bool
	// AsRecord makes a function of several columns return its rows as
	// records (a select-list call; see ResultType).
	AsRecord bool
	// Zip, when set, makes the node ROWS FROM (...) of these functions
	// (Fn and Args unset): their rows side by side, the shorter sets
	// padded with NULLs; Out is their columns in order.
	Zip []*SRF
}

// ResultType is the type of a select-list call's value: its one column,
// or with AsRecord a record of its columns.
func (n *SRF) ResultType() types.T {
	if !n.AsRecord {
		return n.Out[0].T
	}
	fields := make([]types.Field, len(n.Out))
	for i, c := range n.Out {
		fields[i] = types.Field{Name: c.Name, T: c.T}
	}
	return types.T{Family: types.Record, Mod: -1, Fields: fields}
}

// Columns implements Node.
func (n *SRF) Columns() []Col { return n.Out }

// Children implements Node.
func (n *SRF) Children() []Node { return nil }

// String implements Node.
func (n *SRF) String() string { return "Function Scan on " + n.Name }

// bindSRF binds a call of the set-returning function fn: its Type hook
// types the call, and the binder converts each argument to the type the
// hook asks for.
func (b *Binder) bindSRF(fn *functions.SetReturning, args []Expr) (*SRF, error) {
	name := fn.Name
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	sig, ok, err := fn.Type(ts, func(ts []types.T) (types.T, error) { return commonType(name, ts) })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	}
	srf := &SRF{Name: name, Fn: fn, Args: make([]Expr, len(args)), Out: make([]Col, len(sig.Out))}
	for i, a := range args {
		if i < len(sig.Params) {
			if a, err = b.coerce(a, sig.Params[i], castImplicit); err != nil {
				return nil, err
			}
		}
		srf.Args[i] = a
	}
	for i, c := range sig.Out {
		srf.Out[i] = Col{Name: c.Name, T: c.T}
	}
	return srf, nil
}

func typeList(args []Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.Type().String()
	}
	return s
}

// systemRelation resolves a FROM name to a system relation: qualified
// with pg_catalog or information_schema, or a bare name of pg_catalog
// (searched before the search path, as PostgreSQL does) or of
// information_schema when that schema is on the search path.
func (b *Binder) systemRelation(rv *pg_query.RangeVar) *syscat.Relation {
	if rv.Schemaname != "" {
		return syscat.Lookup(rv.Schemaname, rv.Relname)
	}
	if rel := syscat.Lookup("pg_catalog", rv.Relname); rel != nil {
		return rel
	}
	for _, s := range b.SearchPath {
		if s == "information_schema" {
			return syscat.Lookup(s, rv.Relname)
		}
	}
	return nil
}
