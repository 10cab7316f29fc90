package storage

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
)

// tailScanRows is how many rows of small in-memory batches a scan joins
// into one record; a batch of tailJoinRows rows or tailMergeBytes bytes
// or more is handed out alone, without a copy.
const (
	tailScanRows = 8192
	tailJoinRows = 1024
)

// sliceRunRows is the average length of the runs of rows a deletion
// leaves in a row group above which a scan hands the runs out as separate
// zero-copy slices rather than copying them into one record.
const sliceRunRows = 256

// scanUnit is one piece of a scan: rows [lo, hi) of a segment row group
// (seg != nil) or of an in-memory batch, committed (own false) or the
// transaction's own.
type scanUnit struct {
	seg    *segment
	group  int
	batch  *tailBatch
	own    bool
	lo, hi int
}

func (u scanUnit) rows() int { return u.hi - u.lo }

// scanReader streams a table: segment row groups first, then the
// committed tail, then the transaction's own inserts (or the units of one
// partition). It implements array.RecordReader. Each record is valid
// until the next call to Next or Release; callers that keep one longer
// must Retain it. Records of segment row groups share the decoded column
// cache's arrays: they must not be modified.
type scanReader struct {
	refs      atomic.Int64
	db        *DB
	ctx       context.Context
	schema    *arrow.Schema
	colIDs    []int
	types     []arrow.DataType
	withRowID bool

	// Sources, turned into units on the first Next unless units were
	// given (partitions).
	segs    []*segment
	tail    []*tailBatch
	own     []*tailBatch
	deleted []*roaring64.Bitmap // applies to segments and committed tail
	ownDel  *roaring64.Bitmap

	units   []scanUnit
	planned bool
	next    int
	pending []arrow.Record
	files   segReader
	// uncached reads segment columns without keeping them in the
	// column cache (compaction's reads: columnUncached).
	uncached bool

	rec      arrow.Record
	err      error
	finished bool
	unpin    func()
}

