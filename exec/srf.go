package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/types"
)

// srfBatchRows is how many rows a set-returning function emits per batch.
const srfBatchRows = 8192

// srfOp runs a set-returning function in FROM: its arguments are evaluated
// once, then rows are generated lazily in batches.
type srfOp struct {
	rt     *Runtime
	node   *sql.SRF
	schema *arrow.Schema
	next   functions.NextRow
	cur    arrow.Record
}

func buildSRF(rt *Runtime, n *sql.SRF) (Operator, error) {
	return &srfOp{rt: rt, node: n, schema: schemaOf(n.Out)}, nil
}

// start evaluates the function's arguments and starts its rows, at the
// first Next: under its context, so that a function which finds all its
// rows at once (regexp_matches with flag g over a long text) stops when
// the statement is cancelled.
func (o *srfOp) start(ctx context.Context) error {
	gen, err := srfStart(ctx, o.rt, o.node)
	if err != nil {
		return err
	}
	o.next = gen
	if o.node.Ordinality {
		k := int64(0)
		o.next = func() ([]any, bool, error) {
			row, ok, err := gen()
			if !ok || err != nil {
				return nil, ok, err
			}
			k++
			return append(append([]any(nil), row...), k), true, nil
		}
	}
	return nil
}

// srfStart evaluates n's arguments and starts its rows; ROWS FROM
// (n.Zip) starts each of its functions and pads the sets that end first
// with NULLs.
func srfStart(ctx context.Context, rt *Runtime, n *sql.SRF) (functions.NextRow, error) {
	if len(n.Zip) == 0 {
		args := make([]any, len(n.Args))
		for i, a := range n.Args {
			v, err := EvalScalar(ctx, rt, a)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return srfRows(rt.fnIn(ctx), n, args)
	}
	gens := make([]functions.NextRow, len(n.Zip))
	for i, f := range n.Zip {
		g, err := srfStart(ctx, rt, f)
		if err != nil {
			return nil, err
		}
		gens[i] = g
	}
	return func() ([]any, bool, error) {
		var row []any
		more := false
		for i, g := range gens {
			width := len(n.Zip[i].Out)
			if g == nil {
				row = append(row, make([]any, width)...)
				continue
			}
			r, ok, err := g()
			if err != nil {
				return nil, false, err
			}
			if !ok {
				gens[i] = nil
				row = append(row, make([]any, width)...)
				continue
			}
			more = true
			row = append(row, r...)
		}
		return row, more, nil
	}, nil
}

// srfRows starts one call of a set-returning function with argument
// values args under fn, the function context of the operator call that
// starts it (Runtime.fnIn).
func srfRows(fn *functions.Context, n *sql.SRF, args []any) (functions.NextRow, error) {
	ts := make([]types.T, len(n.Args))
	for i, a := range n.Args {
		ts[i] = a.Type()
	}
	var out []types.Field
	if n.Fn.RecordRows != nil {
		cols := n.Out
		if n.Ordinality {
			cols = cols[:len(cols)-1]
		}
		out = make([]types.Field, len(cols))
		for i, c := range cols {
			out[i] = types.Field{Name: c.Name, T: c.T}
		}
	}
	return n.Fn.Call(fn, args, ts, out)
}

func (o *srfOp) Schema() *arrow.Schema { return o.schema }

func (o *srfOp) Next(ctx context.Context) (arrow.Record, error) {
	if o.cur != nil {
		o.cur.Release()
		o.cur = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.next == nil {
		if err := o.start(ctx); err != nil {
			return nil, err
		}
	}
	builders := make([]array.Builder, len(o.node.Out))
	for i, c := range o.node.Out {
		builders[i] = array.NewBuilder(o.rt.mem(), c.T.Arrow())
		defer builders[i].Release()
	}
	n := 0
	for n < srfBatchRows {
		row, ok, err := o.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		for i, v := range row {
			if err := types.AppendValue(builders[i], v, o.node.Out[i].T); err != nil {
				return nil, err
			}
		}
		n++
	}
	if n == 0 {
		return nil, io.EOF
	}
	cols := make([]arrow.Array, len(builders))
	for i, b := range builders {
		cols[i] = b.NewArray()
	}
	o.cur = array.NewRecord(o.schema, cols, int64(n))
	releaseAll(cols)
	return o.cur, nil
}

func (o *srfOp) Close() {
	if o.cur != nil {
		o.cur.Release()
		o.cur = nil
	}
}
