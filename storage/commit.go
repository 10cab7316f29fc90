package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// ownKey is the key of one row a transaction inserted, for one constraint.
type ownKey struct {
	key string
	row int64
}

// intOwnKey is a one-integer ownKey, by value.
type intOwnKey struct {
	key, row int64
}

// keySet lists the keys of the rows a transaction inserted for one
// constraint with their row IDs; a one-integer key (appendKeyInt's) is
// kept by its value, as keyMap keeps it, and needs no string.
type keySet struct {
	ints []intOwnKey
	strs []ownKey
}

// add adds the encoded key k (copied) of row.
func (s *keySet) add(k []byte, row int64) {
	if v, ok := intKey(k); ok {
		s.ints = append(s.ints, intOwnKey{v, row})
		return
	}
	s.strs = append(s.strs, ownKey{string(k), row})
}

// addTo sets the keys in m. With unique it stops at a key m already
// has, and returns false.
func (s *keySet) addTo(m keyMap, unique bool) bool {
	for _, k := range s.ints {
		if unique {
			if _, dup := m.ints[k.key]; dup {
				return false
			}
		}
		m.ints[k.key] = k.row
	}
	for _, k := range s.strs {
		if unique {
			if _, dup := m.get(k.key); dup {
				return false
			}
		}
		m.set(k.key, k.row)
	}
	return true
}

