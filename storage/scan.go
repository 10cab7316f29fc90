package storage

import (
	"context"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// tailScanRows is how many rows of small in-memory batches a scan joins
// into one record.
const tailScanRows = 8192

// scanReader streams a table: segment row groups first, then the
// committed tail, then the transaction's own inserts. It implements
// array.RecordReader. Each record is valid until the next call to Next or
// Release; callers that keep one longer must Retain it.
type scanReader struct {
	refs      atomic.Int64
	ctx       context.Context
	schema    *arrow.Schema
	colIDs    []int
	types     []arrow.DataType
	withRowID bool

	segs    []*segment
	deleted []*roaring64.Bitmap // applies to segments and committed tail
	tail    []*tailBatch
	own     []*tailBatch
	ownDel  *roaring64.Bitmap

	segIdx  int
	cur     *segmentFile
	rg      int
	tailIdx int
	ownIdx  int

	rec      arrow.Record
	err      error
	finished bool
	unpin    func()
}

// scanSchema builds the output schema of a scan of def's columns at
// positions cols.
func scanSchema(def *TableDef, cols []int, withRowID bool) (*arrow.Schema, []int, []arrow.DataType) {
	fields := make([]arrow.Field, 0, len(cols)+1)
	ids := make([]int, len(cols))
	types := make([]arrow.DataType, len(cols))
	for i, p := range cols {
		c := def.Columns[p]
		ids[i] = c.ID
		types[i] = c.Type.Arrow()
		fields = append(fields, arrow.Field{Name: c.Name, Type: types[i], Nullable: true})
	}
	if withRowID {
		fields = append(fields, arrow.Field{Name: RowIDColumn, Type: arrow.PrimitiveTypes.Int64})
	}
	return arrow.NewSchema(fields, nil), ids, types
}

// Retain adds a reference.
func (r *scanReader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one closes the open segment and
// releases the snapshot.
func (r *scanReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.rec != nil {
			r.rec.Release()
			r.rec = nil
		}
		r.finish()
	}
}

// Schema is the scan's output schema.
func (r *scanReader) Schema() *arrow.Schema { return r.schema }

// Record is the current batch, valid until the next call to Next.
func (r *scanReader) Record() arrow.Record { return r.rec }

// Err is the error that ended the scan, if any.
func (r *scanReader) Err() error { return r.err }

// finish closes the open file and releases the snapshot.
func (r *scanReader) finish() {
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
	}
	r.finished = true
	if r.unpin != nil {
		r.unpin()
	}
}

// Next advances to the next non-empty batch; false at the end or on error.
func (r *scanReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.finished {
		return false
	}
	for {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			r.finish()
			return false
		}
		rec, err := r.step()
		if err != nil {
			r.err = err
			r.finish()
			return false
		}
		if rec != nil {
			r.rec = rec
			return true
		}
		if r.finished {
			return false
		}
	}
}

// step produces the next record, or nil when the current source yielded
// nothing (all rows deleted) or the scan ended (r.finished).
func (r *scanReader) step() (arrow.Record, error) {
	if r.cur != nil {
		if r.rg < r.cur.numRowGroups() {
			g := r.rg
			r.rg++
			return r.readGroup(g)
		}
		r.cur.close()
		r.cur = nil
		r.segIdx++
		return nil, nil
	}
	if r.segIdx < len(r.segs) {
		sf, err := openSegment(r.segs[r.segIdx])
		if err != nil {
			return nil, err
		}
		r.cur, r.rg = sf, 0
		return nil, nil
	}
	if r.tailIdx < len(r.tail) {
		return r.readTail(r.tail, &r.tailIdx, r.deleted)
	}
	if r.ownIdx < len(r.own) {
		return r.readTail(r.own, &r.ownIdx, []*roaring64.Bitmap{r.ownDel})
	}
	r.finish()
	return nil, nil
}

func (r *scanReader) readGroup(g int) (arrow.Record, error) {
	ids, err := r.cur.readRowIDs(g)
	if err != nil {
		return nil, err
	}
	defer ids.Release()
	runs, kept, _ := keptRuns(ids.Int64Values(), r.deleted...)
	if kept == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, 0, len(r.colIDs)+1)
	for i, id := range r.colIDs {
		a, err := r.cur.readColumn(g, id, r.types[i])
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		f, err := takeRuns(a, runs)
		a.Release()
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, f)
	}
	if r.withRowID {
		f, err := takeRuns(ids, runs)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, f)
	}
	rec := array.NewRecord(r.schema, cols, int64(kept))
	releaseAll(cols)
	return rec, nil
}

// readTail joins the next in-memory batches (up to tailScanRows rows, or
// one large batch) into a record.
func (r *scanReader) readTail(batches []*tailBatch, idx *int, deleted []*roaring64.Bitmap) (arrow.Record, error) {
	nout := len(r.colIDs)
	if r.withRowID {
		nout++
	}
	parts := make([][]arrow.Array, nout)
	defer func() {
		for _, p := range parts {
			releaseAll(p)
		}
	}()
	rows := 0
	for *idx < len(batches) && rows < tailScanRows {
		tb := batches[*idx]
		if rows > 0 && rows+tb.n > 2*tailScanRows {
			break
		}
		*idx++
		runs, kept, _ := keptRuns(tb.rowIDs.Int64Values(), deleted...)
		if kept == 0 {
			continue
		}
		for i, id := range r.colIDs {
			src := tb.column(id)
			var a arrow.Array
			if src == nil || !arrow.TypeEqual(src.DataType(), r.types[i]) {
				a = array.MakeArrayOfNull(memory.DefaultAllocator, r.types[i], kept)
			} else {
				var err error
				if a, err = takeRuns(src, runs); err != nil {
					return nil, err
				}
			}
			parts[i] = append(parts[i], a)
		}
		if r.withRowID {
			a, err := takeRuns(tb.rowIDs, runs)
			if err != nil {
				return nil, err
			}
			parts[nout-1] = append(parts[nout-1], a)
		}
		rows += kept
	}
	if rows == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, nout)
	for i := range cols {
		if len(parts[i]) == 0 {
			// A scan of no columns still counts rows.
			continue
		}
		c, err := concatArrays(parts[i])
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols[i] = c
	}
	rec := array.NewRecord(r.schema, cols, int64(rows))
	releaseAll(cols)
	return rec, nil
}
