package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cairn-db/cairn/sql"
)

// Values produces the rows of a VALUES list (and the single empty row of a
// SELECT without FROM), evaluating each cell once, in batches of up to
// batchSize rows.
type Values struct {
	rt     *Runtime
	node   *sql.Values
	schema *arrow.Schema
	pos    int
	out    outSlot
}

func newValues(rt *Runtime, n *sql.Values) *Values {
	return &Values{rt: rt, node: n, schema: rt.schemaFor(n)}
}

// Schema implements Operator.
func (v *Values) Schema() *arrow.Schema { return v.schema }

// Next implements Operator.
func (v *Values) Next(ctx context.Context) (arrow.Record, error) {
	v.out.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := v.node.Rows
	if v.pos >= len(rows) {
		return nil, io.EOF
	}
	end := min(v.pos+batchSize, len(rows))
	cols := v.node.Out
	mem := v.rt.mem()
	builders := make([]array.Builder, len(cols))
	for j, c := range cols {
		builders[j] = newBuilder(mem, c.T)
		builders[j].Reserve(end - v.pos)
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	v.reserveFloats(builders, rows[v.pos], end-v.pos)
	for _, row := range rows[v.pos:end] {
		if len(row) != len(cols) {
			return nil, internalErr("VALUES row has %d cells, want %d", len(row), len(cols))
		}
		for j, cell := range row {
			d, err := v.cell(ctx, cell)
			if err != nil {
				return nil, err
			}
			if err := appendValue(builders[j], d, cols[j].T); err != nil {
				return nil, err
			}
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for j, b := range builders {
		arrs[j] = b.NewArray()
	}
	rec := array.NewRecord(v.schema, arrs, int64(end-v.pos))
	for _, a := range arrs {
		a.Release()
	}
	v.pos = end
	return v.out.set(rec), nil
}

// reserveFloats makes room in the element builder of each real[] column
// whose cell in the batch's first row is a []float32 parameter for n
// embeddings of its length, so that a batch of embeddings is not copied
// each time the builder grows.
func (v *Values) reserveFloats(builders []array.Builder, first []sql.Expr, n int) {
	for j, cell := range first {
		p, ok := cell.(*sql.Param)
		if !ok || j >= len(builders) || p.Index < 0 || p.Index >= len(v.rt.Params) {
			continue
		}
		xs, ok := v.rt.Params[p.Index].([]float32)
		if lb, isList := builders[j].(*array.ListBuilder); ok && isList {
			if fb, ok := lb.ValueBuilder().(*array.Float32Builder); ok {
				fb.Reserve(len(xs) * n)
			}
		}
	}
}

// cell evaluates one cell. A bare parameter is appended as Bind decoded
// it, so that a []float32 embedding goes into the list builder without an
// *types.Array in between (see Runtime.Params).
func (v *Values) cell(ctx context.Context, e sql.Expr) (any, error) {
	if p, ok := e.(*sql.Param); ok && p.Index >= 0 && p.Index < len(v.rt.Params) {
		return v.rt.Params[p.Index], nil
	}
	return EvalScalar(ctx, v.rt, e)
}

// Close implements Operator.
func (v *Values) Close() {
	v.out.release()
	v.pos = len(v.node.Rows)
}
