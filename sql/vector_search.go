package sql

// ORDER BY a vector distance or similarity LIMIT k over a table with a
// vector index on the column answers from the index (VectorTopK).

import (
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
)

// VectorTopK finds the rows of a table nearest to a query vector through
// a vector index (hnsw, ivfflat, deeplake_index): the Count+Offset best
// candidates, which the Sort and Limit above rank exactly. Its rows are
// those of Scan.
//
// With a WHERE clause, RowFilter yields the row IDs of the rows that
// satisfy it (reading only the columns the clause needs); Filter is the
// clause, for EXPLAIN. The executor then answers exactly from the
// qualifying rows when they are few, and otherwise walks the index
// accepting only them, so a filter never makes the search return fewer
// rows than qualify.
type VectorTopK struct {
	Scan  *Scan
	Index *catalog.IndexDef
	// Query is the query vector: a constant or a parameter.
	Query     Expr
	Count     Expr
	Offset    Expr
	Filter    Expr
	RowFilter Node
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
func (b *Binder) planVectorTopK(plan Node, key SortKey, target Expr, count, offset Expr) *VectorTopK {
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
		colID := scan.Table.Columns[scan.Cols[ref.Index]].ID
		for _, ix := range b.Catalog.IndexesOf(scan.Table.ID) {
			if len(ix.Columns) == 1 && ix.Columns[0] == colID && ix.VectorMetric(scan.Table) == call.Overload.VectorMetric {
				vt := &VectorTopK{Scan: scan, Index: ix, Query: query, Count: count, Offset: offset}
				if filter != nil {
					if vt.RowFilter = rowFilter(scan, filter); vt.RowFilter == nil {
						return nil
					}
					vt.Filter = filter
				}
				return vt
			}
		}
	}
	return nil
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
