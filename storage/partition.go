package storage

import (
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// minPartitionRows is the fewest rows ScanPartitions gives a partition
// (fewer partitions are returned for a small table).
const minPartitionRows = 4096

// tableView returns what transaction tx sees of table tableID: its
// definition, the committed state (nil when the table has none or tx
// truncated it) and tx's own changes (nil when none). It mirrors Scan.
func (tx *Tx) tableView(tableID uint64) (*catalog.TableDef, *tableState, *txTable, error) {
	if err := tx.check(); err != nil {
		return nil, nil, nil, err
	}
	def := tx.cat.Tables[tableID]
	if def == nil {
		return nil, nil, nil, undefinedTableID(tableID)
	}
	tt := tx.tables[tableID]
	ts := tx.snap.tables[tableID]
	if tt != nil && tt.truncated {
		ts = nil
	}
	return def, ts, tt, nil
}

// errAlteredMeanwhile is the error of a statement planned against columns
// of def that an ALTER TABLE committed since has changed: PostgreSQL's
// locks would have made the statement wait for the ALTER and plan again;
// here it fails with 40001, which clients retry, and plans afresh then.
func errAlteredMeanwhile(def *catalog.TableDef) error {
	return pgerr.New(pgerrcode.SerializationFailure, "could not serialize access due to concurrent update").
		WithDetail("Relation %q was altered by a concurrent transaction after the statement was planned.", def.Name).
		WithHint("Retry the statement.")
}

// checkPositions checks column positions of def.
func checkPositions(def *catalog.TableDef, columns []int) error {
	for _, p := range columns {
		if p < 0 || p >= len(def.Columns) {
			return errAlteredMeanwhile(def)
		}
	}
	return nil
}

// ScanPartitions is Scan split for parallel execution: up to n readers
// (at least one) that together return exactly the rows Scan would, each
// about the same number of rows (segment row groups and in-memory batches
// are cut where needed; a small table gets fewer readers). Each reader
// is used by one goroutine; different readers may run concurrently. Each
// holds the snapshot's files until it is released or reaches its end.
func (tx *Tx) ScanPartitions(ctx context.Context, tableID uint64, columns []int, withRowID bool, n int) ([]array.RecordReader, error) {
	def, ts, tt, err := tx.tableView(tableID)
	if err != nil {
		return nil, err
	}
	if err := checkPositions(def, columns); err != nil {
		return nil, err
	}
	var segs []*segment
	var tail, own []*tailBatch
	var deleted []*roaring64.Bitmap
	if ts != nil {
		segs, tail = ts.segments, ts.tail
		deleted = append(deleted, ts.deleted.layers()...)
		if tt != nil && !tt.deletes.IsEmpty() {
			deleted = append(deleted, tt.deletes.Clone())
		}
	}
	var ownDel *roaring64.Bitmap
	if tt != nil {
		own = slices.Clone(tt.inserts)
		ownDel = tt.ownDel.Clone()
		if len(tt.spilled) > 0 {
			// Spilled rows are read as segments, ownDel a deleted set
			// for them too (as in Scan).
			segs = append(slices.Clip(segs), tt.spilled...)
			deleted = append(deleted, ownDel)
		}
	}
	units, err := tx.db.planUnits(segs, tail, own)
	if err != nil {
		return nil, err
	}
	parts := splitUnits(units, n)
	out := make([]array.RecordReader, len(parts))
	for i, p := range parts {
		r := tx.db.newScan(ctx, tx.snap, nil, def, columns, withRowID, deleted, nil, ownDel)
		r.units, r.planned = p, true
		out[i] = r
	}
	return out, nil
}

// splitUnits cuts units into at most n runs of about equal row counts.
func splitUnits(units []scanUnit, n int) [][]scanUnit {
	total := 0
	for _, u := range units {
		total += u.rows()
	}
	n = max(min(n, total/minPartitionRows), 1)
	if n == 1 {
		return [][]scanUnit{units}
	}
	parts := make([][]scanUnit, 0, n)
	var cur []scanUnit
	have := 0
	for i := 0; i < len(units); {
		u := units[i]
		// Rows partition k (0-based) ends at: total*(k+1)/n.
		end := total * (len(parts) + 1) / n
		room := end - have
		if len(parts) == n-1 {
			room = u.rows()
		}
		if u.rows() <= room {
			cur = append(cur, u)
			have += u.rows()
			i++
			if have == end && len(parts) < n-1 {
				parts = append(parts, cur)
				cur = nil
			}
			continue
		}
		head := u
		head.hi = u.lo + room
		if room > 0 {
			cur = append(cur, head)
			have += room
		}
		parts = append(parts, cur)
		cur = nil
		units[i].lo = head.hi
	}
	if len(cur) > 0 || len(parts) == 0 {
		parts = append(parts, cur)
	}
	return parts
}
