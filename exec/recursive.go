package exec

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// recursiveUnion runs WITH RECURSIVE (sql.RecursiveUnion): the base term
// once, then the step term round after round, each round reading the rows
// the previous one added through its WorkTableScan, until a round adds
// none. Rounds run lazily, one when the rows of the previous have been
// emitted, so a LIMIT above stops an unbounded recursion as it does in
// PostgreSQL; only the last round's rows are kept (and, for UNION, the
// keys of all rows produced).
type recursiveUnion struct {
	rt     *Runtime
	node   *sql.RecursiveUnion
	schema *arrow.Schema
	ts     []types.T
	seen   map[string]struct{} // UNION: the rows produced so far
	// acct counts seen's keys in the statement's budget.
	acct memAccount

	started bool
	round   []arrow.Record // the rows of the round being emitted
	pos     int
}

func newRecursiveUnion(rt *Runtime, n *sql.RecursiveUnion) *recursiveUnion {
	r := &recursiveUnion{rt: rt, node: n, schema: schemaOf(n.Out), acct: rt.account()}
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

// Next implements Operator.
func (r *recursiveUnion) Next(ctx context.Context) (arrow.Record, error) {
	for r.pos >= len(r.round) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.started && len(r.round) == 0 {
			return nil, io.EOF
		}
		plan := r.node.Step
		if !r.started {
			r.started, plan = true, r.node.Base
		}
		if err := r.runRound(ctx, plan); err != nil {
			return nil, err
		}
	}
	r.pos++
	return r.round[r.pos-1], nil
}

// runRound runs the base or the step term (reading the previous round)
// and makes its new rows the current round.
func (r *recursiveUnion) runRound(ctx context.Context, plan sql.Node) error {
	if r.rt.workTables == nil {
		r.rt.workTables = map[*sql.WorkTableScan][]arrow.Record{}
	}
	saved := r.rt.workTables[r.node.Work]
	r.rt.workTables[r.node.Work] = r.round
	defer func() { r.rt.workTables[r.node.Work] = saved }()
	var next []arrow.Record
	err := r.drain(ctx, plan, func(rec arrow.Record) error {
		if r.seen != nil {
			rows, added := newRows(r.seen, rec, len(r.ts), r.ts, nil)
			if err := r.acct.grow(added); err != nil {
				return err
			}
			if len(rows) < int(rec.NumRows()) {
				if len(rows) == 0 {
					return nil
				}
				sub, err := takeRecord(r.rt.mem(), rec, rows)
				if err != nil {
					return err
				}
				next = append(next, sub)
				return nil
			}
		}
		rec.Retain()
		next = append(next, rec)
		return nil
	})
	if err != nil {
		releaseRecords(next)
		return err
	}
	releaseRecords(r.round)
	r.round, r.pos = next, 0
	return nil
}

// releaseRecords releases each record.
func releaseRecords(recs []arrow.Record) {
	for _, rec := range recs {
		rec.Release()
	}
}

// drain runs plan to the end, calling fn on each non-empty batch (valid
// during the call).
func (r *recursiveUnion) drain(ctx context.Context, plan sql.Node, fn func(arrow.Record) error) error {
	op, err := Build(r.rt, plan)
	if err != nil {
		return err
	}
	defer op.Close()
	for {
		rec, err := op.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.NumRows() > 0 {
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
}

// Close implements Operator.
func (r *recursiveUnion) Close() {
	releaseRecords(r.round)
	r.round = nil
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
