package storage

import (
	"path/filepath"
	"runtime"
	"sync"

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

// maybeSpill spills tt's in-memory inserts when they passed SpillBytes
// (never on a server that shares its object store with another writer:
// tail.go).
func (tx *Tx) maybeSpill(def *catalog.TableDef, tt *txTable) error {
	if tt.memBytes < tx.db.opts.SpillBytes || tx.db.home.shared() {
		return nil
	}
	return tx.spill(def, tt)
}

// spill writes tt's in-memory inserts to new segment files: one per
// processor, written at the same time, when there are enough rows (the
// statement's goroutine waits for the spill, so the parallel parse of a
// COPY has nothing to do meanwhile). The files are not fsynced here:
// writeback starts when each is complete and the commit fsyncs them
// (persistSpills), so a load does not wait for the disk between spills.
func (tx *Tx) spill(def *catalog.TableDef, tt *txTable) error {
	if len(tt.inserts) == 0 {
		return nil
	}
	rt := tx.db.rt(def.ID, def.Schema)
	if err := mkdirAllDurable(rt.dir); err != nil {
		return spillError(rt.dir, err)
	}
	specs := segmentSpecs(def)
	parts := spillParts(tt.inserts, tt.memBytes, max(tx.db.opts.SpillBytes/4, 1))
	segs := make([]*segment, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		path := tx.db.newSegmentPath(rt)
		side := tx.db.newSpillSide(def, specs)
		wg.Go(func() { segs[i], errs[i] = writeSpill(path, specs, side, tx.db.home.fetcher(), part) })
	}
	wg.Wait()
	for _, seg := range segs {
		if seg != nil {
			tx.spillFiles = append(tx.spillFiles, seg.path) // removed at the end unless installed
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
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
	tt.spilled = append(tt.spilled, segs...)
	// The batches are dropped, not released: a savepoint may still hold
	// them, and the garbage collector frees them with the last reference.
	tt.inserts = nil
	tt.memBytes = 0
	return nil
}

// spillParts splits batches (bytes in all) into runs of about equal size,
// one per processor at most and each of at least about least bytes (the
// rows left for COMMIT are often few: they stay in one file).
func spillParts(batches []*tailBatch, bytes, least int64) [][]*tailBatch {
	n := int(min(int64(runtime.GOMAXPROCS(0)), bytes/least, int64(len(batches))))
	if n <= 1 {
		return [][]*tailBatch{batches}
	}
	parts := make([][]*tailBatch, 0, n)
	var acc int64
	start := 0
	for i, b := range batches {
		acc += batchBytes(b)
		if len(parts) < n-1 && acc*int64(n) >= bytes*int64(len(parts)+1) {
			parts = append(parts, batches[start:i+1])
			start = i + 1
		}
	}
	if start < len(batches) {
		parts = append(parts, batches[start:])
	}
	return parts
}

// writeSpill writes batches to a new segment file at path, not fsynced
// (see spill). It runs on a goroutine of its own: a panic becomes its
// error, which fails the statement, not the server.
func writeSpill(path string, specs []segColumnSpec, side *segSide, remote fetcher, batches []*tailBatch) (seg *segment, err error) {
	sw, err := newSegmentWriter(path, specs)
	if err != nil {
		side.discard()
		return nil, spillError(path, err)
	}
	sw.side, sw.noSync, sw.remote = side, true, remote
	defer func() {
		if r := recover(); r != nil {
			sw.abort()
			seg, err = nil, pgerr.New(pgerrcode.InternalError, "writing a transaction's rows to %s: %v", path, r)
		}
	}()
	rows := 0
	for _, b := range batches {
		rows += b.n
	}
	for i, b := range batches {
		c := tailChunk(b, specs)
		if i == 0 {
			sw.evenGroups(c, rows)
		}
		if err := sw.write(c); err != nil {
			sw.abort()
			return nil, spillError(sw.path, err)
		}
	}
	if seg, err = sw.finish(); err != nil {
		return nil, spillError(sw.path, err)
	}
	return seg, nil
}

// persistSpills makes the spilled files of tt durable in the DB's home
// (fsynced, their writeback mostly done while the transaction went on; or
// put to the object store) before the commit record names them.
func (db *DB) persistSpills(tt *txTable) error {
	paths := make([]string, len(tt.spilled))
	for i, seg := range tt.spilled {
		paths[i] = seg.path
	}
	return db.home.persist(paths)
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
func (tx *Tx) spilledKeys(def *catalog.TableDef, tt *txTable, con constraint) (*keySet, error) {
	ks := &keySet{}
	for _, cid := range con.cols {
		if _, c := def.ColumnByID(cid); c == nil {
			return ks, nil
		}
	}
	err := tx.db.scanKeyBytes(tx.snap, &tableState{segments: tt.spilled}, def, con, deadRows(tt.ownDel),
		func(k []byte, rid int64, _ []arrow.Array, _ []int, _ int) error {
			ks.add(k, rid)
			return nil
		})
	return ks, err
}

// prepareSpills readies the spilled segments for the commit, before it
// takes the commit lock: a table that spilled spills its last rows too
// (written once, not to the WAL and again by a flush); it makes the
// files' names durable (the WAL record will list them) and reads their
// rows' keys for each constraint, by table and constraint signature.
func (tx *Tx) prepareSpills() (map[uint64]map[string]*keySet, error) {
	keys := map[uint64]map[string]*keySet{}
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
		if err := tx.db.persistSpills(tt); err != nil {
			return nil, spillError(filepath.Dir(tt.spilled[0].path), err)
		}
		keys[id] = map[string]*keySet{}
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
func spilledUniqueViolation(def *catalog.TableDef, con constraint) error {
	return pgerr.New(pgerrcode.UniqueViolation, "duplicate key value violates unique constraint %q", con.name).
		WithDetail("A row this transaction wrote repeats a key that another transaction committed.").WithConstraint(def.Schema, def.Name, con.name)
}

// removeSpills removes the spilled files no commit installed (the
// transaction ended).
func (tx *Tx) removeSpills() {
	for _, path := range tx.spillFiles {
		tx.db.retire(path, 0, false)
	}
	tx.spillFiles = nil
}
