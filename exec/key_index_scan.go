package exec

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// keyIndexFetchMax is how many rows a key index lookup fetches by ID at
// most, for a table of rows rows: with more, a scan that filters the
// table's columns (a nanosecond or few a row, from the column cache)
// costs less than fetching them one by one (~150 ns a row), so past a
// 128th of the table it scans; at least 1,024, at most candidateFetchMax.
func keyIndexFetchMax(rows int64) int {
	return int(min(max(rows/128, 1024), candidateFetchMax))
}

// keyIndexMaxProbes is how many value combinations a key index scan looks
// up at most (a IN (...) AND b IN (...) multiplies); with more it scans.
const keyIndexMaxProbes = 4096

// keyIndexScan runs sql.KeyIndexScan: it evaluates the key values, has the
// key index find the rows holding them, and rechecks the whole WHERE
// clause on those (candidateRows). Where the values cannot be looked up
// (too many combinations, a multidimensional array) or find more rows
// than are worth fetching by ID (keyIndexFetchMax) it runs Filter(Scan).
type keyIndexScan struct {
	rt     *Runtime
	node   *sql.KeyIndexScan
	schema *arrow.Schema
	inner  Operator // the recheck over the candidates, or Filter(Scan)
	done   bool     // no row can match
}

func newKeyIndexScan(rt *Runtime, n *sql.KeyIndexScan) *keyIndexScan {
	return &keyIndexScan{rt: rt, node: n, schema: schemaOf(n.Columns())}
}

// Schema implements Operator.
func (k *keyIndexScan) Schema() *arrow.Schema { return k.schema }

// Close implements Operator.
func (k *keyIndexScan) Close() {
	if k.inner != nil {
		k.inner.Close()
	}
}

// Next implements Operator.
func (k *keyIndexScan) Next(ctx context.Context) (arrow.Record, error) {
	if k.done {
		return nil, io.EOF
	}
	if k.inner == nil {
		if err := k.start(ctx); err != nil || k.done {
			return nil, eofOr(err)
		}
	}
	return k.inner.Next(ctx)
}

// start looks the values up and sets up inner.
func (k *keyIndexScan) start(ctx context.Context) error {
	n := k.node
	filter := &sql.Filter{Input: n.Scan, Cond: n.Cond}
	if len(n.Keys) == 0 {
		return k.startRange(ctx, filter)
	}
	keys, ok, err := k.probes(ctx)
	defer releaseAll(keys)
	if err != nil {
		return err
	}
	if !ok {
		return k.scan(filter)
	}
	if keys[0].Len() == 0 {
		k.done = true // a NULL or an empty list: no row can match
		return nil
	}
	start := time.Now()
	var ids []int64
	if n.Index.Unique {
		if ids, ok, err = k.uniqueRows(keys[0]); err != nil {
			return err
		}
		if !ok {
			return k.scan(filter)
		}
	} else if ids, ok, err = k.rt.Tx.KeySearch(ctx, n.Scan.Table.ID, n.Index, keys, keyIndexFetchMax(k.rt.Tx.RowCount(n.Scan.Table.ID))); err != nil {
		return err
	} else if !ok {
		return k.scan(filter)
	}
	k.rt.indexSearch(n.Scan.Table.ID, n.Index.Name, SearchBtree)
	k.rt.searched(SearchBtree, start, int64(len(ids)))
	k.inner = newFilter(k.rt, filter, candidateRows(k.rt, n.Scan, n.Index.Name, k.schema, ids))
	return nil
}

// scan sets inner to filter (Filter(Scan)), when the index cannot answer.
func (k *keyIndexScan) scan(filter *sql.Filter) error {
	op, err := Build(k.rt, filter)
	if err != nil {
		return err
	}
	k.inner = op
	return nil
}

