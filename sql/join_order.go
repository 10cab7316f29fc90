package sql

import (
	"github.com/cairn-db/cairn/sql/catalog"
)

// planWhere places a WHERE clause over the FROM plan. Over a FROM list of
// several relations (FROM a, b, c, bound as cross joins) it does what a
// planner must for such queries not to run as cross products: conjuncts
// that read one relation filter it before any join, equalities between
// relations become hash-join keys, and the relations are joined in an
// order that follows those equalities, a cross join only where none
// connects the next relation. A projection on top restores the FROM
// list's column order, so the rest of the query is bound as before. A
// table's filter that fixes a primary or unique key becomes a KeyLookup
// (filterScan; cat has the unique indexes).
func planWhere(cat *catalog.Catalog, plan Node, cond Expr) Node {
	var leaves []Node
	var on []Expr
	flattenJoins(plan, 0, &leaves, &on)
	if len(leaves) < 2 {
		return filterScan(cat, plan, conjuncts(cond))
	}
	r := newJoinRegion(cat, leaves)
	var top []Expr
	for _, c := range append(conjuncts(cond), on...) {
		set, ok := r.leavesOf(c)
		switch {
		case !ok || len(set) == 0:
			top = append(top, c)
		case len(set) == 1:
			for l := range set {
				r.filters[l] = append(r.filters[l], shiftRefs(c, -r.start[l]))
			}
		default:
			r.pending = append(r.pending, joinConjunct{expr: c, leaves: set})
		}
	}
	r.deriveEqualities()
	out := r.build()
	if len(top) > 0 {
		out = &Filter{Input: out, Cond: andAll(r.remap(top))}
	}
	// Restore the FROM list's column order.
	cols := plan.Columns()
	exprs := make([]Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &ColumnRef{Index: r.pos[i], Name: c.Name, T: c.T}
	}
	return &Project{Input: out, Exprs: exprs, Out: cols}
}

// deriveEqualities adds to a relation's filters the equalities the join
// implies, as PostgreSQL's equivalence classes do: where a join conjunct
// equates columns a and b of one type and a filter holds a to a value (a
// constant, a parameter), b = value filters b's relation too, so that an
// index or key lookup can find its rows (sessions s JOIN events e ON
// e.session_id = s.id WHERE s.id = $1 reads only that session's events)
// instead of a join reading the whole table. The join conjunct stays.
func (r *joinRegion) deriveEqualities() {
	// The values each FROM-list column is held to: column -> equalities.
	held := map[int][]*Call{}
	for l, fs := range r.filters {
		for _, f := range fs {
			if call, col, ok := equalsValue(f); ok {
				held[r.start[l]+col] = append(held[r.start[l]+col], call)
			}
		}
	}
	if len(held) == 0 {
		return
	}
	for changed := true; changed; {
		changed = false
		for _, jc := range r.pending {
			call, ok := jc.expr.(*Call)
			if !ok || call.Name != "=" || len(call.Args) != 2 {
				continue
			}
			a, aok := call.Args[0].(*ColumnRef)
			b, bok := call.Args[1].(*ColumnRef)
			if !aok || !bok || !a.T.Equal(b.T) {
				continue
			}
			for _, pair := range [2][2]*ColumnRef{{a, b}, {b, a}} {
				from, to := pair[0], pair[1]
				if len(held[to.Index]) > 0 {
					continue
				}
				for _, eq := range held[from.Index] {
					l := r.owner[to.Index]
					derived := &Call{Name: eq.Name, Overload: eq.Overload, T: eq.T, Infix: eq.Infix, Args: []Expr{
						&ColumnRef{Index: to.Index - r.start[l], Name: to.Name, T: to.T}, eq.Args[1]}}
					r.filters[l] = append(r.filters[l], derived)
					held[to.Index] = append(held[to.Index], derived)
					changed = true
				}
			}
		}
	}
}

// equalsValue recognises a filter `column = value` (either way round)
// whose value reads no column and is the same however often it is
// evaluated, and returns it as column = value with the column's index.
func equalsValue(f Expr) (*Call, int, bool) {
	call, ok := f.(*Call)
	if !ok || call.Name != "=" || len(call.Args) != 2 || call.Overload == nil {
		return nil, 0, false
	}
	for i, arg := range call.Args {
		ref, isRef := arg.(*ColumnRef)
		value := call.Args[1-i]
		if !isRef || !onceValue(value) || !ref.T.Equal(value.Type()) {
			continue
		}
		if i == 1 {
			return &Call{Name: call.Name, Overload: call.Overload, T: call.T, Infix: call.Infix, Args: []Expr{ref, value}}, ref.Index, true
		}
		return call, ref.Index, true
	}
	return nil, 0, false
}

