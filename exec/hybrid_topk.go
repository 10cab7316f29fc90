package exec

import (
	"container/heap"
	"context"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// hybridTopK runs sql.HybridTopK: pg_deeplake's hybrid search over its
// input rows (already filtered: WHERE applies before ranking).
type hybridTopK struct {
	rt     *Runtime
	node   *sql.HybridTopK
	input  Operator
	schema *arrow.Schema
	cosine *sql.Call
	out    arrow.Record
	done   bool
}

func newHybridTopK(rt *Runtime, n *sql.HybridTopK, input Operator) (Operator, error) {
	src, q := n.Score.Source.Embedding, n.Score.Query.Embedding
	ov, casts, err := functions.Resolve("<#>", []types.T{src.Type(), q.Type()})
	if err != nil {
		return nil, err
	}
	if len(casts) == 2 && !casts[1].Equal(q.Type()) {
		q = &sql.Cast{Arg: q, To: casts[1], Explicit: true}
	}
	call := &sql.Call{Name: "<#>", Overload: ov, Args: []sql.Expr{src, q}, T: types.Float4T, Infix: true}
	return &hybridTopK{rt: rt, node: n, input: input, schema: schemaOf(n.Out), cosine: call}, nil
}

func (h *hybridTopK) Schema() *arrow.Schema { return h.schema }

func (h *hybridTopK) Close() {
	if h.out != nil {
		h.out.Release()
		h.out = nil
	}
	h.input.Close()
}

func (h *hybridTopK) Next(ctx context.Context) (arrow.Record, error) {
	if h.done {
		return nil, io.EOF
	}
	h.done = true
	rec, err := h.rank(ctx)
	if err != nil {
		return nil, err
	}
	h.out = rec
	return rec, nil
}

// scored is one candidate row of an arm.
type scored struct {
	ref   rowcopy.Ref
	score float64
}

// minHeap keeps the k best scores; the worst is at the top.
type minHeap []scored

func (m minHeap) Len() int { return len(m) }
func (m minHeap) Less(i, j int) bool {
	if m[i].score != m[j].score {
		return m[i].score < m[j].score
	}
	return refAfter(m[i].ref, m[j].ref)
}
func (m minHeap) Swap(i, j int) { m[i], m[j] = m[j], m[i] }
func (m *minHeap) Push(x any)   { *m = append(*m, x.(scored)) }
func (m *minHeap) Pop() any {
	old := *m
	x := old[len(old)-1]
	*m = old[:len(old)-1]
	return x
}

// refAfter orders rows by position: on equal scores the earlier row wins.
func refAfter(a, b rowcopy.Ref) bool {
	if a.Src != b.Src {
		return a.Src > b.Src
	}
	return a.Row > b.Row
}

// offer adds a candidate to a bounded heap of the k best.
func offer(h *minHeap, k int, c scored) {
	if h.Len() < k {
		heap.Push(h, c)
		return
	}
	if k > 0 && ((*h)[0].score < c.score || (*h)[0].score == c.score && refAfter((*h)[0].ref, c.ref)) {
		(*h)[0] = c
		heap.Fix(h, 0)
	}
}

// softmax turns an arm's raw scores into probabilities over the arm's own
// candidates, subtracting the maximum first so exp never overflows.
func softmax(arm []scored) map[rowcopy.Ref]float64 {
	out := make(map[rowcopy.Ref]float64, len(arm))
	if len(arm) == 0 {
		return out
	}
	maxScore := math.Inf(-1)
	for _, c := range arm {
		maxScore = math.Max(maxScore, c.score)
	}
	sum := 0.0
	for _, c := range arm {
		sum += math.Exp(c.score - maxScore)
	}
	for _, c := range arm {
		out[c.ref] = math.Exp(c.score-maxScore) / sum
	}
	return out
}

// scalarFloat evaluates a constant float8 expression (weights).
func (h *hybridTopK) scalarFloat(e sql.Expr, what string) (float64, error) {
	v, err := EvalScalar(context.Background(), h.rt, e)
	if err != nil {
		return 0, err
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, pgerr.New(pgerrcode.InvalidParameterValue, "hybrid search %s weight must be between 0 and 1", what)
	}
	return f, nil
}

// limit is K: LIMIT + OFFSET, or -1 for all rows.
func (h *hybridTopK) limit() (int, error) {
	if h.node.Count == nil {
		return -1, nil
	}
	k := int64(0)
	for _, e := range []sql.Expr{h.node.Count, h.node.Offset} {
		if e == nil {
			continue
		}
		v, err := EvalScalar(context.Background(), h.rt, e)
		if err != nil {
			return 0, err
		}
		if v == nil {
			if e == h.node.Count {
				return -1, nil
			}
			continue
		}
		n := v.(int64)
		if n < 0 {
			return 0, pgerr.New(pgerrcode.InvalidRowCountInLimitClause, "LIMIT must not be negative")
		}
		k += n
	}
	return int(min(k, math.MaxInt32)), nil
}

func (h *hybridTopK) rank(ctx context.Context) (arrow.Record, error) {
	wv, err := h.scalarFloat(h.node.Score.Query.WVec, "embedding")
	if err != nil {
		return nil, err
	}
	wt, err := h.scalarFloat(h.node.Score.Query.WText, "text")
	if err != nil {
		return nil, err
	}
	k, err := h.limit()
	if err != nil {
		return nil, err
	}
	qv, err := EvalScalar(context.Background(), h.rt, h.node.Score.Query.Text)
	if err != nil {
		return nil, err
	}
	qtext, _ := qv.(string)
	var bm *functions.BM25Query
	var indexed *textScores // text arm from the text index, by row ID
	if qtext != "" {
		if bm, err = h.rt.bm25Query(ctx, h.node.Score.Op, h.node.Score.Table, h.node.Score.Column, qtext); err != nil {
			return nil, err
		}
		if h.node.Score.RowID != nil {
			if indexed, _, err = h.rt.bm25Matches(ctx, h.node.Score.Op, h.node.Score.Table, h.node.Score.Column, qtext); err != nil {
				return nil, err
			}
		}
	}

	var recs []arrow.Record
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var vecArm, textArm minHeap
	var all []scored // every row when K is unlimited
	var tf []int
	for {
		rec, err := h.input.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	cosines, err := h.cosines(ctx, recs)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cosines)
	for src, rec := range recs {
		if rec.NumRows() == 0 {
			continue
		}
		cos := cosines[src]
		cosf := cos.(*array.Float32)
		text, err := Eval(ctx, h.rt, h.node.Score.Source.Text, rec)
		if err != nil {
			return nil, err
		}
		texts := text.(*array.String)
		var rowIDs []int64
		if indexed != nil {
			ids, err := Eval(ctx, h.rt, h.node.Score.RowID, rec)
			if err != nil {
				text.Release()
				return nil, err
			}
			rowIDs = append(rowIDs, ids.(*array.Int64).Int64Values()...)
			ids.Release()
		}
		for row := 0; row < int(rec.NumRows()); row++ {
			ref := rowcopy.Ref{Src: int32(src), Row: int32(row)}
			if cosf.IsValid(row) {
				c := scored{ref: ref, score: float64(cosf.Value(row))}
				if k < 0 {
					all = append(all, c)
				} else {
					offer(&vecArm, k, c)
				}
			}
			if bm != nil && texts.IsValid(row) {
				var s float64
				if indexed != nil {
					s = indexed.score(rowIDs[row])
				} else {
					s, tf = bm.Score(texts.Value(row), tf)
				}
				if s > 0 {
					if k < 0 {
						textArm = append(textArm, scored{ref: ref, score: s})
					} else {
						offer(&textArm, k, scored{ref: ref, score: s})
					}
				}
			}
		}
		text.Release()
	}
	if k < 0 {
		vecArm = all
	}
	pv, pt := softmax(vecArm), softmax(textArm)
	fused := map[rowcopy.Ref]float64{}
	for ref, p := range pv {
		fused[ref] += wv * p
	}
	for ref, p := range pt {
		fused[ref] += wt * p
	}
	cands := make([]scored, 0, len(fused))
	for ref, s := range fused {
		cands = append(cands, scored{ref: ref, score: s})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return refAfter(cands[j].ref, cands[i].ref)
	})
	if k >= 0 && len(cands) > k {
		cands = cands[:k]
	}
	return h.output(recs, cands)
}

