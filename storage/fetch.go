package storage

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/storage/rowcopy"
)

// FetchRows returns the rows with the given IDs that tx sees, in the
// order given (an ID given twice gives the row twice): columns at
// positions columns of catalog.TableDef.Columns, then "__rowid", so that a caller
// can tell which IDs were found — rows that do not exist, were deleted or
// are not visible to tx are left out. Segment rows are read through the
// column cache (a row group is decoded once, then shared), so fetching
// the top k of a text or vector search costs about k lookups. The
// caller releases the record.
func (tx *Tx) FetchRows(ctx context.Context, tableID uint64, columns []int, rowIDs []int64) (arrow.Record, error) {
	cols, ids, err := tx.FetchColumns(ctx, tableID, columns, rowIDs)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	def, _, _, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	schema, _, _ := scanSchema(def, columns, true)
	rowIDCol := int64Array(ids)
	defer rowIDCol.Release()
	return array.NewRecord(schema, append(cols, rowIDCol), int64(len(ids))), nil
}

// FetchColumns is FetchRows without the record around the columns: the
// columns (one array each, which the caller releases) and the IDs of the
// rows found, in the order given. A point lookup uses it, as it wants
// neither the record's schema nor the row ID column.
func (tx *Tx) FetchColumns(ctx context.Context, tableID uint64, columns []int, rowIDs []int64) ([]arrow.Array, []int64, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPositions(def, columns); err != nil {
		return nil, nil, err
	}
	colIDs, types := scanColumns(def, columns)
	db := tx.db
	var files segReader
	defer files.close()

	// Where each row is: an array source per column and a position.
	type src struct {
		seg   *segment
		group int
		batch *tailBatch
	}
	type hit struct {
		src src
		off int
		id  int64
		pos int64 // position in the segment
	}
	hits := make([]hit, 0, len(rowIDs))
	// inSegments adds the hit of row id when one of segs holds it.
	inSegments := func(segs []*segment, id int64) (bool, error) {
		for _, seg := range segs {
			if id < seg.minRow || id > seg.maxRow {
				continue
			}
			pos, err := db.positionsOf(&files, seg)
			if err != nil {
				return false, err
			}
			p, ok := pos.find(id)
			if !ok {
				continue
			}
			_, starts, err := db.groupsOf(seg)
			if err != nil {
				return false, err
			}
			g, off := locate(starts, p)
			hits = append(hits, hit{src{seg: seg, group: g}, off, id, int64(p)})
			return true, nil
		}
		return false, nil
	}
	for i, id := range rowIDs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if id < 0 {
			continue
		}
		if tt != nil && tt.ownIDs.Contains(uint64(id)) {
			if tt.ownDel.Contains(uint64(id)) {
				continue
			}
			if tt.spilledIDs.Contains(uint64(id)) {
				if _, err := inSegments(tt.spilled, id); err != nil {
					return nil, nil, err
				}
				continue
			}
			for _, b := range tt.inserts {
				if off, ok := b.textUnit().pos.find(id); ok {
					hits = append(hits, hit{src{batch: b}, off, id, 0})
					break
				}
			}
			continue
		}
		if ts == nil || ts.deleted.Contains(uint64(id)) || tt != nil && tt.deletes.Contains(uint64(id)) {
			continue
		}
		found, err := inSegments(ts.segments, id)
		if err != nil {
			return nil, nil, err
		}
		if found {
			continue
		}
		for _, b := range ts.tail {
			if off, ok := b.textUnit().pos.find(id); ok {
				hits = append(hits, hit{src{batch: b}, off, id, 0})
				break
			}
		}
	}

	// A vector column of a segment few rows are fetched from is read from
	// its raw vectors, when it has them (vecraw.go), rather than decoded
	// (and cached) whole.
	perSeg := map[*segment]int{}
	for _, h := range hits {
		if h.src.seg != nil {
			perSeg[h.src.seg]++
		}
	}
	raws := map[*segment][]*rawReader{}
	defer func() {
		for _, rds := range raws {
			for _, rd := range rds {
				if rd != nil {
					rd.close()
				}
			}
		}
	}()
	rawReaders := func(seg *segment) ([]*rawReader, error) {
		if rds, ok := raws[seg]; ok || int64(perSeg[seg])*rawFetchShare > seg.rows {
			return rds, nil
		}
		rds := make([]*rawReader, len(colIDs))
		raws[seg] = rds
		for i, id := range colIDs {
			if raw := segRawVectors(seg, id); raw != nil {
				rd, err := raw.open(false)
				if errors.Is(err, os.ErrNotExist) {
					continue // removed since (see segRawVectors): decoded instead
				}
				if err != nil {
					return nil, err
				}
				rds[i] = rd
			}
		}
		return rds, nil
	}

	// Gather: consecutive rows of one source become one slice.
	cache := map[src][]arrow.Array{}
	defer func() {
		for _, cols := range cache {
			releaseAll(cols)
		}
	}()
	arrays := func(s src) ([]arrow.Array, error) {
		if cols, ok := cache[s]; ok {
			return cols, nil
		}
		cols := make([]arrow.Array, len(colIDs))
		var rds []*rawReader
		if s.seg != nil {
			var err error
			if rds, err = rawReaders(s.seg); err != nil {
				return nil, err
			}
		}
		for i, id := range colIDs {
			if rds != nil && rds[i] != nil {
				continue // read row by row below
			}
			if s.seg != nil {
				a, err := db.column(&files, s.seg, s.group, id, types[i])
				if err != nil {
					releaseAll(cols)
					return nil, err
				}
				cols[i] = a
				continue
			}
			a := s.batch.column(id)
			if a == nil || !arrow.TypeEqual(a.DataType(), types[i]) {
				a = nullColumn(types[i], s.batch.n)
			} else {
				a.Retain()
			}
			cols[i] = a
		}
		cache[s] = cols
		return cols, nil
	}
	// Columns that several runs make are gathered row by row into one
	// array (rowcopy), which costs a copy of each value; a slice per run,
	// concatenated, cost far more for rows scattered over many row groups
	// (a key index's lookup of a session's events). Not the columns read
	// from raw vectors (below).
	runs := 0
	for i := 0; i < len(hits); runs++ {
		j := i + 1
		for j < len(hits) && hits[j].src == hits[i].src && hits[j].off == hits[j-1].off+1 {
			j++
		}
		if _, err := arrays(hits[i].src); err != nil {
			return nil, nil, err
		}
		i = j
	}
	gathered := make([]bool, len(colIDs))
	for c := range gathered {
		gathered[c] = runs > 1
		for _, cols := range cache {
			gathered[c] = gathered[c] && cols[c] != nil
		}
	}
	parts := make([][]arrow.Array, len(colIDs))
	// gather[c] collects the rows of column c that consecutive runs read
	// from raw vector files, into one array instead of one per run (a
	// vector search's hits are mostly runs of one row); it becomes a part
	// when a run from elsewhere comes, or at the end.
	gather := make([]*array.ListBuilder, len(colIDs))
	defer func() {
		for _, p := range parts {
			releaseAll(p)
		}
		for _, b := range gather {
			if b != nil {
				b.Release()
			}
		}
	}()
	endGather := func(c int) {
		if b := gather[c]; b != nil {
			parts[c] = append(parts[c], b.NewArray())
			b.Release()
			gather[c] = nil
		}
	}
	for i := 0; i < len(hits); {
		j := i + 1
		for j < len(hits) && hits[j].src == hits[i].src && hits[j].off == hits[j-1].off+1 {
			j++
		}
		cols, err := arrays(hits[i].src)
		if err != nil {
			return nil, nil, err
		}
		lo, hi := int64(hits[i].off), int64(hits[j-1].off+1)
		for c, a := range cols {
			if gathered[c] {
				continue
			}
			if a == nil {
				rd := raws[hits[i].src.seg][c]
				if gather[c] == nil {
					lb, ok := array.NewBuilder(memory.DefaultAllocator, types[c]).(*array.ListBuilder)
					if !ok {
						return nil, nil, fmt.Errorf("raw vectors read as %s", types[c])
					}
					lb.Reserve(len(hits) - i)
					lb.ValueBuilder().Reserve((len(hits) - i) * rd.raw.dim)
					gather[c] = lb
				}
				if err := rd.appendRows(gather[c], int(hits[i].pos), j-i); err != nil {
					return nil, nil, err
				}
				continue
			}
			endGather(c)
			parts[c] = append(parts[c], array.NewSlice(a, lo, hi))
		}
		i = j
	}
	for c := range gather {
		endGather(c)
	}
	out := make([]arrow.Array, 0, len(colIDs)+1)
	defer func() { releaseAll(out) }()
	for c := range colIDs {
		if gathered[c] {
			a, err := gatherHits(c, types[c], len(hits), func(k int) (src, int) { return hits[k].src, hits[k].off }, cache)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, a)
			continue
		}
		switch len(parts[c]) {
		case 0:
			out = append(out, array.MakeArrayOfNull(memory.DefaultAllocator, types[c], 0))
		case 1:
			// One run of consecutive rows (a point lookup, say): its slice
			// is the column, no copy.
			out = append(out, parts[c][0])
			parts[c] = nil
		default:
			a, err := array.Concatenate(parts[c], memory.DefaultAllocator)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, a)
		}
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	cols := out
	out = nil // the caller's now
	return cols, ids, nil
}

