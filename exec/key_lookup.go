package exec

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/cairn-db/cairn/sql"
)

// keyLookup runs sql.KeyLookup: the key values are computed once, the
// constraint's hash index gives the row ID and the row is fetched by it.
// Where the index cannot answer for the statement's snapshot (the table
// changed since), it scans with the plan's equalities instead.
type keyLookup struct {
	rt   *Runtime
	node *sql.KeyLookup
	// project and picks are the projection of plain column references
	// above the lookup that it does itself (newProjectedKeyLookup): its
	// output is column picks[i] of the lookup's for each i. Nil: none.
	project *sql.Project
	picks   []int
	schema  *arrow.Schema
	inner   Operator // the fallback scan, when the index could not answer
	out     outSlot
	done    bool
	id      [1]int64 // the row ID looked up, as FetchColumns takes it
}

func newKeyLookup(rt *Runtime, n *sql.KeyLookup) *keyLookup {
	return &keyLookup{rt: rt, node: n, schema: rt.schemaFor(n)}
}

// newProjectedKeyLookup runs project, whose expressions are the columns
// picks of the key lookup n below it, as part of the lookup: a prepared
// point lookup (SELECT a, b FROM t WHERE id = $1) then builds one
// operator and one output record instead of two.
func newProjectedKeyLookup(rt *Runtime, n *sql.KeyLookup, project *sql.Project, picks []int) *keyLookup {
	return &keyLookup{rt: rt, node: n, project: project, picks: picks, schema: rt.schemaFor(project)}
}

// columnPicks reports whether exprs are plain references to columns of
// in, and which: a Project evaluates such a reference by taking the
// column as it is, relabelled to its own schema's type, which is what
// the lookup does with its picks.
func columnPicks(exprs []sql.Expr, in []sql.Col) ([]int, bool) {
	picks := make([]int, len(exprs))
	for i, e := range exprs {
		ref, ok := e.(*sql.ColumnRef)
		if !ok || ref.Index < 0 || ref.Index >= len(in) {
			return nil, false
		}
		picks[i] = ref.Index
	}
	return picks, true
}

// Schema implements Operator.
func (k *keyLookup) Schema() *arrow.Schema { return k.schema }

// Close implements Operator.
func (k *keyLookup) Close() {
	k.out.release()
	if k.inner != nil {
		k.inner.Close()
	}
	k.done = true
}

// Next implements Operator.
func (k *keyLookup) Next(ctx context.Context) (arrow.Record, error) {
	if k.inner != nil {
		return k.inner.Next(ctx)
	}
	k.out.release()
	if k.done {
		return nil, io.EOF
	}
	k.done = true
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tx := k.rt.Tx
	if tx == nil {
		return nil, internalErr("key lookup on %s without a transaction", k.node.Scan.Table.Name)
	}
	ev := newEvaluator(ctx, k.rt)
	keys := make([]arrow.Array, len(k.node.Keys))
	defer func() {
		for _, a := range keys {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, e := range k.node.Keys {
		a, err := ev.evalArray(e, batch{n: 1})
		if err != nil {
			return nil, err
		}
		keys[i] = a
	}
	scan := k.node.Scan
	id, found, ok, err := tx.KeyRow(scan.Table.ID, k.node.KeyCols, keys, 0)
	if err != nil {
		return nil, err
	}
	if !ok {
		op, err := build(k.rt, &sql.Filter{Input: scan, Cond: k.node.Cond})
		if err != nil {
			return nil, err
		}
		if k.project != nil {
			op = newProject(k.rt, k.project, op)
		}
		k.inner = op
		return op.Next(ctx)
	}
	k.rt.indexSearch(scan.Table.ID, k.node.Constraint, SearchKey)
	if !found {
		return nil, io.EOF
	}
	k.id[0] = id
	cols, ids, err := tx.FetchColumns(ctx, scan.Table.ID, scan.Cols, k.id[:])
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	k.rt.indexRows(scan.Table.ID, k.node.Constraint, int64(len(ids)))
	if len(ids) == 0 {
		return nil, io.EOF
	}
	// The scan's output may end with the row ID, which FetchColumns
	// does not return.
	if len(k.node.Scan.Out) > len(cols) {
		rowID := int64Array(ids)
		defer rowID.Release()
		cols = append(cols, rowID)
	}
	if k.picks != nil {
		picked := make([]arrow.Array, len(k.picks))
		for i, c := range k.picks {
			picked[i] = cols[c]
		}
		cols = picked
	}
	out, err := conformColumns(k.rt.mem(), cols, int64(len(ids)), k.schema)
	if err != nil {
		return nil, err
	}
	return k.out.set(out), nil
}
