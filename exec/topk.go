package exec

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// TopK is ORDER BY ... LIMIT fused: it keeps the Count+Offset best rows in
// a bounded heap (holding on only to the input batches those rows live in)
// and emits them in order after skipping Offset. Equal keys keep input
// order, as a stable Sort followed by Limit would. Without a count it is a
// Sort followed by an Offset.
//
// Over a Filter (newFilteredTopK) it reads the filter's input and
// selection instead of filtered copies: the keys are computed over the
// selected rows in place and the heap points into the unfiltered batches,
// so of all the rows that pass the filter only the k winners are copied.
type TopK struct {
	rt     *Runtime
	node   *sql.TopK
	input  Operator
	schema *arrow.Schema
	ke     *keyEvaluator
	// filtered, when set, is input's filter with the keys as its
	// projection (input is then the filter's input, and filter the
	// clause, which a count of NULL or ALL sorts under); filterStats
	// counts the filter's rows and time for EXPLAIN ANALYZE.
	filtered    *filterProject
	filter      *sql.Filter
	filterStats *opStats

	inited bool
	inner  Operator // no count: Sort + Limit

	k       int64
	offset  int64
	heap    topHeap
	batches []arrow.Record
	refs    []int // heap entries per batch
	order   []rowcopy.Ref
	pos     int
	out     outSlot
}

type topEntry struct {
	keys []sortVal
	ref  rowcopy.Ref
	seq  int64
}

// topHeap is a max-heap: its root is the entry that sorts last.
type topHeap struct {
	specs   []keySpec
	entries []topEntry
}