// flattenJoins lists the relations of a tree of cross and inner joins,
// left to right, and adds the inner joins' ON conditions to on, over the
// whole tree's columns (offset is where n's columns start).
func flattenJoins(n Node, offset int, out *[]Node, on *[]Expr) {
	if j, ok := n.(*Join); ok {
		cross := j.Kind == CrossJoin && j.Cond == nil && len(j.EquiLeft) == 0
		if cross || j.Kind == InnerJoin && j.On != nil {
			flattenJoins(j.Left, offset, out, on)
			flattenJoins(j.Right, offset+len(j.Left.Columns()), out, on)
			if j.On != nil {
				*on = append(*on, conjuncts(shiftRefs(j.On, offset))...)
			}
			return
		}
	}
	*out = append(*out, n)
}

// joinRegion is the relations of a FROM list being joined: each one's
// first column in the FROM list's layout, the filters pushed onto it, the
// conjuncts that join them, and where each FROM-list column is in the
// plan built so far.
type joinRegion struct {
	cat     *catalog.Catalog // for the unique indexes of key lookups
	leaves  []Node
	start   []int
	owner   []int // FROM-list column -> its relation
	filters [][]Expr
	pending []joinConjunct
	pos     []int // FROM-list column -> column of the built plan
}

type joinConjunct struct {
	expr   Expr
	leaves map[int]bool
}

func newJoinRegion(cat *catalog.Catalog, leaves []Node) *joinRegion {
	r := &joinRegion{cat: cat, leaves: leaves, filters: make([][]Expr, len(leaves))}
	for i, l := range leaves {
		r.start = append(r.start, len(r.owner))
		for range l.Columns() {
			r.owner = append(r.owner, i)
		}
	}
	r.pos = make([]int, len(r.owner))
	return r
}

// leavesOf is the set of relations e reads; ok is false for expressions
// that must stay where they are (sequence draws).
func (r *joinRegion) leavesOf(e Expr) (map[int]bool, bool) {
	set := map[int]bool{}
	ok := true
	walkExpr(e, func(x Expr) {
		if ref, isRef := x.(*ColumnRef); isRef {
			set[r.owner[ref.Index]] = true
		}
		ok = ok && !pinned(x)
	})
	return set, ok
}

// remap rewrites FROM-list column references to the built plan's.
func (r *joinRegion) remap(es []Expr) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = remap(e, r.pos)
	}
	return out
}

// leaf is relation i with its pushed-down filters.
func (r *joinRegion) leaf(i int) Node {
	if len(r.filters[i]) == 0 {
		return r.leaves[i]
	}
	return filterScan(r.cat, r.leaves[i], r.filters[i])
}

// build joins the relations: first the one with the most pushed-down
// filters, then repeatedly one that an equality connects to those joined
// (in FROM-list order otherwise), placing each join conjunct at the first
// join where all it reads is present.
func (r *joinRegion) build() Node {
	first := 0
	for i := range r.leaves {
		if len(r.filters[i]) > len(r.filters[first]) {
			first = i
		}
	}
	joined := map[int]bool{first: true}
	plan := r.leaf(first)
	width := r.place(first, 0)
	for len(joined) < len(r.leaves) {
		next := -1
		for _, c := range r.pending {
			if l, ok := r.connects(c, joined); ok {
				next = l
				break
			}
		}
		for i := 0; next < 0 && i < len(r.leaves); i++ {
			if !joined[i] {
				next = i
			}
		}
		right := r.leaf(next)
		rightStart := width
		width = r.place(next, width)
		joined[next] = true
		j := &Join{Kind: CrossJoin, Left: plan, Right: right, Out: append(append([]Col{}, plan.Columns()...), right.Columns()...)}
		var conds []Expr
		rest := r.pending[:0]
		for _, c := range r.pending {
			if !subset(c.leaves, joined) {
				rest = append(rest, c)
				continue
			}
			conds = append(conds, remap(c.expr, r.pos))
		}
		r.pending = rest
		if len(conds) > 0 {
			j.Kind, j.Cond = InnerJoin, andAll(conds)
			splitEquiJoin(j, rightStart)
		}
		plan = j
	}
	return plan
}

// place records that relation l's columns start at column at of the built
// plan, and returns the plan's new width.
func (r *joinRegion) place(l, at int) int {
	n := len(r.leaves[l].Columns())
	for k := 0; k < n; k++ {
		r.pos[r.start[l]+k] = at + k
	}
	return at + n
}

// connects reports whether c is an equality between the joined relations
// and one other relation, and which.
func (r *joinRegion) connects(c joinConjunct, joined map[int]bool) (int, bool) {
	call, ok := c.expr.(*Call)
	if !ok || call.Name != "=" || len(call.Args) != 2 {
		return 0, false
	}
	other := -1
	for l := range c.leaves {
		if joined[l] {
			continue
		}
		if other >= 0 {
			return 0, false
		}
		other = l
	}
	return other, other >= 0 && len(c.leaves) > 1
}

func subset(a, b map[int]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
