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
	rt     *Runtime
	node   *sql.KeyLookup
	schema *arrow.Schema
	inner  Operator // the fallback scan, when the index could not answer
	out    outSlot
	done   bool
	id     [1]int64 // the row ID looked up, as FetchColumns takes it
}

func newKeyLookup(rt *Runtime, n *sql.KeyLookup) *keyLookup {
	return &keyLookup{rt: rt, node: n, schema: rt.schemaFor(n)}
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
		k.inner = op
		return op.Next(ctx)
	}
	k.rt.indexSearch(scan.Table.ID, SearchKey)
	if !found {
		return nil, io.EOF
	}
	k.id[0] = id
	cols, ids, err := tx.FetchColumns(ctx, scan.Table.ID, scan.Cols, k.id[:])
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	k.rt.indexRows(scan.Table.ID, int64(len(ids)))
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
	out, err := conformColumns(k.rt.mem(), cols, int64(len(ids)), k.schema)
	if err != nil {
		return nil, err
	}
	return k.out.set(out), nil
}
