package exec

import (
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// Parallel top-k: ORDER BY <score> LIMIT k over a filter/projection of one
// table (the shape of every vector search) runs as one partial TopK per
// scan partition, each in its own goroutine, and a final TopK merges their
// k-row results. Scans of large tables are bound by memory bandwidth and
// the similarity kernel, so this uses every core.

// parallelMinRows is the table size below which a scan is not split.
const parallelMinRows = 32768

// partitioner is the storage transaction's split of a scan into readers
// that may run concurrently.
type partitioner interface {
	ScanPartitions(ctx context.Context, tableID uint64, columns []int, withRowID bool, n int) ([]array.RecordReader, error)
	RowCount(tableID uint64) int64
}

// pipelineScan returns the Scan at the bottom of a chain of Filters and
// Projects whose expressions can run in any goroutine, or nil.
func pipelineScan(n sql.Node) *sql.Scan {
	for {
		switch x := n.(type) {
		case *sql.Scan:
			return x
		case *sql.Filter:
			if !parallelSafe(x.Cond) {
				return nil
			}
			n = x.Input
		case *sql.Project:
			for _, e := range x.Exprs {
				if !parallelSafe(e) {
					return nil
				}
			}
			n = x.Input
		default:
			return nil
		}
	}
}

// parallelSafe reports whether e can be evaluated by several partitions
// independently: no sequence draws and no subqueries (run once per
// statement).
func parallelSafe(e sql.Expr) bool {
	ok := true
	sql.WalkExpr(e, func(x sql.Expr) {
		switch x.(type) {
		case *sql.NextVal, *sql.SeqFunc, *sql.Subquery:
			ok = false
		}
	})
	return ok
}

// buildParallelTopK builds n as partial TopKs over scan partitions when
// its input is a parallelisable pipeline over a large table; ok is false
// otherwise.
func buildParallelTopK(rt *Runtime, n *sql.TopK) (Operator, bool, error) {
	workers := runtime.GOMAXPROCS(0)
	scan := pipelineScan(n.Input)
	part, isPart := any(rt.Tx).(partitioner)
	// A partition's own runtime has preset scan readers: its partial TopK
	// runs serially.
	if workers < 2 || scan == nil || !isPart || rt.Analyze || n.Count == nil || rt.scanReaders != nil {
		return nil, false, nil
	}
	for _, k := range n.Keys {
		if !parallelSafe(k.Expr) {
			return nil, false, nil
		}
	}
	if part.RowCount(scan.Table.ID) < parallelMinRows {
		return nil, false, nil
	}
	count, offset, err := limitValues(context.Background(), rt, n.Count, n.Offset)
	if err != nil {
		return nil, false, err
	}
	if count < 0 {
		return nil, false, nil
	}
	local := &sql.TopK{Input: n.Input, Keys: n.Keys, Count: &sql.Const{Value: count + offset, T: types.Int8T}}
	g := &gather{schema: schemaOf(n.Input.Columns())}
	g.open = func(ctx context.Context) ([]Operator, error) {
		readers, err := part.ScanPartitions(ctx, scan.Table.ID, scan.Cols, scan.WithRowID, workers)
		if err != nil {
			return nil, err
		}
		ops := make([]Operator, 0, len(readers))
		for i, r := range readers {
			prt := rt.partition(scan, r)
			op, err := build(prt, local)
			if err != nil {
				for _, o := range ops {
					o.Close()
				}
				for _, rr := range readers[i:] {
					rr.Release()
				}
				return nil, err
			}
			ops = append(ops, op)
		}
		return ops, nil
	}
	return newTopK(rt, n, g), true, nil
}

// partition returns a copy of rt for one partition of a parallel scan:
// scan reads r, and the per-statement caches are its own.
func (rt *Runtime) partition(scan *sql.Scan, r array.RecordReader) *Runtime {
	c := &Runtime{Fn: rt.Fn, Params: rt.Params, Tx: rt.Tx, DB: rt.DB, ExprCache: rt.ExprCache, outer: rt.outer}
	c.scanReaders = map[*sql.Scan]array.RecordReader{scan: r}
	return c
}

// gather runs several operators concurrently and yields all their
// batches, in no particular order.
type gather struct {
	schema *arrow.Schema
	open   func(ctx context.Context) ([]Operator, error)

	started bool
	cancel  context.CancelFunc
	ch      chan gathered
	wg      sync.WaitGroup
	cur     arrow.Record
	live    int
}

type gathered struct {
	rec arrow.Record
	err error // io.EOF: one child finished
}

func (g *gather) Schema() *arrow.Schema { return g.schema }

func (g *gather) start(ctx context.Context) error {
	g.started = true
	ctx, g.cancel = context.WithCancel(ctx)
	ops, err := g.open(ctx)
	if err != nil {
		return err
	}
	g.ch = make(chan gathered, len(ops))
	g.live = len(ops)
	for _, op := range ops {
		g.wg.Add(1)
		go func(op Operator) {
			defer g.wg.Done()
			defer op.Close()
			for {
				rec, err := op.Next(ctx)
				if err != nil {
					select {
					case g.ch <- gathered{err: err}:
					case <-ctx.Done():
					}
					return
				}
				rec.Retain()
				select {
				case g.ch <- gathered{rec: rec}:
				case <-ctx.Done():
					rec.Release()
					return
				}
			}
		}(op)
	}
	return nil
}

func (g *gather) Next(ctx context.Context) (arrow.Record, error) {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
	if !g.started {
		if err := g.start(ctx); err != nil {
			return nil, err
		}
	}
	for g.live > 0 {
		select {
		case m := <-g.ch:
			if m.err == io.EOF {
				g.live--
				continue
			}
			if m.err != nil {
				g.live = 0
				return nil, m.err
			}
			g.cur = m.rec
			return m.rec, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, io.EOF
}

func (g *gather) Close() {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
	if g.cancel != nil {
		g.cancel()
		// Drain so no goroutine blocks on a send, then wait for them.
		done := make(chan struct{})
		go func() { g.wg.Wait(); close(done) }()
		for {
			select {
			case m := <-g.ch:
				if m.rec != nil {
					m.rec.Release()
				}
			case <-done:
				return
			}
		}
	}
}
