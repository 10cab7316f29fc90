package sql

import (
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

func (b *Binder) bindFromItem(item *pg_query.Node, outer *scope) (Node, []Col, error) {
	switch v := item.Node.(type) {
	case *pg_query.Node_RangeVar:
		return b.bindRangeVar(v.RangeVar)
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
		return plan, aliasCols(plan.Columns(), alias, colNames), nil
	case *pg_query.Node_JoinExpr:
		return b.bindJoin(v.JoinExpr, outer)
	case *pg_query.Node_RangeFunction:
		return b.bindRangeFunction(v.RangeFunction, outer)
	}
	return nil, nil, pgerr.NotSupported("this kind of FROM item")
}

// aliasCols renames columns for a FROM alias (t(a, b)).
func aliasCols(in []Col, alias string, names []string) []Col {
	out := make([]Col, len(in))
	for i, c := range in {
		c.Table = alias
		if i < len(names) {
			c.Name = names[i]
		}
		out[i] = c
	}
	return out
}

func (b *Binder) bindRangeVar(rv *pg_query.RangeVar) (Node, []Col, error) {
	alias := rv.Relname
	var colNames []string
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
		colNames = strList(rv.Alias.Colnames)
	}
	if rv.Schemaname == "" {
		for i := len(b.ctes) - 1; i >= 0; i-- {
			if cte, ok := b.ctes[i][rv.Relname]; ok {
				cols := aliasCols(cte.plan.Columns(), alias, cte.cols)
				return cte.plan, aliasCols(cols, alias, colNames), nil
			}
		}
	}
	if rel := b.systemRelation(rv); rel != nil {
		scan := &SystemScan{Rel: rel, Alias: alias}
		for _, c := range rel.Cols {
			scan.Out = append(scan.Out, Col{Name: c.Name, T: c.T, Table: alias})
		}
		return scan, aliasCols(scan.Out, alias, colNames), nil
	}
	if v := b.lookupView(rv.Schemaname, rv.Relname); v != nil {
		return b.bindView(v, alias, colNames)
	}
	def, err := b.rangeVarTable(rv)
	if err != nil {
		return nil, nil, pgerr.From(err).WithPosition(rv.Location + 1)
	}
	// Every table scan offers its row ID as a hidden last column, which
	// search expressions use to look rows up in the text index; column
	// pruning drops it when nothing does.
	scan := &Scan{Table: def, Alias: alias, WithRowID: true}
	for i := range def.Columns {
		scan.Cols = append(scan.Cols, i)
	}
	scan.Out = append(tableCols(def, alias), Col{Name: RowIDColumn, T: types.Int8T, Table: alias, Hidden: true})
	return scan, aliasCols(scan.Out, alias, colNames), nil
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
		for _, lc := range lcols {
			for _, rc := range rcols {
				if lc.Name == rc.Name && !lc.Hidden {
					using = append(using, lc.Name)
				}
			}
		}
	}
	switch {
	case len(using) > 0:
		var conds []Expr
		for _, name := range using {
			li, ri := findCol(lcols, name), findCol(rcols, name)
			if li < 0 || ri < 0 {
				return nil, nil, pgerr.New(pgerrcode.UndefinedColumn, "column \"%s\" specified in USING clause does not exist in %s table", name, map[bool]string{true: "left", false: "right"}[li < 0])
			}
			l := &ColumnRef{Index: li, Name: name, T: lcols[li].T}
			r := &ColumnRef{Index: len(lcols) + ri, Name: name, T: rcols[ri].T}
			eq, err := b.bindOperator("=", l, r)
			if err != nil {
				return nil, nil, err
			}
			conds = append(conds, eq)
			// The merged column appears once in "*": hide the right copy.
			cols[len(lcols)+ri].Hidden = true
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
	out := cols
	if j.Alias != nil {
		out = aliasCols(cols, j.Alias.Aliasname, strList(j.Alias.Colnames))
	}
	join.Out = out
	return join, out, nil
}

func findCol(cols []Col, name string) int {
	for i, c := range cols {
		if c.Name == name && !c.Hidden {
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
		return nil, nil, pgerr.NotSupported("this form of function in FROM")
	}
	fn := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fn == nil {
		return nil, nil, pgerr.NotSupported("this form of function in FROM")
	}
	name := nameOf(fn.Funcname)
	sc := &scope{outer: outer}
	args := make([]Expr, len(fn.Args))
	for i, a := range fn.Args {
		e, err := b.bindExpr(sc, a)
		if err != nil {
			return nil, nil, err
		}
		args[i] = e
	}
	alias := name
	var colNames []string
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
		colNames = strList(rf.Alias.Colnames)
	}
	if !isSetReturning(name) && len(functions.Overloads(name)) > 0 {
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
		v := &Values{Rows: [][]Expr{{e}}, Out: []Col{{Name: name, T: e.Type()}}}
		return v, aliasCols(v.Out, alias, colNames), nil
	}
	srf, err := b.bindSRF(name, args)
	if err != nil {
		return nil, nil, err
	}
	if len(colNames) == 0 && len(srf.Out) == 1 && srf.Out[0].Name == name {
		// A function with an anonymous result (unnest, generate_series)
		// names its column after the alias; jsonb_array_elements keeps
		// "value".
		colNames = []string{alias}
	}
	if rf.Ordinality {
		srf.Ordinality = true
		srf.Out = append(srf.Out, Col{Name: "ordinality", T: types.Int8T})
	}
	return srf, aliasCols(srf.Out, alias, colNames), nil
}

// SRF is a set-returning function in FROM (generate_series, unnest,
// jsonb_array_elements, ...): it produces rows from constant arguments.
type SRF struct {
	Name string
	Args []Expr
	Out  []Col
	// Ordinality (WITH ORDINALITY) adds a last column numbering the rows
	// from 1.
	Ordinality bool
	// AsRecord makes a function of several columns return its rows as
	// records (a select-list call; see ResultType).
	AsRecord bool
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

func (b *Binder) bindSRF(name string, args []Expr) (*SRF, error) {
	srf := &SRF{Name: name, Args: args}
	switch name {
	case "generate_series":
		if len(args) < 2 || len(args) > 3 {
			break
		}
		t, err := commonType("generate_series", []types.T{args[0].Type(), args[1].Type()})
		if err != nil {
			return nil, err
		}
		if t.IsInteger() && t.Family != types.Int8 {
			t = types.Int4T
		}
		if t.Family == types.Numeric || t.Family == types.Float4 {
			t = types.NumericT
		}
		if t.Family == types.DateFamily {
			t = types.TimestampTZT
		}
		for i := 0; i < 2; i++ {
			if srf.Args[i], err = b.coerce(args[i], t, castImplicit); err != nil {
				return nil, err
			}
		}
		if len(args) == 3 {
			step := t
			if t.Family == types.TimestampFamily || t.Family == types.TimestampTZ {
				step = types.IntervalT
			}
			if srf.Args[2], err = b.coerce(args[2], step, castImplicit); err != nil {
				return nil, err
			}
		}
		srf.Out = []Col{{Name: "generate_series", T: t}}
		return srf, nil
	case "_pg_expandarray":
		// information_schema._pg_expandarray(anyarray): each element x
		// with its position n, as pgjdbc's getPrimaryKeys reads indkey.
		if len(args) != 1 || !args[0].Type().IsArray() {
			break
		}
		srf.Out = []Col{{Name: "x", T: *args[0].Type().Elem}, {Name: "n", T: types.Int4T}}
		return srf, nil
	case "pg_get_keywords":
		if len(args) != 0 {
			break
		}
		srf.Out = []Col{{Name: "word", T: types.TextT}, {Name: "catcode", T: types.TextT}, {Name: "barelabel", T: types.BoolT},
			{Name: "catdesc", T: types.TextT}, {Name: "baredesc", T: types.TextT}}
		return srf, nil
	case "generate_subscripts":
		if len(args) != 2 || !args[0].Type().IsArray() {
			break
		}
		var err error
		if srf.Args[1], err = b.coerce(args[1], types.Int4T, castImplicit); err != nil {
			return nil, err
		}
		srf.Out = []Col{{Name: "generate_subscripts", T: types.Int4T}}
		return srf, nil
	case "pg_partition_ancestors":
		// cairn has no partitioned tables: a relation is its only ancestor.
		if len(args) != 1 {
			break
		}
		regclass := types.T{Family: types.RegClass, Mod: -1}
		var err error
		if srf.Args[0], err = b.coerce(args[0], regclass, castImplicit); err != nil {
			return nil, err
		}
		srf.Out = []Col{{Name: "relid", T: regclass}}
		return srf, nil
	case "unnest":
		if len(args) != 1 || !args[0].Type().IsArray() {
			break
		}
		srf.Out = []Col{{Name: "unnest", T: *args[0].Type().Elem}}
		return srf, nil
	case "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text":
		if len(args) != 1 {
			break
		}
		jt := types.JSONBT
		if name[:5] == "json_" {
			jt = types.JSONT
		}
		var err error
		if srf.Args[0], err = b.coerce(args[0], jt, castImplicit); err != nil {
			return nil, err
		}
		out := jt
		if len(name) > 5 && name[len(name)-5:] == "_text" {
			out = types.TextT
		}
		srf.Out = []Col{{Name: "value", T: out}}
		return srf, nil
	case "jsonb_each", "jsonb_each_text", "json_each", "json_each_text":
		if len(args) != 1 {
			break
		}
		jt := types.JSONBT
		if name[:5] == "json_" {
			jt = types.JSONT
		}
		var err error
		if srf.Args[0], err = b.coerce(args[0], jt, castImplicit); err != nil {
			return nil, err
		}
		vt := jt
		if name[len(name)-5:] == "_text" {
			vt = types.TextT
		}
		srf.Out = []Col{{Name: "key", T: types.TextT}, {Name: "value", T: vt}}
		return srf, nil
	case "jsonb_object_keys", "json_object_keys":
		if len(args) != 1 {
			break
		}
		var err error
		if srf.Args[0], err = b.coerce(args[0], types.JSONBT, castImplicit); err != nil {
			return nil, err
		}
		srf.Out = []Col{{Name: name, T: types.TextT}}
		return srf, nil
	case "regexp_matches", "regexp_split_to_table", "string_to_table":
		if len(args) < 2 || len(args) > 3 {
			break
		}
		text, ok := b.coerceAll(args, types.TextT)
		if !ok {
			break
		}
		srf.Args = text
		out := types.TextT
		switch name {
		case "regexp_matches":
			out = types.ArrayOf(types.TextT, 1)
		case "string_to_table":
			// string_to_table(s, d [, null]) is unnest(string_to_array(s,
			// d [, null])), whose NULL handling it shares: unlike the
			// other functions it is not strict (a NULL delimiter splits
			// into characters), while a NULL array gives no rows.
			arr, err := b.bindCall("string_to_array", text, nil)
			if err != nil {
				return nil, err
			}
			srf.Args = []Expr{arr}
		}
		srf.Out = []Col{{Name: name, T: out}}
		return srf, nil
	default:
		if len(functions.Overloads(name)) == 0 && !functions.IsAggregate(name) {
			return nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		return nil, pgerr.NotSupported("function %s in FROM", name)
	}
	return nil, pgerr.New(pgerrcode.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
}

// coerceAll converts args to t by implicit casts, as resolving a function
// whose parameters are all of type t does; false when one does not
// convert. args is left as it was.
func (b *Binder) coerceAll(args []Expr, t types.T) ([]Expr, bool) {
	out := make([]Expr, len(args))
	for i, a := range args {
		e, err := b.coerce(a, t, castImplicit)
		if err != nil {
			return nil, false
		}
		out[i] = e
	}
	return out, true
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