// uniqueRows returns the IDs of the rows holding the values of a
// one-column unique rule (Index.Unique), one probe of its hash index
// each, ascending and each once; ok is false when the index cannot answer
// for the transaction's snapshot (storage.Tx.KeyRow).
func (k *keyIndexScan) uniqueRows(values arrow.Array) (ids []int64, ok bool, err error) {
	cols, keys := k.node.Index.Columns, []arrow.Array{values}
	for i := 0; i < values.Len(); i++ {
		id, found, ok, err := k.rt.Tx.KeyRow(k.node.Scan.Table.ID, cols, keys, i)
		if err != nil || !ok {
			return nil, false, err
		}
		if found {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), true, nil
}

// startRange looks up the range of the index's first key between the
// node's bounds and sets up inner; a NULL bound: no row.
func (k *keyIndexScan) startRange(ctx context.Context, filter *sql.Filter) error {
	n := k.node
	ev := newEvaluator(ctx, k.rt)
	var bounds [2]arrow.Array
	defer func() { releaseAll(bounds[:]) }()
	for i, e := range []sql.Expr{n.Lower, n.Upper} {
		if e == nil {
			continue
		}
		a, err := ev.evalArray(e, batch{n: 1})
		if err != nil {
			return err
		}
		bounds[i] = a
		if a.IsNull(0) {
			k.done = true
			return nil
		}
	}
	start := time.Now()
	limit := keyIndexFetchMax(k.rt.Tx.RowCount(n.Scan.Table.ID))
	ids, ok, err := k.rt.Tx.KeyRange(ctx, n.Scan.Table.ID, n.Index, bounds[0], bounds[1], n.LowerIncl, n.UpperIncl, limit)
	if err != nil {
		return err
	}
	if !ok {
		return k.scan(filter)
	}
	k.rt.indexSearch(n.Scan.Table.ID, n.Index.Name, SearchBtree)
	k.rt.searched(SearchBtree, start, int64(len(ids)))
	k.inner = newFilter(k.rt, filter, candidateRows(k.rt, n.Scan, n.Index.Name, k.schema, ids))
	return nil
}

// probes evaluates the key values and returns, per leading index column,
// an array of the values to look up: row r of every array is one
// combination. ok is false when they cannot be looked up (then the table
// is scanned).
func (k *keyIndexScan) probes(ctx context.Context) (keys []arrow.Array, ok bool, err error) {
	ev := newEvaluator(ctx, k.rt)
	mem := k.rt.mem()
	// The values of each column, as one array each.
	values := make([]arrow.Array, len(k.node.Keys))
	defer releaseAll(values)
	total := 1
	for c, exprs := range k.node.Keys {
		var parts []arrow.Array
		for _, e := range exprs {
			a, err := ev.evalArray(e, batch{n: 1})
			if err != nil {
				releaseAll(parts)
				return nil, false, err
			}
			if !k.node.Lists[c] {
				parts = append(parts, a)
				continue
			}
			list, isList := a.(*array.List)
			if !isList {
				a.Release()
				releaseAll(parts)
				return nil, false, nil
			}
			if !list.IsNull(0) {
				start, end := list.ValueOffsets(0)
				elems := list.ListValues()
				if _, nested := elems.(*array.List); nested {
					a.Release()
					releaseAll(parts)
					return nil, false, nil
				}
				parts = append(parts, array.NewSlice(elems, start, end))
			}
			a.Release()
		}
		v, ok := concatOrNil(mem, parts)
		releaseAll(parts)
		if !ok {
			return nil, false, nil
		}
		if v != nil && v.NullN() > 0 && !k.node.Nulls[c] {
			// A NULL equals nothing: only IS NULL looks NULLs up.
			nonNull := make([]int, 0, v.Len())
			for i := 0; i < v.Len(); i++ {
				if !v.IsNull(i) {
					nonNull = append(nonNull, i)
				}
			}
			taken, err := rowcopy.Take(mem, v, nonNull)
			v.Release()
			if err != nil {
				return nil, false, err
			}
			if v = taken; v.Len() == 0 {
				v.Release()
				v = nil
			}
		}
		values[c] = v
		if v == nil {
			// No value for this column: nothing matches.
			return []arrow.Array{array.MakeArrayOfNull(mem, arrow.Null, 0)}, true, nil
		}
		total *= v.Len()
		if total > keyIndexMaxProbes {
			return nil, false, nil
		}
	}
	if len(values) == 1 {
		values[0].Retain()
		return []arrow.Array{values[0]}, true, nil
	}
	// Every combination: column c's value repeats for each combination of
	// the columns after it.
	keys = make([]arrow.Array, len(values))
	repeat := total
	for c, v := range values {
		repeat /= v.Len()
		var parts []arrow.Array
		for r := 0; r < total; r++ {
			i := int64(r / repeat % v.Len())
			parts = append(parts, array.NewSlice(v, i, i+1))
		}
		key, ok := concatOrNil(mem, parts)
		releaseAll(parts)
		if !ok {
			releaseAll(keys)
			return nil, false, nil
		}
		keys[c] = key
	}
	return keys, true, nil
}

// concatOrNil concatenates parts (nil for none); ok is false when they
// are not of one type (an IN list whose items the binder left of
// different types).
func concatOrNil(mem memory.Allocator, parts []arrow.Array) (arrow.Array, bool) {
	switch len(parts) {
	case 0:
		return nil, true
	case 1:
		parts[0].Retain()
		return parts[0], true
	}
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, false
	}
	return out, true
}
