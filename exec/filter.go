package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// Filter keeps the rows of its input where the condition is true (not
// false, not NULL). A batch whose rows all pass is passed on as is; empty
// results are skipped.
type Filter struct {
	rt    *Runtime
	cond  sql.Expr
	input Operator
	out   outSlot
}

func newFilter(rt *Runtime, n *sql.Filter, in Operator) *Filter {
	return &Filter{rt: rt, cond: n.Cond, input: in}
}

// Schema implements Operator.
func (f *Filter) Schema() *arrow.Schema { return f.input.Schema() }

// Next implements Operator.
func (f *Filter) Next(ctx context.Context) (arrow.Record, error) {
	f.out.release()
	ev := newEvaluator(ctx, f.rt)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := f.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		out, err := filterRecord(ev, f.cond, rec)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return f.out.set(out), nil
		}
	}
}

// filterRecord returns the rows of rec where cond is true (rec itself,
// retained, when all are; nil when none is).
func filterRecord(ev *evaluator, cond sql.Expr, rec arrow.Record) (arrow.Record, error) {
	n := int(rec.NumRows())
	mask, err := ev.eval(cond, batchOf(rec))
	if err != nil {
		return nil, err
	}
	defer mask.release()
	if mask.isConst() {
		if triDatum(mask.c) == triTrue {
			rec.Retain()
			return rec, nil
		}
		return nil, nil
	}
	var sel []int
	if bools, ok := mask.arr.(*array.Boolean); ok {
		sel = trueRows[int](bools)
	} else {
		for i := 0; i < n; i++ {
			if triAt(mask, i) == triTrue {
				sel = append(sel, i)
			}
		}
	}
	switch len(sel) {
	case 0:
		return nil, nil
	case n:
		rec.Retain()
		return rec, nil
	}
	return rowcopy.TakeRecord(ev.mem, rec, sel)
}

// Close implements Operator.
func (f *Filter) Close() {
	f.out.release()
	f.input.Close()
}
