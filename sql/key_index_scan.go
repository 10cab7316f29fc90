package sql

// col = value (or IN, = ANY, IS NULL) over a table with a btree or hash
// index on the column or expression, or one leading with it, reads only
// the rows holding the values, and col > value those of the range of a
// btree index's first key (KeyIndexScan).

import (
	"slices"
	"strings"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// KeyIndexScan reads the rows of a table whose leading index keys equal
// values computed once per execution, or whose first key lies in a
// range, as PostgreSQL's bitmap scan of a btree index does: the index
// (catalog.KeyIndexes) gives the rows, in the table's order, and the
// whole WHERE clause is rechecked on them. Where very many rows are
// candidates it reads the table keeping them. Its rows are those of Scan.
type KeyIndexScan struct {
	Scan  *Scan
	Index catalog.KeyIndex
	// Keys are the values of the index's leading keys, one list per
	// key: a key = value conjunct gives one, col IN (...) or
	// col = ANY(array) several (Lists marks the latter: its one
	// expression is the array), col IS NULL a NULL (Nulls marks it: a
	// NULL of the others matches nothing). Every combination is looked
	// up. None reads a column.
	Keys  [][]Expr
	Lists []bool
	Nulls []bool
	// Lower and Upper bound the index's first key instead (a range, Keys
	// empty): nil for no bound on that side; LowerIncl and UpperIncl
	// include the bound (>=, <=). The key is of a type whose index
	// encoding orders as its values (orderedKeyType).
	Lower, Upper         Expr
	LowerIncl, UpperIncl bool
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
// the key index whose leading keys its conjuncts cover most of, or nil
// when none has its first key covered.
func (b *Binder) keyIndexScan(scan *Scan, cond Expr) *KeyIndexScan {
	if b.Catalog == nil {
		return nil
	}
	indexes := b.Catalog.KeyIndexes(scan.Table.ID)
	if len(indexes) == 0 {
		return nil
	}
	var conjs []keyConj
	for _, c := range conjuncts(cond) {
		if kc, ok := keyConjunct(scan, c); ok {
			conjs = append(conjs, kc)
		}
	}
	if len(conjs) == 0 {
		return nil
	}
	var best *KeyIndexScan
	for _, ix := range indexes {
		keys := b.indexKeys(scan, ix)
		var matched []keyConj
		for _, key := range keys {
			i := slices.IndexFunc(conjs, func(kc keyConj) bool { return kc.op == "" && kc.answers(key) })
			if i < 0 {
				break
			}
			matched = append(matched, conjs[i])
		}
		width := len(matched)
		if width == 0 || ix.Hash && width < len(keys) || best != nil && width <= len(best.Keys) {
			continue
		}
		ks := &KeyIndexScan{Scan: scan, Index: ix, Cond: cond}
		var conds []Expr
		for _, kc := range matched {
			ks.Keys = append(ks.Keys, kc.values)
			ks.Lists = append(ks.Lists, kc.array)
			ks.Nulls = append(ks.Nulls, kc.null)
			conds = append(conds, kc.cond)
		}
		ks.IndexCond = andAll(conds)
		best = ks
	}
	if best != nil {
		return best
	}
	// A list of values of a one-column primary key or unique rule
	// (id = ANY($1)): probes of its hash index.
	for _, u := range uniqueRules(b.Catalog, scan.Table) {
		pos, c := scan.Table.ColumnByID(u.Columns[0])
		if c == nil {
			continue
		}
		key := indexKey{column: pos, t: c.Type}
		for _, kc := range conjs {
			if kc.op == "" && !kc.null && (kc.array || len(kc.values) > 1) && kc.answers(key) {
				return &KeyIndexScan{Scan: scan, Index: u, Cond: cond, IndexCond: kc.cond,
					Keys: [][]Expr{kc.values}, Lists: []bool{kc.array}, Nulls: []bool{false}}
			}
		}
	}
	// No equality: a range of an index's first key, from the first
	// conjuncts bounding it below and above (the recheck applies the
	// others).
	for _, ix := range indexes {
		keys := b.indexKeys(scan, ix)
		if ix.Hash || len(keys) == 0 || !orderedKeyType(keys[0].t) {
			continue
		}
		ks := &KeyIndexScan{Scan: scan, Index: ix, Cond: cond}
		var conds []Expr
		for _, kc := range conjs {
			if kc.op == "" || !kc.answers(keys[0]) {
				continue
			}
			lower := kc.op == ">" || kc.op == ">="
			switch {
			case lower && ks.Lower == nil:
				ks.Lower, ks.LowerIncl = kc.values[0], kc.op == ">="
			case !lower && ks.Upper == nil:
				ks.Upper, ks.UpperIncl = kc.values[0], kc.op == "<="
			default:
				continue
			}
			conds = append(conds, kc.cond)
		}
		if len(conds) > 0 {
			ks.IndexCond = andAll(conds)
			return ks
		}
	}
	return nil
}

// uniqueRules are def's primary key and unique rules of one column (a
// constraint or a plain unique index), as key indexes answered through
// their hash index (catalog.KeyIndex.Unique).
func uniqueRules(cat *catalog.Catalog, def *catalog.TableDef) []catalog.KeyIndex {
	var out []catalog.KeyIndex
	if len(def.PrimaryKey) == 1 {
		out = append(out, catalog.KeyIndex{Name: def.PrimaryKeyConstraint(), Columns: def.PrimaryKey, Unique: true})
	}
	for _, u := range def.Uniques {
		if len(u.Columns) == 1 {
			out = append(out, catalog.KeyIndex{Name: u.Name, Columns: u.Columns, Unique: true})
		}
	}
	for _, ix := range cat.IndexesOf(def.ID) {
		if ix.PlainUnique() && len(ix.Columns) == 1 {
			out = append(out, catalog.KeyIndex{Name: ix.Name, Columns: ix.Columns, Def: ix, Unique: true})
		}
	}
	return out
}

// orderedKeyType reports whether the key index encodes values of type t
// so that their bytes order as the values do (storage's
// appendIndexValue): integers, dates, times, timestamps and floats.
func orderedKeyType(t types.T) bool {
	switch t.Family {
	case types.DateFamily, types.Time, types.TimestampFamily, types.TimestampTZ, types.Float4, types.Float8:
		return true
	}
	return t.IsInteger() && t.Family != types.Oid
}

// indexKey is one key of a key index as the planner matches it: a column
// of the scan's table (by position in it) or an expression over the
// table's columns (positions as in the table), and the key's type.
type indexKey struct {
	column int // position in the table; -1 for an expression
	expr   Expr
	t      types.T
}

// indexKeys returns the keys of index ix of scan's table; nil when they
// cannot be matched (an expression that no longer binds).
func (b *Binder) indexKeys(scan *Scan, ix catalog.KeyIndex) []indexKey {
	def := scan.Table
	if !ix.Computed() {
		keys := make([]indexKey, len(ix.Columns))
		for i, id := range ix.Columns {
			pos, c := def.ColumnByID(id)
			if c == nil {
				return nil
			}
			keys[i] = indexKey{column: pos, t: c.Type}
		}
		return keys
	}
	exprs, err := IndexKeyExprs(b.Catalog, def, ix.Def)
	if err != nil {
		return nil
	}
	keys := make([]indexKey, len(exprs))
	for i, e := range exprs {
		keys[i] = indexKey{column: -1, expr: e, t: e.Type()}
		if ref, ok := e.(*ColumnRef); ok {
			keys[i].column = ref.Index
		}
	}
	return keys
}

// keyConj is a conjunct that holds an expression over the columns of a
// scan (target; its column references renumbered to the table's
// positions) to values that read no column.
type keyConj struct {
	cond   Expr
	target Expr
	// values are the values: one for target = value, several for
	// target IN (...), the array for target = ANY(array) (array set), a
	// NULL for target IS NULL (null set).
	values []Expr
	// types are the values' types (an array's element type).
	types []types.T
	array bool
	null  bool
	// op is the comparison of a range conjunct (<, <=, > or >=, with the
	// target on the left), "" for the others.
	op string
}

// answers reports whether the conjunct gives values of key k whose
// equality is the key's: the same column or expression, values of a type
// whose storage key agrees.
func (kc keyConj) answers(k indexKey) bool {
	if ref, ok := kc.target.(*ColumnRef); ok {
		if ref.Index != k.column {
			return false
		}
	} else if k.expr == nil || !sameExpr(kc.target, k.expr) {
		return false
	}
	for _, t := range kc.types {
		if !keyTypesAgree(k.t, t) {
			return false
		}
	}
	return true
}

// keyConjunct recognises a conjunct that holds a column or an expression
// over scan's columns to one or more values that read no column:
// target = value (either way round), target IN (values), target =
// ANY(array), target IS NULL, and a boolean column alone (= true).
func keyConjunct(scan *Scan, c Expr) (keyConj, bool) {
	// target returns e as a key's target: a column (a varchar one cast to
	// text as itself), or an expression reading scan's columns and
	// nothing volatile, renumbered to the table's positions.
	target := func(e Expr) (Expr, bool) {
		if ref, ok := keyColumnRef(e); ok {
			if ref.Index >= len(scan.Cols) {
				return nil, false
			}
			return &ColumnRef{Index: scan.Cols[ref.Index], Name: ref.Name, T: ref.T}, true
		}
		if !readsColumns(e) {
			return nil, false
		}
		ok := true
		walkExpr(e, func(x Expr) {
			switch x := x.(type) {
			case *ColumnRef:
				ok = ok && x.Index < len(scan.Cols)
			case *OuterRef, *Subquery, *NextVal, *SeqFunc:
				ok = false
			case *Call:
				ok = ok && x.Overload != nil && x.Overload.Volatility == functions.Immutable
			}
		})
		if !ok {
			return nil, false
		}
		return remap(e, scan.Cols), true
	}
	switch x := c.(type) {
	case *Call:
		flipped := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
		if _, ok := flipped[x.Name]; !ok || len(x.Args) != 2 {
			return keyConj{}, false
		}
		for i, arg := range x.Args {
			value := x.Args[1-i]
			if !onceValue(value) {
				continue
			}
			if t, ok := target(arg); ok {
				kc := keyConj{cond: c, target: t, values: []Expr{value}, types: []types.T{value.Type()}}
				if kc.op = x.Name; i == 1 {
					kc.op = flipped[x.Name]
				}
				if kc.op == "=" {
					kc.op = ""
				}
				return kc, true
			}
		}
	case *IsNull:
		if t, ok := target(x.Arg); ok && !x.Negate {
			return keyConj{cond: c, target: t, values: []Expr{&Const{Value: nil, T: x.Arg.Type()}}, null: true}, true
		}
	case *ColumnRef:
		if t, ok := target(x); ok && x.T.Family == types.Bool {
			return keyConj{cond: c, target: t, values: []Expr{&Const{Value: true, T: types.BoolT}}, types: []types.T{types.BoolT}}, true
		}
	case *InList:
		if x.Negate || x.Equal == nil || x.Equal.Name != "=" {
			return keyConj{}, false
		}
		t, ok := target(x.Arg)
		if !ok {
			return keyConj{}, false
		}
		kc := keyConj{cond: c, target: t, values: x.List}
		for _, item := range x.List {
			if !onceValue(item) {
				return keyConj{}, false
			}
			kc.types = append(kc.types, item.Type())
		}
		return kc, true
	case *AnyAll:
		if x.All || x.Op == nil || x.Op.Name != "=" || !onceValue(x.Array) {
			return keyConj{}, false
		}
		at := x.Array.Type()
		t, ok := target(x.Left)
		if !ok || !at.IsArray() || at.Elem == nil || at.Dims > 1 {
			return keyConj{}, false
		}
		return keyConj{cond: c, target: t, values: []Expr{x.Array}, types: []types.T{*at.Elem}, array: true}, true
	}
	return keyConj{}, false
}
