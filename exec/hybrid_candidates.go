package exec

import (
	"context"
	"io"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// hybridCandidates runs sql.HybridCandidates: the rows a hybrid search can
// rank first, found through the indexes. The vector arm's are the K rows
// the vector index finds nearest to the query vector, the text arm's the
// K best BM25 matches by the text index (K = Count + Offset); under a
// WHERE clause both accept only qualifying rows. Without a text index (the
// column's is disabled) it yields every qualifying row, as the scan it
// replaces would.
type hybridCandidates struct {
	rt     *Runtime
	node   *sql.HybridCandidates
	schema *arrow.Schema
	inner  Operator // the table scan, when the candidates are every row
	out    arrow.Record
	done   bool
}

func newHybridCandidates(rt *Runtime, n *sql.HybridCandidates) *hybridCandidates {
	return &hybridCandidates{rt: rt, node: n, schema: schemaOf(n.Columns())}
}

// Schema implements Operator.
func (h *hybridCandidates) Schema() *arrow.Schema { return h.schema }

// Close implements Operator.
func (h *hybridCandidates) Close() {
	if h.out != nil {
		h.out.Release()
		h.out = nil
	}
	if h.inner != nil {
		h.inner.Close()
	}
}

// Next implements Operator: the one batch of candidates, or the scan's
// batches when every row is one.
func (h *hybridCandidates) Next(ctx context.Context) (arrow.Record, error) {
	if h.inner != nil {
		return h.inner.Next(ctx)
	}
	if h.done {
		return nil, io.EOF
	}
	h.done = true
	start := time.Now()
	ids, all, err := h.candidates(ctx)
	if err != nil {
		return nil, err
	}
	if !all {
		h.rt.searched(SearchHybrid, start, int64(len(ids)))
	}
	if all {
		if h.inner, err = Build(h.rt, h.node.Scan); err != nil {
			return nil, err
		}
		return h.inner.Next(ctx)
	}
	if len(ids) == 0 {
		return nil, io.EOF
	}
	scan := h.node.Scan
	rec, err := h.rt.Tx.FetchRows(ctx, scan.Table.ID, scan.Cols, ids)
	if err != nil {
		return nil, err
	}
	h.rt.indexSearch(scan.Table.ID, h.node.Index.Name, SearchHybrid)
	h.rt.indexRows(scan.Table.ID, h.node.Index.Name, rec.NumRows())
	cols := rec.Columns()
	if !scan.WithRowID {
		cols = cols[:len(cols)-1]
	}
	h.out = array.NewRecord(h.schema, cols, rec.NumRows())
	rec.Release()
	return h.out, nil
}

// candidates returns the candidate row IDs, or all true when every row of
// the (unfiltered) table is one.
func (h *hybridCandidates) candidates(ctx context.Context) (ids []int64, all bool, err error) {
	count, offset, err := limitValues(ctx, h.rt, h.node.Count, h.node.Offset)
	if err != nil {
		return nil, false, err
	}
	if count == 0 {
		return nil, false, nil
	}
	var allow *roaring64.Bitmap
	if h.node.RowFilter != nil {
		if allow, err = qualifyingRows(ctx, h.rt, h.node.RowFilter); err != nil {
			return nil, false, err
		}
	}
	if count < 0 { // LIMIT ALL or NULL: every qualifying row ranks
		if allow != nil {
			return bitmapIDs(allow), false, nil
		}
		return nil, true, nil
	}
	k := limitEnd(count, offset)
	qt, err := EvalScalar(ctx, h.rt, h.node.Text)
	if err != nil {
		return nil, false, err
	}
	seen := map[int64]bool{}
	if qtext, _ := qt.(string); qtext != "" {
		matches, ok, err := h.rt.bm25Matches(ctx, h.node.Op, h.node.Table, h.node.Column, qtext)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			if allow != nil {
				return bitmapIDs(allow), false, nil
			}
			return nil, true, nil
		}
		if allow != nil {
			matches = matches.within(allow)
		}
		for _, id := range bestIDs(matches, int(k)) {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	qv, err := EvalScalar(ctx, h.rt, h.node.Vector)
	if err != nil {
		return nil, false, err
	}
	if arr, ok := qv.(*types.Array); ok {
		if query, ok := arr.Float32s(); ok && len(query) > 0 {
			hits, err := h.rt.Tx.VectorSearch(ctx, h.node.Scan.Table.ID, h.node.Index, query, int(k), vectorEffort(h.rt), allow)
			if err != nil {
				return nil, false, err
			}
			for _, hit := range hits {
				if !seen[hit.RowID] {
					seen[hit.RowID] = true
					ids = append(ids, hit.RowID)
				}
			}
		}
	}
	return ids, false, nil
}

// bitmapIDs lists a bitmap's row IDs in order.
func bitmapIDs(b *roaring64.Bitmap) []int64 {
	ids := make([]int64, 0, b.GetCardinality())
	for it := b.Iterator(); it.HasNext(); {
		ids = append(ids, int64(it.Next()))
	}
	return ids
}
