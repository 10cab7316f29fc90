package sql

import (
	"slices"
	"strings"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cairn-db/cairn/functions"
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
// refer to itself binds as any CTE does; one that does must be
// well-formed as PostgreSQL requires (checkRecursion). Its SEARCH and
// CYCLE clauses add columns that both terms compute (searchCycle).
func (b *Binder) bindRecursiveCTE(cte *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, outer *scope) (Node, error) {
	if !mentions(sel, cte.Ctename) {
		return b.bindNotRecursive(cte, sel, outer)
	}
	sc, err := b.bindSearchCycle(cte)
	if err != nil {
		return nil, err
	}
	if err := checkRecursion(sel, cte); err != nil {
		return nil, err
	}
	for _, part := range []*pg_query.SelectStmt{sel, sel.Rarg} {
		if len(part.SortClause) > 0 || part.LimitCount != nil || part.LimitOffset != nil {
			return nil, pgerr.NotSupported("ORDER BY or LIMIT in a recursive query")
		}
		if len(part.LockingClause) > 0 {
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
		}
	}
	stepSel := sel.Rarg
	var workName string // the name the step reads the work table by
	if sc != nil {
		if workName, err = sc.checkForm(sel, cte.Ctename); err != nil {
			return nil, err
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
	out := work.Out
	var nameErr error
	if sc != nil {
		extra, err := sc.columns(work.Out)
		if err != nil {
			return nil, err
		}
		out = append(slices.Clone(work.Out), extra...)
		base = sc.base(base, out)
		for _, c := range extra {
			c.Hidden, c.ByName = true, true
			work.Out = append(work.Out, c)
		}
		// Added columns named as the query's are refused once the step
		// is bound: as in PostgreSQL, the step's own reference to such a
		// name is ambiguous first. (The step is bound without reading
		// the added columns then, as their names are ambiguous.)
		if nameErr = sc.checkNames(out[:len(cols)]); nameErr == nil {
			stepSel = stepQuery(stepSel, workName, extra)
		}
	}
	b.ctes[len(b.ctes)-1][cte.Ctename] = &cteDef{plan: work, cols: names}
	// The step's untyped literals take the base's column types (SELECT
	// 'x' in the step of an integer column is 22P02, as in PostgreSQL).
	leafDone := b.setOpLeaf(stepSel)
	step, err := b.bindSelect(stepSel, outer)
	leafDone()
	delete(b.ctes[len(b.ctes)-1], cte.Ctename)
	if err != nil {
		return nil, err
	}
	if nameErr != nil {
		return nil, nameErr
	}
	stepCols := step.Columns()
	if len(stepCols) != len(out) {
		return nil, pgerr.New(pgerrcode.SyntaxError, "each UNION query must have the same number of columns")
	}
	// The step's columns must have the base's types (untyped literals
	// take them), as PostgreSQL requires.
	target := make([]types.T, len(out))
	for i := range out {
		target[i] = out[i].T
		if !stepCols[i].T.Equal(out[i].T) && stepCols[i].T.Family != types.Unknown && stepCols[i].T.Family != types.Null {
			return nil, pgerr.New(pgerrcode.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", cte.Ctename, i+1, out[i].T, stepCols[i].T).
				WithHint("Cast the output of the non-recursive term to the correct type.")
		}
	}
	if err := b.resolveUnknownColumns(step, target); err != nil {
		return nil, err
	}
	if step, err = b.castColumns(step, target); err != nil {
		return nil, err
	}
	if sc != nil {
		if step, err = sc.step(b, step, out); err != nil {
			return nil, err
		}
	}
	return &RecursiveUnion{Base: base, Step: step, All: sel.All, Work: work, Out: out}, nil
}

// mentions reports whether a relation called name (without a schema)
// appears anywhere in n: in a FROM clause, a subquery or a nested WITH.
func mentions(n *pg_query.SelectStmt, name string) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg_query.RangeVar); ok && rv.Schemaname == "" && rv.Relname == name {
			found = true
		}
	})
	return found
}

