package exec

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// lateralJoin runs sql.LateralJoin: for each left row it runs the right
// plan with the row's values as the plan's outer values (as a correlated
// subquery runs), and emits the left row joined to each right row — or,
// for LEFT JOIN LATERAL, once with NULLs when there are none.
type lateralJoin struct {
	rt     *Runtime
	node   *sql.LateralJoin
	left   Operator
	schema *arrow.Schema
	out    outSlot
}

func newLateralJoin(rt *Runtime, n *sql.LateralJoin, left Operator) *lateralJoin {
	return &lateralJoin{rt: rt, node: n, left: left, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (l *lateralJoin) Schema() *arrow.Schema { return l.schema }

// Close implements Operator.
func (l *lateralJoin) Close() {
	l.out.release()
	l.left.Close()
}

// Next implements Operator.
func (l *lateralJoin) Next(ctx context.Context) (arrow.Record, error) {
	l.out.release()
	for {
		rec, err := l.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		out, err := l.joinBatch(ctx, rec)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return l.out.set(out), nil
		}
	}
}

// joinBatch joins the rows of one left batch; nil when none yields a row.
func (l *lateralJoin) joinBatch(ctx context.Context, rec arrow.Record) (arrow.Record, error) {
	ev := newEvaluator(ctx, l.rt)
	args, err := ev.evalArgs(l.node.Args, batchOf(rec))
	if err != nil {
		return nil, err
	}
	defer releaseVecs(args)
	nLeft := len(l.node.Left.Columns())
	rightCols := l.node.Out[nLeft:]
	builders := make([]array.Builder, len(rightCols))
	for i, c := range rightCols {
		builders[i] = newBuilder(l.rt.mem(), c.T)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	var leftRows []int
	vals := make([]any, len(args))
	for i := 0; i < int(rec.NumRows()); i++ {
		for k, a := range args {
			vals[k] = a.at(i)
		}
		n, err := l.runRight(ctx, slices.Clone(vals), builders)
		if err != nil {
			return nil, err
		}
		if n == 0 && l.node.Outer {
			for _, b := range builders {
				b.AppendNull()
			}
			n = 1
		}
		for ; n > 0; n-- {
			leftRows = append(leftRows, i)
		}
	}
	if len(leftRows) == 0 {
		return nil, nil
	}
	left, err := rowcopy.TakeRecord(l.rt.mem(), rec, leftRows)
	if err != nil {
		return nil, err
	}
	defer left.Release()
	cols := append([]arrow.Array{}, left.Columns()...)
	var made []arrow.Array
	defer func() { releaseAll(made) }()
	for _, b := range builders {
		a := b.NewArray()
		made = append(made, a)
		cols = append(cols, a)
	}
	return array.NewRecord(l.schema, cols, int64(len(leftRows))), nil
}

// runRight runs the right plan for one left row's values, appending its
// rows to builders; it returns how many rows it produced.
func (l *lateralJoin) runRight(ctx context.Context, outer []any, builders []array.Builder) (int, error) {
	saved := l.rt.outer
	l.rt.outer = outer
	defer func() { l.rt.outer = saved }()
	op, err := Build(l.rt, l.node.Right)
	if err != nil {
		return 0, err
	}
	defer op.Close()
	rightCols := l.node.Right.Columns()
	n := 0
	for {
		rec, err := op.Next(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			for c, b := range builders {
				col := rec.Column(c)
				var v any
				if !col.IsNull(r) {
					v = valueAt(col, r, rightCols[c].T)
				}
				if err := appendValue(b, v, rightCols[c].T); err != nil {
					return 0, err
				}
			}
			n++
		}
	}
}
