package sql

import (
	"fmt"
	"slices"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// KeyLookup reads the row of a table whose primary key or unique
// constraint columns equal values computed once per execution: the plan
// of `SELECT ... FROM t WHERE id = $1`. The executor probes the
// constraint's hash index and fetches the row by its ID instead of
// scanning the table; where the index cannot answer for the statement's
// snapshot it scans with Cond (the equalities it was planned from).
type KeyLookup struct {
	Scan *Scan
	// Constraint names the constraint or unique index (EXPLAIN).
	Constraint string
	// KeyCols are the constraint's column IDs and Keys the values they
	// must equal, in the same order. Keys read no columns.
	KeyCols []int
	Keys    []Expr
	// Cond is the conjunction of the equalities, over Scan's columns.
	Cond Expr
}

func (n *KeyLookup) Columns() []Col   { return n.Scan.Out }
func (n *KeyLookup) Children() []Node { return nil }
func (n *KeyLookup) String() string {
	s := fmt.Sprintf("Index Scan using %s on %s", n.Constraint, n.Scan.Table.Name)
	if n.Scan.Alias != "" && n.Scan.Alias != n.Scan.Table.Name {
		s += " " + n.Scan.Alias
	}
	return s + " Index Cond: " + n.Cond.String()
}

// filterScan places conds over input: over a table's scan whose
// conjuncts include equalities that cover a primary key, unique
// constraint or unique index (of cat, which may be nil), a KeyLookup
// answers those, with a Filter of the others above it; otherwise a Filter
// of them all.
//
// A Filter already right over the scan (a row-level security policy's,
// policy.go) joins them, its condition first: AND evaluates its
// arguments in order, so the clause sees only the rows the policy lets
// through, and the index plans that take a filtered scan see one.
func filterScan(cat *catalog.Catalog, input Node, conds []Expr) Node {
	if lj, ok := input.(*LateralJoin); ok {
		// Conjuncts over the left side filter it before the lateral item
		// runs for its rows, as in PostgreSQL: FROM t, jsonb_each(t.doc)
		// WHERE t.id = 1 must not call jsonb_each on other rows' documents
		// (which may not be objects), nor run a lateral subquery for them.
		width := len(lj.Left.Columns())
		var left, rest []Expr
		for _, c := range conds {
			if readsOnlyFirst(c, width) {
				left = append(left, c)
			} else {
				rest = append(rest, c)
			}
		}
		if len(left) > 0 {
			pushed := *lj
			pushed.Left = planWhere(cat, lj.Left, andAll(left))
			if len(rest) == 0 {
				return &pushed
			}
			return &Filter{Input: &pushed, Cond: andAll(rest)}
		}
	}
	if f, ok := input.(*Filter); ok {
		if _, isScan := f.Input.(*Scan); isScan {
			input = f.Input
			conds = append(conjuncts(f.Cond), conds...)
		}
	}
	if scan, ok := input.(*Scan); ok {
		if kl, rest := keyLookup(cat, scan, conds); kl != nil {
			if len(rest) == 0 {
				return kl
			}
			return &Filter{Input: kl, Cond: andAll(rest)}
		}
	}
	return &Filter{Input: input, Cond: andAll(conds)}
}

// readsOnlyFirst reports whether e reads no column at or past width and
// may be evaluated anywhere (no sequence draw or volatile function).
func readsOnlyFirst(e Expr, width int) bool {
	ok := true
	walkExpr(e, func(x Expr) {
		if ref, isRef := x.(*ColumnRef); isRef && ref.Index >= width || pinned(x) {
			ok = false
		}
	})
	return ok
}

// pinned reports whether expression node x must be evaluated where the
// query puts it, not moved below a join: a sequence draw or a volatile
// function call.
func pinned(x Expr) bool {
	switch v := x.(type) {
	case *NextVal, *SeqFunc:
		return true
	case *Call:
		return v.Overload == nil || v.Overload.Volatility == functions.Volatile
	}
	return false
}

// keyLookup returns the KeyLookup for scan that conds' equalities allow
// (the first constraint they cover, the primary key first) and the
// conjuncts it does not answer, or nil.
func keyLookup(cat *catalog.Catalog, scan *Scan, conds []Expr) (*KeyLookup, []Expr) {
	def := scan.Table
	// The equality conjuncts of the form column = value, by column ID.
	eq := map[int]int{}
	keys := make([]Expr, len(conds))
	for i, c := range conds {
		col, key, ok := keyEquality(scan, c)
		if !ok {
			continue
		}
		if _, dup := eq[col]; !dup {
			eq[col] = i
			keys[i] = key
		}
	}
	if len(eq) == 0 {
		return nil, nil
	}
	type rule struct {
		name string
		cols []int
	}
	rules := []rule{{def.PrimaryKeyConstraint(), def.PrimaryKey}}
	for _, u := range def.Uniques {
		rules = append(rules, rule{u.Name, u.Columns})
	}
	if cat != nil {
		for _, ix := range cat.IndexesOf(def.ID) {
			if ix.PlainUnique() {
				rules = append(rules, rule{ix.Name, ix.Columns})
			}
		}
	}
	for _, r := range rules {
		if len(r.cols) == 0 || slices.ContainsFunc(r.cols, func(id int) bool { _, ok := eq[id]; return !ok }) {
			continue
		}
		kl := &KeyLookup{Scan: scan, Constraint: r.name, KeyCols: slices.Clone(r.cols)}
		used := make([]bool, len(conds))
		var cond []Expr
		for _, id := range r.cols {
			i := eq[id]
			used[i] = true
			kl.Keys = append(kl.Keys, keys[i])
			cond = append(cond, conds[i])
		}
		kl.Cond = andAll(cond)
		var rest []Expr
		for i, c := range conds {
			if !used[i] {
				rest = append(rest, c)
			}
		}
		return kl, rest
	}
	return nil, nil
}

// keyEquality recognises `column = value` (either way round) where the
// column is one of scan's table columns and value reads no column and is
// evaluated once: a constant, a parameter, a correlated subquery's value
// of the outer row (fixed for each run of its plan), a cast or a call
// that is not volatile over such. The types must be ones whose equality is the
// storage key's: the same type, two integer types, or text and varchar.
func keyEquality(scan *Scan, c Expr) (colID int, key Expr, ok bool) {
	call, isCall := c.(*Call)
	if !isCall || call.Name != "=" || len(call.Args) != 2 {
		return 0, nil, false
	}
	for i, arg := range call.Args {
		ref, isRef := keyColumnRef(arg)
		if !isRef || ref.Index >= len(scan.Cols) {
			continue
		}
		value := call.Args[1-i]
		if !onceValue(value) || !keyTypesAgree(ref.T, value.Type()) {
			continue
		}
		return scan.Table.Columns[scan.Cols[ref.Index]].ID, value, true
	}
	return 0, nil, false
}

// keyColumnRef returns the column e reads as it is: a column reference,
// or a varchar column cast to text (`varchar_col = 'x'` compares as
// text, and the two share their storage key).
func keyColumnRef(e Expr) (*ColumnRef, bool) {
	if c, ok := e.(*Cast); ok && c.To.Family == types.Text {
		if ref, isRef := c.Arg.(*ColumnRef); isRef && ref.T.Family == types.Varchar {
			return ref, true
		}
	}
	ref, ok := e.(*ColumnRef)
	return ref, ok
}

// onceValue reports whether e reads no column and gives the same value
// however often it is evaluated in one statement.
func onceValue(e Expr) bool {
	ok := true
	walkExpr(e, func(x Expr) {
		switch v := x.(type) {
		case *Const, *Param, *Cast, *OuterRef, *ArrayExpr:
		case *Call:
			ok = ok && v.Overload != nil && v.Overload.Volatility != functions.Volatile
		default:
			ok = false
		}
	})
	return ok
}

// keyTypesAgree reports whether a column of type col equals a value of
// type val exactly when their storage keys are equal.
func keyTypesAgree(col, val types.T) bool {
	switch {
	case col.IsInteger() && val.IsInteger():
		return col.Family != types.Oid && val.Family != types.Oid
	case (col.Family == types.Text || col.Family == types.Varchar) && (val.Family == types.Text || val.Family == types.Varchar):
		return true
	case !col.Equal(val):
		return false
	}
	switch col.Family {
	case types.Bool, types.Float4, types.Float8, types.Numeric, types.Char, types.Bytea, types.UUID,
		types.DateFamily, types.Time, types.TimestampFamily, types.TimestampTZ, types.Interval, types.Name,
		types.Inet, types.CIDR, types.MacAddr, types.MacAddr8: // stored as canonical text
		return true
	}
	return false
}