// gatherHits copies column c (of type dt) of n rows into one array: row
// k is row off of source s where at(k) = s, off, and cols holds each
// source's columns.
func gatherHits[S comparable](c int, dt arrow.DataType, n int, at func(k int) (S, int), cols map[S][]arrow.Array) (arrow.Array, error) {
	index := map[S]int32{}
	var srcs []arrow.Array
	refs := make([]rowcopy.Ref, n)
	for k := range refs {
		s, off := at(k)
		i, ok := index[s]
		if !ok {
			i = int32(len(srcs))
			index[s] = i
			srcs = append(srcs, cols[s][c])
		}
		refs[k] = rowcopy.Ref{Src: i, Row: int32(off)}
	}
	return rowcopy.Gather(memory.DefaultAllocator, dt, srcs, refs)
}

// scanColumns are the column IDs and Arrow types of def's columns at
// positions cols.
func scanColumns(def *catalog.TableDef, cols []int) ([]int, []arrow.DataType) {
	ids := make([]int, len(cols))
	types := make([]arrow.DataType, len(cols))
	for i, p := range cols {
		c := def.Columns[p]
		ids[i] = c.ID
		types[i] = c.Type.Arrow()
	}
	return ids, types
}

// int64Array wraps vals, without copying, as an Arrow array with no nulls.
func int64Array(vals []int64) arrow.Array {
	data := array.NewData(arrow.PrimitiveTypes.Int64, len(vals),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, 0, 0)
	defer data.Release()
	return array.NewInt64Data(data)
}
