package sql

import (
	"slices"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// aggCollector gathers the aggregate calls of one query level while its
// select list, HAVING and ORDER BY are bound.
type aggCollector struct {
	calls []AggCall
	// inAgg is set while an aggregate's arguments are bound (nested
	// aggregates are an error).
	inAgg bool
	// grouping is set when the query level calls GROUPING(), which makes
	// it an aggregation like an aggregate call does.
	grouping bool
}

// aggRef stands for the result of aggregate call idx until groupRewriter
// turns it into a column of the Aggregate node's output.
type aggRef struct {
	idx int
	t   types.T
}

func (a *aggRef) Type() types.T  { return a.t }
func (a *aggRef) String() string { return "agg" + itoa(int64(a.idx)) }

func (b *Binder) pushAgg(a *aggCollector) { b.aggs = append(b.aggs, a) }
func (b *Binder) popAgg()                 { b.aggs = b.aggs[:len(b.aggs)-1] }

// currentAgg is the collector of the query level being bound, or nil where
// aggregates are not allowed (WHERE, JOIN/ON, VALUES).
func (b *Binder) currentAgg() *aggCollector {
	if len(b.aggs) == 0 {
		return nil
	}
	return b.aggs[len(b.aggs)-1]
}

// groupRewriter maps expressions over the FROM scope onto the Aggregate
// node's output: GROUP BY expressions become its key columns, aggregate
// calls its value columns; any other column reference is an error.
type groupRewriter struct {
	groupBy []Expr
	nGroup  int
	// sets and nAggs place GROUPING(): the grouping sets (nil for a plain
	// GROUP BY) and the aggregate columns before the set number column.
	sets  [][]int
	nAggs int
	from  *scope
}

func (g *groupRewriter) rewrite(e Expr) (Expr, error) {
	return transformExpr(e, func(x Expr) (Expr, error) {
		if gr, ok := x.(*groupingRef); ok {
			return g.groupingValue(gr)
		}
		if a, ok := x.(*aggRef); ok {
			return &ColumnRef{Index: g.nGroup + a.idx, Name: a.String(), T: a.t}, nil
		}
		for i, k := range g.groupBy {
			if sameExpr(k, x) {
				return &ColumnRef{Index: i, Name: exprName(k), T: k.Type()}, nil
			}
		}
		if r, ok := x.(*ColumnRef); ok {
			c := g.from.cols[r.Index]
			name := c.Name
			if c.Table != "" {
				name = c.Table + "." + c.Name
			}
			return nil, pgerr.New(pgerrcode.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", name)
		}
		return nil, nil
	})
}

// withDependentColumns adds to groupBy the columns exprs read outside
// aggregates that groupBy determines, as PostgreSQL lets a query select
// them: every column of a table read at this level (sc) whose primary key
// columns are all grouped, as columns of the same FROM item. (Django
// groups by the primary key alone and selects the row's other columns.)
// Grouping by them too changes no group.
func withDependentColumns(sc *scope, groupBy []Expr, exprs []*Expr) []Expr {
	grouped := func(x Expr) bool {
		return slices.ContainsFunc(groupBy, func(g Expr) bool { return sameExpr(g, x) })
	}
	keyGrouped := func(c Col) bool {
		if len(c.Base.PrimaryKey) == 0 {
			return false
		}
		for _, id := range c.Base.PrimaryKey {
			found := slices.ContainsFunc(groupBy, func(g Expr) bool {
				r, ok := g.(*ColumnRef)
				if !ok || r.Index < 0 || r.Index >= len(sc.cols) {
					return false
				}
				k := sc.cols[r.Index]
				return k.Base == c.Base && k.Table == c.Table && c.Base.Columns[k.Attnum-1].ID == id
			})
			if !found {
				return false
			}
		}
		return true
	}
	for _, e := range exprs {
		if *e == nil {
			continue
		}
		WalkExpr(*e, func(x Expr) {
			r, ok := x.(*ColumnRef)
			if !ok || r.Index < 0 || r.Index >= len(sc.cols) || sc.cols[r.Index].Base == nil || grouped(r) {
				return
			}
			if keyGrouped(sc.cols[r.Index]) {
				groupBy = append(groupBy, r)
			}
		})
	}
	return groupBy
}
