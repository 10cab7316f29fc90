package sql

// col = value over a table with a btree or hash index on the column (or
// whose index leads with it) reads only the rows holding the value
// (KeyIndexScan).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// KeyIndexScan reads the rows of a table whose leading index columns
// equal values computed once per execution, as PostgreSQL's bitmap scan
// of a btree index does: the index (catalog.KeyIndexes) gives the rows
// holding the values, in the table's order, and the whole WHERE clause
// is rechecked on them. Where most rows are candidates it reads the
// table instead. Its rows are those of Scan.
type KeyIndexScan struct {
	Scan  *Scan
	Index catalog.KeyIndex
	// Keys are the values of the index's leading columns, one list per
	// column: a column = value conjunct gives one, col IN (...) or
	// col = ANY(array) several (Lists marks the latter: its one
	// expression is the array), col IS NULL a NULL (Nulls marks it: a
	// NULL of the others matches nothing). Every combination is looked
	// up. None reads a column.
	Keys  [][]Expr
	Lists []bool
	Nulls []bool
	// IndexCond are the conjuncts the keys come from (EXPLAIN).
	IndexCond Expr
	// Cond is the whole WHERE clause, rechecked on every candidate.
	Cond Expr
}

// Columns implements Node.
func (n *KeyIndexScan) Columns() []Col { return n.Scan.Columns() }

// Children implements Node.
func (n *KeyIndexScan) Children() []Node { return nil }

// String implements Node: PostgreSQL's bitmap heap and index scan lines
// in one.
func (n *KeyIndexScan) String() string {
	scan := strings.Replace(n.Scan.String(), "Seq Scan", "Bitmap Heap Scan", 1)
	return scan + " using " + n.Index.Name + ": Index Cond: " + n.IndexCond.String() + " Recheck Cond: " + n.Cond.String()
}

// planIndexScans replaces, in the FROM and WHERE plan of a query, each
// Filter over a table's Scan whose condition an index answers with the
// scan of that index: a trigram index's for LIKE, a key index's for
// equalities.
func (b *Binder) planIndexScans(plan Node) Node {
	if b.NoBitmapScans {
		return plan
	}
	switch x := plan.(type) {
	case *Filter:
		if scan, ok := x.Input.(*Scan); ok {
			if ts := b.trigramScan(scan, x.Cond); ts != nil {
				return ts
			}
			if ks := b.keyIndexScan(scan, x.Cond); ks != nil {
				return ks
			}
			return x
		}
		in := b.planIndexScans(x.Input)
		if in == x.Input {
			return x
		}
		return &Filter{Input: in, Cond: x.Cond}
	case *Project:
		in := b.planIndexScans(x.Input)
		if in == x.Input {
			return x
		}
		return &Project{Input: in, Exprs: x.Exprs, Out: x.Out}
	case *Join:
		l, r := b.planIndexScans(x.Left), b.planIndexScans(x.Right)
		if l == x.Left && r == x.Right {
			return x
		}
		j := *x
		j.Left, j.Right = l, r
		return &j
	}
	return plan
}

// keyIndexScan returns the KeyIndexScan of scan filtered by cond through
// the key index whose leading columns its equalities cover most of, or
// nil when none has its first column covered.
func (b *Binder) keyIndexScan(scan *Scan, cond Expr) *KeyIndexScan {
	if b.Catalog == nil {
		return nil
	}
	indexes := b.Catalog.KeyIndexes(scan.Table.ID)
	if len(indexes) == 0 {
		return nil
	}
	// The indexable conjuncts by column ID: the first for each column.
	type keyConj struct {
		cond  Expr
		keys  []Expr
		array bool
		null  bool
	}
	byCol := map[int]keyConj{}
	for _, c := range conjuncts(cond) {
		col, keys, array, ok := keyMembership(scan, c)
		if !ok {
			continue
		}
		if _, dup := byCol[col]; !dup {
			_, null := c.(*IsNull)
			byCol[col] = keyConj{cond: c, keys: keys, array: array, null: null}
		}
	}
	if len(byCol) == 0 {
		return nil
	}
	var best *KeyIndexScan
	for _, ix := range indexes {
		width := 0
		for width < len(ix.Columns) {
			if _, ok := byCol[ix.Columns[width]]; !ok {
				break
			}
			width++
		}
		if width == 0 || ix.Hash && width < len(ix.Columns) || best != nil && width <= len(best.Keys) {
			continue
		}
		ks := &KeyIndexScan{Scan: scan, Index: ix, Cond: cond}
		var conds []Expr
		for _, id := range ix.Columns[:width] {
			kc := byCol[id]
			ks.Keys = append(ks.Keys, kc.keys)
			ks.Lists = append(ks.Lists, kc.array)
			ks.Nulls = append(ks.Nulls, kc.null)
			conds = append(conds, kc.cond)
		}
		ks.IndexCond = andAll(conds)
		best = ks
	}
	return best
}

// keyMembership recognises a conjunct that holds a table column of scan
// to one or more values that read no column: column = value (as a
// primary key lookup takes it, keyEquality), column IN (values),
// column = ANY(array), a boolean column alone (= true) and column IS NULL
// (keys is then one NULL, which the index finds NULLs by). array is set
// for = ANY: keys is then the one array.
func keyMembership(scan *Scan, c Expr) (colID int, keys []Expr, array bool, ok bool) {
	if col, key, isEq := keyEquality(scan, c); isEq {
		return col, []Expr{key}, false, true
	}
	column := func(e Expr) (int, types.T, bool) {
		ref, isRef := keyColumnRef(e)
		if !isRef || ref.Index >= len(scan.Cols) {
			return 0, types.T{}, false
		}
		return scan.Table.Columns[scan.Cols[ref.Index]].ID, ref.T, true
	}
	switch x := c.(type) {
	case *IsNull:
		id, t, isCol := column(x.Arg)
		if !isCol || x.Negate {
			return 0, nil, false, false
		}
		return id, []Expr{&Const{Value: nil, T: t}}, false, true
	case *ColumnRef:
		id, t, isCol := column(x)
		if !isCol || t.Family != types.Bool {
			return 0, nil, false, false
		}
		return id, []Expr{&Const{Value: true, T: types.BoolT}}, false, true
	case *InList:
		if x.Negate || x.Equal == nil || x.Equal.Name != "=" {
			return 0, nil, false, false
		}
		id, t, isCol := column(x.Arg)
		if !isCol {
			return 0, nil, false, false
		}
		for _, item := range x.List {
			if !onceValue(item) || !keyTypesAgree(t, item.Type()) {
				return 0, nil, false, false
			}
		}
		return id, x.List, false, true
	case *AnyAll:
		if x.All || x.Op == nil || x.Op.Name != "=" || !onceValue(x.Array) {
			return 0, nil, false, false
		}
		id, t, isCol := column(x.Left)
		at := x.Array.Type()
		if !isCol || !at.IsArray() || at.Elem == nil || at.Dims > 1 || !keyTypesAgree(t, *at.Elem) {
			return 0, nil, false, false
		}
		return id, []Expr{x.Array}, true, true
	}
	return 0, nil, false, false
}
