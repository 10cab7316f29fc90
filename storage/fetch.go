package storage

import (
	"context"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
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
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	if err := checkPositions(def, columns); err != nil {
		return nil, err
	}
	schema, colIDs, types := scanSchema(def, columns, true)
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
	}
	hits := make([]hit, 0, len(rowIDs))
	for i, id := range rowIDs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if id < 0 {
			continue
		}
		if tt != nil && tt.ownIDs.Contains(uint64(id)) {
			if tt.ownDel.Contains(uint64(id)) {
				continue
			}
			for _, b := range tt.inserts {
				if off, ok := b.textUnit().pos.find(id); ok {
					hits = append(hits, hit{src{batch: b}, off, id})
					break
				}
			}
			continue
		}
		if ts == nil || ts.deleted.Contains(uint64(id)) || tt != nil && tt.deletes.Contains(uint64(id)) {
			continue
		}
		found := false
		for _, seg := range ts.segments {
			if id < seg.minRow || id > seg.maxRow {
				continue
			}
			pos, err := db.positionsOf(&files, seg)
			if err != nil {
				return nil, err
			}
			p, ok := pos.find(id)
			if !ok {
				continue
			}
			_, starts, err := db.groupsOf(seg)
			if err != nil {
				return nil, err
			}
			g, off := locate(starts, p)
			hits = append(hits, hit{src{seg: seg, group: g}, off, id})
			found = true
			break
		}
		if found {
			continue
		}
		for _, b := range ts.tail {
			if off, ok := b.textUnit().pos.find(id); ok {
				hits = append(hits, hit{src{batch: b}, off, id})
				break
			}
		}
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
		for i, id := range colIDs {
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
	parts := make([][]arrow.Array, len(colIDs))
	defer func() {
		for _, p := range parts {
			releaseAll(p)
		}
	}()
	for i := 0; i < len(hits); {
		j := i + 1
		for j < len(hits) && hits[j].src == hits[i].src && hits[j].off == hits[j-1].off+1 {
			j++
		}
		cols, err := arrays(hits[i].src)
		if err != nil {
			return nil, err
		}
		lo, hi := int64(hits[i].off), int64(hits[j-1].off+1)
		for c, a := range cols {
			parts[c] = append(parts[c], array.NewSlice(a, lo, hi))
		}
		i = j
	}
	out := make([]arrow.Array, 0, len(colIDs)+1)
	defer func() { releaseAll(out) }()
	for c := range colIDs {
		if len(parts[c]) == 0 {
			out = append(out, array.MakeArrayOfNull(memory.DefaultAllocator, types[c], 0))
			continue
		}
		a, err := array.Concatenate(parts[c], memory.DefaultAllocator)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	rb := array.NewInt64Builder(memory.DefaultAllocator)
	defer rb.Release()
	rb.Reserve(len(hits))
	for _, h := range hits {
		rb.UnsafeAppend(h.id)
	}
	out = append(out, rb.NewArray())
	return array.NewRecord(schema, out, int64(len(hits))), nil
}