// Commit makes the transaction durable and visible. It writes one
// checksummed WAL record holding all of it (the new catalog if DDL
// happened, sequence states, truncates, deleted row IDs, inserted rows as
// Arrow IPC), fsyncs (sharing the fsync with concurrent commits), then
// publishes; it returns only after the fsync. It fails with 23505 when a
// key inserted by the transaction was committed by another transaction
// since Begin, and with 40001 when a row it deletes was deleted (or its
// table truncated or dropped) by one: first committer wins. Foreign keys
// are settled the same way (fkref.go): 23503 or 40001. A commit whose
// group commit lost the log to another server on the object store is
// judged again, and appended again, on the state with the other server's
// commits (rebase.go). On failure nothing of the transaction is applied.
func (tx *Tx) Commit() error {
	if tx.done {
		return pgerr.New(pgerrcode.NoActiveSQLTransaction, "transaction is already finished")
	}
	db := tx.db
	defer tx.Rollback()
	if db.closed.Load() {
		return errClosed()
	}
	// First, so that the inserts it spills are not in the record too.
	spillKeys, err := tx.prepareSpills()
	if err != nil {
		return err
	}
	changed := len(tx.ops) > 0 || len(tx.seqs) > 0
	prepared := map[uint64][]*tailBatch{}
	for id, tt := range tx.tables {
		if tt.empty() {
			delete(tx.tables, id)
			continue
		}
		changed = true
		bs, err := liveInserts(tt)
		if err != nil {
			return err
		}
		if bs, err = coalesceBatches(bs); err != nil {
			return err
		}
		prepared[id] = bs
	}
	if !changed {
		// Nothing to log; the sequence values it drew must be durable
		// before it reports success (a commit record would cover them).
		return db.syncTo(tx.seqLSN)
	}

	// Indexes of constraints added to tables with rows are built before
	// the commit lock, so that other sessions keep committing meanwhile
	// (index_build.go).
	pending, err := tx.prebuildIndexes()
	if err != nil {
		return err
	}
	before := db.Catalog()
	var next *dbState
	var dropped []*tableRT
	unlockMoved := tx.lockMovedSequences()
	defer unlockMoved()
	for attempt := 1; ; attempt++ {
		db.mu.Lock()
		var lsn uint64
		lsn, next, dropped, err = tx.commitLocked(prepared, spillKeys, pending)
		epoch := db.logEpoch
		db.mu.Unlock()
		pending.release()
		pending = nil
		if errors.Is(err, errSpillClash) {
			// Its spilled rows get new IDs, in new files (rebase.go).
			if attempt >= rebaseTries {
				return spilledRowIDs(attempt)
			}
			if err := tx.respill(spillKeys); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		err = db.waitDurable(lsn, epoch)
		if err == nil {
			tx.keepInstalledSpills()
			break
		}
		if !errors.Is(err, errLostRace) {
			tx.keepInstalledSpills() // (the record may be durable)
			return err
		}
		// Another server's commits took the log: judged again on the
		// state with them (rebase.go). The lost record is gone: its
		// spilled files are the transaction's again, removed when it
		// ends unless a later try installs them.
		if err := tx.notRebased(attempt); err != nil {
			return err
		}
		prepared = rebatched(prepared)
	}
	db.commits.Add(1)
	for _, rt := range dropped {
		db.retire(rt.dir, next.version, true)
	}
	if len(tx.ops) > 0 {
		for _, id := range tablesLosingVecIndexes(tx.snap.cat, next.cat) {
			db.removeUnusedVecIndexes(id)
		}
		db.dropUnusedTrigramFiles(before, next.cat)
		db.dropUnusedKeyIndexes(before, next.cat)
	}
	for id, tt := range tx.tables {
		// Segments the next compaction merges get their indexes built
		// there (or queued by it if it leaves them as they are): built
		// here too, they were a tenth of a bulk load's CPU thrown away.
		if len(tt.spilled) > 1 && mergeSpills && !db.home.shared() {
			db.workMu.Lock()
			for _, seg := range tt.spilled {
				db.spillMerges[id] = append(db.spillMerges[id], seg.path)
			}
			db.workMu.Unlock()
		} else if len(tt.spilled) > 0 {
			db.queueSidecarBuilds(id, tt.spilled)
		}
		if ts := next.tables[id]; ts != nil && (tt.truncated || len(tt.spilled) > 0 || ts.tailRows >= int64(db.opts.FlushRows) ||
			!tt.deletes.IsEmpty() && manyDeleted(ts)) {
			db.requestFlush(id)
		}
	}
	return nil
}

// liveInserts returns the transaction's inserted batches without the rows
// it deleted again.
func liveInserts(tt *txTable) ([]*tailBatch, error) {
	if tt.ownDel.IsEmpty() {
		return tt.inserts, nil
	}
	var out []*tailBatch
	for _, b := range tt.inserts {
		runs, kept, all := keptRuns(b.rowIDs.Int64Values(), tt.ownDel)
		if all {
			out = append(out, b)
			continue
		}
		if kept == 0 {
			continue
		}
		nb := &tailBatch{colIDs: b.colIDs, cols: make([]arrow.Array, len(b.cols)), n: kept}
		for i, c := range b.cols {
			a, err := takeRuns(c, runs)
			if err != nil {
				return nil, err
			}
			nb.cols[i] = a
		}
		a, err := takeRuns(b.rowIDs, runs)
		if err != nil {
			return nil, err
		}
		nb.rowIDs = a.(*array.Int64)
		out = append(out, nb)
	}
	return out, nil
}

// rulesAdded reports whether def has a rule every row must meet that old,
// the same table in an earlier catalog, lacks: a column filled with a
// value for the existing rows (a DEFAULT, a generated column, or the
// values of the column of its name it replaced: ALTER COLUMN ... TYPE's
// rewrite), a NOT NULL, a CHECK or a FOREIGN KEY (one added NOT VALID
// only once it is validated: until then the rows written before it need
// not meet it). The DDL that added it filled or validated the rows it
// saw, so rows written under old that it did not see may break it.
// Unique constraints are not among them, nor the NOT
// NULL a primary key gives its columns: commits check keys against the
// unique indexes, which the ALTER builds online (commitLocked,
// index_build.go). A table old lacks (nil:
// created since) or def lacks (dropped) adds none here, nor one whose
// definition is the same (a catalog shares unchanged tables' definitions
// with the one before it: the common case, checked without a walk of
// the columns on each statement's Refresh).
func rulesAdded(old, def *catalog.TableDef) bool {
	if old == nil || def == nil || old == def {
		return false
	}
	for _, c := range def.Columns {
		_, oc := old.ColumnByID(c.ID)
		if oc == nil && (c.Default != "" || c.NotNull || hasColumn(old, c.Name)) || oc != nil && c.NotNull && !oc.NotNull && !slices.Contains(def.PrimaryKey, c.ID) {
			return true
		}
	}
	for _, c := range def.Checks {
		if !c.NotValid && !slices.ContainsFunc(old.Checks, func(o catalog.CheckDef) bool { return o.Name == c.Name && o.Expr == c.Expr && !o.NotValid }) {
			return true
		}
	}
	return len(newForeignKeys(old, def)) > 0
}

// domainsTightened reports whether a domain a column of def (in cur) has
// gained a rule since old (domainRulesAdded): ALTER DOMAIN checked the
// rows it saw, not rows written under old that commit after it.
func domainsTightened(old, cur *catalog.Catalog, def *catalog.TableDef) bool {
	if def == nil {
		return false
	}
	for _, col := range def.Columns {
		if col.Domain == 0 {
			continue
		}
		if o, n := old.DomainByOID(col.Domain), cur.DomainByOID(col.Domain); o != nil && n != nil && o != n && domainRulesAdded(o.Domain, n.Domain) {
			return true
		}
	}
	return false
}

// newForeignKeys returns the validated foreign keys of def that old (the
// same table in an earlier catalog; nil: none) lacks, or had NOT VALID.
// One added NOT VALID is none of them: the rows written before it, under
// old, are rows it does not promise anything of, whenever they commit.
func newForeignKeys(old, def *catalog.TableDef) []catalog.ForeignKeyDef {
	var out []catalog.ForeignKeyDef
	for _, fk := range def.ForeignKeys {
		if !fk.NotValid && (old == nil || !slices.ContainsFunc(old.ForeignKeys, func(o catalog.ForeignKeyDef) bool { return o.Name == fk.Name && !o.NotValid })) {
			out = append(out, fk)
		}
	}
	return out
}

// referencedSince reports whether cur has a foreign key referencing table
// id that old lacks: rows deleted from id under old were checked against
// none, and the ALTER that added it validated the rows it saw.
func referencedSince(old, cur *catalog.Catalog, id uint64) bool {
	for tid, def := range cur.Tables {
		for _, fk := range newForeignKeys(old.Tables[tid], def) {
			if fk.RefTable == id && old.Tables[tid] != nil {
				return true
			}
		}
	}
	return false
}

// fencedOut returns the 40001 of a write to table id that another open
// transaction's DDL fences out (fenceWrites), nil when none does.
func (tx *Tx) fencedOut(id uint64) error {
	rt := tx.db.lookupRT(id)
	if rt == nil {
		return nil
	}
	if by, ended := rt.fence.up(tx); by != nil {
		return &fencedError{err: pgerr.From(serializationFailure()), by: by, ended: ended}
	}
	return nil
}

// commitLocked validates the transaction against the head, appends its WAL
// record and installs the new head (db.mu held). prepared are the inserts
// held in memory by table, spillKeys the keys of the spilled rows by table
// and constraint (prepareSpills), pending the indexes of new constraints
// built ahead (nil: none). It returns the record's LSN, the new state and
// the runtimes of dropped tables.
func (tx *Tx) commitLocked(prepared map[uint64][]*tailBatch, spillKeys map[uint64]map[string]*keySet, pending *pendingIndexes) (uint64, *dbState, []*tableRT, error) {
	db := tx.db
	if db.broken != nil {
		return 0, nil, nil, db.broken
	}
	head := db.head.Load()
	newCat := head.cat
	if len(tx.ops) > 0 {
		if head.cat == tx.snap.cat {
			newCat = tx.cat
		} else {
			c := head.cat.Clone()
			if err := tx.replayOps(c); err != nil {
				return 0, nil, nil, err
			}
			newCat = c
		}
		newCat.NextID = max(newCat.NextID, db.nextTableID.Load())
	}

	// Rows another server inserted since this transaction drew its row
	// IDs for a table may carry the same ones: its rows get new ones
	// (rebase.go).
	if err := tx.renumberLocked(prepared); err != nil {
		return 0, nil, nil, err
	}

	// Write conflicts: first committer wins.
	base := tx.snap
	if tx.base != nil {
		base = tx.base
	}
	for id, tt := range tx.tables {
		if newCat.Tables[id] == nil {
			return 0, nil, nil, serializationFailure()
		}
		hts, sts := head.tables[id], base.tables[id]
		if hts != nil && sts != nil && hts.epoch != sts.epoch && (tt.truncated || !tt.deletes.IsEmpty()) {
			return 0, nil, nil, serializationFailure()
		}
		if tt.truncated && hts != nil && hts.lastMod > base.lsn {
			return 0, nil, nil, serializationFailure()
		}
		// Rules another commit gave the table since this transaction's
		// rows were written (a column filled with its default, NOT NULL,
		// CHECK, FOREIGN KEY), or a foreign key referencing the table
		// its rows were deleted from, were applied to the rows that
		// commit saw, not to these: PostgreSQL's ALTER TABLE would have
		// waited for this transaction (or it for the ALTER).
		inserts, deletes := len(prepared[id]) > 0 || len(tt.spilled) > 0, !tt.deletes.IsEmpty()
		if inserts && head.cat != base.cat && (rulesAdded(base.cat.Tables[id], head.cat.Tables[id]) || domainsTightened(base.cat, head.cat, head.cat.Tables[id])) ||
			deletes && head.cat != base.cat && referencedSince(base.cat, head.cat, id) {
			return 0, nil, nil, serializationFailure()
		}
		if inserts || deletes {
			if err := tx.fencedOut(id); err != nil {
				return 0, nil, nil, err
			}
		}
		if !tt.deletes.IsEmpty() {
			if rt := db.lookupRT(id); rt != nil {
				for _, e := range rt.delLog {
					if e.lsn > base.lsn && e.rows.Intersects(tt.deletes) {
						return 0, nil, nil, serializationFailure()
					}
				}
			}
		}
	}

	// Likewise the rules this transaction's DDL gave a table were applied
	// to the rows its snapshot held, not to those committed since (to the
	// table, or to the one a new foreign key references).
	if len(tx.ops) > 0 {
		for id, def := range tx.cat.Tables {
			if hts := head.tables[id]; hts != nil && hts.lastMod > base.lsn && rulesAdded(base.cat.Tables[id], def) {
				return 0, nil, nil, serializationFailure()
			}
			for _, fk := range newForeignKeys(base.cat.Tables[id], def) {
				if pts := head.tables[fk.RefTable]; base.cat.Tables[id] != nil && pts != nil && pts.lastMod > base.lsn {
					return 0, nil, nil, serializationFailure()
				}
			}
		}
	}

	// Unique indexes for constraints that have none yet (new or changed by
	// DDL): the ones built ahead brought up to the head (only the rows
	// committed since their last catch-up are read here), the others (a
	// new or truncated table's) built from the committed rows.
	newIdx := map[uint64]map[string]*uniqueIndex{}
	if newCat != head.cat {
		for id, def := range newCat.Tables {
			rt := db.rt(id, def.Schema)
			for _, con := range constraintsOf(newCat, def) {
				db.idxMu.RLock()
				have := rt.uniq[con.sig()] != nil
				db.idxMu.RUnlock()
				if have {
					continue
				}
				var ix *uniqueIndex
				if pi := pending.get(id, con.sig()); pi != nil && pi.base != head {
					if err := pi.catchUp(db, head, id, def, tx.ownDeletes(id)); err != nil {
						return 0, nil, nil, err
					}
					ix = pi.ix
				} else if pi != nil {
					ix = pi.ix
				} else if tt := tx.tables[id]; tt != nil && tt.truncated {
					ix = &uniqueIndex{con: con, m: newKeyMap()}
				} else {
					var err error
					if ix, err = db.buildIndex(head, id, def, con, tx.ownDeletes(id)); err != nil {
						return 0, nil, nil, err
					}
				}
				if newIdx[id] == nil {
					newIdx[id] = map[string]*uniqueIndex{}
				}
				newIdx[id][con.sig()] = ix
			}
		}
	}

	// Re-check the inserted keys against what committed since Begin.
	keys := map[uint64]map[string]*keySet{}
	for id, tt := range tx.tables {
		bs := prepared[id]
		if len(bs) == 0 && len(tt.spilled) == 0 {
			continue
		}
		def := newCat.Tables[id]
		rt := db.rt(id, def.Schema)
		var deleted deletedRows
		if hts := head.tables[id]; hts != nil {
			deleted = hts.deleted
		}
		for _, con := range constraintsOf(newCat, def) {
			sig := con.sig()
			ix := newIdx[id][sig]
			if ix == nil {
				db.idxMu.RLock()
				ix = rt.uniq[sig]
				db.idxMu.RUnlock()
			}
			// taken reports whether a live committed row holds a key
			// that ix maps to r (hit).
			taken := func(r int64, hit bool) bool {
				return hit && !tt.truncated && !deleted.Contains(uint64(r)) && !tt.deletes.Contains(uint64(r))
			}
			ks, held, b, i, err := tx.batchKeys(def, con, bs, ix, taken)
			if err != nil {
				return 0, nil, nil, err
			}
			if b != nil {
				if held && tt.upsert {
					return 0, nil, nil, serializationFailure()
				}
				kc, pos, _, err := keyColumns(con, b.colIDs, b.cols)
				if err != nil {
					return 0, nil, nil, err
				}
				return 0, nil, nil, uniqueViolation(def, con, kc, pos, i)
			}
			if len(tt.spilled) > 0 {
				sks, ok := spillKeys[id][sig]
				if !ok { // a constraint committed since the transaction began
					var err error
					if sks, err = tx.spilledKeys(def, tt, con); err != nil {
						return 0, nil, nil, err
					}
				}
				// The keys of the transaction's own rows are unique
				// among themselves (Insert checked them).
				if ix != nil && sks.heldIn(ix.m, taken) {
					if tt.upsert {
						return 0, nil, nil, serializationFailure()
					}
					return 0, nil, nil, spilledUniqueViolation(def, con)
				}
				ks.ints = append(ks.ints, sks.ints...)
				ks.strs = append(ks.strs, sks.strs...)
			}
			if keys[id] == nil {
				keys[id] = map[string]*keySet{}
			}
			keys[id][sig] = ks
		}
	}

	// Foreign keys: the parent rows relied on are live, the ones deleted
	// gained no children (fkref.go).
	refs, err := tx.checkRefsLocked(head, base, newCat, &ownKeys{keys: keys})
	if err != nil {
		return 0, nil, nil, err
	}

	// The WAL record.
	rec := &walRecord{}
	if newCat != head.cat {
		b, err := marshalCatalog(newCat)
		if err != nil {
			return 0, nil, nil, err
		}
		rec.catalog = b
	}
	for key, s := range tx.seqs {
		if newCat.Sequences[key] != nil {
			rec.seqs = append(rec.seqs, seqEntry{key: key, last: s.last, called: s.called})
		}
	}
	rec.seqs = append(rec.seqs, tx.movedSequenceEntries(head.cat, newCat)...)
	// The references go into the record only for other servers on an
	// object store (tail.go): a recovery does not need them.
	_, shared := db.home.(*objectHome)
	for id, tt := range tx.tables {
		op := walTableOp{id: id, truncate: tt.truncated, inserts: prepared[id], segments: tt.spilled}
		if shared {
			op.refs = refs[id]
		}
		if !tt.deletes.IsEmpty() {
			op.deletes = tt.deletes
		}
		if sd := tt.spillDeletes(); sd != nil {
			op.deletes = roaring64.Or(tt.deletes, sd)
		}
		rec.tables = append(rec.tables, op)
	}
	lsn, err := db.appendWALLocked(rec)
	if err != nil {
		return 0, nil, nil, err
	}

	// The new head.
	next, dropped := db.nextStateLocked(head, lsn, newCat, rec.tables)

	// The unique indexes. On an object store, what the commit does to
	// them is recorded to be taken back should its group commit lose the
	// log (keyUndo): the keys it sets with what they held, or, for a
	// table whose indexes it replaces, empties or sets many keys of, that
	// they are to be rebuilt.
	db.idxMu.Lock()
	rebuild := map[uint64]bool{}
	if newCat != head.cat {
		for id, def := range newCat.Tables {
			rt := db.rt(id, def.Schema)
			want := map[string]bool{}
			for _, con := range constraintsOf(newCat, def) {
				want[con.sig()] = true
				if ix := newIdx[id][con.sig()]; ix != nil {
					rt.uniq[con.sig()] = ix
					rebuild[id] = true
				}
			}
			for sig := range rt.uniq {
				if !want[sig] {
					delete(rt.uniq, sig)
					rebuild[id] = true
				}
			}
		}
	}
	for id, tt := range tx.tables {
		rt := db.lookupRT(id)
		if rt == nil {
			continue
		}
		if tt.truncated {
			for _, ix := range rt.uniq {
				ix.m = newKeyMap()
			}
			rebuild[id] = true
		}
		for sig, ks := range keys[id] {
			ix := rt.uniq[sig]
			if ix == nil {
				continue
			}
			if !shared || rebuild[id] || len(ks.ints)+len(ks.strs) > undoKeys {
				ks.addTo(ix.m, false)
				rebuild[id] = true
				continue
			}
			db.keyUndo = append(db.keyUndo, ks.setUndoable(ix, lsn, id))
		}
	}
	if shared {
		for id := range rebuild {
			db.keyUndo = append(db.keyUndo, keyUndo{lsn: lsn, table: id})
		}
	}
	db.setHead(next)
	db.idxMu.Unlock()

	// Conflict history and sequences.
	minLSN := db.minPinnedLSN()
	for id, tt := range tx.tables {
		rt := db.lookupRT(id)
		if rt == nil {
			continue
		}
		if !tt.deletes.IsEmpty() {
			rt.delLog = append(rt.delLog, delLogEntry{lsn: lsn, rows: tt.deletes})
		}
		pruneDelLog(rt, minLSN)
		pruneRefLog(rt, minLSN)
	}
	db.logRefsLocked(lsn, refs, minLSN)
	db.setSeqsLocked(newCat, head.cat, rec.seqs)
	db.installMovedSequences(tx, newCat, lsn)
	if db.walBytes >= db.opts.WALCheckpointBytes {
		db.requestCheckpoint()
	}
	return lsn, next, dropped, nil
}

// nextStateLocked derives from head the state after a commit record
// (db.mu held): its LSN lsn, its catalog newCat, its table ops (truncate,
// deleted row IDs, inserted batches, spilled segments with their paths).
// It returns the state and the runtimes of the tables newCat dropped,
// which it forgets. Commits and the records of other servers (tail.go)
// go through it.
func (db *DB) nextStateLocked(head *dbState, lsn uint64, newCat *catalog.Catalog, ops []walTableOp) (*dbState, []*tableRT) {
	next := head.derive()
	next.lsn = lsn
	next.cat = newCat
	var dropped []*tableRT
	if newCat != head.cat {
		for id := range newCat.Tables {
			if next.tables[id] == nil {
				next.tables[id] = newTableState(id)
			}
		}
		for id := range next.tables {
			if newCat.Tables[id] == nil {
				delete(next.tables, id)
				if rt := db.lookupRT(id); rt != nil {
					dropped = append(dropped, rt)
					db.rtMu.Lock()
					delete(db.rts, id)
					db.rtMu.Unlock()
				}
			}
		}
	}
	for _, op := range ops {
		if next.tables[op.id] == nil {
			continue
		}
		ts := next.tables[op.id].clone()
		if op.truncate {
			ts.epoch++
			ts.segments = nil
			ts.tail = nil
			ts.tailRows = 0
			ts.deleted = deletedRows{}
		}
		ts.deleted = ts.deleted.with(op.deletes)
		if len(op.segments) > 0 {
			for _, seg := range op.segments {
				seg.lsn = lsn
			}
			ts.segments = append(slices.Clip(ts.segments), op.segments...)
		}
		for _, b := range op.inserts {
			b.lsn, b.minLSN = lsn, lsn
			ts.tail = appendTail(ts.tail, b)
			ts.tailRows += int64(b.n)
		}
		ts.lastMod = lsn
		next.tables[op.id] = ts
	}
	return next, dropped
}

// setSeqsLocked installs the sequence states a commit record sets, and
// forgets the sequences newCat dropped (db.mu held; oldCat is the
// catalog before the record).
func (db *DB) setSeqsLocked(newCat, oldCat *catalog.Catalog, seqs []seqEntry) {
	for _, s := range seqs {
		if newCat.Sequences[s.key] != nil {
			db.seqs[s.key] = &seqState{last: s.last, called: s.called, durLast: s.last, durCalled: s.called}
		}
	}
	if newCat != oldCat {
		for key := range db.seqs {
			if newCat.Sequences[key] == nil {
				delete(db.seqs, key)
			}
		}
	}
}

// pruneDelLog drops conflict history no transaction can need: entries at
// or below the oldest snapshot in use (db.mu held).
func pruneDelLog(rt *tableRT, minLSN uint64) {
	i := 0
	for i < len(rt.delLog) && rt.delLog[i].lsn <= minLSN {
		i++
	}
	if i > 0 {
		rt.delLog = append(rt.delLog[:0:0], rt.delLog[i:]...)
	}
}

// batchKeys gathers the keys of con of the rows of batches bs (a commit's
// inserts held in memory). A key repeated among them, or one that ix maps
// to a row taken reports as live, stops it: it returns the batch and row
// of the first such key, and held true for one in ix. One-integer keys
// are read by value, without encoding.
func (tx *Tx) batchKeys(def *catalog.TableDef, con constraint, bs []*tailBatch, ix *uniqueIndex,
	taken func(r int64, hit bool) bool) (ks *keySet, held bool, bad *tailBatch, row int, err error) {
	ks = &keySet{}
	seen := newKeyMap()
	ts := keyTypes(def, con)
	for _, b := range bs {
		cols, pos, ok, err := keyColumns(con, b.colIDs, b.cols)
		if err != nil {
			return nil, false, nil, 0, err
		}
		if !ok {
			continue
		}
		ids := b.rowIDs.Int64Values()
		var vals []int64
		byValue := false
		if len(pos) == 1 && con.byValue() {
			vals, byValue = intKeyValues(cols[pos[0]])
		}
		if byValue {
			col := cols[pos[0]]
			for i, v := range vals {
				if col.IsNull(i) {
					continue
				}
				if _, dup := seen.ints[v]; dup {
					return nil, false, b, i, nil
				}
				seen.ints[v] = 0
				if ix != nil {
					if r, hit := ix.m.ints[v]; taken(r, hit) {
						return nil, true, b, i, nil
					}
				}
				ks.ints = append(ks.ints, intOwnKey{v, ids[i]})
			}
			continue
		}
		for i := 0; i < b.n; i++ {
			var ok bool
			tx.keybuf, ok = con.rowKey(tx.keybuf, ts, cols, pos, i)
			if !ok {
				continue
			}
			if _, dup := seen.getBytes(tx.keybuf); dup {
				return nil, false, b, i, nil
			}
			seen.set(string(tx.keybuf), 0)
			if ix != nil {
				if r, hit := ix.m.getBytes(tx.keybuf); taken(r, hit) {
					return nil, true, b, i, nil
				}
			}
			ks.add(tx.keybuf, ids[i])
		}
	}
	return ks, false, nil, 0, nil
}

// heldIn reports whether m maps one of the keys to a row taken reports as
// live.
func (s *keySet) heldIn(m keyMap, taken func(r int64, hit bool) bool) bool {
	for _, k := range s.ints {
		if r, hit := m.ints[k.key]; taken(r, hit) {
			return true
		}
	}
	for _, k := range s.strs {
		if r, hit := m.get(k.key); taken(r, hit) {
			return true
		}
	}
	return false
}

// buildIndex builds the index of con over the rows of table id in state s,
// leaving out the rows in skip (may be nil: the committing transaction's
// deletes); a repeated key is 23505 "could not create unique index".
func (db *DB) buildIndex(s *dbState, id uint64, def *catalog.TableDef, con constraint, skip *roaring64.Bitmap) (*uniqueIndex, error) {
	ix := &uniqueIndex{con: con, m: newKeyMap()}
	ts := s.tables[id]
	if ts == nil {
		return ix, nil
	}
	if err := db.indexRows(ix, s, ts, def, deadRows(append(ts.deleted.layers(), skip)...)); err != nil {
		return nil, err
	}
	return ix, nil
}

// deadRows lists the non-nil row ID sets of rows that no longer count.
func deadRows(sets ...*roaring64.Bitmap) []*roaring64.Bitmap {
	var out []*roaring64.Bitmap
	for _, s := range sets {
		if s != nil && !s.IsEmpty() {
			out = append(out, s)
		}
	}
	return out
}

// indexRows adds to ix the keys of the rows of ts (part of state s) that
// are not in dead. A key ix already maps to the same row is skipped, one
// mapped to a dead row is taken over, and one mapped to a live row is
// 23505 "could not create unique index".
func (db *DB) indexRows(ix *uniqueIndex, s *dbState, ts *tableState, def *catalog.TableDef, dead []*roaring64.Bitmap) error {
	con := ix.con
	isDead := func(row int64) bool {
		for _, d := range dead {
			if d.Contains(uint64(row)) {
				return true
			}
		}
		return false
	}
	var dup error
	err := db.scanKeyBytes(s, ts, def, con, dead, func(k []byte, rid int64, cols []arrow.Array, pos []int, i int) error {
		if other, hit := ix.m.getBytes(k); hit && other != rid && !isDead(other) {
			dup = duplicateInData(def, con, cols, pos, i)
			return dup
		}
		ix.m.setBytes(k, rid)
		return nil
	})
	if dup != nil {
		return dup
	}
	if err != nil {
		return fmt.Errorf("building index %q: %w", con.name, err)
	}
	return nil
}

// scanKeys calls fn with the key of constraint con of each row of ts
// (part of state s) not in dead, and the row's ID; rows whose key has a
// NULL are left out unless con is NULLS NOT DISTINCT. fn also gets the key columns and the row's position
// in them, to quote the key in an error; an error of fn ends the scan.
func (db *DB) scanKeys(s *dbState, ts *tableState, def *catalog.TableDef, con constraint, dead []*roaring64.Bitmap,
	fn func(key string, row int64, cols []arrow.Array, pos []int, i int) error) error {
	return db.scanKeyBytes(s, ts, def, con, dead, func(key []byte, row int64, cols []arrow.Array, pos []int, i int) error {
		return fn(string(key), row, cols, pos, i)
	})
}

// scanKeyBytes is scanKeys with each key in a buffer that the next key
// reuses (no string per row).
func (db *DB) scanKeyBytes(s *dbState, ts *tableState, def *catalog.TableDef, con constraint, dead []*roaring64.Bitmap,
	fn func(key []byte, row int64, cols []arrow.Array, pos []int, i int) error) error {
	positions := make([]int, len(con.cols))
	for i, cid := range con.cols {
		positions[i], _ = def.ColumnByID(cid)
	}
	r := db.newScan(context.Background(), s, ts, def, positions, true, dead, nil, nil)
	defer r.Release()
	kt := keyTypes(def, con)
	pos := make([]int, len(kt))
	for i := range pos {
		pos[i] = i
	}
	var buf []byte
	for r.Next() {
		rec := r.Record()
		cols := rec.Columns()
		ids := cols[len(cols)-1].(*array.Int64).Int64Values()
		if con.key != nil {
			var err error
			if cols, err = con.key.compute(con.cols, cols[:len(cols)-1]); err != nil {
				return err
			}
		}
		for i, rid := range ids {
			var ok bool
			if buf, ok = con.rowKey(buf, kt, cols, pos, i); !ok {
				continue
			}
			if err := fn(buf, rid, cols, pos, i); err != nil {
				return err
			}
		}
	}
	return r.Err()
}

// hasColumn reports whether def has a column named name.
func hasColumn(def *catalog.TableDef, name string) bool {
	pos, _ := def.Column(name)
	return pos >= 0
}
