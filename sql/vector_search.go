package sql

// ORDER BY a vector distance or similarity LIMIT k over a table with a
// vector index on the column answers from the index (VectorTopK).

import (
	"strings"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
)

// VectorTopK finds the rows of a table nearest to a query vector through
// a vector index (hnsw, ivfflat, deeplake_index): the Count+Offset best
// candidates, which the Sort and Limit above rank exactly. Its rows are
// those of Scan.
//
// With a WHERE clause, RowFilter yields the row IDs of the rows that
// satisfy it (reading only the columns the clause needs); Filter is the
// clause, for EXPLAIN. The search then accepts only those rows (scoring
// them all where they are few, walking the index otherwise), so a filter
// never makes it return fewer rows than qualify.
type VectorTopK struct {
	Scan  *Scan
	Index *catalog.IndexDef
	// Query is the query vector: a constant or a parameter.
	Query     Expr
	Count     Expr
	Offset    Expr
	Filter    Expr
	RowFilter Node
	// TieBreak marks an ORDER BY with keys after the distance: the rows
	// tied with the last of the Count+Offset best are candidates too, for
	// those keys to choose among.
	TieBreak bool
}

// Columns implements Node.
func (n *VectorTopK) Columns() []Col { return n.Scan.Columns() }

// Children implements Node.
func (n *VectorTopK) Children() []Node { return nil }

// String implements Node.
func (n *VectorTopK) String() string {
	var opts []string
	for _, o := range []string{"m", "ef_construction", "lists"} {
		if v, ok := n.Index.Options[o]; ok {
			opts = append(opts, o+"="+v)
		}
	}
	params := n.Index.Method + ", " + n.Index.VectorMetric(n.Scan.Table)
	if len(opts) > 0 {
		params += ", " + strings.Join(opts, ", ")
	}
	line := "Vector Index Scan using " + n.Index.Name + " on " + n.Scan.Table.Name + " (" + params + "): nearest to " + n.Query.String() + limitText(n.Count, n.Offset)
	if n.Filter != nil {
		line += " Filter: " + n.Filter.String()
	}
	return line
}

// planVectorTopK returns the VectorTopK that answers ORDER BY key LIMIT
// count OFFSET offset over plan (a table's scan, maybe under a WHERE
// filter), or nil when no vector index can: the key must be a vector
// metric's call of a scan column and a query that reads no column, sorted
// nearest first with NULLs last, and the table must have a vector index
// of that metric on the column.
func (b *Binder) planVectorTopK(plan Node, key SortKey, target Expr, count, offset Expr, tieBreak bool) *VectorTopK {
	if b.NoIndexScans {
		return nil
	}
	var filter Expr
	if f, ok := plan.(*Filter); ok {
		plan, filter = f.Input, f.Cond
	}
	scan, ok := plan.(*Scan)
	if !ok {
		return nil
	}
	call, ok := target.(*Call)
	if !ok || call.Overload == nil || call.Overload.VectorMetric == "" || len(call.Args) != 2 || key.NullsFirst {
		return nil
	}
	if key.Desc != call.Overload.NearerIsHigher {
		return nil
	}
	for i, arg := range call.Args {
		ref, isRef := stripCasts(arg).(*ColumnRef)
		query := call.Args[1-i]
		if !isRef || ref.Index >= len(scan.Cols) || readsColumns(query) {
			continue
		}
		ix := b.vectorIndexOn(scan, ref.Index, call.Overload.VectorMetric)
		if ix == nil {
			continue
		}
		vt := &VectorTopK{Scan: scan, Index: ix, Query: query, Count: count, Offset: offset, TieBreak: tieBreak}
		if filter != nil {
			if vt.RowFilter = rowFilter(scan, filter); vt.RowFilter == nil {
				return nil
			}
			vt.Filter = filter
		}
		return vt
	}
	return nil
}

// vectorIndexOn returns a vector index of the given metric on the scan's
// column at position col, or nil when the table has none. The vector arm
// of a hybrid index is one (of metric cosine).
func (b *Binder) vectorIndexOn(scan *Scan, col int, metric string) *catalog.IndexDef {
	colID := scan.Table.Columns[scan.Cols[col]].ID
	for _, ix := range b.Catalog.IndexesOf(scan.Table.ID) {
		if len(ix.Columns) > 0 && ix.Columns[0] == colID && ix.VectorMetric(scan.Table) == metric {
			return ix
		}
	}
	return nil
}

