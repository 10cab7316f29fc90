package sql

import (
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// The SEARCH and CYCLE clauses of WITH RECURSIVE (PostgreSQL 14) add
// columns that both terms of the recursive query compute, as PostgreSQL's
// rewriteSearchAndCycle does:
//
//   - SEARCH DEPTH FIRST BY c1, c2 SET seq: seq is an array of the rows
//     (c1, c2) on the path to the row: ARRAY[ROW(c1, c2)] in the
//     non-recursive term, the work table row's seq || ARRAY[ROW(c1, c2)]
//     in the recursive one. ORDER BY seq is depth-first order.
//   - SEARCH BREADTH FIRST BY c1, c2 SET seq: seq is ROW(depth, c1, c2),
//     depth 0 in the non-recursive term and one more than the work table
//     row's in the recursive one. ORDER BY seq is breadth-first order.
//   - CYCLE c1, c2 SET mark [TO v DEFAULT d] USING path: path is the
//     array of the rows (c1, c2) as seq of depth first; mark is v when
//     the row's (c1, c2) is already on its path, else d (true and false
//     by default); the recursive term reads only the work table rows
//     not marked, so a cycle ends at the row that closes it.
//
// The columns come after the query's, in that order (seq, mark, path).
// The recursive term reads them from its work table by name but not in
// its * (Col.ByName), as in PostgreSQL.

// searchCycle is the SEARCH and CYCLE clauses of one WITH RECURSIVE
// query, bound.
type searchCycle struct {
	search *pg_query.CTESearchClause
	cycle  *pg_query.CTECycleClause
	// by and cycleBy are the indexes of the SEARCH and CYCLE columns
	// among the query's.
	by, cycleBy []int
	// mark and unmarked are CYCLE's TO and DEFAULT values, of its mark
	// column's type.
	mark, unmarked Expr
}

// bindSearchCycle binds cte's SEARCH and CYCLE clauses; nil when it has
// neither. As PostgreSQL, it settles the mark column's type before the
// query is bound: the common type of TO and DEFAULT, which must have an
// equality operator and its negator.
func (b *Binder) bindSearchCycle(cte *pg_query.CommonTableExpr) (*searchCycle, error) {
	s := &searchCycle{search: cte.GetSearchClause(), cycle: cte.GetCycleClause()}
	if s.search == nil && s.cycle == nil {
		return nil, nil
	}
	if s.cycle == nil {
		return s, nil
	}
	if s.cycle.CycleMarkValue == nil {
		s.mark, s.unmarked = &Const{Value: true, T: types.BoolT}, &Const{Value: false, T: types.BoolT}
		return s, nil
	}
	var err error
	empty := &scope{}
	if s.mark, err = b.bindExpr(empty, s.cycle.CycleMarkValue); err != nil {
		return nil, err
	}
	if s.unmarked, err = b.bindExpr(empty, s.cycle.CycleMarkDefault); err != nil {
		return nil, err
	}
	t, err := commonType("CYCLE", []types.T{s.mark.Type(), s.unmarked.Type()})
	if err != nil {
		return nil, err
	}
	if s.mark, err = b.coerce(s.mark, t, castImplicit); err != nil {
		return nil, err
	}
	if s.unmarked, err = b.coerce(s.unmarked, t, castImplicit); err != nil {
		return nil, err
	}
	for _, op := range []string{"=", "<>"} {
		if _, err := b.bindOperator(op, s.mark, s.unmarked); err != nil {
			what := "an equality"
			if op == "<>" {
				what = "an inequality"
			}
			return nil, pgerr.New(pgerrcode.UndefinedFunction, "could not identify %s operator for type %s", what, t)
		}
	}
	return s, nil
}

// bindNotRecursive binds the query of a WITH query that does not refer to
// itself, refusing its SEARCH or CYCLE clause as PostgreSQL does: once
// the clauses' mark type is settled and the query bound.
func (b *Binder) bindNotRecursive(cte *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, outer *scope) (Node, error) {
	sc, err := b.bindSearchCycle(cte)
	if err != nil {
		return nil, err
	}
	plan, err := b.bindSelect(sel, outer)
	if err == nil && sc != nil {
		err = pgerr.New(pgerrcode.SyntaxError, "WITH query is not recursive").WithPosition(cte.Location + 1)
	}
	return plan, err
}

// checkForm refuses a recursive query the clauses cannot extend, as
// PostgreSQL does: each side of its UNION must be a plain SELECT, and the
// recursive term must read the work table in its own FROM clause, not in
// a subquery. It returns the name the recursive term reads the work
// table's columns by.
func (s *searchCycle) checkForm(sel *pg_query.SelectStmt, name string) (string, error) {
	if sel.Larg.Op != pg_query.SetOperation_SETOP_NONE {
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT")
	}
	if sel.Rarg.Op != pg_query.SetOperation_SETOP_NONE {
		return "", pgerr.New(pgerrcode.SyntaxError, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT")
	}
	for _, f := range sel.Rarg.FromClause {
		if qual := workTableName(f, name); qual != "" {
			return qual, nil
		}
	}
	return "", pgerr.New(pgerrcode.FeatureNotSupported, "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"%s\" must be at the top level of its right-hand SELECT", name)
}

// workTableName is the name by which FROM item n exposes the columns of
// the reference to the WITH query name it holds directly or through its
// joins: the reference's alias, or that of the outermost join holding
// it; "" when n holds none.
func workTableName(n *pg_query.Node, name string) string {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		if rv := v.RangeVar; rv.Schemaname == "" && rv.Relname == name {
			if rv.Alias != nil {
				return rv.Alias.Aliasname
			}
			return name
		}
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		qual := workTableName(j.Larg, name)
		if qual == "" {
			qual = workTableName(j.Rarg, name)
		}
		if qual != "" && j.Alias != nil {
			return j.Alias.Aliasname
		}
		return qual
	}
	return ""
}

// columns checks the clauses against the query's column names (those of
// its work table, cols) and returns the columns they add, typed.
func (s *searchCycle) columns(cols []Col) ([]Col, error) {
	var extra []Col
	if s.search != nil {
		by, row, err := clauseColumns(cols, s.search.SearchColList, "search", s.search.Location)
		if err != nil {
			return nil, err
		}
		s.by = by
		seq := types.ArrayOf(row, 1)
		if s.search.SearchBreadthFirst {
			seq = types.RecordT
			seq.Fields = append([]types.Field{{Name: "f1", T: types.Int8T}}, row.Fields...)
			for i := range seq.Fields {
				seq.Fields[i].Name = "f" + itoa(int64(i+1))
			}
		}
		extra = append(extra, Col{Name: s.search.SearchSeqColumn, T: seq})
	}
	if s.cycle != nil {
		by, row, err := clauseColumns(cols, s.cycle.CycleColList, "cycle", s.cycle.Location)
		if err != nil {
			return nil, err
		}
		s.cycleBy = by
		extra = append(extra, Col{Name: s.cycle.CycleMarkColumn, T: s.mark.Type()}, Col{Name: s.cycle.CyclePathColumn, T: types.ArrayOf(row, 1)})
	}
	return extra, nil
}

// clauseColumns is the indexes among cols of a clause's column list
// (what is "search" or "cycle") and the type of the row of them.
func clauseColumns(cols []Col, list []*pg_query.Node, what string, location int32) ([]int, types.T, error) {
	var by []int
	row := types.RecordT
	for _, n := range strList(list) {
		i := slices.IndexFunc(cols, func(c Col) bool { return c.Name == n })
		if i < 0 {
			return nil, row, pgerr.New(pgerrcode.SyntaxError, "%s column \"%s\" not in WITH query column list", what, n).WithPosition(location + 1)
		}
		if slices.Contains(by, i) {
			return nil, row, pgerr.New(pgerrcode.DuplicateColumn, "%s column \"%s\" specified more than once", what, n).WithPosition(location + 1)
		}
		by = append(by, i)
		row.Fields = append(row.Fields, types.Field{Name: "f" + itoa(int64(len(by))), T: cols[i].T})
	}
	return by, row, nil
}

// checkNames refuses added columns named as the query's columns or as
// each other, with PostgreSQL's errors.
func (s *searchCycle) checkNames(cols []Col) error {
	used := func(name string) bool {
		return slices.ContainsFunc(cols, func(c Col) bool { return c.Name == name })
	}
	if s.search != nil && used(s.search.SearchSeqColumn) {
		return pgerr.New(pgerrcode.SyntaxError, "search sequence column name \"%s\" already used in WITH query column list", s.search.SearchSeqColumn).WithPosition(s.search.Location + 1)
	}
	if s.cycle != nil {
		for _, c := range []struct{ what, name string }{{"mark", s.cycle.CycleMarkColumn}, {"path", s.cycle.CyclePathColumn}} {
			if used(c.name) {
				return pgerr.New(pgerrcode.SyntaxError, "cycle %s column name \"%s\" already used in WITH query column list", c.what, c.name).WithPosition(s.cycle.Location + 1)
			}
		}
		if s.cycle.CycleMarkColumn == s.cycle.CyclePathColumn {
			return pgerr.New(pgerrcode.SyntaxError, "cycle mark column name and cycle path column name are the same").WithPosition(s.cycle.Location + 1)
		}
	}
	if s.search != nil && s.cycle != nil {
		for _, c := range []struct{ what, name string }{{"cycle mark", s.cycle.CycleMarkColumn}, {"cycle path", s.cycle.CyclePathColumn}} {
			if s.search.SearchSeqColumn == c.name {
				return pgerr.New(pgerrcode.SyntaxError, "search sequence column name and %s column name are the same", c.what).WithPosition(s.search.Location + 1)
			}
		}
	}
	return nil
}

// stepQuery is the recursive term step reading also the added columns
// of the work table row each of its rows comes from (qual is the name it
// reads that table by), after its own columns; step is left as it is
// (a query bound again binds it again).
func stepQuery(step *pg_query.SelectStmt, qual string, extra []Col) *pg_query.SelectStmt {
	step = proto.Clone(step).(*pg_query.SelectStmt)
	for _, c := range extra {
		ref := &pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode(qual), pg_query.MakeStrNode(c.Name)}}
		step.TargetList = append(step.TargetList, pg_query.MakeResTargetNodeWithVal(&pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: ref}}, 0))
	}
	return step
}

