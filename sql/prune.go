package sql

// Column pruning: a scan reads only the columns some node above it uses, so
// `SELECT id FROM memory` never decodes the embeddings. The pass walks the
// plan top-down with the set of output columns each node's parent needs,
// narrows Scans, and renumbers column references on the way back up.

import "slices"

// PruneColumns returns plan with every Scan reading only the columns the
// plan uses. The plan's own output columns are unchanged.
func PruneColumns(plan Node) Node {
	all := make([]bool, len(plan.Columns()))
	for i := range all {
		all[i] = true
	}
	n, _ := prune(plan, all)
	return n
}

// refs marks the input columns e reads.
func refs(need []bool, exprs ...Expr) {
	for _, e := range exprs {
		walkExpr(e, func(x Expr) {
			if r, ok := x.(*ColumnRef); ok && r.Index < len(need) {
				need[r.Index] = true
			}
		})
	}
}

func sortExprs(keys []SortKey) []Expr {
	out := make([]Expr, len(keys))
	for i, k := range keys {
		out[i] = k.Expr
	}
	return out
}

// remap renumbers column references through mapping (old index -> new).
func remap(e Expr, mapping []int) Expr {
	if e == nil {
		return nil
	}
	out, _ := transformExpr(e, func(x Expr) (Expr, error) {
		if r, ok := x.(*ColumnRef); ok {
			return &ColumnRef{Index: mapping[r.Index], Name: r.Name, T: r.T, Of: r.Of}, nil
		}
		return nil, nil
	})
	return out
}

func remapAll(es []Expr, mapping []int) []Expr {
	out := make([]Expr, len(es))
	for i, e := range es {
		out[i] = remap(e, mapping)
	}
	return out
}

