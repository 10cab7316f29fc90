package exec

// The rows an index search found (a trigram or key index's candidates),
// read from the table for the recheck of the whole condition.

import (
	"context"
	"io"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// candidateFetchRows is how many candidate rows one batch fetches.
const candidateFetchRows = 4096

// candidateFetchMax is how many candidates are fetched by row ID at most:
// with more, gathering them one by one costs more than scanning the
// table's columns (from the column cache) and keeping the candidates.
const candidateFetchMax = 16384

// candidateRows returns the rows of scan (its columns, schema) with the
// IDs ids that index found, in that order: fetched by ID when they are few, else kept from
// a scan of the table's columns by row ID, which costs less than
// gathering that many rows one by one.
func candidateRows(rt *Runtime, scan *sql.Scan, index string, schema *arrow.Schema, ids []int64) Operator {
	if len(ids) <= candidateFetchMax {
		return &fetchByID{rt: rt, scan: scan, index: index, schema: schema, ids: ids}
	}
	withID := *scan
	if !withID.WithRowID {
		withID.WithRowID = true
		withID.Out = append(slices.Clip(withID.Out), sql.Col{Name: catalog.RowIDColumn, T: types.Int8T, Hidden: true})
	}
	set := roaring64.New()
	for _, id := range ids {
		set.Add(uint64(id))
	}
	return &keepRows{rt: rt, input: newScan(rt, &withID), schema: schema, keep: set, dropRowID: !scan.WithRowID}
}

// fetchByID returns the rows of a scan with the given IDs, in that order,
// candidateFetchRows at a time. A batch is valid until the next call.
type fetchByID struct {
	rt     *Runtime
	scan   *sql.Scan
	index  string // the index that found the rows (its counters)
	schema *arrow.Schema
	ids    []int64
	out    arrow.Record
}

// Schema implements Operator.
func (f *fetchByID) Schema() *arrow.Schema { return f.schema }

// Close implements Operator.
func (f *fetchByID) Close() { f.release() }

func (f *fetchByID) release() {
	if f.out != nil {
		f.out.Release()
		f.out = nil
	}
}

// Next implements Operator.
func (f *fetchByID) Next(ctx context.Context) (arrow.Record, error) {
	f.release()
	for len(f.ids) > 0 {
		n := min(len(f.ids), candidateFetchRows)
		rec, err := f.rt.Tx.FetchRows(ctx, f.scan.Table.ID, f.scan.Cols, f.ids[:n])
		if err != nil {
			return nil, err
		}
		f.ids = f.ids[n:]
		f.rt.indexRows(f.scan.Table.ID, f.index, rec.NumRows())
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		cols := rec.Columns()
		if !f.scan.WithRowID {
			cols = cols[:len(cols)-1]
		}
		f.out = array.NewRecord(f.schema, cols, rec.NumRows())
		rec.Release()
		return f.out, nil
	}
	return nil, io.EOF
}

// keepRows passes on the rows of its input (a scan with row IDs, the
// last column) whose row ID keep holds, without the row ID column when
// dropRowID. A batch is valid until the next call.
type keepRows struct {
	rt        *Runtime
	input     Operator
	schema    *arrow.Schema
	keep      *roaring64.Bitmap
	dropRowID bool
	out       arrow.Record
	sel       []int // the batch's kept rows, reused
}

// keptRows appends to sel the positions of ids that keep holds. A scan's
// row IDs mostly ascend within a batch: then keep is walked beside them
// with one iterator (a comparison a row) instead of a lookup of each (a
// quarter of a trigram-indexed ILIKE's time over a common word).
func keptRows(keep *roaring64.Bitmap, ids []int64, sel []int) []int {
	if !slices.IsSorted(ids) || len(ids) == 0 || ids[0] < 0 {
		for i, id := range ids {
			if keep.Contains(uint64(id)) {
				sel = append(sel, i)
			}
		}
		return sel
	}
	it := keep.Iterator()
	it.AdvanceIfNeeded(uint64(ids[0]))
	for i, id := range ids {
		if !it.HasNext() {
			break
		}
		next := it.PeekNext()
		if next < uint64(id) {
			it.AdvanceIfNeeded(uint64(id))
			if !it.HasNext() {
				break
			}
			next = it.PeekNext()
		}
		if next == uint64(id) {
			sel = append(sel, i)
			it.Next()
		}
	}
	return sel
}

// Schema implements Operator.
func (k *keepRows) Schema() *arrow.Schema { return k.schema }

// Close implements Operator.
func (k *keepRows) Close() {
	k.release()
	k.input.Close()
}

func (k *keepRows) release() {
	if k.out != nil {
		k.out.Release()
		k.out = nil
	}
}

// Next implements Operator.
func (k *keepRows) Next(ctx context.Context) (arrow.Record, error) {
	k.release()
	for {
		rec, err := k.input.Next(ctx)
		if err != nil {
			return nil, err
		}
		ids := rec.Column(int(rec.NumCols()) - 1).(*array.Int64).Int64Values()
		k.sel = keptRows(k.keep, ids, k.sel[:0])
		if len(k.sel) == 0 {
			continue
		}
		kept, err := rowcopy.TakeRecord(k.rt.mem(), rec, k.sel)
		if err != nil {
			return nil, err
		}
		cols := kept.Columns()
		if k.dropRowID {
			cols = cols[:len(cols)-1]
		}
		k.out = array.NewRecord(k.schema, cols, kept.NumRows())
		kept.Release()
		return k.out, nil
	}
}
