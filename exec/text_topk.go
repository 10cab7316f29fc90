package exec

import (
	"context"
	"io"
	"sort"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

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
	qv, err := EvalScalar(t.rt, t.node.Score.Query)
	if err != nil || qv == nil {
		return nil, eofOr(err)
	}
	count, offset, err := limitValues(ctx, t.rt, t.node.Count, t.node.Offset)
	if err != nil {
		return nil, err
	}
	matches, ok, err := t.rt.bm25Matches(ctx, t.node.Score.Table, t.node.Score.Column, qv.(string))
	if err != nil {
		return nil, err
	}
	if !ok {
		if err := t.fallback(); err != nil {
			return nil, err
		}
		return t.inner.Next(ctx)
	}
	k := len(matches.IDs)
	if count >= 0 && count+offset < int64(k) {
		k = int(count + offset)
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
// row ID first), with a bounded heap over the matches.
func bestIDs(m *textScores, k int) []int64 {
	h := &minHeap{}
	for i, id := range m.IDs {
		offer(h, k, scored{ref: rowRef{Src: int32(id >> 31), Row: int32(id & (1<<31 - 1))}, score: m.Scores[i]})
	}
	best := append([]scored(nil), (*h)...)
	sort.Slice(best, func(i, j int) bool {
		if best[i].score != best[j].score {
			return best[i].score > best[j].score
		}
		return refAfter(best[j].ref, best[i].ref)
	})
	ids := make([]int64, len(best))
	for i, b := range best {
		ids[i] = int64(b.ref.Src)<<31 | int64(b.ref.Row)
	}
	return ids
}

// eofOr is err, or io.EOF when err is nil.
func eofOr(err error) error {
	if err != nil {
		return err
	}
	return io.EOF
}
