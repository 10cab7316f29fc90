package sql

import (
	"github.com/jackc/pgerrcode"
	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// Search expressions: pg_deeplake's BM25 and hybrid scores, the overloads
// of <#> the registry marks as search operators (functions.Search).
// Unlike cosine similarity, which is an ordinary function of two vectors,
// these scores depend on more than one row (BM25 on corpus statistics,
// hybrid on the candidate sets of both arms), so they are plan-level
// nodes.

// HybridRecord is a deeplake_hybrid_record value: an embedding and a text,
// and for the weighted form the weights of the vector and text arms.
type HybridRecord struct {
	Embedding Expr
	Text      Expr
	// WVec and WText are the arm weights; nil for the plain record (the
	// plain-to-weighted cast gives 1.0 / 1.0).
	WVec, WText Expr
}

// BM25Score is "text <#> 'query'": the Okapi BM25 score of the row's text
// for the query, with corpus statistics of the whole table column.
type BM25Score struct {
	Text  Expr
	Query Expr
	// Table and Column identify the table column the text comes from (the
	// corpus); Column is a position in the table's columns.
	Table  uint64
	Column int
	// RowID reads the row's ID, with which the executor looks the row up
	// in the table's text index instead of tokenizing its text.
	RowID Expr
	// Op is the overload of <#> (functions.SearchBM25); its Prepare hook
	// reads the corpus statistics.
	Op *functions.Overload
}

// HybridScore is "(embedding, text) <#> deeplake_hybrid_record(q, qtext,
// wv, wt)". It is evaluated by a HybridTopK node, which replaces it with a
// reference to the score column it produces.
type HybridScore struct {
	Source *HybridRecord // columns of the row
	Query  *HybridRecord // the query: vector, text and weights
	// Table and Column identify the table column of Source.Text (the BM25
	// corpus); RowID reads the row's ID (see BM25Score).
	Table  uint64
	Column int
	RowID  Expr
	// Op is the overload of <#> (functions.SearchHybrid); its Prepare
	// hook reads the text arm's corpus statistics.
	Op *functions.Overload
}

// Type implementations.

func (e *HybridRecord) Type() types.T { return functions.HybridRecordT }
func (e *BM25Score) Type() types.T    { return types.Float4T }
func (e *HybridScore) Type() types.T  { return types.Float4T }

// String implementations (EXPLAIN).

func (e *HybridRecord) String() string {
	if e.WVec == nil {
		return "(" + e.Embedding.String() + ", " + e.Text.String() + ")::deeplake_hybrid_record"
	}
	return "deeplake_hybrid_record(" + joinExprs([]Expr{e.Embedding, e.Text, e.WVec, e.WText}, ", ") + ")"
}
func (e *BM25Score) String() string { return "(" + e.Text.String() + " <#> " + e.Query.String() + ")" }
func (e *HybridScore) String() string {
	return "(" + e.Source.String() + " <#> " + e.Query.String() + ")"
}

// isHybridTypeName reports whether a cast names one of the hybrid record
// types, and which.
func isHybridTypeName(tn *pg_query.TypeName) (hybrid, weighted bool) {
	switch nameOf(tn.Names) {
	case "deeplake_hybrid_record":
		return true, false
	case "deeplake_hybrid_record_weighted":
		return true, true
	}
	return false, false
}

// bindHybridCast binds "(emb, text)::deeplake_hybrid_record" and
// "(emb, text, wv, wt)::deeplake_hybrid_record_weighted".
func (b *Binder) bindHybridCast(sc *scope, arg *pg_query.Node, weighted bool) (Expr, error) {
	row := arg.GetRowExpr()
	if row == nil {
		return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast to deeplake_hybrid_record: a row (embedding, text) is expected")
	}
	args, err := b.bindExprs(sc, row.Args)
	if err != nil {
		return nil, err
	}
	want := 2
	if weighted {
		want = 4
	}
	if len(args) != want {
		return nil, pgerr.New(pgerrcode.CannotCoerce, "cannot cast type record to %s: it has %d fields, not %d", map[bool]string{false: "deeplake_hybrid_record", true: "deeplake_hybrid_record_weighted"}[weighted], len(args), want)
	}
	return b.hybridRecord(args)
}

// hybridRecord types the fields of a hybrid record: float4[] embedding,
// text, and float8 weights when given.
func (b *Binder) hybridRecord(args []Expr) (*HybridRecord, error) {
	emb := args[0]
	switch t := emb.Type(); {
	case t.Family == types.Unknown || t.Family == types.Null || t.Family == types.Vector:
		var err error
		if emb, err = b.coerce(emb, types.Float4ArrayT, castExplicit); err != nil {
			return nil, err
		}
	case t.IsArray() && t.Elem.IsNumeric() && t.Elem.Family != types.Float4:
		// ARRAY[0.1, 0.2] is numeric[]: the query vector is real[].
		var err error
		if emb, err = b.coerce(emb, types.ArrayOf(types.Float4T, t.Dims), castExplicit); err != nil {
			return nil, err
		}
	case !t.IsFloatVector():
		return nil, pgerr.New(pgerrcode.DatatypeMismatch, "the embedding of a deeplake_hybrid_record must be real[], not %s", emb.Type())
	}
	text, err := b.coerce(args[1], types.TextT, castImplicit)
	if err != nil {
		return nil, err
	}
	r := &HybridRecord{Embedding: emb, Text: text}
	if len(args) == 4 {
		if r.WVec, err = b.coerce(args[2], types.Float8T, castImplicit); err != nil {
			return nil, err
		}
		if r.WText, err = b.coerce(args[3], types.Float8T, castImplicit); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// bindHybridConstructor binds deeplake_hybrid_record(q, text[, wv, wt]):
// a weighted record, 0.5 / 0.5 when the weights are left out.
func (b *Binder) bindHybridConstructor(args []Expr) (Expr, error) {
	if len(args) != 2 && len(args) != 4 {
		return nil, pgerr.New(pgerrcode.UndefinedFunction, "function deeplake_hybrid_record(%s) does not exist", typeList(args))
	}
	if len(args) == 2 {
		half := &Const{Value: 0.5, T: types.Float8T}
		args = append(args, half, half)
	}
	return b.hybridRecord(args)
}

// bindSearch binds the <#> operator l <#> r whose overload, as resolved
// into call, is a search operator (functions.Search): BM25 between texts,
// the hybrid score between an (embedding, text) row and a hybrid record.
func (b *Binder) bindSearch(sc *scope, call *Call, l, r Expr) (Expr, error) {
	if call.Overload.Search == functions.SearchBM25 {
		if readsColumns(call.Args[1]) {
			return nil, errSearchQueryReadsColumns("BM25")
		}
		table, col, rowID, err := corpusColumn(sc, l)
		if err != nil {
			return nil, err
		}
		return &BM25Score{Text: call.Args[0], Query: call.Args[1], Table: table, Column: col, RowID: rowID, Op: call.Overload}, nil
	}
	// The source is a hybrid record or a row of its two fields; the query
	// a hybrid record.
	lr, lok := l.(*HybridRecord)
	if row, isRow := l.(*RowExpr); isRow && len(row.Args) == 2 {
		rec, err := b.hybridRecord(row.Args)
		if err != nil {
			return nil, err
		}
		lr, lok = rec, true
	}
	rr, rok := r.(*HybridRecord)
	if !lok || !rok {
		return nil, pgerr.New(pgerrcode.UndefinedFunction, "operator does not exist: %s <#> %s", l.Type(), r.Type())
	}
	for _, e := range []Expr{rr.Embedding, rr.Text, rr.WVec, rr.WText} {
		if e != nil && readsColumns(e) {
			return nil, errSearchQueryReadsColumns("hybrid search")
		}
	}
	table, col, rowID, err := corpusColumn(sc, lr.Text)
	if err != nil {
		return nil, err
	}
	query := *rr
	if query.WVec == nil {
		one := &Const{Value: 1.0, T: types.Float8T}
		query.WVec, query.WText = one, one
	}
	return &HybridScore{Source: lr, Query: &query, Table: table, Column: col, RowID: rowID, Op: call.Overload}, nil
}

// errSearchQueryReadsColumns refuses a search whose query (the right side
// of <#>) reads a column: the query is scored against the whole column's
// statistics once per statement, so it must be a constant or a parameter.
func errSearchQueryReadsColumns(what string) error {
	return pgerr.NotSupported("%s (<#>) with a query that reads a column", what).
		WithHint("The query (the right side of <#>) must be a constant or a parameter.")
}

// readsColumns reports whether e refers to a column of its input row.
func readsColumns(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) {
		switch x.(type) {
		case *ColumnRef, *OuterRef:
			found = true
		}
	})
	return found
}

// corpusColumn finds the table column a BM25 text comes from (its corpus
// statistics are those of the whole column) and the row ID column of the
// same scan, when the scope has it (nil otherwise).
func corpusColumn(sc *scope, e Expr) (uint64, int, Expr, error) {
	if c, ok := e.(*Cast); ok {
		e = c.Arg
	}
	ref, ok := e.(*ColumnRef)
	if !ok || sc == nil || ref.Index >= len(sc.cols) || sc.cols[ref.Index].TableOID == 0 {
		return 0, 0, nil, pgerr.NotSupported("BM25 (<#>) over an expression that is not a table column")
	}
	c := sc.cols[ref.Index]
	var rowID Expr
	for i, rc := range sc.cols {
		if rc.Name == catalog.RowIDColumn && rc.Hidden && rc.Table == c.Table && i > ref.Index {
			rowID = &ColumnRef{Index: i, Name: catalog.RowIDColumn, T: types.Int8T}
			break
		}
	}
	return uint64(c.TableOID) - 100000, int(c.Attnum) - 1, rowID, nil
}

// IsSimilarity reports whether e is a similarity, higher is better (its
// overload says so: functions.Overload.HigherIsBetter). ORDER BY such a
// key with no direction sorts best first.
func IsSimilarity(e Expr) bool {
	var op *functions.Overload
	switch x := e.(type) {
	case *BM25Score:
		op = x.Op
	case *HybridScore:
		op = x.Op
	case *Call:
		op = x.Overload
	}
	return op != nil && op.HigherIsBetter
}

// HybridTopK ranks its input rows by pg_deeplake's hybrid score: the K
// best rows by cosine (the vector arm) and up to K rows matching the query
// text by BM25 (the text arm), each arm turned into a softmax over its own
// candidates, fused as wv*p_vec + wt*p_text. It outputs the union of both
// arms, best first, with the fused score appended as the last column.
// K = Count + Offset; all rows when Count is nil.
type HybridTopK struct {
	Input  Node
	Score  *HybridScore
	Count  Expr
	Offset Expr
	Out    []Col
}

// Columns implements Node.
func (n *HybridTopK) Columns() []Col { return n.Out }

// Children implements Node.
func (n *HybridTopK) Children() []Node { return []Node{n.Input} }

// String implements Node.
func (n *HybridTopK) String() string {
	return "HybridTopK: vector arm: " + n.Score.Source.Embedding.String() + " <#> " + n.Score.Query.Embedding.String() +
		"; text arm: BM25 " + n.Score.Source.Text.String() + " <#> " + n.Score.Query.Text.String() + limitText(n.Count, n.Offset)
}

// planHybrid puts a HybridTopK over plan when the query uses a hybrid
// score, and rewrites the score expressions into a reference to its score
// column.
func (b *Binder) planHybrid(plan Node, sc *scope, s *pg_query.SelectStmt, exprs []*Expr) (Node, *scope, error) {
	var score *HybridScore
	for _, e := range exprs {
		var err error
		walkExpr(*e, func(x Expr) {
			if h, ok := x.(*HybridScore); ok {
				if score != nil && !sameExpr(score, h) {
					err = pgerr.NotSupported("more than one hybrid score in a query")
				}
				score = h
			}
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if score == nil {
		return plan, sc, nil
	}
	node := &HybridTopK{Input: plan, Score: score}
	var err error
	if s.LimitCount != nil && !isNullConst(s.LimitCount) {
		if node.Count, err = b.bindLimit(&scope{}, s.LimitCount, "LIMIT"); err != nil {
			return nil, nil, err
		}
	}
	if s.LimitOffset != nil {
		if node.Offset, err = b.bindLimit(&scope{}, s.LimitOffset, "OFFSET"); err != nil {
			return nil, nil, err
		}
	}
	b.planHybridCandidates(node)
	idx := len(sc.cols)
	node.Out = append(append([]Col{}, plan.Columns()...), Col{Name: "score", T: types.Float4T})
	ref := &ColumnRef{Index: idx, Name: "score", T: types.Float4T}
	for _, e := range exprs {
		if *e, err = transformExpr(*e, func(x Expr) (Expr, error) {
			if _, ok := x.(*HybridScore); ok {
				return ref, nil
			}
			return nil, nil
		}); err != nil {
			return nil, nil, err
		}
	}
	out := &scope{cols: append(append([]Col{}, sc.cols...), Col{Name: "score", T: types.Float4T, Hidden: true}), outer: sc.outer}
	return node, out, nil
}

// TextTopK reads, instead of a whole table, its K (Count + Offset) rows
// with the best BM25 score for Score's query — from the table's text
// index — in the shape of Scan: the same columns, row ID last when the
// scan had it. Rows without a query term never come out. It replaces
// "Filter(score > 0) over Scan" under ORDER BY <bm25> LIMIT k when the
// query has no WHERE clause; the nodes above still sort and limit.
type TextTopK struct {
	Scan   *Scan
	Score  *BM25Score // over the scan's columns
	Count  Expr
	Offset Expr
}

// Columns implements Node.
func (n *TextTopK) Columns() []Col { return n.Scan.Columns() }

// Children implements Node.
func (n *TextTopK) Children() []Node { return nil }

// String implements Node.
func (n *TextTopK) String() string {
	return "Text Index Scan on " + n.Scan.Table.Name + ": BM25 " + n.Score.Text.String() + " <#> " + n.Score.Query.String() + limitText(n.Count, n.Offset)
}
