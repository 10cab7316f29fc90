package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// projectSet runs the set-returning functions of a select list
// (sql.ProjectSet) for each input row, in lockstep: the row is repeated
// as many times as its longest function yields rows, the shorter
// functions' columns NULL once they are done. It streams: each output
// batch holds at most srfBatchRows rows, and a function's rows are
// generated as the batches are asked for, so that SELECT
// generate_series(1, 1e9) holds one batch at a time and stops when the
// statement is cancelled.
type projectSet struct {
	rt     *Runtime
	node   *sql.ProjectSet
	input  Operator
	schema *arrow.Schema
	out    outSlot
	// rec is the input batch being expanded (retained; nil when the next
	// one is due), argVecs its functions' arguments, row the row whose
	// functions run and gens their generators: nil before the row starts,
	// an entry nil once its function is done.
	rec     arrow.Record
	argVecs [][]vec
	row     int
	gens    []functions.NextRow
}

func newProjectSet(rt *Runtime, n *sql.ProjectSet, in Operator) *projectSet {
	return &projectSet{rt: rt, node: n, input: in, schema: schemaOf(n.Out)}
}

// Schema implements Operator.
func (p *projectSet) Schema() *arrow.Schema { return p.schema }

// Close implements Operator.
func (p *projectSet) Close() {
	p.out.release()
	p.endBatch()
	p.input.Close()
}

// Next implements Operator.
func (p *projectSet) Next(ctx context.Context) (arrow.Record, error) {
	p.out.release()
	for {
		if p.rec == nil {
			rec, err := p.input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if err := p.startBatch(ctx, rec); err != nil {
				return nil, err
			}
		}
		out, err := p.expand(ctx)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return p.out.set(out), nil
		}
	}
}

// startBatch makes rec the batch being expanded and evaluates its
// functions' arguments.
func (p *projectSet) startBatch(ctx context.Context, rec arrow.Record) error {
	ev := newEvaluator(ctx, p.rt)
	b := batchOf(rec)
	rec.Retain()
	p.rec, p.row, p.gens = rec, 0, nil
	p.argVecs = make([][]vec, len(p.node.SRFs))
	for k, srf := range p.node.SRFs {
		vs, err := ev.evalArgs(srf.Args, b)
		if err != nil {
			return err
		}
		p.argVecs[k] = vs
	}
	return nil
}

// endBatch forgets the batch being expanded.
func (p *projectSet) endBatch() {
	for _, vs := range p.argVecs {
		releaseVecs(vs)
	}
	if p.rec != nil {
		p.rec.Release()
	}
	p.rec, p.argVecs, p.gens = nil, nil, nil
}

// startRow starts the functions of the current row under fn.
func (p *projectSet) startRow(fn *functions.Context) error {
	p.gens = make([]functions.NextRow, len(p.node.SRFs))
	for k, srf := range p.node.SRFs {
		args := make([]any, len(p.argVecs[k]))
		for a, v := range p.argVecs[k] {
			args[a] = v.at(p.row)
		}
		gen, err := srfRows(fn, srf, args)
		if err != nil {
			return err
		}
		p.gens[k] = gen
	}
	return nil
}

// expand computes the next output rows of the batch being expanded, at
// most srfBatchRows of them; nil when the rest of the batch yields none.
// It ends the batch once its last row is done.
func (p *projectSet) expand(ctx context.Context) (arrow.Record, error) {
	rec := p.rec
	var rows []int
	vals := make([][]any, len(p.node.SRFs))
	fn := p.rt.fnIn(ctx)
	for len(rows) < srfBatchRows && p.row < int(rec.NumRows()) {
		if p.gens == nil {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := p.startRow(fn); err != nil {
				return nil, err
			}
		}
		step := make([]any, len(p.gens))
		yielded := false
		for k, gen := range p.gens {
			if gen == nil {
				continue
			}
			row, ok, err := gen()
			if err != nil {
				return nil, err
			}
			if !ok {
				p.gens[k] = nil
				continue
			}
			yielded = true
			if p.node.SRFs[k].AsRecord {
				step[k] = slices.Clone(row)
			} else {
				step[k] = row[0]
			}
		}
		if !yielded {
			p.row, p.gens = p.row+1, nil
			continue
		}
		rows = append(rows, p.row)
		for k, v := range step {
			vals[k] = append(vals[k], v)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out arrow.Record
	if len(rows) > 0 {
		var err error
		if out, err = p.output(rec, rows, vals); err != nil {
			return nil, err
		}
	}
	if p.row >= int(rec.NumRows()) {
		p.endBatch()
	}
	return out, nil
}

// output builds an output batch: the input rows at rows, and the
// functions' values vals beside them.
func (p *projectSet) output(rec arrow.Record, rows []int, vals [][]any) (arrow.Record, error) {
	base, err := rowcopy.TakeRecord(p.rt.mem(), rec, rows)
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
