package storage

import (
	"errors"
	"fmt"
	"os"
	"sort"
)

// verifySegments opens every segment the manifests list and checks its
// Parquet footer against the manifest (Open): a truncated or garbage file,
// or one whose row count differs, stops Open with an error naming the file
// rather than answering queries with rows missing. A segment an object
// home has not cached is checked when it is fetched. Damage inside a data
// page is caught when the page is read (each carries a CRC-32), as an
// error naming the file.
func verifySegments(tables map[uint64]*tableState) error {
	ids := make([]uint64, 0, len(tables))
	for id := range tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		for _, seg := range tables[id].segments {
			if err := verifySegment(seg); err != nil {
				return fmt.Errorf("%w; refusing to start: restore the file, or remove it from %s to drop its rows",
					err, manifestName)
			}
		}
	}
	return nil
}

func verifySegment(seg *segment) error {
	if seg.remote != nil {
		if _, err := os.Stat(seg.path); errors.Is(err, os.ErrNotExist) {
			return nil // not cached: checked when it is fetched and opened
		}
	}
	sf, err := openSegment(seg)
	if err != nil {
		return err
	}
	defer sf.close()
	if n := sf.pf.NumRows(); n != seg.rows {
		return fmt.Errorf("corrupt segment %s: it holds %d rows, its manifest says %d", seg.path, n, seg.rows)
	}
	return nil
}

// deletedShare is the share of a segment's rows that, once deleted, makes
// compaction rewrite it.
const deletedShare = 4 // 1/4

// mostlyDeleted reports whether at least 1/deletedShare of seg's rows are
// in deleted. The count of deleted IDs in the segment's row ID range is a
// cheap upper bound; the exact count reads the segment's row IDs (cached).
func (db *DB) mostlyDeleted(seg *segment, deleted deletedRows) bool {
	if seg.rows == 0 || deleted.IsEmpty() {
		return false
	}
	inRange := deleted.Rank(uint64(seg.maxRow))
	if seg.minRow > 0 {
		inRange -= deleted.Rank(uint64(seg.minRow - 1))
	}
	if inRange*deletedShare < uint64(seg.rows) {
		return false
	}
	var r segReader
	defer r.close()
	p, err := db.positionsOf(&r, seg)
	if err != nil {
		return false
	}
	n := 0
	for _, id := range p.ids {
		if deleted.Contains(uint64(id)) {
			n++
		}
	}
	return int64(n)*deletedShare >= seg.rows
}

// manyDeleted reports whether a table state's deleted rows are a good
// share of what it stores: a compaction may then give disk space back.
func manyDeleted(ts *tableState) bool {
	stored := ts.tailRows
	for _, s := range ts.segments {
		stored += s.rows
	}
	return stored > 0 && int64(ts.deleted.GetCardinality())*deletedShare >= stored
}
