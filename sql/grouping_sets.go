package sql

// GROUP BY with GROUPING SETS, ROLLUP and CUBE, and GROUPING(): the group
// clause expands into a list of grouping sets over one list of key
// expressions, which the Aggregate node groups by each in turn.

import (
	"fmt"
	"slices"

	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// maxGroupingSets is PostgreSQL's limit on the sets a clause expands to.
const maxGroupingSets = 4096

// groupingRef is GROUPING(args) until groupRewriter knows the grouping
// sets: a bit per argument, set where the row's grouping set does not
// group by it.
type groupingRef struct {
	args []Expr
}

func (g *groupingRef) Type() types.T  { return types.Int4T }
func (g *groupingRef) String() string { return "GROUPING(" + joinExprs(g.args, ", ") + ")" }

// bindGroupingFunc binds GROUPING(args), allowed where aggregates are.
func (b *Binder) bindGroupingFunc(sc *scope, gf *pg_query.GroupingFunc) (Expr, error) {
	agg := b.currentAgg()
	if agg == nil || b.clause == "WHERE" || b.clause == "JOIN/ON" || b.clause == "GROUP BY" {
		return nil, pgerr.New(pgerrcode.GroupingError, "grouping operations are not allowed %s", b.clauseWording()).WithPosition(gf.Location + 1)
	}
	agg.grouping = true
	if len(gf.Args) > 31 {
		return nil, pgerr.New(pgerrcode.TooManyArguments, "GROUPING must have fewer than 32 arguments").WithPosition(gf.Location + 1)
	}
	args, err := b.bindExprs(sc, gf.Args)
	if err != nil {
		return nil, err
	}
	return &groupingRef{args: args}, nil
}

// bindGroupClause binds a GROUP BY clause: its key expressions, and, when
// it has GROUPING SETS, ROLLUP or CUBE, the sets as positions in them.
func (b *Binder) bindGroupClause(sc *scope, s *pg_query.SelectStmt, items []selectItem) ([]Expr, [][]int, error) {
	var keys []Expr
	keyOf := func(n *pg_query.Node) (int, error) {
		saved := b.clause
		b.clause = "GROUP BY"
		e, err := b.bindGroupKey(sc, n, s.TargetList, items)
		b.clause = saved
		if err != nil {
			return 0, err
		}
		for i, k := range keys {
			if sameExpr(k, e) {
				return i, nil
			}
		}
		keys = append(keys, e)
		return len(keys) - 1, nil
	}
	if !slices.ContainsFunc(s.GroupClause, func(n *pg_query.Node) bool { return n.GetGroupingSet() != nil }) {
		for _, n := range s.GroupClause {
			if _, err := keyOf(n); err != nil {
				return nil, nil, err
			}
		}
		return keys, nil, nil
	}
	// The clause is the cross product of its items' sets.
	sets := [][]*pg_query.Node{{}}
	for _, item := range s.GroupClause {
		var next [][]*pg_query.Node
		for _, prefix := range sets {
			for _, set := range expandGroupItem(item) {
				next = append(next, append(slices.Clone(prefix), set...))
			}
		}
		if len(next) > maxGroupingSets {
			return nil, nil, pgerr.New(pgerrcode.StatementTooComplex, "too many grouping sets present (maximum 4096)")
		}
		sets = next
	}
	out := make([][]int, len(sets))
	for i, set := range sets {
		out[i] = []int{}
		for _, n := range set {
			k, err := keyOf(n)
			if err != nil {
				return nil, nil, err
			}
			if !slices.Contains(out[i], k) {
				out[i] = append(out[i], k)
			}
		}
	}
	if s.GroupDistinct {
		// GROUP BY DISTINCT: each set of keys once, whatever the order.
		seen := map[string]bool{}
		kept := out[:0]
		for _, set := range out {
			key := fmt.Sprint(slices.Sorted(slices.Values(set)))
			if !seen[key] {
				seen[key] = true
				kept = append(kept, set)
			}
		}
		out = kept
	}
	return keys, out, nil
}

// expandGroupItem lists the grouping sets one GROUP BY item stands for,
// each as its expressions: an expression is one set of itself, () the
// empty set, ROLLUP(a, b) the sets (a, b), (a), (), CUBE(a, b) every
// subset, GROUPING SETS(...) the sets of each of its items. A
// parenthesised list inside ROLLUP or CUBE is one element.
func expandGroupItem(n *pg_query.Node) [][]*pg_query.Node {
	gs := n.GetGroupingSet()
	if gs == nil {
		return [][]*pg_query.Node{elementOf(n)}
	}
	switch gs.Kind {
	case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]*pg_query.Node{{}}
	case pg_query.GroupingSetKind_GROUPING_SET_SIMPLE:
		var set []*pg_query.Node
		for _, c := range gs.Content {
			set = append(set, elementOf(c)...)
		}
		return [][]*pg_query.Node{set}
	case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
		var out [][]*pg_query.Node
		for i := len(gs.Content); i >= 0; i-- {
			var set []*pg_query.Node
			for _, c := range gs.Content[:i] {
				set = append(set, elementOf(c)...)
			}
			out = append(out, set)
		}
		return out
	case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
		var out [][]*pg_query.Node
		n := len(gs.Content)
		for mask := (1 << n) - 1; mask >= 0; mask-- {
			var set []*pg_query.Node
			for i, c := range gs.Content {
				if mask&(1<<(n-1-i)) != 0 {
					set = append(set, elementOf(c)...)
				}
			}
			out = append(out, set)
		}
		return out
	}
	var out [][]*pg_query.Node // GROUPING SETS
	for _, c := range gs.Content {
		out = append(out, expandGroupItem(c)...)
	}
	return out
}

// elementOf is the expressions of one grouping element: a row constructor
// (a, b) stands for its fields.
func elementOf(n *pg_query.Node) []*pg_query.Node {
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg_query.CoercionForm_COERCE_IMPLICIT_CAST {
		return r.Args
	}
	return []*pg_query.Node{n}
}

// groupingValue is GROUPING(args) over the Aggregate's output: 0 for a
// plain GROUP BY, else the bits of the row's grouping set, picked from a
// constant array by the set number column.
func (g *groupRewriter) groupingValue(ref *groupingRef) (Expr, error) {
	pos := make([]int, len(ref.args))
	for i, a := range ref.args {
		pos[i] = slices.IndexFunc(g.groupBy, func(k Expr) bool { return sameExpr(k, a) })
		if pos[i] < 0 {
			return nil, pgerr.New(pgerrcode.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
		}
	}
	if g.sets == nil {
		return &Const{Value: int64(0), T: types.Int4T}, nil
	}
	masks := make([]any, len(g.sets))
	for s, set := range g.sets {
		var m int64
		for i, p := range pos {
			if !slices.Contains(set, p) {
				m |= 1 << (len(pos) - 1 - i)
			}
		}
		masks[s] = m
	}
	arr := &Const{Value: &types.Array{Elem: types.Int4T, Dims: []int{len(masks)}, Elems: masks}, T: types.ArrayOf(types.Int4T, 1)}
	setCol := &ColumnRef{Index: g.nGroup + g.nAggs, Name: "grouping set", T: types.Int4T}
	return &Subscript{Arg: arr, Indexes: []SubscriptIndex{{Lower: setCol}}, T: types.Int4T}, nil
}
