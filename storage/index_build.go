package storage

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Online index builds. A transaction that adds a unique constraint or a
// unique index to a table with rows (ALTER TABLE ... ADD PRIMARY KEY |
// UNIQUE, CREATE UNIQUE INDEX) needs the committed index of that
// constraint at its commit. Building it reads every row of the table, so
// Commit builds it before it takes DB.mu, as CREATE INDEX CONCURRENTLY
// does in spirit:
//
//  1. it takes the table's flushMu (no flush or compaction of the table
//     can rewrite its segments or forget deleted row IDs meanwhile), pins
//     the published state and indexes its rows there, outside every
//     commit-path lock, while other sessions keep committing;
//  2. it catches up with the states published meanwhile, still outside
//     DB.mu, adding the rows they committed;
//  3. under DB.mu it adds the few rows committed since the last catch-up,
//     then validates its own inserts and installs the index in the same
//     critical section, so no commit can slip between the check and the
//     index that later commits are checked against.
//
// A row committed while the index was built that repeats a key fails the
// constraint's commit with 23505 ("could not create unique index"); a row
// committed after the constraint's commit is checked against the index
// like any insert. Never do both succeed.

// catchUpRounds bounds the catch-ups done outside DB.mu (step 2): each
// one adds what committed during the previous one.
const catchUpRounds = 3

// testHookIndexesBuilt, when set (by tests only), runs at the end of
// prebuildIndexes, just before Commit takes DB.mu: what it commits is what
// the last catch-up, under DB.mu, must find.
var testHookIndexesBuilt func()

// pendingIndex is a unique index built outside the commit lock: it holds
// the keys of the rows of state base.
type pendingIndex struct {
	ix    *uniqueIndex
	base  *dbState
	unpin func()
}

// pendingIndexes are the indexes a commit built ahead, by table ID and
// constraint signature, with the locks and pins to release after it.
type pendingIndexes struct {
	byTable map[uint64]map[string]*pendingIndex
	flushMu []*tableRT // tables whose flushMu is held, in table ID order
}

// get returns the pending index of table id's constraint sig, or nil.
func (p *pendingIndexes) get(id uint64, sig string) *pendingIndex {
	if p == nil {
		return nil
	}
	return p.byTable[id][sig]
}

// release unpins the states the indexes were built on and unlocks the
// tables' flushMu. Commit calls it once DB.mu is released.
func (p *pendingIndexes) release() {
	if p == nil {
		return
	}
	for _, m := range p.byTable {
		for _, pi := range m {
			pi.unpin()
		}
	}
	for i := len(p.flushMu) - 1; i >= 0; i-- {
		p.flushMu[i].flushMu.Unlock()
	}
}

// prebuildIndexes builds, before the commit lock, the committed indexes of
// the unique constraints tx adds to tables that already have rows (steps
// 1 and 2 above). A key the rows repeat is the 23505 the commit would
// report. The caller releases the result after the commit.
func (tx *Tx) prebuildIndexes() (*pendingIndexes, error) {
	if len(tx.ops) == 0 {
		return nil, nil
	}
	db := tx.db
	published := db.published.Load()
	type need struct {
		def *catalog.TableDef
		con constraint
	}
	needs := map[uint64][]need{}
	var ids []uint64
	for id, def := range tx.cat.Tables {
		rt := db.lookupRT(id)
		if rt == nil || published.tables[id] == nil {
			continue // a new table: its index is built empty at commit
		}
		if tt := tx.tables[id]; tt != nil && tt.truncated {
			continue // truncated by tx: its index starts empty
		}
		for _, con := range constraintsOf(tx.cat, def) {
			db.idxMu.RLock()
			have := rt.uniq[con.sig()] != nil
			db.idxMu.RUnlock()
			if !have {
				if len(needs[id]) == 0 {
					ids = append(ids, id)
				}
				needs[id] = append(needs[id], need{def, con})
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	p := &pendingIndexes{byTable: map[uint64]map[string]*pendingIndex{}}
	for _, id := range ids {
		rt := db.lookupRT(id)
		if rt == nil { // dropped by a commit since the loop above
			p.release()
			return nil, errAlteredMeanwhile(needs[id][0].def)
		}
		rt.flushMu.Lock()
		p.flushMu = append(p.flushMu, rt)
	}
	for _, id := range ids {
		skip := tx.ownDeletes(id)
		p.byTable[id] = map[string]*pendingIndex{}
		for _, n := range needs[id] {
			base, unpin := db.pinPublished()
			ix, err := db.buildIndex(base, id, n.def, n.con, skip)
			if err != nil {
				unpin()
				p.release()
				return nil, err
			}
			pi := &pendingIndex{ix: ix, base: base, unpin: unpin}
			p.byTable[id][n.con.sig()] = pi
			for range catchUpRounds {
				next, unpinNext := db.pinPublished()
				if next == pi.base {
					unpinNext()
					break
				}
				if err := pi.catchUp(db, next, id, n.def, skip); err != nil {
					unpinNext()
					p.release()
					return nil, err
				}
				pi.unpin()
				pi.base, pi.unpin = next, unpinNext
			}
		}
	}
	if testHookIndexesBuilt != nil {
		testHookIndexesBuilt()
	}
	return p, nil
}

// ownDeletes are the committed rows of table id that tx deletes: they
// leave with its commit, so they take no part in a new index.
func (tx *Tx) ownDeletes(id uint64) *roaring64.Bitmap {
	if tt := tx.tables[id]; tt != nil {
		return tt.deletes
	}
	return nil
}

// catchUp brings the index from the rows of pi.base to those of state to
// (newer; the table's flushMu held since before pi.base was pinned) and
// the caller makes to its base. It reads only what to added: tail batches committed
// after pi.base and segments pi.base lacks (flushed from the tail, so
// their rows mostly are in the index already under the same row ID). A
// truncation in between makes it index to's rows from scratch.
func (pi *pendingIndex) catchUp(db *DB, to *dbState, id uint64, def *catalog.TableDef, skip *roaring64.Bitmap) error {
	from := pi.base
	fts, tts := from.tables[id], to.tables[id]
	if tts == nil {
		return undefinedTableID(id)
	}
	if fts == nil || fts.epoch != tts.epoch {
		ix, err := db.buildIndex(to, id, def, pi.ix.con, skip)
		if err != nil {
			return err
		}
		pi.ix = ix
		return nil
	}
	var segs []*segment
	for _, s := range tts.segments {
		if !slices.Contains(fts.segments, s) {
			segs = append(segs, s)
		}
	}
	if len(segs) > 0 {
		if err := db.indexRows(pi.ix, to, &tableState{segments: segs}, def, deadRows(append(tts.deleted.layers(), skip)...)); err != nil {
			return err
		}
	}
	var tail []*tailBatch
	for _, b := range tts.tail {
		if b.lsn > from.lsn {
			tail = append(tail, b)
		}
	}
	if len(tail) > 0 {
		if err := db.indexRows(pi.ix, to, &tableState{tail: tail}, def, deadRows(append(tts.deleted.layers(), skip)...)); err != nil {
			return err
		}
	}
	return nil
}
