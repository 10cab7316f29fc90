package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// Distinct passes the first row of each distinct value of all columns (or
// of the first OnCount columns, for DISTINCT ON). NULLs are equal to each
// other here.
type Distinct struct {
	rt    *Runtime
	types []types.T
	on    int
	input Operator
	seen  map[string]struct{}
	out   outSlot
	// acct counts seen's keys in the statement's budget.
	acct memAccount
}

func newDistinct(rt *Runtime, n *sql.Distinct, in Operator) *Distinct {
	cols := n.Columns()
	ts := make([]types.T, len(cols))
	for i, c := range cols {
		ts[i] = c.T
	}
	on := n.OnCount
	if on <= 0 || on > len(ts) {
		on = len(ts)
	}
	return &Distinct{rt: rt, types: ts, on: on, input: in, seen: map[string]struct{}{}, acct: rt.account()}
}

// Schema implements Operator.
func (d *Distinct) Schema() *arrow.Schema { return d.input.Schema() }

// Next implements Operator.
func (d *Distinct) Next(ctx context.Context) (arrow.Record, error) {
	d.out.release()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := d.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := int(rec.NumRows())
		sel, added := newRows(d.seen, rec, d.on, d.types, nil)
		if err := d.acct.grow(added); err != nil {
			return nil, err
		}
		switch len(sel) {
		case 0:
			continue
		case n:
			return d.out.pass(rec), nil
		}
		out, err := rowcopy.TakeRecord(d.rt.mem(), rec, sel)
		if err != nil {
			return nil, err
		}
		return d.out.set(out), nil
	}
}

// recordKey appends the key of row i over the first ncols columns of rec.
func recordKey(dst []byte, rec arrow.Record, i, ncols int, ts []types.T) []byte {
	for c := 0; c < ncols; c++ {
		dst = appendColKey(dst, rec.Column(c), i, ts[c])
	}
	return dst
}

// newRows adds the keys of rec's rows to seen and returns (appending to
// sel) the rows whose key was not there yet, and the bytes the new keys
// take (for the statement's MemoryBudget).
func newRows(seen map[string]struct{}, rec arrow.Record, ncols int, ts []types.T, sel []int) ([]int, int64) {
	var key []byte
	var added int64
	for i := 0; i < int(rec.NumRows()); i++ {
		key = recordKey(key[:0], rec, i, ncols, ts)
		if _, ok := seen[string(key)]; ok {
			continue
		}
		seen[string(key)] = struct{}{}
		added += int64(len(key)) + memMapEntry
		sel = append(sel, i)
	}
	return sel, added
}

// Close implements Operator.
func (d *Distinct) Close() {
	d.out.release()
	d.seen = nil
	d.acct.release()
	d.input.Close()
}