// cosines computes the vector arm's similarity for every batch, the
// batches shared out among the cores (the kernel is bound by memory
// bandwidth, which one core does not saturate).
func (h *hybridTopK) cosines(ctx context.Context, recs []arrow.Record) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(recs))
	errs := make([]error, len(recs))
	h.rt.fnCtx() // settle the runtime's lazily made state before sharing it
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(recs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(recs); i = int(next.Add(1) - 1) {
				if recs[i].NumRows() > 0 {
					// A panic fails this batch (and so the statement), not
					// the process: no other goroutine could recover it.
					errs[i] = CatchPanic(func() (err error) {
						out[i], err = Eval(ctx, h.rt, h.cosine, recs[i])
						return err
					})
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			releaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

// output gathers the candidate rows, best first, with their fused score.
func (h *hybridTopK) output(recs []arrow.Record, cands []scored) (arrow.Record, error) {
	refs := make([]rowcopy.Ref, len(cands))
	scores := array.NewFloat32Builder(h.rt.mem())
	defer scores.Release()
	for i, c := range cands {
		refs[i] = c.ref
		scores.Append(float32(c.score))
	}
	inSchema := arrow.NewSchema(h.schema.Fields()[:len(h.schema.Fields())-1], nil)
	var cols []arrow.Array
	if len(recs) > 0 {
		rows, err := rowcopy.GatherRecords(h.rt.mem(), inSchema, recs, refs)
		if err != nil {
			return nil, err
		}
		cols = append(cols, rows.Columns()...)
		for _, c := range cols {
			c.Retain()
		}
		rows.Release()
	} else {
		for _, f := range inSchema.Fields() {
			cols = append(cols, array.MakeArrayOfNull(h.rt.mem(), f.Type, 0))
		}
	}
	cols = append(cols, scores.NewArray())
	rec := array.NewRecord(h.schema, cols, int64(len(cands)))
	releaseAll(cols)
	return rec, nil
}