// checkRecursion refuses a recursive query (one that mentions its own
// name) that PostgreSQL refuses, with its errors (42P19): it must be
// "non-recursive term UNION [ALL] recursive term", and the recursive term
// must read the query's rows exactly once, not in a subquery, the
// nullable side of an outer join, INTERSECT or EXCEPT. Anything else
// would read a work table that does not hold what the query means (a
// subquery of the recursive term would see only the last iteration's
// rows) or never stop.
func checkRecursion(sel *pg_query.SelectStmt, cte *pg_query.CommonTableExpr) error {
	name := cte.Ctename
	if sel.Op != pg_query.SetOperation_SETOP_UNION || sel.Larg == nil {
		return pgerr.New(pgerrcode.InvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", name).WithPosition(cte.Location + 1)
	}
	c := &selfRefCheck{name: name}
	if err := c.walk(sel.Larg.ProtoReflect(), "its non-recursive term"); err != nil {
		return err
	}
	return c.walk(sel.Rarg.ProtoReflect(), "")
}

// selfRefCheck walks a recursive query's terms counting the references
// to its name (refs).
type selfRefCheck struct {
	name string
	refs int
}

// walk checks the references to c.name in m; within names where m sits
// when a reference there is not allowed ("a subquery"), "" where it is.
func (c *selfRefCheck) walk(m protoreflect.Message, within string) error {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		if n.Schemaname != "" || n.Relname != c.name {
			return nil
		}
		if within != "" {
			return pgerr.New(pgerrcode.InvalidRecursion, "recursive reference to query \"%s\" must not appear within %s", c.name, within).WithPosition(n.Location + 1)
		}
		if c.refs++; c.refs > 1 {
			return pgerr.New(pgerrcode.InvalidRecursion, "recursive reference to query \"%s\" must not appear more than once", c.name).WithPosition(n.Location + 1)
		}
		return nil
	case *pg_query.SubLink:
		if err := c.walkNode(n.Testexpr, within); err != nil {
			return err
		}
		return c.walkNode(n.Subselect, or(within, "a subquery"))
	case *pg_query.JoinExpr:
		left, right := within, within
		switch n.Jointype {
		case pg_query.JoinType_JOIN_LEFT:
			right = or(within, "an outer join")
		case pg_query.JoinType_JOIN_RIGHT:
			left = or(within, "an outer join")
		case pg_query.JoinType_JOIN_FULL:
			left, right = or(within, "an outer join"), or(within, "an outer join")
		}
		if err := c.walkNode(n.Larg, left); err != nil {
			return err
		}
		if err := c.walkNode(n.Rarg, right); err != nil {
			return err
		}
		return c.walkNode(n.Quals, within)
	case *pg_query.SelectStmt:
		if within != "" {
			break
		}
		switch n.Op {
		case pg_query.SetOperation_SETOP_NONE:
			if err := c.noAggregates(n); err != nil {
				return err
			}
		case pg_query.SetOperation_SETOP_INTERSECT, pg_query.SetOperation_SETOP_EXCEPT:
			// As PostgreSQL: INTERSECT ALL's arms and EXCEPT's right
			// arm may not refer to the query, nor EXCEPT ALL's left; the
			// arms of INTERSECT may, once in all.
			name := "INTERSECT"
			if n.Op == pg_query.SetOperation_SETOP_EXCEPT {
				name = "EXCEPT"
			}
			left := ""
			if n.All {
				left = name
			}
			right := left
			if n.Op == pg_query.SetOperation_SETOP_EXCEPT {
				right = name
			}
			if err := c.walk(n.Larg.ProtoReflect(), left); err != nil {
				return err
			}
			return c.walk(n.Rarg.ProtoReflect(), right)
		}
	}
	var err error
	rangeMessages(m, func(child protoreflect.Message) {
		if err == nil {
			err = c.walk(child, within)
		}
	})
	return err
}

// rangeMessages calls fn for each message directly inside m, in the order
// of their fields' numbers (as walkMessages), so that the error named is
// the same every time.
func rangeMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.IsMap() || !m.Has(fd) {
			continue
		}
		if !fd.IsList() {
			fn(m.Get(fd).Message())
			continue
		}
		l := m.Get(fd).List()
		for j := 0; j < l.Len(); j++ {
			fn(l.Get(j).Message())
		}
	}
}

// noAggregates refuses an aggregate call in a SELECT of the recursive
// term that reads the query itself in its FROM clause: each iteration
// would aggregate only the rows of the last.
func (c *selfRefCheck) noAggregates(s *pg_query.SelectStmt) error {
	self := false
	for _, f := range s.FromClause {
		walkFrom(f, func(rv *pg_query.RangeVar) {
			self = self || rv.Schemaname == "" && rv.Relname == c.name
		})
	}
	if !self {
		return nil
	}
	var agg *pg_query.FuncCall
	var find func(m protoreflect.Message)
	find = func(m protoreflect.Message) {
		switch n := m.Interface().(type) {
		case *pg_query.SubLink:
			return // a subquery's aggregates are its own
		case *pg_query.FuncCall:
			if agg == nil && n.Over == nil && functions.IsAggregate(strings.ToLower(nameOf(n.Funcname))) {
				agg = n
			}
		}
		rangeMessages(m, find)
	}
	for _, t := range s.TargetList {
		find(t.ProtoReflect())
	}
	if s.HavingClause != nil {
		find(s.HavingClause.ProtoReflect())
	}
	if agg != nil {
		return pgerr.New(pgerrcode.InvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term").WithPosition(agg.Location + 1)
	}
	return nil
}

// walkFrom calls fn for each table a FROM item names directly or through
// its joins (not its subqueries).
func walkFrom(n *pg_query.Node, fn func(*pg_query.RangeVar)) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		fn(v.RangeVar)
	case *pg_query.Node_JoinExpr:
		walkFrom(v.JoinExpr.Larg, fn)
		walkFrom(v.JoinExpr.Rarg, fn)
	}
}

// walkNode is walk for a node that may be absent.
func (c *selfRefCheck) walkNode(n *pg_query.Node, within string) error {
	if n == nil {
		return nil
	}
	return c.walk(n.ProtoReflect(), within)
}

// or is within if set, else what: the outermost reason a reference is
// not allowed is the one PostgreSQL names.
func or(within, what string) string {
	if within != "" {
		return within
	}
	return what
}