// base computes the added columns over the non-recursive term's rows
// (in): depth 0, paths of one row, rows not marked.
func (s *searchCycle) base(in Node, out []Col) Node {
	n := len(in.Columns())
	exprs := passThrough(in.Columns())
	if s.search != nil {
		row := s.row(in.Columns(), s.by)
		if s.search.SearchBreadthFirst {
			exprs = append(exprs, &RowExpr{Args: append([]Expr{&Const{Value: int64(0), T: types.Int8T}}, row.Args...), T: out[n].T})
		} else {
			exprs = append(exprs, &ArrayExpr{Elems: []Expr{row}, T: out[n].T})
		}
	}
	if s.cycle != nil {
		exprs = append(exprs, s.unmarked, &ArrayExpr{Elems: []Expr{s.row(in.Columns(), s.cycleBy)}, T: out[len(out)-1].T})
	}
	return &Project{Input: in, Exprs: exprs, Out: out}
}

// step computes the added columns over the recursive term's rows (in:
// its own columns, then the work table row's added ones): one deeper,
// the path one row longer, marked when the row is on the path already.
// A CYCLE's recursive term reads only work table rows not marked.
func (s *searchCycle) step(b *Binder, in Node, out []Col) (Node, error) {
	cols := in.Columns()
	n := len(out) // the query's own columns
	if s.search != nil {
		n--
	}
	if s.cycle != nil {
		n -= 2
	}
	exprs := passThrough(cols[:n])
	at := n // the next added column
	if s.search != nil {
		row := s.row(cols, s.by)
		seq := &ColumnRef{Index: at, Name: cols[at].Name, T: cols[at].T}
		if s.search.SearchBreadthFirst {
			depth, err := b.bindOperator("+", &FieldSelect{Arg: seq, Index: 0, Name: "f1", T: types.Int8T}, &Const{Value: int64(1), T: types.Int8T})
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, &RowExpr{Args: append([]Expr{depth}, row.Args...), T: out[at].T})
		} else {
			e, err := b.bindOperator("||", seq, &ArrayExpr{Elems: []Expr{row}, T: out[at].T})
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, e)
		}
		at++
	}
	if s.cycle != nil {
		mark := &ColumnRef{Index: at, Name: cols[at].Name, T: cols[at].T}
		path := &ColumnRef{Index: at + 1, Name: cols[at+1].Name, T: cols[at+1].T}
		unmarked, err := b.bindOperator("<>", mark, s.mark)
		if err != nil {
			return nil, err
		}
		in = &Filter{Input: in, Cond: unmarked}
		row := s.row(cols, s.cycleBy)
		onPath, err := b.bindAnyAll("=", row, path, false)
		if err != nil {
			return nil, err
		}
		longer, err := b.bindOperator("||", path, &ArrayExpr{Elems: []Expr{row}, T: path.T})
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, &Case{Whens: []When{{Cond: onPath, Result: s.mark}}, Else: s.unmarked, T: mark.T}, longer)
	}
	return &Project{Input: in, Exprs: exprs, Out: out}, nil
}

// row is ROW(cols[by[0]], cols[by[1]], ...).
func (s *searchCycle) row(cols []Col, by []int) *RowExpr {
	row := &RowExpr{T: types.RecordT}
	for i, c := range by {
		row.Args = append(row.Args, &ColumnRef{Index: c, Name: cols[c].Name, T: cols[c].T})
		row.T.Fields = append(row.T.Fields, types.Field{Name: "f" + itoa(int64(i+1)), T: cols[c].T})
	}
	return row
}

// passThrough is a reference to each of cols.
func passThrough(cols []Col) []Expr {
	exprs := make([]Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &ColumnRef{Index: i, Name: c.Name, T: c.T}
	}
	return exprs
}
