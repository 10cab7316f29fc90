package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
)

// projectSet runs the set-returning functions of a select list
// (sql.ProjectSet) for each input row, in lockstep: the row is repeated
// as many times as its longest function yields rows, the shorter
// functions' columns NULL once they are done.
type projectSet struct {
	rt     *Runtime
	node   *sql.ProjectSet
	input  Operator
	schema *arrow.Schema
	out    outSlot
}

func newProjectSet(rt *Runtime, n *sql.ProjectSet, in Operator) *projectSet {
	return &projectSet{rt: rt, node: n, input: in, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (p *projectSet) Schema() *arrow.Schema { return p.schema }

// Close implements Operator.
func (p *projectSet) Close() {
	p.out.release()
	p.input.Close()
}

// Next implements Operator.
func (p *projectSet) Next(ctx context.Context) (arrow.Record, error) {
	p.out.release()
	for {
		rec, err := p.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		out, err := p.expand(ctx, rec)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return p.out.set(out), nil
		}
	}
}

// expand computes the output rows of one input batch; nil when no row
// yields any.
func (p *projectSet) expand(ctx context.Context, rec arrow.Record) (arrow.Record, error) {
	ev := newEvaluator(ctx, p.rt)
	b := batchOf(rec)
	argVecs := make([][]vec, len(p.node.SRFs))
	defer func() {
		for _, vs := range argVecs {
			releaseVecs(vs)
		}
	}()
	for k, srf := range p.node.SRFs {
		vs, err := ev.evalArgs(srf.Args, b)
		if err != nil {
			return nil, err
		}
		argVecs[k] = vs
	}
	var rows []int
	vals := make([][]any, len(p.node.SRFs))
	for i := 0; i < b.n; i++ {
		if err := ev.checkCtx(); err != nil {
			return nil, err
		}
		produced := make([][]any, len(p.node.SRFs))
		longest := 0
		for k, srf := range p.node.SRFs {
			args := make([]any, len(argVecs[k]))
			for a, v := range argVecs[k] {
				args[a] = v.at(i)
			}
			gen, err := srfRows(p.rt, srf, args)
			if err != nil {
				return nil, err
			}
			for {
				row, ok, err := gen()
				if err != nil {
					return nil, err
				}
				if !ok {
					break
				}
				if srf.AsRecord {
					produced[k] = append(produced[k], slices.Clone(row))
				} else {
					produced[k] = append(produced[k], row[0])
				}
			}
			longest = max(longest, len(produced[k]))
		}
		for j := 0; j < longest; j++ {
			rows = append(rows, i)
			for k := range produced {
				var v any
				if j < len(produced[k]) {
					v = produced[k][j]
				}
				vals[k] = append(vals[k], v)
			}
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	base, err := takeRecord(p.rt.mem(), rec, rows)
	if err != nil {
		return nil, err
	}
	defer base.Release()
	cols := append([]arrow.Array{}, base.Columns()...)
	var made []arrow.Array
	defer func() { releaseAll(made) }()
	for k, srf := range p.node.SRFs {
		arr, err := datumsArray(p.rt, vals[k], srf.ResultType())
		if err != nil {
			return nil, err
		}
		made = append(made, arr)
		cols = append(cols, arr)
	}
	return array.NewRecord(p.schema, cols, int64(len(rows))), nil
}