// after reports whether a sorts after b.
func (h *topHeap) after(a, b *topEntry) bool {
	if c := compareRows(h.specs, a.keys, b.keys); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

func (h *topHeap) Len() int           { return len(h.entries) }
func (h *topHeap) Less(i, j int) bool { return h.after(&h.entries[i], &h.entries[j]) }
func (h *topHeap) Swap(i, j int)      { h.entries[i], h.entries[j] = h.entries[j], h.entries[i] }
func (h *topHeap) Push(x any)         { h.entries = append(h.entries, x.(topEntry)) }
func (h *topHeap) Pop() any {
	e := h.entries[len(h.entries)-1]
	h.entries = h.entries[:len(h.entries)-1]
	return e
}

func newTopK(rt *Runtime, n *sql.TopK, in Operator) *TopK {
	ke := newKeyEvaluator(n.Keys)
	return &TopK{rt: rt, node: n, input: in, schema: schemaOf(n.Columns()), ke: ke, heap: topHeap{specs: ke.specs}}
}

// newFilteredTopK is the TopK n over its Filter f, reading f's input from
// in.
func newFilteredTopK(rt *Runtime, n *sql.TopK, f *sql.Filter, in Operator) *TopK {
	keys := &sql.Project{Input: f, Exprs: make([]sql.Expr, len(n.Keys)), Out: make([]sql.Col, len(n.Keys))}
	refs := make([]sql.SortKey, len(n.Keys))
	for i, k := range n.Keys {
		keys.Exprs[i] = k.Expr
		keys.Out[i] = sql.Col{Name: fmt.Sprintf("key%d", i+1), T: k.Expr.Type()}
		refs[i] = k
		refs[i].Expr = &sql.ColumnRef{Index: i, Name: keys.Out[i].Name, T: keys.Out[i].T}
	}
	ke := newKeyEvaluator(refs)
	fp := newFilterProject(rt, keys, f, in)
	return &TopK{rt: rt, node: n, input: in, schema: schemaOf(n.Columns()), ke: ke, heap: topHeap{specs: ke.specs}, filtered: fp, filter: f, filterStats: rt.statsOf(f)}
}

// next returns the next input batch to keep rows of, the batch to compute
// the sort keys over, and which row of the first each row of the second
// is (nil: the same row). With a filter the first is unfiltered and the
// second holds the keys of its selected rows only.
func (t *TopK) next(ctx context.Context) (data, keys arrow.Record, rows []int32, err error) {
	if t.filtered == nil {
		rec, err := t.input.Next(ctx)
		return rec, rec, nil, err
	}
	start := time.Now()
	for {
		rec, err := t.input.Next(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		sel, err := t.filtered.selection(ctx, rec)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(sel) == 0 {
			continue
		}
		t.filterStats.add(len(sel), time.Since(start))
		keys, err := t.filtered.project(ctx, rec, sel)
		if err != nil {
			return nil, nil, nil, err
		}
		t.filtered.out.set(keys)
		return rec, keys, sel, nil
	}
}

// keyRowRef is the heap's reference to the row of key i of batch bi.
func keyRowRef(bi int, rows []int32, i int) rowcopy.Ref {
	if rows != nil {
		return rowcopy.Ref{Src: int32(bi), Row: rows[i]}
	}
	return rowcopy.Ref{Src: int32(bi), Row: int32(i)}
}

// Schema implements Operator.
func (t *TopK) Schema() *arrow.Schema { return t.schema }

// offerFloats is the fast path of the common search shape, one float sort
// key (a similarity score): each row's score is compared with the heap's
// worst entry in place, and only rows that enter the heap get a key. done
// is false when the batch does not fit the path (the caller takes the
// general one).
func (t *TopK) offerFloats(ev *evaluator, data, keys arrow.Record, rows []int32, bi int, seq *int64) (done bool, err error) {
	if len(t.ke.specs) != 1 || t.ke.specs[0].kind != sortFloat || t.k <= 0 {
		return false, nil
	}
	v, err := ev.eval(t.ke.exprs[0], batchOf(keys))
	if err != nil {
		return false, err
	}
	defer v.release()
	var offer func()
	switch a := v.arr.(type) {
	case *array.Float32:
		offer = func() { offerFloatVals(t, a, a.Float32Values(), rows, bi, seq) }
	case *array.Float64:
		offer = func() { offerFloatVals(t, a, a.Float64Values(), rows, bi, seq) }
	default:
		return false, nil
	}
	data.Retain()
	t.batches = append(t.batches, data)
	t.refs = append(t.refs, 0)
	offer()
	if t.refs[bi] == 0 {
		t.unref(bi)
	}
	return true, nil
}

// offerFloatVals offers batch bi's keys vals (arr's values) to the heap.
// Once the heap is full, most rows lose to its worst entry: while that
// entry is a number, rows are settled against it in a tight loop (ties
// lose: they come later; NaN and NULL keys take the heap's own order).
func offerFloatVals[F float32 | float64](t *TopK, arr arrow.Array, vals []F, rows []int32, bi int, seq *int64) {
	desc := t.ke.specs[0].desc
	nulls := arr.NullN() > 0
	// bounded says the heap is full and its worst key, worst, is a
	// number: a row whose key is no better is settled without the heap.
	var worst float64
	bounded := false
	bound := func() {
		bounded = false
		if int64(t.heap.Len()) >= t.k {
			w := t.heap.entries[0].keys[0]
			bounded = !w.null && !math.IsNaN(w.f)
			worst = w.f
		}
	}
	bound()
	for i := 0; i < len(vals); i++ {
		null := nulls && arr.IsNull(i)
		f := float64(vals[i])
		if bounded && !null && (f == worst || (f < worst) == desc) && !math.IsNaN(f) {
			continue
		}
		probe := [1]sortVal{{null: null}}
		if !null {
			probe[0].f = f
		}
		e := topEntry{keys: probe[:], ref: keyRowRef(bi, rows, i), seq: *seq + int64(i)}
		if int64(t.heap.Len()) >= t.k {
			top := &t.heap.entries[0]
			if !t.heap.after(top, &e) {
				continue
			}
			e.keys = []sortVal{probe[0]}
			t.refs[bi]++ // before unref: top may live in this batch
			t.unref(int(top.ref.Src))
			*top = e
			heap.Fix(&t.heap, 0)
		} else {
			e.keys = []sortVal{probe[0]}
			heap.Push(&t.heap, e)
			t.refs[bi]++
		}
		bound()
	}
	*seq += int64(len(vals))
}

func (t *TopK) init(ctx context.Context) error {
	t.inited = true
	count, offset, err := limitValues(ctx, t.rt, t.node.Count, t.node.Offset)
	if err != nil {
		return err
	}
	if count < 0 {
		input := t.input
		if t.filter != nil {
			// The filter is fused into load, which this path skips.
			input = newFilter(t.rt, t.filter, input)
		}
		sorter := newSort(t.rt, t.node.Keys, input, t.schema)
		t.inner = &Limit{rt: t.rt, input: sorter, inited: true, count: -1, offset: offset}
		return nil
	}
	t.offset = offset
	t.k = limitEnd(count, offset)
	if count == 0 {
		return nil
	}
	start := time.Now()
	scored, err := t.load(ctx)
	if err == nil && ordersByVectorMetric(t.node) {
		t.rt.searched(SearchExact, start, scored)
	}
	return err
}

// ordersByVectorMetric reports whether n ranks a table's rows by a
// vector metric's distance: its first key is one (maybe through the
// projection below it, where the key is an output column), and its input
// is the table's scan, maybe filtered. n is then an exact nearest
// neighbour search.
func ordersByVectorMetric(n *sql.TopK) bool {
	key, input := n.Keys[0].Expr, n.Input
	if p, ok := input.(*sql.Project); ok {
		if ref, ok := key.(*sql.ColumnRef); ok && ref.Index < len(p.Exprs) {
			key = p.Exprs[ref.Index]
		}
		input = p.Input
	}
	if f, ok := input.(*sql.Filter); ok {
		input = f.Input
	}
	call, ok := key.(*sql.Call)
	_, scan := input.(*sql.Scan)
	return scan && ok && call.Overload != nil && call.Overload.VectorMetric != ""
}

// load reads the input, keeping the best rows; scored is how many rows
// it ranked.
func (t *TopK) load(ctx context.Context) (scored int64, err error) {
	ev := newEvaluator(ctx, t.rt)
	var seq int64
	var keys [][]sortVal
	var picks []arrow.Record // the preselected rows of each batch (preselect)
	defer func() {
		for _, p := range picks {
			p.Release()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		data, keyRec, rows, err := t.next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		n := int(keyRec.NumRows())
		if n == 0 {
			continue
		}
		bi := len(t.batches)
		if done, err := t.offerFloats(ev, data, keyRec, rows, bi, &seq); done || err != nil {
			if err != nil {
				return 0, err
			}
			continue
		}
		sel, picked, err := t.preselect(ev, keyRec)
		if err != nil {
			return 0, err
		}
		if picked {
			// Only the rows that can win: their keys, mapped back to data.
			sub, err := rowcopy.TakeRecord(t.rt.mem(), keyRec, sel)
			if err != nil {
				return 0, err
			}
			// Released when the load ends: string keys alias its buffers.
			picks = append(picks, sub)
			subRows := make([]int32, len(sel))
			for i, r := range sel {
				if rows != nil {
					subRows[i] = rows[r]
				} else {
					subRows[i] = int32(r)
				}
			}
			keyRec, rows, n = sub, subRows, len(sel)
		}
		if keys, err = t.ke.rows(ev, keyRec, keys[:0]); err != nil {
			return 0, err
		}
		data.Retain()
		t.batches = append(t.batches, data)
		t.refs = append(t.refs, 0)
		for i := 0; i < n; i++ {
			e := topEntry{keys: keys[i], ref: keyRowRef(bi, rows, i), seq: seq}
			seq++
			if int64(t.heap.Len()) < t.k {
				heap.Push(&t.heap, e)
				t.refs[bi]++
				continue
			}
			top := &t.heap.entries[0]
			if !t.heap.after(top, &e) {
				continue
			}
			t.refs[bi]++ // before unref: top may live in this batch
			t.unref(int(top.ref.Src))
			*top = e
			heap.Fix(&t.heap, 0)
		}
		if t.refs[bi] == 0 {
			t.unref(bi)
		}
	}
	entries := t.heap.entries
	slices.SortFunc(entries, func(a, b topEntry) int {
		if t.heap.after(&a, &b) {
			return 1
		}
		if t.heap.after(&b, &a) {
			return -1
		}
		return 0
	})
	if t.offset < int64(len(entries)) {
		for _, e := range entries[t.offset:] {
			t.order = append(t.order, e.ref)
		}
	}
	t.heap.entries = nil
	// Keep only the batches the output reads, renumbered.
	remap := make([]int32, len(t.batches))
	for i := range remap {
		remap[i] = -1
	}
	var kept []arrow.Record
	for i := range t.order {
		src := t.order[i].Src
		if remap[src] < 0 {
			remap[src] = int32(len(kept))
			t.batches[src].Retain()
			kept = append(kept, t.batches[src])
		}
		t.order[i].Src = remap[src]
	}
	t.releaseBatches()
	t.batches = kept
	return seq, nil
}

// unref drops one heap reference to batch bi, releasing it at zero.
func (t *TopK) unref(bi int) {
	if t.refs[bi] > 0 {
		t.refs[bi]--
	}
	if t.refs[bi] == 0 && t.batches[bi] != nil {
		t.batches[bi].Release()
		t.batches[bi] = nil
	}
}

// Next implements Operator.
func (t *TopK) Next(ctx context.Context) (arrow.Record, error) {
	t.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !t.inited {
		if err := t.init(ctx); err != nil {
			return nil, err
		}
	}
	if t.inner != nil {
		return t.inner.Next(ctx)
	}
	if t.pos >= len(t.order) {
		t.releaseBatches()
		return nil, io.EOF
	}
	end := min(t.pos+batchSize, len(t.order))
	rec, err := rowcopy.GatherRecords(t.rt.mem(), t.schema, t.batches, t.order[t.pos:end])
	if err != nil {
		return nil, err
	}
	t.pos = end
	return t.out.set(rec), nil
}

func (t *TopK) releaseBatches() {
	for _, b := range t.batches {
		if b != nil {
			b.Release()
		}
	}
	t.batches = nil
}

// Close implements Operator.
func (t *TopK) Close() {
	t.out.release()
	if t.filtered != nil {
		t.filtered.out.release()
	}
	t.releaseBatches()
	if t.inner != nil {
		t.inner.Close()
		return
	}
	t.input.Close()
}