// scanSchema builds the output schema of a scan of def's columns at
// positions cols.
func scanSchema(def *catalog.TableDef, cols []int, withRowID bool) (*arrow.Schema, []int, []arrow.DataType) {
	ids, types := scanColumns(def, cols)
	fields := make([]arrow.Field, 0, len(cols)+1)
	for i, p := range cols {
		fields = append(fields, arrow.Field{Name: def.Columns[p].Name, Type: types[i], Nullable: true})
	}
	if withRowID {
		fields = append(fields, arrow.Field{Name: catalog.RowIDColumn, Type: arrow.PrimitiveTypes.Int64})
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

// RecordBatch is the current batch, valid until the next call to Next.
func (r *scanReader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record is RecordBatch under the name arrow.RecordReader still requires.
func (r *scanReader) Record() arrow.Record { return r.rec }

// Err is the error that ended the scan, if any.
func (r *scanReader) Err() error { return r.err }

// finish closes the open file and releases the snapshot.
func (r *scanReader) finish() {
	r.files.close()
	for _, p := range r.pending {
		p.Release()
	}
	r.pending = nil
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

// plan lists the units of the scan's sources.
func (r *scanReader) plan() error {
	r.planned = true
	units, err := r.db.planUnits(r.segs, r.tail, r.own)
	r.units = units
	return err
}

// planUnits lists a unit per segment row group and per batch.
func (db *DB) planUnits(segs []*segment, tail, own []*tailBatch) ([]scanUnit, error) {
	var units []scanUnit
	for _, seg := range segs {
		groups, _, err := db.groupsOf(seg)
		if err != nil {
			return nil, err
		}
		for g, n := range groups {
			if n > 0 {
				units = append(units, scanUnit{seg: seg, group: g, hi: int(n)})
			}
		}
	}
	for _, b := range tail {
		units = append(units, scanUnit{batch: b, hi: b.n})
	}
	for _, b := range own {
		units = append(units, scanUnit{batch: b, own: true, hi: b.n})
	}
	return units, nil
}

// step produces the next record, or nil when the current unit yielded
// nothing (all rows deleted) or the scan ended (r.finished).
func (r *scanReader) step() (arrow.Record, error) {
	if len(r.pending) > 0 {
		rec := r.pending[0]
		r.pending = r.pending[1:]
		return rec, nil
	}
	if !r.planned {
		if err := r.plan(); err != nil {
			return nil, err
		}
	}
	if r.next >= len(r.units) {
		r.finish()
		return nil, nil
	}
	if u := r.units[r.next]; u.seg != nil {
		r.next++
		return r.readGroup(u)
	}
	return r.readTail()
}

// readGroup reads a segment unit through the column cache. Without
// deleted rows the cached arrays are handed out as they are (sliced when
// the unit is part of a row group).
func (r *scanReader) readGroup(u scanUnit) (arrow.Record, error) {
	ids, err := r.db.rowIDs(&r.files, u.seg, u.group)
	if err != nil {
		return nil, err
	}
	defer ids.Release()
	if ids.Len() < u.hi {
		return nil, errShortGroup(u.seg, u.group)
	}
	runs, kept, all := filterRuns(ids.Int64Values()[u.lo:u.hi], r.deleted...)
	if kept == 0 {
		return nil, nil
	}
	whole := u.lo == 0 && u.hi == ids.Len()
	cols := make([]arrow.Array, 0, len(r.colIDs)+1)
	defer func() { releaseAll(cols) }()
	for i, id := range r.colIDs {
		a, err := r.db.scanColumn(&r.files, u.seg, u.group, id, r.types[i], r.uncached)
		if err != nil {
			return nil, err
		}
		if a.Len() != ids.Len() {
			a.Release()
			return nil, errShortGroup(u.seg, u.group)
		}
		if !whole {
			s := array.NewSlice(a, int64(u.lo), int64(u.hi))
			a.Release()
			a = s
		}
		cols = append(cols, a)
	}
	if r.withRowID {
		ids.Retain()
		var a arrow.Array = ids
		if !whole {
			a = array.NewSlice(ids, int64(u.lo), int64(u.hi))
			ids.Release()
		}
		cols = append(cols, a)
	}
	if all {
		return array.NewRecord(r.schema, cols, int64(kept)), nil
	}
	if kept/len(runs) >= sliceRunRows {
		// Long runs: one zero-copy record per run.
		recs := make([]arrow.Record, 0, len(runs))
		for _, run := range runs {
			parts := make([]arrow.Array, len(cols))
			for i, c := range cols {
				parts[i] = array.NewSlice(c, int64(run.lo), int64(run.hi))
			}
			recs = append(recs, array.NewRecord(r.schema, parts, int64(run.hi-run.lo)))
			releaseAll(parts)
		}
		r.pending = append(r.pending, recs[1:]...)
		return recs[0], nil
	}
	out := make([]arrow.Array, 0, len(cols))
	for _, c := range cols {
		f, err := takeRuns(c, runs)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, f)
	}
	rec := array.NewRecord(r.schema, out, int64(kept))
	releaseAll(out)
	return rec, nil
}

// readTail joins the next in-memory units (up to tailScanRows rows, or
// one large unit) into a record.
func (r *scanReader) readTail() (arrow.Record, error) {
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
	own := r.units[r.next].own
	for first := true; r.next < len(r.units) && rows < tailScanRows; first = false {
		u := r.units[r.next]
		if u.seg != nil || u.own != own {
			break
		}
		if !first && (rows+u.rows() > 2*tailScanRows || bigUnit(u) || bigUnit(r.units[r.next-1])) {
			break
		}
		r.next++
		deleted := r.deleted
		if u.own {
			deleted = []*roaring64.Bitmap{r.ownDel}
		}
		tb := u.batch
		runs, kept, _ := filterRuns(tb.rowIDs.Int64Values()[u.lo:u.hi], deleted...)
		if kept == 0 {
			continue
		}
		for i := range runs {
			runs[i].lo += u.lo
			runs[i].hi += u.lo
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

// bigUnit reports whether an in-memory unit is large enough to be handed
// out as a record of its own, without copying it into a joined one.
func bigUnit(u scanUnit) bool {
	return u.rows() >= tailJoinRows || batchBytes(u.batch)/int64(max(u.batch.n, 1))*int64(u.rows()) >= tailMergeBytes
}

// filterRuns is keptRuns for scans: when the IDs ascend (as they do in
// nearly every row group and batch) it finds the deleted rows by walking
// the deleted sets over the IDs' range and binary searching, so a few
// deletions in a large group cost a few lookups, not one per row.
func filterRuns(ids []int64, deleted ...*roaring64.Bitmap) (runs []rowRun, kept int, all bool) {
	if len(ids) == 0 {
		return nil, 0, true
	}
	if !slices.ContainsFunc(deleted, func(d *roaring64.Bitmap) bool { return d != nil && !d.IsEmpty() }) {
		return []rowRun{{0, len(ids)}}, len(ids), true
	}
	lo, hi := ids[0], ids[0]
	sorted := true
	for i, id := range ids {
		lo = min(lo, id)
		hi = max(hi, id)
		if i > 0 && id <= ids[i-1] {
			sorted = false
		}
	}
	var sets []*roaring64.Bitmap
	for _, d := range deleted {
		if d != nil && !d.IsEmpty() && lo >= 0 && rangeHasAny(d, uint64(lo), uint64(hi)) {
			sets = append(sets, d)
		}
	}
	if len(sets) == 0 {
		return []rowRun{{0, len(ids)}}, len(ids), true
	}
	if !sorted || deletedInRange(sets, lo, hi) > len(ids)/4 {
		return keptRuns(ids, sets...)
	}
	var gone []int
	for _, d := range sets {
		it := d.Iterator()
		it.AdvanceIfNeeded(uint64(lo))
		for it.HasNext() {
			v := it.Next()
			if v > uint64(hi) {
				break
			}
			if i, ok := slices.BinarySearch(ids, int64(v)); ok {
				gone = append(gone, i)
			}
		}
	}
	if len(sets) > 1 {
		sort.Ints(gone)
		gone = slices.Compact(gone)
	}
	start := 0
	for _, g := range gone {
		if g > start {
			runs = append(runs, rowRun{start, g})
			kept += g - start
		}
		start = g + 1
	}
	if start < len(ids) {
		runs = append(runs, rowRun{start, len(ids)})
		kept += len(ids) - start
	}
	return runs, kept, kept == len(ids)
}

// deletedInRange counts the IDs in [lo, hi] of the deleted sets.
func deletedInRange(sets []*roaring64.Bitmap, lo, hi int64) int {
	n := 0
	for _, d := range sets {
		below := uint64(0)
		if lo > 0 {
			below = d.Rank(uint64(lo) - 1)
		}
		n += int(d.Rank(uint64(hi)) - below)
	}
	return n
}

func errShortGroup(seg *segment, g int) error {
	return fmt.Errorf("corrupt segment %s: row group %d is shorter than its row IDs", seg.path, g)
}
