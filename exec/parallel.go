package exec

import (
	"context"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/functions"
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
// independently: no sequence draws, no subqueries (run once per
// statement) and no volatile function — set_config, pg_advisory_lock and
// friends write session state, random and clock_timestamp promise a new
// value per call in the order rows are read; they run in the session's
// goroutine.
func parallelSafe(e sql.Expr) bool {
	ok := true
	sql.WalkExpr(e, func(x sql.Expr) {
		switch x := x.(type) {
		case *sql.NextVal, *sql.SeqFunc, *sql.Subquery:
			ok = false
		case *sql.Call:
			ok = ok && x.Overload != nil && x.Overload.Volatility != functions.Volatile
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
	local := &sql.TopK{Input: n.Input, Keys: n.Keys, Count: &sql.Const{Value: limitEnd(count, offset), T: types.Int8T}}
	shared := rt.partitionsShared()
	g := &gather{schema: schemaOf(n.Input.Columns())}
	g.open = func(ctx context.Context) ([]Operator, error) {
		readers, err := part.ScanPartitions(ctx, scan.Table.ID, scan.Cols, scan.WithRowID, workers)
		if err != nil {
			return nil, err
		}
		rt.seqScan(scan.Table.ID)
		ops := make([]Operator, 0, len(readers))
		for i, r := range readers {
			prt := shared.partition(scan, r)
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

// partitionsShared returns the runtime the partitions of one parallel
// plan share (each gets a copy, see partition). It holds nothing of the
// session that can change: its function context has a snapshot of what
// functions read from the session (settings, user, search path) instead
// of the session, no advisory locks, no sequence values, and a catalog
// view of its own built from the snapshot. Partitions run only
// non-volatile expressions (parallelSafe), which read this and nothing
// else, so they cannot write session state or race with it.
func (rt *Runtime) partitionsShared() *Runtime {
	fn := *rt.fnCtx()
	if fn.Session != nil {
		fn.Session = readOnlySession{fn.Session}
	}
	fn.Advisory, fn.Notify = nil, nil
	shared := &Runtime{Fn: &fn, Params: rt.Params, Tx: rt.Tx, DB: rt.DB, ExprCache: rt.ExprCache, Stats: rt.Stats, outer: rt.outer}
	fn.Catalog = lazyCatalog{shared}
	return shared
}

// partition returns a copy of shared (see partitionsShared) for one
// partition of a parallel scan: scan reads r, and the per-statement
// caches are its own. The catalog view stays shared (built once, under
// its sync.Once).
func (shared *Runtime) partition(scan *sql.Scan, r array.RecordReader) *Runtime {
	c := &Runtime{Fn: shared.Fn, Params: shared.Params, Tx: shared.Tx, DB: shared.DB, ExprCache: shared.ExprCache, outer: shared.outer}
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
		go g.run(ctx, op)
	}
	return nil
}

// run pulls op's batches into g.ch until op ends, fails or ctx is done.
// A panic in op (this goroutine's own: nothing else could recover it)
// ends this child with a *PanicError for the statement.
func (g *gather) run(ctx context.Context, op Operator) {
	defer g.wg.Done()
	defer func() {
		if r := recover(); r != nil {
			select {
			case g.ch <- gathered{err: NewPanicError(r)}:
			case <-ctx.Done():
			}
		}
	}()
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
