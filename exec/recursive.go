package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// recursiveUnion runs WITH RECURSIVE (sql.RecursiveUnion): the base term
// once, then the step term round after round, each round reading the rows
// the previous one added through its WorkTableScan, until a round adds
// none. Each round's rows are emitted as its plan yields them, as
// PostgreSQL's recursive union does, so a LIMIT above stops an unbounded
// recursion even when one round never ends (a step that is itself an
// endless recursion); only the previous round's rows and the current
// one's are kept (and, for UNION, the keys of all rows produced), counted
// in the statement's memory budget.
type recursiveUnion struct {
	rt     *Runtime
	node   *sql.RecursiveUnion
	schema *arrow.Schema
	ts     []types.T
	seen   map[string]struct{} // UNION: the rows produced so far
	// acct counts seen's keys in the statement's budget.
	acct memAccount

	started bool
	op      Operator       // the running round's plan; nil between rounds
	prev    []arrow.Record // the previous round's rows: the work table
	next    []arrow.Record // the running round's rows so far
	// prevAcct and nextAcct count prev's and next's bytes.
	prevAcct, nextAcct memAccount
}

func newRecursiveUnion(rt *Runtime, n *sql.RecursiveUnion) *recursiveUnion {
	r := &recursiveUnion{rt: rt, node: n, schema: schemaOf(n.Out), acct: rt.account(), prevAcct: rt.account(), nextAcct: rt.account()}
	for _, c := range n.Out {
		r.ts = append(r.ts, c.T)
	}
	if !n.All {
		r.seen = map[string]struct{}{}
	}
	return r
}

// Schema implements Operator.
func (r *recursiveUnion) Schema() *arrow.Schema { return r.schema }

// Next implements Operator. The record is valid until the next call.
func (r *recursiveUnion) Next(ctx context.Context) (arrow.Record, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.op == nil {
			plan := r.node.Step
			switch {
			case !r.started:
				r.started, plan = true, r.node.Base
			case len(r.prev) == 0:
				return nil, io.EOF
			}
			op, err := Build(r.rt, plan)
			if err != nil {
				return nil, err
			}
			r.op = op
		}
		rec, err := r.pull(ctx)
		if errors.Is(err, io.EOF) {
			r.endRound()
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.NumRows() == 0 {
			continue
		}
		if r.seen != nil {
			rows, added := newRows(r.seen, rec, len(r.ts), r.ts, nil)
			if err := r.acct.grow(added); err != nil {
				return nil, err
			}
			if len(rows) == 0 {
				continue
			}
			if len(rows) < int(rec.NumRows()) {
				if rec, err = rowcopy.TakeRecord(r.rt.mem(), rec, rows); err != nil {
					return nil, err
				}
				r.next = append(r.next, rec)
				return rec, r.nextAcct.growRecord(rec, 0)
			}
		}
		rec.Retain()
		r.next = append(r.next, rec)
		return rec, r.nextAcct.growRecord(rec, 0)
	}
}

// pull reads the running round's next batch, its work table the previous
// round's rows while it does (set for each call: another instance of the
// same query may run in between).
func (r *recursiveUnion) pull(ctx context.Context) (arrow.Record, error) {
	if r.rt.workTables == nil {
		r.rt.workTables = map[*sql.WorkTableScan][]arrow.Record{}
	}
	saved := r.rt.workTables[r.node.Work]
	r.rt.workTables[r.node.Work] = r.prev
	defer func() { r.rt.workTables[r.node.Work] = saved }()
	return r.op.Next(ctx)
}

// endRound closes the finished round's plan and makes its rows the work
// table of the next.
func (r *recursiveUnion) endRound() {
	r.op.Close()
	r.op = nil
	releaseRecords(r.prev)
	r.prevAcct.release()
	r.prev, r.next = r.next, nil
	r.prevAcct, r.nextAcct = r.nextAcct, r.rt.account()
}

// releaseRecords releases each record.
func releaseRecords(recs []arrow.Record) {
	for _, rec := range recs {
		rec.Release()
	}
}

// Close implements Operator.
func (r *recursiveUnion) Close() {
	if r.op != nil {
		r.op.Close()
		r.op = nil
	}
	releaseRecords(r.prev)
	releaseRecords(r.next)
	r.prev, r.next = nil, nil
	r.prevAcct.release()
	r.nextAcct.release()
	r.acct.release()
}

// workTableScan emits the rows of the previous round of its recursive
// union.
type workTableScan struct {
	rt     *Runtime
	node   *sql.WorkTableScan
	schema *arrow.Schema
	rows   []arrow.Record
	pos    int
	loaded bool
}

func newWorkTableScan(rt *Runtime, n *sql.WorkTableScan) *workTableScan {
	return &workTableScan{rt: rt, node: n, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (w *workTableScan) Schema() *arrow.Schema { return w.schema }

// Next implements Operator.
func (w *workTableScan) Next(ctx context.Context) (arrow.Record, error) {
	if !w.loaded {
		w.loaded = true
		w.rows = w.rt.workTables[w.node]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.pos >= len(w.rows) {
		return nil, io.EOF
	}
	w.pos++
	return w.rows[w.pos-1], nil
}

// Close implements Operator.
func (w *workTableScan) Close() {}
