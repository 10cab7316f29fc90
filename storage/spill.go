package storage

import (
	"path/filepath"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// A transaction that inserts more than Options.SpillBytes into a table
// writes those rows to segment files of its own as it goes (it "spills"),
// instead of holding them in memory until COMMIT and then copying them into
// one WAL record: a COPY of ten million rows needs memory for one chunk of
// rows, not for all of them, and its data is written once.
//
// A spilled segment is fsynced and listed by no manifest. The commit's WAL
// record names it (walTableOp.segments), and committing appends it to the
// table's segments; the rows of it the transaction deleted again become
// deleted rows. Manifests list it only once that record is durable
// (flushTable), and recovery adds it back from the record when the
// manifest does not. A transaction that rolls back, or a savepoint rolled
// back past a spill, leaves files that nothing lists: they are removed
// when the transaction ends, and at recovery like any other unlisted file.

// DefaultSpillBytes is the Options.SpillBytes default.
const DefaultSpillBytes = 64 << 20

// maybeSpill spills tt's in-memory inserts when they passed SpillBytes.
func (tx *Tx) maybeSpill(def *catalog.TableDef, tt *txTable) error {
	if tt.memBytes < tx.db.opts.SpillBytes {
		return nil
	}
	return tx.spill(def, tt)
}

// spill writes tt's in-memory inserts to a new segment file.
func (tx *Tx) spill(def *catalog.TableDef, tt *txTable) error {
	if len(tt.inserts) == 0 {
		return nil
	}
	rt := tx.db.rt(def.ID, def.Schema)
	if err := mkdirAllDurable(rt.dir); err != nil {
		return spillError(rt.dir, err)
	}
	path := rt.newSegmentPath()
	specs := segmentSpecs(def)
	sw, err := newSegmentWriter(path, specs)
	if err != nil {
		return spillError(path, err)
	}
	sw.side = tx.db.newSegSide(def, specs, 0)
	for _, b := range tt.inserts {
		if err := sw.write(tailChunk(b, specs)); err != nil {
			sw.abort()
			return spillError(sw.path, err)
		}
	}
	seg, err := sw.finish()
	if err != nil {
		return spillError(sw.path, err)
	}
	tx.spillFiles = append(tx.spillFiles, seg.path)
	spilled := tt.spilledIDs.Clone() // savepoints may hold the old set
	for _, b := range tt.inserts {
		ids := b.rowIDs.Int64Values()
		if first, last := ids[0], ids[len(ids)-1]; last-first == int64(len(ids)-1) {
			spilled.AddRange(uint64(first), uint64(last)+1)
			continue
		}
		for _, id := range ids {
			spilled.Add(uint64(id))
		}
	}
	tt.spilledIDs = spilled
	tt.spilled = append(tt.spilled, seg)
	// The batches are dropped, not released: a savepoint may still hold
	// them, and the garbage collector frees them with the last reference.
	tt.inserts = nil
	tt.memBytes = 0
	return nil
}

// spillError is the error of a spill that could not be written: the
// statement fails (its rows stay in memory; the transaction is aborted as
// after any failed statement).
func spillError(path string, err error) error {
	return pgerr.New(pgerrcode.IOError, "could not write a transaction's rows to %s: %v", path, err)
}

// spillDeletes returns the rows of tt's spilled segments that tt deleted
// again: they are deleted rows of the table once it commits.
func (tt *txTable) spillDeletes() *roaring64.Bitmap {
	if len(tt.spilled) == 0 || tt.ownDel.IsEmpty() {
		return nil
	}
	d := roaring64.And(tt.ownDel, tt.spilledIDs)
	if d.IsEmpty() {
		return nil
	}
	return d
}

// spilledKeys returns the keys of con of the live rows in tt's spilled
// segments, read back from the files (the commit checks them against the
// keys committed since the transaction began and adds them to the
// constraint's index).
func (tx *Tx) spilledKeys(def *catalog.TableDef, tt *txTable, con constraint) ([]ownKey, error) {
	for _, cid := range con.cols {
		if _, c := def.ColumnByID(cid); c == nil {
			return nil, nil
		}
	}
	var out []ownKey
	err := tx.db.scanKeys(tx.snap, &tableState{segments: tt.spilled}, def, con, deadRows(tt.ownDel),
		func(k string, rid int64, _ []arrow.Array, _ []int, _ int) error {
			out = append(out, ownKey{key: k, row: rid})
			return nil
		})
	return out, err
}

// prepareSpills readies the spilled segments for the commit, before it
// takes the commit lock: a table that spilled spills its last rows too
// (written once, not to the WAL and again by a flush); it makes the
// files' names durable (the WAL record will list them) and reads their
// rows' keys for each constraint, by table and constraint signature.
func (tx *Tx) prepareSpills() (map[uint64]map[string][]ownKey, error) {
	keys := map[uint64]map[string][]ownKey{}
	for id, tt := range tx.tables {
		if len(tt.spilled) == 0 {
			continue
		}
		def := tx.cat.Tables[id]
		if def == nil {
			continue
		}
		if err := tx.spill(def, tt); err != nil {
			return nil, err
		}
		if err := syncDir(filepath.Dir(tt.spilled[0].path)); err != nil {
			return nil, err
		}
		keys[id] = map[string][]ownKey{}
		for _, con := range constraintsOf(tx.cat, def) {
			ks, err := tx.spilledKeys(def, tt, con)
			if err != nil {
				return nil, err
			}
			keys[id][con.sig()] = ks
		}
	}
	return keys, nil
}

// keepInstalledSpills takes the spilled files the commit installed off
// the list of files to remove when the transaction ends.
func (tx *Tx) keepInstalledSpills() {
	installed := map[string]bool{}
	for _, tt := range tx.tables {
		for _, seg := range tt.spilled {
			installed[seg.path] = true
		}
	}
	keep := tx.spillFiles[:0]
	for _, p := range tx.spillFiles {
		if !installed[p] {
			keep = append(keep, p)
		}
	}
	tx.spillFiles = keep
}

// spilledUniqueViolation is the 23505 error for a spilled row whose key
// another transaction committed meanwhile (the row is in a file, so the
// detail does not quote the key).
func spilledUniqueViolation(con constraint) error {
	return pgerr.New(pgerrcode.UniqueViolation, "duplicate key value violates unique constraint %q", con.name).
		WithDetail("A row this transaction wrote repeats a key that another transaction committed.")
}

// removeSpills removes the spilled files no commit installed (the
// transaction ended).
func (tx *Tx) removeSpills() {
	for _, path := range tx.spillFiles {
		tx.db.retire(path, 0, false)
	}
	tx.spillFiles = nil
}
