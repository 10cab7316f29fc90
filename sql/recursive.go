package sql

import (
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// WITH RECURSIVE name AS (base UNION [ALL] step): base runs once; step
// runs again and again over the rows the previous round added (read
// through a WorkTableScan of name) until a round adds none. With UNION
// (not ALL) rows already produced are not added again, which is what
// stops a walk over a graph with cycles.

// RecursiveUnion is a recursive common table expression.
type RecursiveUnion struct {
	Base, Step Node
	All        bool
	// Work is the WorkTableScan through which Step reads the previous
	// round's rows.
	Work *WorkTableScan
	Out  []Col
}

func (n *RecursiveUnion) Columns() []Col   { return n.Out }
func (n *RecursiveUnion) Children() []Node { return []Node{n.Base, n.Step} }
func (n *RecursiveUnion) String() string   { return "Recursive Union" }

// WorkTableScan reads the rows of the previous round of the
// RecursiveUnion it belongs to.
type WorkTableScan struct {
	Name string
	Out  []Col
}

func (n *WorkTableScan) Columns() []Col   { return n.Out }
func (n *WorkTableScan) Children() []Node { return nil }
func (n *WorkTableScan) String() string   { return "WorkTable Scan on " + n.Name }

// bindRecursiveCTE binds a CTE of WITH RECURSIVE. A CTE that does not
// refer to itself binds as any CTE does.
func (b *Binder) bindRecursiveCTE(cte *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, outer *scope) (Node, error) {
	if sel.Op != pg_query.SetOperation_SETOP_UNION || sel.Larg == nil || !refersTo(sel.Rarg, cte.Ctename) {
		return b.bindSelect(sel, outer)
	}
	for _, part := range []*pg_query.SelectStmt{sel, sel.Rarg} {
		if len(part.SortClause) > 0 || part.LimitCount != nil || part.LimitOffset != nil {
			return nil, pgerr.NotSupported("ORDER BY or LIMIT in a recursive query")
		}
	}
	base, err := b.bindSelect(sel.Larg, outer)
	if err != nil {
		return nil, err
	}
	names := strList(cte.Aliascolnames)
	cols := base.Columns()
	if len(names) > len(cols) {
		return nil, pgerr.New(pgerrcode.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", cte.Ctename, len(cols), len(names))
	}
	work := &WorkTableScan{Name: cte.Ctename}
	for i, c := range cols {
		name := c.Name
		if i < len(names) {
			name = names[i]
		}
		work.Out = append(work.Out, Col{Name: name, T: c.T})
	}
	b.ctes[len(b.ctes)-1][cte.Ctename] = &cteDef{plan: work, cols: names}
	step, err := b.bindSelect(sel.Rarg, outer)
	delete(b.ctes[len(b.ctes)-1], cte.Ctename)
	if err != nil {
		return nil, err
	}
	sc := step.Columns()
	if len(sc) != len(cols) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "each UNION query must have the same number of columns")
	}
	// The step's columns must have the base's types (untyped literals
	// take them), as PostgreSQL requires.
	target := make([]types.T, len(cols))
	for i := range cols {
		target[i] = cols[i].T
		if !sc[i].T.Equal(cols[i].T) && sc[i].T.Family != types.Unknown && sc[i].T.Family != types.Null {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", cte.Ctename, i+1, cols[i].T, sc[i].T).
				WithHint("Cast the output of the non-recursive term to the correct type.")
		}
	}
	if step, err = b.castColumns(step, target); err != nil {
		return nil, err
	}
	return &RecursiveUnion{Base: base, Step: step, All: sel.All, Work: work, Out: work.Out}, nil
}

// refersTo reports whether a SELECT mentions a relation called name
// anywhere in its FROM clauses (subqueries included).
func refersTo(s *pg_query.SelectStmt, name string) bool {
	found := false
	var walk func(n *pg_query.Node)
	walk = func(n *pg_query.Node) {
		if n == nil || found {
			return
		}
		switch v := n.Node.(type) {
		case *pg_query.Node_RangeVar:
			found = v.RangeVar.Schemaname == "" && v.RangeVar.Relname == name
		case *pg_query.Node_JoinExpr:
			walk(v.JoinExpr.Larg)
			walk(v.JoinExpr.Rarg)
		case *pg_query.Node_RangeSubselect:
			walk(v.RangeSubselect.Subquery)
		case *pg_query.Node_SelectStmt:
			found = refersTo(v.SelectStmt, name)
		}
	}
	if s == nil {
		return false
	}
	for _, f := range s.FromClause {
		walk(f)
	}
	if s.Larg != nil {
		found = found || refersTo(s.Larg, name) || refersTo(s.Rarg, name)
	}
	return found
}
