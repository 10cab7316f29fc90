package sql

// col LIKE / ILIKE a pattern over a table with a trigram index on the
// column (gin_trgm_ops, gist_trgm_ops, deeplake_index exact_text) reads
// only the rows holding the pattern's trigrams (TrigramScan).

import (
	"strings"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
)

// TrigramScan reads the rows of a table that satisfy a WHERE clause
// holding a LIKE or ILIKE conjunct on a trigram-indexed column, as
// PostgreSQL's bitmap scan of a pg_trgm index does: the index gives the
// rows holding the trigrams of every such conjunct's pattern, and the
// whole clause is rechecked on them. Where the patterns yield no trigram
// ('%ab%') or most rows are candidates, it reads the table as
// Filter(Scan) would. Its rows are those of Scan.
type TrigramScan struct {
	Scan  *Scan
	Index *catalog.IndexDef
	// Patterns are the indexable conjuncts of Cond: the column's LIKE
	// (~~) and ILIKE (~~*) against patterns that read no column.
	Patterns []TrigramPattern
	// Cond is the whole WHERE clause, rechecked on every candidate.
	Cond Expr
}

// TrigramPattern is one LIKE or ILIKE conjunct a TrigramScan's index
// answers.
type TrigramPattern struct {
	Cond    Expr // the conjunct, for EXPLAIN
	Pattern Expr // a constant, parameter or column-free expression
	Fold    bool // ILIKE
}

// Columns implements Node.
func (n *TrigramScan) Columns() []Col { return n.Scan.Columns() }

// Children implements Node.
func (n *TrigramScan) Children() []Node { return nil }

// String implements Node: PostgreSQL's bitmap heap and index scan lines
// in one.
func (n *TrigramScan) String() string {
	conds := make([]Expr, len(n.Patterns))
	for i, p := range n.Patterns {
		conds[i] = p.Cond
	}
	scan := strings.Replace(n.Scan.String(), "Seq Scan", "Bitmap Heap Scan", 1)
	return scan + " using " + n.Index.Name + " (trigram): Index Cond: " + andAll(conds).String() + " Recheck Cond: " + n.Cond.String()
}

// trigramScan returns the TrigramScan of scan filtered by cond, or nil
// when no conjunct of cond is a LIKE or ILIKE a trigram index answers.
func (b *Binder) trigramScan(scan *Scan, cond Expr) *TrigramScan {
	var ts *TrigramScan
	for _, c := range conjuncts(cond) {
		call, ok := c.(*Call)
		if !ok || call.Overload == nil || len(call.Args) != 2 || (call.Overload.Name != "~~" && call.Overload.Name != "~~*") {
			continue
		}
		ref, ok := stripCasts(call.Args[0]).(*ColumnRef)
		if !ok || ref.Index >= len(scan.Cols) || !constantPattern(call.Args[1]) {
			continue
		}
		colID := scan.Table.Columns[scan.Cols[ref.Index]].ID
		if ts != nil {
			if ts.Index.Columns[0] == colID {
				ts.Patterns = append(ts.Patterns, TrigramPattern{Cond: c, Pattern: call.Args[1], Fold: call.Overload.Name == "~~*"})
			}
			continue
		}
		for _, ix := range b.Catalog.IndexesOf(scan.Table.ID) {
			if ix.Trigram() && ix.Columns[0] == colID {
				ts = &TrigramScan{Scan: scan, Index: ix, Cond: cond,
					Patterns: []TrigramPattern{{Cond: c, Pattern: call.Args[1], Fold: call.Overload.Name == "~~*"}}}
				break
			}
		}
	}
	return ts
}

// constantPattern reports whether e has one value for the whole query:
// it reads no column and calls nothing volatile.
func constantPattern(e Expr) bool {
	ok := !readsColumns(e)
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *NextVal, *SeqFunc, *Subquery:
			ok = false
		case *Call:
			ok = ok && x.Overload != nil && x.Overload.Volatility != functions.Volatile
		}
	})
	return ok
}
