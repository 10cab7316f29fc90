package sql

// WalkExpr calls fn for e and every expression inside it, parents first.
// It does not descend into subquery plans.
func WalkExpr(e Expr, fn func(Expr)) { walkExpr(e, fn) }

// walkExpr calls fn for e and every expression inside it, parents first.
// It does not descend into subquery plans.
func walkExpr(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	for _, c := range exprChildren(e) {
		walkExpr(c, fn)
	}
}

// exprChildren lists the direct sub-expressions of e.
func exprChildren(e Expr) []Expr {
	switch x := e.(type) {
	case *Call:
		return x.Args
	case *Cast:
		return []Expr{x.Arg}
	case *BoolOp:
		return x.Args
	case *IsNull:
		return []Expr{x.Arg}
	case *IsDistinct:
		return []Expr{x.Left, x.Right}
	case *Case:
		var out []Expr
		for _, w := range x.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *Coalesce:
		return x.Args
	case *InList:
		return append([]Expr{x.Arg}, x.List...)
	case *AnyAll:
		return []Expr{x.Left, x.Array}
	case *ArrayExpr:
		return x.Elems
	case *Subscript:
		out := []Expr{x.Arg}
		for _, ix := range x.Indexes {
			if ix.Lower != nil {
				out = append(out, ix.Lower)
			}
			if ix.Upper != nil {
				out = append(out, ix.Upper)
			}
		}
		return out
	case *RowExpr:
		return x.Args
	case *SeqFunc:
		return x.Args
	case *Subquery:
		var hashedLeft Expr
		if x.Hashed != nil {
			hashedLeft = x.Hashed.Left
		}
		return append(nonNil(x.Left, hashedLeft), x.Args...)
	case *WindowCall:
		return x.Func.windowExprs()
	case *SRFCall:
		return x.SRF.Args
	case *FieldSelect:
		return []Expr{x.Arg}
	case *DomainCheck:
		// The checks read their own one-column batch, not the input's.
		return nonNil(x.Arg)
	case *HybridRecord:
		return nonNil(x.Embedding, x.Text, x.WVec, x.WText)
	case *BM25Score:
		return nonNil(x.Text, x.Query, x.RowID)
	case *HybridScore:
		return nonNil(append(append(exprChildren(x.Source), exprChildren(x.Query)...), x.RowID)...)
	}
	return nil
}

func nonNil(es ...Expr) []Expr {
	out := es[:0:0]
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// transformExpr rebuilds e top-down: fn is offered each node first; a
// non-nil result replaces the node (and is not descended into), nil means
// "keep this node and transform its children".
func transformExpr(e Expr, fn func(Expr) (Expr, error)) (Expr, error) {
	if e == nil {
		return nil, nil
	}
	if r, err := fn(e); err != nil || r != nil {
		return r, err
	}
	var err error
	tr := func(x Expr) Expr {
		if err != nil || x == nil {
			return x
		}
		var out Expr
		out, err = transformExpr(x, fn)
		return out
	}
	trAll := func(xs []Expr) []Expr {
		out := make([]Expr, len(xs))
		for i, x := range xs {
			out[i] = tr(x)
		}
		return out
	}
	switch x := e.(type) {
	case *Call:
		c := *x
		c.Args = trAll(x.Args)
		return &c, err
	case *Cast:
		c := *x
		c.Arg = tr(x.Arg)
		return &c, err
	case *BoolOp:
		return &BoolOp{Op: x.Op, Args: trAll(x.Args)}, err
	case *IsNull:
		return &IsNull{Arg: tr(x.Arg), Negate: x.Negate}, err
	case *IsDistinct:
		c := *x
		c.Left, c.Right = tr(x.Left), tr(x.Right)
		return &c, err
	case *Case:
		c := &Case{T: x.T, Else: tr(x.Else)}
		for _, w := range x.Whens {
			c.Whens = append(c.Whens, When{Cond: tr(w.Cond), Result: tr(w.Result)})
		}
		return c, err
	case *Coalesce:
		return &Coalesce{Args: trAll(x.Args), T: x.T}, err
	case *InList:
		c := *x
		c.Arg, c.List = tr(x.Arg), trAll(x.List)
		return &c, err
	case *AnyAll:
		c := *x
		c.Left, c.Array = tr(x.Left), tr(x.Array)
		return &c, err
	case *ArrayExpr:
		return &ArrayExpr{Elems: trAll(x.Elems), T: x.T}, err
	case *Subscript:
		c := &Subscript{Arg: tr(x.Arg), T: x.T}
		for _, ix := range x.Indexes {
			c.Indexes = append(c.Indexes, SubscriptIndex{Lower: tr(ix.Lower), Upper: tr(ix.Upper), Slice: ix.Slice})
		}
		return c, err
	case *RowExpr:
		return &RowExpr{Args: trAll(x.Args), T: x.T}, err
	case *SeqFunc:
		c := *x
		c.Args = trAll(x.Args)
		return &c, err
	case *WindowCall:
		return &WindowCall{Func: x.Func.transform(tr)}, err
	case *FieldSelect:
		c := *x
		c.Arg = tr(x.Arg)
		return &c, err
	case *DomainCheck:
		c := *x
		c.Arg = tr(x.Arg)
		return &c, err
	case *SRFCall:
		srf := *x.SRF
		srf.Args = trAll(x.SRF.Args)
		return &SRFCall{SRF: &srf}, err
	case *Subquery:
		c := *x
		c.Left = tr(x.Left)
		if x.Args != nil {
			c.Args = trAll(x.Args)
		}
		if x.Hashed != nil {
			h := *x.Hashed
			h.Left = tr(x.Hashed.Left)
			c.Hashed = &h
		}
		return &c, err
	case *HybridRecord:
		return &HybridRecord{Embedding: tr(x.Embedding), Text: tr(x.Text), WVec: tr(x.WVec), WText: tr(x.WText)}, err
	case *BM25Score:
		c := *x
		c.Text, c.Query, c.RowID = tr(x.Text), tr(x.Query), tr(x.RowID)
		return &c, err
	case *HybridScore:
		c := *x
		src, _ := tr(x.Source).(*HybridRecord)
		q, _ := tr(x.Query).(*HybridRecord)
		c.Source, c.Query, c.RowID = src, q, tr(x.RowID)
		return &c, err
	}
	return e, nil
}
