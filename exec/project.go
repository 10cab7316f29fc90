package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
)

// Project computes its expressions over each input batch; column
// references are passed through without copying.
type Project struct {
	rt     *Runtime
	node   *sql.Project
	schema *arrow.Schema
	input  Operator
	out    outSlot
}

func newProject(rt *Runtime, n *sql.Project, in Operator) *Project {
	return &Project{rt: rt, node: n, schema: rt.schemaFor(n), input: in}
}

// Schema implements Operator.
func (p *Project) Schema() *arrow.Schema { return p.schema }

// Next implements Operator.
func (p *Project) Next(ctx context.Context) (arrow.Record, error) {
	p.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, err := p.input.Next(ctx)
	if err != nil {
		return nil, err
	}
	out, err := projectRecord(newEvaluator(ctx, p.rt), p.node.Exprs, p.node.Out, p.schema, rec)
	if err != nil {
		return nil, err
	}
	return p.out.set(out), nil
}

// projectRecord evaluates exprs over rec into a record of schema (the
// Arrow schema of cols).
func projectRecord(ev *evaluator, exprs []sql.Expr, cols []sql.Col, schema *arrow.Schema, rec arrow.Record) (arrow.Record, error) {
	if len(exprs) != len(cols) {
		return nil, internalErr("project has %d expressions for %d columns", len(exprs), len(cols))
	}
	b := batchOf(rec)
	arrs := make([]arrow.Array, len(exprs))
	defer func() {
		for _, c := range arrs {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range exprs {
		v, err := ev.eval(e, b)
		if err != nil {
			return nil, err
		}
		var arr arrow.Array
		if v.isConst() {
			arr, err = ev.materialize(v.c, cols[i].T, b.n)
			if err == nil {
				arr, err = conformToType(ev.mem, arr, schema.Field(i).Type)
			}
		} else {
			arr, err = conformToType(ev.mem, v.arr, schema.Field(i).Type)
		}
		if err != nil {
			return nil, err
		}
		arrs[i] = arr
	}
	return array.NewRecord(schema, arrs, int64(b.n)), nil
}

// Close implements Operator.
func (p *Project) Close() {
	p.out.release()
	p.input.Close()
}