// HybridCandidates feeds a HybridTopK from the indexes instead of the
// whole table: the Count+Offset rows nearest to the query vector by the
// vector index (the vector arm's candidates) and the Count+Offset best
// BM25 matches of the query text by the text index (the text arm's), as
// rows of Scan. HybridTopK then ranks them exactly as it ranks a scan:
// its text arm is the same as over the whole table, its vector arm the
// index's approximation of it. Filter and RowFilter are as in VectorTopK:
// both arms accept only the qualifying rows.
type HybridCandidates struct {
	Scan  *Scan
	Index *catalog.IndexDef
	// Vector and Text are the query's vector and text (constants or
	// parameters); Table, Column and Op name the text arm's corpus as in
	// HybridScore.
	Vector, Text Expr
	Table        uint64
	Column       int
	Op           *functions.Overload
	Count        Expr
	Offset       Expr
	Filter       Expr
	RowFilter    Node
}

// Columns implements Node.
func (n *HybridCandidates) Columns() []Col { return n.Scan.Columns() }

// Children implements Node.
func (n *HybridCandidates) Children() []Node { return nil }

// String implements Node.
func (n *HybridCandidates) String() string {
	line := "Hybrid Index Scan using " + n.Index.Name + " on " + n.Scan.Table.Name + " (" + n.Index.Method + ", cosine): nearest to " +
		n.Vector.String() + ", BM25 matches of " + n.Text.String() + limitText(n.Count, n.Offset)
	if n.Filter != nil {
		line += " Filter: " + n.Filter.String()
	}
	return line
}

// planHybridCandidates puts a HybridCandidates under a HybridTopK with a
// LIMIT whose input is one table (maybe under a WHERE filter) with a
// vector index of metric cosine on the embedding column, when the query
// vector and text read no column. It leaves node as it is otherwise.
func (b *Binder) planHybridCandidates(node *HybridTopK) {
	if b.NoIndexScans || node.Count == nil || node.Score.RowID == nil {
		return
	}
	plan := node.Input
	var filter Expr
	if f, ok := plan.(*Filter); ok {
		plan, filter = f.Input, f.Cond
	}
	scan, ok := plan.(*Scan)
	if !ok || !scan.WithRowID || readsColumns(node.Score.Query.Embedding) || readsColumns(node.Score.Query.Text) {
		return
	}
	ref, ok := stripCasts(node.Score.Source.Embedding).(*ColumnRef)
	if !ok || ref.Index >= len(scan.Cols) {
		return
	}
	ix := b.vectorIndexOn(scan, ref.Index, "cosine")
	if ix == nil {
		return
	}
	score := node.Score
	hc := &HybridCandidates{Scan: scan, Index: ix, Vector: score.Query.Embedding, Text: score.Query.Text,
		Table: score.Table, Column: score.Column, Op: score.Op, Count: node.Count, Offset: node.Offset}
	if filter != nil {
		if hc.RowFilter = rowFilter(scan, filter); hc.RowFilter == nil {
			return
		}
		hc.Filter = filter
	}
	node.Input = hc
}

// stripCasts returns e without the casts around it.
func stripCasts(e Expr) Expr {
	for {
		c, ok := e.(*Cast)
		if !ok {
			return e
		}
		e = c.Arg
	}
}

// windowedOrSets reports whether a select list holds a window function or
// a set-returning function: both see every row of the FROM clause, so a
// search that returns only the best rows cannot feed them.
func windowedOrSets(items []selectItem) bool {
	found := false
	for _, it := range items {
		WalkExpr(it.expr, func(x Expr) {
			switch x.(type) {
			case *WindowCall, *SRFCall:
				found = true
			}
		})
	}
	return found
}

// rowFilter is the plan of the row IDs of scan's rows that satisfy cond,
// or nil when scan carries no row ID.
func rowFilter(scan *Scan, cond Expr) Node {
	if !scan.WithRowID {
		return nil
	}
	own := *scan
	id := len(scan.Out) - 1
	return &Project{Input: &Filter{Input: &own, Cond: cond}, Exprs: []Expr{&ColumnRef{Index: id, Name: catalog.RowIDColumn, T: scan.Out[id].T}}, Out: []Col{scan.Out[id]}}
}
