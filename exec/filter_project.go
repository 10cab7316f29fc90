package exec

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// filterProject is a Filter and the Project above it, fused for the shape
// of a filtered vector search: SELECT ..., embedding <#> $1 FROM t WHERE
// metadata->>'repo' = $2. A plain Filter copies every surviving row of
// every column — 1.5 KB per 384-d embedding — before the similarity reads
// them once. Here the similarity's kernel reads the surviving rows in place
// (functions.Arg.Sel), and only the columns the other expressions need are
// copied.
type filterProject struct {
	rt     *Runtime
	node   *sql.Project
	cond   sql.Expr
	schema *arrow.Schema
	input  Operator
	out    outSlot

	// consts are the column-free arguments of the selective calls,
	// evaluated once.
	consts map[sql.Expr]any
	// copied marks the input columns that non-selective expressions read.
	copied []bool
	// filterStats counts the filter's rows and time for EXPLAIN ANALYZE.
	filterStats *opStats
}

// selectiveCall reports whether e is a call whose kernel can compute a
// selection of rows in place, with column or column-free arguments.
func selectiveCall(e sql.Expr) (*sql.Call, bool) {
	c, ok := e.(*sql.Call)
	if !ok || c.Overload == nil || !c.Overload.SelKernel || c.Overload.Kernel == nil {
		return nil, false
	}
	for _, a := range c.Args {
		if _, isCol := a.(*sql.ColumnRef); isCol {
			continue
		}
		if hasColumnRef(a) {
			return nil, false
		}
	}
	return c, true
}

func hasColumnRef(e sql.Expr) bool {
	found := false
	sql.WalkExpr(e, func(x sql.Expr) {
		switch x.(type) {
		case *sql.ColumnRef, *sql.Subquery, *sql.NextVal, *sql.SeqFunc:
			found = true
		}
	})
	return found
}

// hasSelectiveCall reports whether a projection computes some expression
// that a fused filterProject would evaluate in place.
func hasSelectiveCall(p *sql.Project) bool {
	for _, e := range p.Exprs {
		if _, ok := selectiveCall(e); ok {
			return true
		}
	}
	return false
}

// newFilterProject fuses p over f, reading f's input from in.
func newFilterProject(rt *Runtime, p *sql.Project, f *sql.Filter, in Operator) *filterProject {
	copied := make([]bool, len(f.Input.Columns()))
	for _, e := range p.Exprs {
		if _, ok := selectiveCall(e); !ok {
			markRefs(copied, e)
		}
	}
	return &filterProject{rt: rt, node: p, cond: f.Cond, schema: rt.schemaFor(p), input: in, copied: copied, consts: map[sql.Expr]any{}, filterStats: rt.statsOf(f)}
}

func markRefs(need []bool, e sql.Expr) {
	sql.WalkExpr(e, func(x sql.Expr) {
		if r, ok := x.(*sql.ColumnRef); ok && r.Index < len(need) {
			need[r.Index] = true
		}
	})
}

func (fp *filterProject) Schema() *arrow.Schema { return fp.schema }

func (fp *filterProject) Close() {
	fp.out.release()
	fp.input.Close()
}

func (fp *filterProject) Next(ctx context.Context) (arrow.Record, error) {
	fp.out.release()
	start := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := fp.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		sel, err := fp.selection(ctx, rec)
		if err != nil {
			return nil, err
		}
		if len(sel) == 0 {
			continue
		}
		fp.filterStats.add(len(sel), time.Since(start))
		out, err := fp.project(ctx, rec, sel)
		if err != nil {
			return nil, err
		}
		return fp.out.set(out), nil
	}
}

// selection evaluates the filter: the rows where it is true.
func (fp *filterProject) selection(ctx context.Context, rec arrow.Record) ([]int32, error) {
	mask, err := Eval(ctx, fp.rt, fp.cond, rec)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	return trueRows[int32](mask.(*array.Boolean)), nil
}

// project computes the output over the selected rows.
func (fp *filterProject) project(ctx context.Context, rec arrow.Record, sel []int32) (arrow.Record, error) {
	// subset is made when the first expression needs it.
	var subset arrow.Record
	defer func() {
		if subset != nil {
			subset.Release()
		}
	}()
	ev := newEvaluator(ctx, fp.rt)
	cols := make([]arrow.Array, len(fp.node.Exprs))
	defer func() { releaseAll(cols) }()
	for i, e := range fp.node.Exprs {
		var arr arrow.Array
		var err error
		if c, ok := selectiveCall(e); ok {
			arr, err = fp.callSelected(ev, c, rec, sel)
		}
		if arr == nil && err == nil && subset == nil {
			subset, err = fp.subset(rec, sel)
		}
		if arr == nil && err == nil {
			arr, err = ev.evalArray(e, batchOf(subset))
		}
		if err != nil {
			return nil, err
		}
		cols[i] = arr
	}
	return array.NewRecord(fp.schema, cols, int64(len(sel))), nil
}

// callSelected runs a selective kernel over the selected rows of rec in
// place; nil (and no error) when a column is not in the kernel's layout.
func (fp *filterProject) callSelected(ev *evaluator, c *sql.Call, rec arrow.Record, sel []int32) (arrow.Array, error) {
	args := make([]functions.Arg, len(c.Args))
	for i, a := range c.Args {
		if ref, ok := a.(*sql.ColumnRef); ok {
			col := rec.Column(ref.Index)
			if !arrow.TypeEqual(col.DataType(), ref.T.Arrow()) {
				return nil, nil
			}
			args[i] = functions.Arg{Array: col, Sel: sel, Type: a.Type()}
			continue
		}
		v, ok := fp.consts[a]
		if !ok {
			var err error
			if v, err = EvalScalar(context.Background(), fp.rt, a); err != nil {
				return nil, err
			}
			fp.consts[a] = v
		}
		args[i] = functions.Arg{Const: v, Type: a.Type()}
	}
	arr, err := c.Overload.Kernel(ev.fn, args, len(sel))
	if err != nil {
		return nil, err
	}
	return conformArray(ev.mem, arr, c.T)
}

// subset copies the selected rows of the columns non-selective
// expressions read; the other columns are NULL placeholders.
func (fp *filterProject) subset(rec arrow.Record, sel []int32) (arrow.Record, error) {
	rows := make([]int, len(sel))
	for i, s := range sel {
		rows[i] = int(s)
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() { releaseAll(cols) }()
	for i := range cols {
		var err error
		if i < len(fp.copied) && fp.copied[i] {
			cols[i], err = rowcopy.Take(fp.rt.mem(), rec.Column(i), rows)
		} else {
			cols[i] = array.MakeArrayOfNull(fp.rt.mem(), rec.Column(i).DataType(), len(rows))
		}
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecord(rec.Schema(), cols, int64(len(rows))), nil
}