func remapKeys(keys []SortKey, mapping []int) []SortKey {
	out := make([]SortKey, len(keys))
	for i, k := range keys {
		out[i] = k
		out[i].Expr = remap(k.Expr, mapping)
	}
	return out
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

func allTrue(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

// prune narrows n to the needed output columns (it may keep more) and
// returns the new node with the mapping from old output positions to new
// ones (-1 for dropped columns).
func prune(n Node, need []bool) (Node, []int) {
	switch x := n.(type) {
	case *Scan:
		out := &Scan{Table: x.Table, Alias: x.Alias, WithRowID: x.WithRowID}
		ncols := len(x.Cols)
		mapping := make([]int, len(x.Out))
		for i := 0; i < ncols; i++ {
			mapping[i] = -1
			// A scan keeps at least one column so that its batches still
			// carry row counts (count(*)).
			if need[i] || i == 0 && !anyTrue(need[:ncols]) {
				mapping[i] = len(out.Cols)
				out.Cols = append(out.Cols, x.Cols[i])
				out.Out = append(out.Out, x.Out[i])
			}
		}
		if x.WithRowID && (ncols >= len(need) || need[ncols]) {
			mapping[ncols] = len(out.Out)
			out.Out = append(out.Out, x.Out[ncols])
		} else if x.WithRowID {
			mapping[ncols] = -1
			out.WithRowID = false
		}
		return out, mapping
	case *KeyLookup:
		// The key columns are needed only by the fallback filter, which
		// reads the scan's own.
		scanNeed := append([]bool(nil), need...)
		refs(scanNeed, x.Cond)
		sc, m := prune(x.Scan, scanNeed)
		return &KeyLookup{Scan: sc.(*Scan), Constraint: x.Constraint, KeyCols: x.KeyCols, Keys: x.Keys, Cond: remap(x.Cond, m)}, m
	case *Filter:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, x.Cond)
		in, m := prune(x.Input, childNeed)
		return &Filter{Input: in, Cond: remap(x.Cond, m)}, m
	case *Project:
		childNeed := make([]bool, len(x.Input.Columns()))
		refs(childNeed, x.Exprs...)
		in, m := prune(x.Input, childNeed)
		return &Project{Input: in, Exprs: remapAll(x.Exprs, m), Out: x.Out}, identity(len(x.Out))
	case *Aggregate:
		childNeed := make([]bool, len(x.Input.Columns()))
		refs(childNeed, x.GroupBy...)
		for _, a := range x.Aggs {
			refs(childNeed, a.Args...)
			refs(childNeed, a.Filter)
			refs(childNeed, sortExprs(a.OrderBy)...)
		}
		in, m := prune(x.Input, childNeed)
		agg := &Aggregate{Input: in, GroupBy: remapAll(x.GroupBy, m), Sets: x.Sets, Out: x.Out}
		for _, a := range x.Aggs {
			a.Args = remapAll(a.Args, m)
			a.Filter = remap(a.Filter, m)
			a.OrderBy = remapKeys(a.OrderBy, m)
			agg.Aggs = append(agg.Aggs, a)
		}
		return agg, identity(len(x.Out))
	case *Sort:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, sortExprs(x.Keys)...)
		in, m := prune(x.Input, childNeed)
		return &Sort{Input: in, Keys: remapKeys(x.Keys, m)}, m
	case *TopK:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, sortExprs(x.Keys)...)
		in, m := prune(x.Input, childNeed)
		return &TopK{Input: in, Keys: remapKeys(x.Keys, m), Count: x.Count, Offset: x.Offset}, m
	case *Limit:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, sortExprs(x.Ties)...)
		in, m := prune(x.Input, childNeed)
		return &Limit{Input: in, Count: x.Count, Offset: x.Offset, Ties: remapKeys(x.Ties, m)}, m
	case *LockRows:
		childNeed := append([]bool(nil), need...)
		for _, t := range x.Targets {
			childNeed[t.RowID] = true
		}
		in, m := prune(x.Input, childNeed)
		l := *x // Count and Offset read no columns
		l.Input, l.Targets = in, slices.Clone(x.Targets)
		for i := range l.Targets {
			l.Targets[i].RowID = m[x.Targets[i].RowID]
		}
		return &l, m
	case *Distinct:
		in, m := prune(x.Input, allTrue(len(x.Input.Columns())))
		return &Distinct{Input: in, OnCount: x.OnCount}, m
	case *Join:
		nl := len(x.Left.Columns())
		lneed := make([]bool, nl)
		rneed := make([]bool, len(x.Right.Columns()))
		for i, b := range need {
			if b && i < nl {
				lneed[i] = true
			} else if b {
				rneed[i-nl] = true
			}
		}
		both := make([]bool, nl+len(rneed))
		refs(both, x.Cond)
		refs(both, x.EquiLeft...)
		for i, b := range both {
			if b && i < nl {
				lneed[i] = true
			} else if b {
				rneed[i-nl] = true
			}
		}
		refs(rneed, x.EquiRight...)
		left, lm := prune(x.Left, lneed)
		right, rm := prune(x.Right, rneed)
		newL := len(left.Columns())
		mapping := make([]int, len(x.Out))
		var out []Col
		for i := range x.Out {
			mapping[i] = -1
			if i < nl && lm[i] >= 0 {
				mapping[i] = lm[i]
			} else if i >= nl && rm[i-nl] >= 0 {
				mapping[i] = newL + rm[i-nl]
			}
		}
		out = make([]Col, newL+len(right.Columns()))
		for i, c := range x.Out {
			if mapping[i] >= 0 {
				out[mapping[i]] = c
			}
		}
		j := &Join{Kind: x.Kind, Left: left, Right: right, Cond: remap(x.Cond, mapping),
			EquiLeft: remapAll(x.EquiLeft, lm), EquiRight: remapAll(x.EquiRight, rm), Out: out}
		return j, mapping
	case *SetOp:
		l, _ := prune(x.Left, allTrue(len(x.Left.Columns())))
		r, _ := prune(x.Right, allTrue(len(x.Right.Columns())))
		return &SetOp{Kind: x.Kind, All: x.All, Left: l, Right: r, Out: x.Out}, identity(len(x.Out))
	case *HybridTopK:
		nin := len(x.Input.Columns())
		childNeed := append([]bool(nil), need[:nin]...)
		refs(childNeed, x.Score)
		in, m := prune(x.Input, childNeed)
		score, _ := remap(x.Score, m).(*HybridScore)
		out := &HybridTopK{Input: in, Score: score, Count: x.Count, Offset: x.Offset}
		out.Out = append(append([]Col{}, in.Columns()...), x.Out[nin])
		return out, append(m, len(out.Out)-1)
	case *VectorTopK:
		// The scan keeps the WHERE clause's columns: without a LIMIT the
		// operator answers from the scan under Filter instead of the index.
		childNeed := append([]bool(nil), need...)
		refs(childNeed, x.Filter)
		sc, m := prune(x.Scan, childNeed)
		out := *x
		out.Scan = sc.(*Scan)
		out.Filter = remap(x.Filter, m)
		if x.RowFilter != nil {
			out.RowFilter = PruneColumns(x.RowFilter)
		}
		return &out, m
	case *HybridCandidates:
		sc, m := prune(x.Scan, need)
		out := *x
		out.Scan = sc.(*Scan)
		if x.RowFilter != nil {
			out.RowFilter = PruneColumns(x.RowFilter)
		}
		return &out, m
	case *TrigramScan:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, x.Cond)
		sc, m := prune(x.Scan, childNeed)
		out := &TrigramScan{Scan: sc.(*Scan), Index: x.Index, Cond: remap(x.Cond, m)}
		for _, p := range x.Patterns {
			out.Patterns = append(out.Patterns, TrigramPattern{Cond: remap(p.Cond, m), Pattern: p.Pattern, Fold: p.Fold})
		}
		return out, m
	case *KeyIndexScan:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, x.Cond)
		sc, m := prune(x.Scan, childNeed)
		out := *x
		out.Scan, out.Cond, out.IndexCond = sc.(*Scan), remap(x.Cond, m), remap(x.IndexCond, m)
		return &out, m
	case *TextTopK:
		childNeed := append([]bool(nil), need...)
		refs(childNeed, x.Score)
		sc, m := prune(x.Scan, childNeed)
		score, _ := remap(x.Score, m).(*BM25Score)
		return &TextTopK{Scan: sc.(*Scan), Score: score, Count: x.Count, Offset: x.Offset}, m
	case *Explain:
		in := PruneColumns(x.Input)
		return &Explain{Input: in, Analyze: x.Analyze, Format: x.Format}, identity(1)
	case *Insert:
		in := PruneColumns(x.Input)
		c := *x
		c.Input = in
		return &c, identity(len(x.Out))
	}
	// Values, SRF, Update, Delete and anything else: unchanged.
	return n, identity(len(n.Columns()))
}

func anyTrue(b []bool) bool {
	for _, v := range b {
		if v {
			return true
		}
	}
	return false
}
