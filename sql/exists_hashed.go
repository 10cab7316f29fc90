package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
)

// existsHashed returns, for EXISTS (sel) in scope sc whose query reads the
// outer row through one equality of its WHERE clause,
//
//	EXISTS (SELECT ... FROM f WHERE inner = o.col AND rest)
//
// the uncorrelated "o.col IN (SELECT inner FROM f WHERE rest)" (nil for
// any other query). The two agree but for NULL, which IN gives where
// EXISTS is false, and the executor reads NULL as false. As PostgreSQL's
// pull-up of EXISTS into a semi join, it leaves queries with grouping,
// DISTINCT, limits, set operations, WITH, locking, volatile functions or
// other subqueries, and target lists that could change the row count
// (set-returning functions, aggregates: only constants, columns and *
// are taken). The outer column must be qualified by a name none of the
// subquery's FROM items has, so that it is the outer row's in sel too.
func (b *Binder) existsHashed(sc *scope, sel *pg_query.SelectStmt) *Subquery {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || sel.WithClause != nil || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.DistinctClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil ||
		len(sel.WindowClause) > 0 || len(sel.LockingClause) > 0 || len(sel.FromClause) == 0 || sel.WhereClause == nil {
		return nil
	}
	for _, t := range sel.TargetList {
		switch t.GetResTarget().GetVal().GetNode().(type) {
		case *pg_query.Node_AConst, *pg_query.Node_ColumnRef:
		default:
			return nil
		}
	}
	if !hashableClause(sel) {
		return nil
	}
	names := map[string]bool{}
	for _, item := range sel.FromClause {
		for _, n := range fromNames(item, nil) {
			names[n.name] = true
		}
	}
	conjuncts := andArgs(sel.WhereClause)
	for k, c := range conjuncts {
		eq := c.GetAExpr()
		if eq == nil || eq.Kind != pg_query.A_Expr_Kind_AEXPR_OP || nameOf(eq.Name) != "=" {
			continue
		}
		for _, sides := range [][2]*pg_query.Node{{eq.Lexpr, eq.Rexpr}, {eq.Rexpr, eq.Lexpr}} {
			inner, outer := sides[0], sides[1]
			if !outerColumn(outer, names) {
				continue
			}
			rest := make([]*pg_query.Node, 0, len(conjuncts)-1)
			rest = append(append(rest, conjuncts[:k]...), conjuncts[k+1:]...)
			alt := proto.Clone(sel).(*pg_query.SelectStmt)
			alt.TargetList = []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: inner}}}}
			alt.WhereClause = andOf(rest)
			plan, corr, err := b.bindSubselect(sc, alt)
			if err != nil || len(corr.args) > 0 || len(plan.Columns()) != 1 {
				continue
			}
			left, err := b.bindExpr(sc, outer)
			if err != nil {
				continue
			}
			if e, err := b.inSubquery(left, "=", plan); err == nil {
				return e
			}
		}
	}
	return nil
}

// outerColumn reports whether n is a column reference qualified by a name
// that is not among names (those the subquery's FROM items make visible,
// fromNames): one the subquery reads from an outer query level.
func outerColumn(n *pg_query.Node, names map[string]bool) bool {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.Fields) < 2 {
		return false
	}
	qual := ref.Fields[len(ref.Fields)-2].GetString_()
	return qual != nil && !names[qual.Sval] && ref.Fields[len(ref.Fields)-1].GetString_() != nil
}

// hashableClause reports whether sel's FROM and WHERE clauses call no
// function that may be volatile (or is not a built-in one) and hold no
// subquery: evaluated once for the hashed form, they must give what they
// give for each outer row.
func hashableClause(sel *pg_query.SelectStmt) bool {
	ok := true
	check := func(m protoreflect.Message) {
		switch v := m.Interface().(type) {
		case *pg_query.FuncCall:
			name := nameOf(v.Funcname)
			ok = ok && len(functions.Overloads(name)) > 0 && !volatileName(name)
		case *pg_query.SubLink:
			ok = false
		}
	}
	for _, n := range append([]*pg_query.Node{sel.WhereClause}, sel.FromClause...) {
		walkParse(n.ProtoReflect(), check)
	}
	return ok
}

// andArgs are the conjuncts of an AND (n itself when it is not one).
func andArgs(n *pg_query.Node) []*pg_query.Node {
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range be.Args {
			out = append(out, andArgs(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// andOf is the AND of conjuncts: nil for none, the one for one.
func andOf(conjuncts []*pg_query.Node) *pg_query.Node {
	switch len(conjuncts) {
	case 0:
		return nil
	case 1:
		return conjuncts[0]
	}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_AND_EXPR, Args: conjuncts}}}
}
