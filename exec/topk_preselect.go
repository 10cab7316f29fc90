package exec

import (
	"container/heap"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Picking a batch's candidates before the heap: ORDER BY id DESC LIMIT 20
// over a table whose IDs ascend makes every row better than the heap's
// worst, so each went through heap.Fix with its key materialised (150 ms
// for 1M rows). Where the first key is integer-like, the batch's k best
// values of it are found first with a heap of plain int64s, and only the
// rows whose first key is as good as the k-th (ties go on: the later keys
// order them) and the NULLs (which the key's NULLS FIRST/LAST places) go
// on to the heap.

// preselect returns the rows of keyRec (the batch the sort keys are
// computed over) that can be among the k best: those whose first key is at
// least as good as the batch's k-th best first key, and the NULLs. ok is
// false when it does not apply: a first key that is not integer-like or
// not safe to evaluate twice, or too few rows to gain.
func (t *TopK) preselect(ev *evaluator, keyRec arrow.Record) (sel []int, ok bool, err error) {
	n := int(keyRec.NumRows())
	// The kept rows' keys are evaluated again (keyEvaluator.rows): not a
	// key that draws a sequence or calls something volatile.
	if t.ke.specs[0].kind != sortInt || t.k <= 0 || int64(n) <= 4*t.k || !parallelSafe(t.ke.exprs[0]) {
		return nil, false, nil
	}
	v, err := ev.eval(t.ke.exprs[0], batchOf(keyRec))
	if err != nil {
		return nil, false, err
	}
	defer v.release()
	value, ok := intValues(v.arr)
	if !ok {
		return nil, false, nil
	}
	desc := t.ke.specs[0].desc
	// best holds the k best values seen, its root the worst of them.
	best := &int64Heap{worstFirst: desc}
	for i := 0; i < n; i++ {
		if v.arr.IsNull(i) {
			continue
		}
		x := value(i)
		switch {
		case int64(best.Len()) < t.k:
			heap.Push(best, x)
		case desc && x > best.vals[0] || !desc && x < best.vals[0]:
			best.vals[0] = x
			heap.Fix(best, 0)
		}
	}
	if int64(best.Len()) < t.k {
		return nil, false, nil
	}
	kth := best.vals[0]
	sel = make([]int, 0, 2*t.k)
	for i := 0; i < n; i++ {
		if v.arr.IsNull(i) {
			sel = append(sel, i)
			continue
		}
		if x := value(i); desc && x >= kth || !desc && x <= kth {
			sel = append(sel, i)
		}
	}
	return sel, true, nil
}

// intValues returns the reader of an integer-like array's values (those
// sortValAt reads as int64s), or false for another array.
func intValues(arr arrow.Array) (func(i int) int64, bool) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value, true
	case *array.Int32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Date32:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Time64:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	case *array.Timestamp:
		return func(i int) int64 { return int64(a.Value(i)) }, true
	}
	return nil, false
}

// int64Heap is a heap of int64s whose root is the smallest
// (worstFirst: the k largest are kept) or the largest.
type int64Heap struct {
	vals       []int64
	worstFirst bool
}

func (h *int64Heap) Len() int { return len(h.vals) }
func (h *int64Heap) Less(i, j int) bool {
	if h.worstFirst {
		return h.vals[i] < h.vals[j]
	}
	return h.vals[i] > h.vals[j]
}
func (h *int64Heap) Swap(i, j int) { h.vals[i], h.vals[j] = h.vals[j], h.vals[i] }
func (h *int64Heap) Push(x any)    { h.vals = append(h.vals, x.(int64)) }
func (h *int64Heap) Pop() any {
	x := h.vals[len(h.vals)-1]
	h.vals = h.vals[:len(h.vals)-1]
	return x
}
