package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// LATERAL: a FROM item that reads columns of the items before it —
// FROM t, LATERAL (SELECT ... WHERE x.tid = t.id LIMIT 3) s, or a
// function of them, FROM t, jsonb_array_elements(t.tags) e (a function in
// FROM is lateral by itself, as in PostgreSQL). It is bound like a
// correlated subquery whose outer row is the left side's row: Args are the
// left-side values it reads, OuterRefs inside its plan read them, and it
// runs once per left row.

// LateralJoin joins each row of Left to the rows Right yields for it.
// With Outer (LEFT JOIN LATERAL ... ON true) a left row whose Right is
// empty comes once, with NULLs.
type LateralJoin struct {
	Left, Right Node
	Args        []Expr
	Outer       bool
	Out         []Col
}

func (n *LateralJoin) Columns() []Col   { return n.Out }
func (n *LateralJoin) Children() []Node { return []Node{n.Left, n.Right} }
func (n *LateralJoin) String() string {
	if n.Outer {
		return "Nested Loop Left Join (lateral)"
	}
	return "Nested Loop (lateral)"
}

// isLateral reports whether a FROM item may read the items before it.
func isLateral(item *pg_query.Node) bool {
	switch v := item.Node.(type) {
	case *pg_query.Node_RangeSubselect:
		return v.RangeSubselect.Lateral
	case *pg_query.Node_RangeFunction:
		return true
	}
	return false
}

// bindLateral binds item, which may read the columns left (the FROM items
// before it, bound in plan), and joins it to plan: a LateralJoin when it
// reads them, a plain join of kind otherwise.
func (b *Binder) bindLateral(plan Node, left []Col, item *pg_query.Node, outer *scope, outerJoin bool) (Node, []Col, error) {
	lsc := &scope{cols: left, outer: outer}
	corr := &correlation{}
	if b.corrs == nil {
		b.corrs = map[*scope]*correlation{}
	}
	b.corrs[lsc] = corr
	right, rcols, err := b.bindFromItem(item, lsc)
	delete(b.corrs, lsc)
	if err != nil {
		return nil, nil, err
	}
	cols := append(append([]Col{}, left...), rcols...)
	if len(corr.args) == 0 {
		kind := CrossJoin
		if outerJoin {
			kind = LeftJoin
		}
		return &Join{Kind: kind, Left: plan, Right: right, Out: cols}, cols, nil
	}
	return &LateralJoin{Left: plan, Right: right, Args: corr.args, Outer: outerJoin, Out: cols}, cols, nil
}

// bindLateralJoin binds "left [CROSS | INNER | LEFT] JOIN LATERAL item ON
// cond": the ON condition filters the joined rows; a LEFT JOIN's condition
// must be constant true (ON true), the form such queries take.
func (b *Binder) bindLateralJoin(j *pg_query.JoinExpr, left Node, lcols []Col, outer *scope) (Node, []Col, error) {
	var outerJoin bool
	switch j.Jointype {
	case pg_query.JoinType_JOIN_INNER:
	case pg_query.JoinType_JOIN_LEFT:
		outerJoin = true
	default:
		return nil, nil, pgerr.NotSupported("RIGHT or FULL JOIN LATERAL")
	}
	if len(j.UsingClause) > 0 || j.IsNatural {
		return nil, nil, pgerr.NotSupported("USING or NATURAL with JOIN LATERAL")
	}
	plan, cols, err := b.bindLateral(left, lcols, j.Rarg, outer, outerJoin)
	if err != nil {
		return nil, nil, err
	}
	if j.Quals == nil {
		return plan, cols, nil
	}
	cond, err := b.bindCondition(&scope{cols: cols, outer: outer}, j.Quals, "JOIN/ON")
	if err != nil {
		return nil, nil, err
	}
	if c, ok := cond.(*Const); ok && c.Value == true {
		return plan, cols, nil
	}
	if outerJoin {
		return nil, nil, pgerr.NotSupported("LEFT JOIN LATERAL with a condition other than ON true")
	}
	return &Filter{Input: plan, Cond: cond}, cols, nil
}
