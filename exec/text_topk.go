package exec

import (
	"container/heap"
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// textTopK runs sql.TextTopK: the best K rows of a table by BM25, found in
// its text index and fetched by row ID. Without a text index it scans the
// table and keeps the rows that match a query term.
type textTopK struct {
	rt     *Runtime
	node   *sql.TextTopK
	schema *arrow.Schema
	inner  Operator // fallback scan, when the column has no text index
	out    arrow.Record
	done   bool
}

func newTextTopK(rt *Runtime, n *sql.TextTopK) *textTopK {
	return &textTopK{rt: rt, node: n, schema: schemaOf(n.Columns())}
}

func (t *textTopK) Schema() *arrow.Schema { return t.schema }

func (t *textTopK) Close() {
	if t.out != nil {
		t.out.Release()
		t.out = nil
	}
	if t.inner != nil {
		t.inner.Close()
	}
}

func (t *textTopK) Next(ctx context.Context) (arrow.Record, error) {
	if t.inner != nil {
		return t.inner.Next(ctx)
	}
	if t.done {
		return nil, io.EOF
	}
	t.done = true
	start := time.Now()
	qv, err := EvalScalar(context.Background(), t.rt, t.node.Score.Query)
	if err != nil || qv == nil {
		return nil, eofOr(err)
	}
	count, offset, err := limitValues(ctx, t.rt, t.node.Count, t.node.Offset)
	if err != nil {
		return nil, err
	}
	matches, ok, err := t.rt.bm25Matches(ctx, t.node.Score.Op, t.node.Score.Table, t.node.Score.Column, qv.(string))
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := t.fallback(); err != nil {
			return nil, err
		}
		return t.inner.Next(ctx)
	}
	t.rt.searched(SearchBM25, start, int64(len(matches.IDs)))
	k := len(matches.IDs)
	if count >= 0 && limitEnd(count, offset) < int64(k) {
		k = int(limitEnd(count, offset))
	}
	ids := bestIDs(matches, k)
	if len(ids) == 0 {
		return nil, io.EOF
	}
	scan := t.node.Scan
	rec, err := t.rt.Tx.FetchRows(ctx, scan.Table.ID, scan.Cols, ids)
	if err != nil {
		return nil, err
	}
	t.rt.indexRows(scan.Table.ID, "", rec.NumRows())
	cols := rec.Columns()
	if !scan.WithRowID {
		cols = cols[:len(cols)-1]
	}
	out := array.NewRecord(t.schema, cols, rec.NumRows())
	rec.Release()
	t.out = out
	return out, nil
}

// fallback plans the scan: Filter(score > 0) over the table.
func (t *textTopK) fallback() error {
	gt, _, err := functions.Resolve(">", []types.T{types.Float4T, types.Float4T})
	if err != nil {
		return err
	}
	cond := &sql.Call{Name: ">", Overload: gt, Args: []sql.Expr{t.node.Score, &sql.Const{Value: 0.0, T: types.Float4T}}, T: types.BoolT, Infix: true}
	op, err := build(t.rt, &sql.Filter{Input: t.node.Scan, Cond: cond})
	if err != nil {
		return err
	}
	t.inner = op
	return nil
}

// bestIDs returns the IDs of the k best scores, best first (ties: lower
// row ID first), keeping a bounded heap of k candidates.
func bestIDs(m *textScores, k int) []int64 {
	h := &matchHeap{m: m}
	for i := range m.IDs {
		if h.Len() < k {
			heap.Push(h, i)
		} else if k > 0 && h.better(i, h.idx[0]) {
			h.idx[0] = i
			heap.Fix(h, 0)
		}
	}
	ids := make([]int64, h.Len())
	for i := len(ids) - 1; i >= 0; i-- {
		ids[i] = m.IDs[heap.Pop(h).(int)]
	}
	return ids
}

// matchHeap holds indexes into textScores with the worst match on top.
type matchHeap struct {
	m   *textScores
	idx []int
}

func (h *matchHeap) better(a, b int) bool {
	if h.m.Scores[a] != h.m.Scores[b] {
		return h.m.Scores[a] > h.m.Scores[b]
	}
	return h.m.IDs[a] < h.m.IDs[b]
}
func (h *matchHeap) Len() int           { return len(h.idx) }
func (h *matchHeap) Less(i, j int) bool { return h.better(h.idx[j], h.idx[i]) }
func (h *matchHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *matchHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *matchHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// eofOr is err, or io.EOF when err is nil.
func eofOr(err error) error {
	if err != nil {
		return err
	}
	return io.EOF
}
