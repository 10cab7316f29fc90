package sql

import (
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
