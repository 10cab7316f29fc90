package storage

// Several servers on one object store (objhome.go): each serves reads, one
// writes at a time. A server tails the log: a catch-up GETs the log object
// after the last one it knows (a 404: it is up to date; the checkpoint
// object is read at the same time at most once a second, to learn of a
// newer checkpoint, and whenever a missing object could be one a
// checkpoint deleted rather than one not yet written: checkpointDue) and
// applies every record of each one it finds
// (applyRecordLocked), as if those transactions had committed here. The
// log's numbers and PutIfAbsent serialise the writers: a server whose
// group commit finds its log object taken (errLogTaken) drops the records
// of the group (and of any commit appended since), returns to its last
// durable state, applies the other server's objects and judges each
// commit of the group again on the new state (rebase.go): it commits
// unless it conflicts with the other server's commits, with 40001 or
// 23505 as a commit that conflicts with one of its own server's would.
// So are the commits appended while a catch-up applies another server's
// objects (they were checked without them), but not one that an earlier
// group commit put (DB.epochEnds). Each server's records carry a random
// origin (walRecord), so that two servers' objects never hold the same
// bytes.
//
// DB.CatchUp runs it (the session calls it before each statement outside
// a transaction block, so that the statement's catalog and snapshot hold
// every commit acknowledged before it began, on any server).
//
// One server at a time, the leader (lead.go), flushes, compacts, spills
// and checkpoints; every other server (objectHome.shared) keeps the rows
// it commits or applies in memory, and the log holds them, until it
// adopts the leader's next checkpoint (adopt.go). Segment files carry the
// name of the server that wrote them (DB.newSegmentPath), so a record of
// another server that lists a spilled segment under a name this server's
// state uses is damage: it fails the catch-up.
//
// Row IDs come from per-server counters too (advanced past every row
// applied): a transaction that inserted into a table another server
// inserted into after it (tableRT.foreignIns) may share row IDs with
// those rows, and its rows get new ones, at commit or, once a statement
// would see both, before it (rebase.go). Sequences hand out blocks
// claimed through the log (sequence.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"
	"golang.org/x/sync/errgroup"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage/objstore"
)

// errLogTaken is matched by the error of a group commit whose log object
// another server put first.
var errLogTaken = errors.New("the log object was put by another cairn server")

// errLostRace is the error of every commit of a group that lost the race
// for its log object: Tx.Commit rebases the commit (rebase.go), and
// returns it, with a detail, when it cannot.
var errLostRace = pgerr.New(pgerrcode.SerializationFailure,
	"could not serialize access: another cairn server on this storage committed first (retry the transaction)")

// epoch returns db.logEpoch.
func (db *DB) epoch() uint64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.logEpoch
}

// catchUp makes the published state hold every commit that another server
// put in the log before the call, unless a catch-up that started less
// than maxAge ago did (maxAge 0: always).
func (h *objectHome) catchUp(maxAge time.Duration) error {
	called := time.Now()
	if last := h.caughtUp.Load(); maxAge > 0 && called.Sub(time.Unix(0, last)) < maxAge {
		return nil
	}
	db := h.db
	db.syncMu.Lock()
	defer db.syncMu.Unlock()
	if h.caughtUp.Load() >= called.UnixNano() {
		return nil // one that started after this call finished meanwhile
	}
	started := time.Now()
	if err := h.catchUpSynced(); err != nil {
		return err
	}
	h.caughtUp.Store(started.UnixNano())
	return nil
}

// catchUpSynced applies the log objects past the last one this server
// knows (db.syncMu held). Commits of this server waiting for their group
// commit are put first: the put finds another server's object if there
// is one.
func (h *objectHome) catchUpSynced() error {
	db := h.db
	if err := db.syncLocked(); err != nil && !errors.Is(err, errLostRace) {
		return err // (a lost race caught up already)
	}
	ctx := context.Background()
	readCkpt := h.checkpointDue()
	for {
		db.mu.Lock()
		l, ok := db.wal.(*objLog)
		db.mu.Unlock()
		if !ok {
			return errClosed()
		}
		n := l.next
		var body []byte
		var ckpt *storeCheckpoint
		var g errgroup.Group
		g.Go(func() error {
			b, err := h.getAll(ctx, logKey(n))
			if errors.Is(err, objstore.ErrNotExist) {
				return nil
			}
			body = b
			return err
		})
		if readCkpt {
			readCkpt = false
			g.Go(func() error {
				read := time.Now()
				b, err := h.getAll(ctx, storeCheckpointKey)
				if errors.Is(err, objstore.ErrNotExist) {
					h.ckptReadAt.Store(read.UnixNano())
					return nil
				}
				if err != nil {
					return err
				}
				ckpt = &storeCheckpoint{}
				if err := json.Unmarshal(b, ckpt); err != nil {
					return err
				}
				h.ckptReadAt.Store(read.UnixNano())
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return fmt.Errorf("catching up with the log: %w", err)
		}
		if ckpt != nil && ckpt.Seq > h.seenSeq.Load() {
			h.seenSeq.Store(ckpt.Seq) // adopted in the background (lead.go)
		}
		if body == nil {
			if ckpt != nil && ckpt.LogFrom > n {
				return pgerr.New(pgerrcode.ObjectNotInPrerequisiteState,
					"this server fell behind the log: checkpoint %d starts at log object %d and log object %d is gone; restart the server to reload the checkpoint",
					ckpt.Seq, ckpt.LogFrom, n)
			}
			return nil
		}
		if err := h.applyObject(n, body); err != nil {
			return err
		}
	}
}

// applyObject applies the records of log object n, which another server
// put (db.syncMu held).
func (h *objectHome) applyObject(n int, body []byte) error {
	db := h.db
	recs, err := decodeLogObject(n, body)
	if err != nil {
		return err
	}
	spilled := false
	for _, rec := range recs {
		for _, op := range rec.tables {
			spilled = spilled || len(op.segments) > 0
		}
	}
	if spilled {
		// The segments (and sidecars) the other server spilled: fetched
		// from the store when first read.
		if err := h.listTables(context.Background()); err != nil {
			return err
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if pending := db.lastLSN - db.durableLSN.Load(); pending > 0 {
		// Commits appended since the catch-up put this server's: they
		// were checked against a state without this object, and their
		// group commit would find it taken. They lose the race now.
		if err := db.loseRaceLocked(); err != nil {
			return err
		}
		db.log.Info("commits appended during a catch-up lost the log to another cairn server: they are rebased onto its commits or fail with 40001", "records", pending)
	}
	var dropped []*tableRT
	for _, rec := range recs {
		d, err := db.applyRecordLocked(rec)
		if err != nil {
			db.broken = fmt.Errorf("applying log object %s of another server: %w", logKey(n), err)
			return db.broken
		}
		dropped = append(dropped, d...)
	}
	db.durableLSN.Store(db.lastLSN)
	head := db.head.Load()
	db.publishLocked(head)
	for _, rt := range dropped {
		db.retire(rt.dir, head.version, true)
	}
	l := db.wal.(*objLog)
	l.next = n + 1
	// The leader checkpoints as the log grows, whoever wrote it.
	l.objects++
	db.walBytes += int64(len(body))
	if l.objects >= logCheckpointObjects || db.walBytes >= db.opts.WALCheckpointBytes {
		db.requestCheckpoint()
	}
	return nil
}

// checkpointPoll is how often a catch-up reads the checkpoint object to
// learn of a newer checkpoint to adopt.
const checkpointPoll = time.Second

// checkpointDue reports whether a catch-up reads the checkpoint object
// beside the next log object: at most every checkpointPoll (tend adopts
// what it finds) — unless a missing log object could be one a checkpoint
// deleted rather than one not yet written. Only a log object written after
// this server's last catch-up can be the next one, and a checkpoint deletes
// a log object StoreRetention after first finding it unreferenced, so
// within half the retention of the last catch-up (the other half for
// clocks running at different rates) a missing next object is not yet
// written. A negative retention deletes at once: always read.
func (h *objectHome) checkpointDue() bool {
	now := time.Now()
	retention := h.db.opts.StoreRetention
	return retention <= 0 ||
		now.Sub(time.Unix(0, h.ckptReadAt.Load())) >= checkpointPoll ||
		now.Sub(time.Unix(0, h.caughtUp.Load())) >= retention/2
}

// decodeLogObject returns the records of log object n.
func decodeLogObject(n int, body []byte) ([]*walRecord, error) {
	var recs []*walRecord
	_, torn, err := readWALFrames(bytes.NewReader(body), int64(len(body)), func(p []byte) error {
		rec, err := decodeWALRecord(p)
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	})
	if err == nil && torn {
		err = errors.New("it does not hold whole records")
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt log object %s: %w", logKey(n), err)
	}
	return recs, nil
}

// listTables records every object under tables/ the store holds (the
// files of other servers' spills and checkpoints), for them to be
// fetched when first read.
func (h *objectHome) listTables(ctx context.Context) error {
	for info, err := range h.store.List(ctx, storeTablesPrefix) {
		if err != nil {
			return fmt.Errorf("listing the object store: %w", err)
		}
		h.mu.Lock()
		h.stored[info.Key] = info.Size
		h.mu.Unlock()
	}
	return nil
}

// applyRecordLocked applies a commit record of another server to the head
// (db.mu held), as the commit did on that server: the catalog, the
// tables' changes (nextStateLocked), the unique indexes, the conflict
// history and the sequences. It returns the runtimes of the tables the
// record dropped.
func (db *DB) applyRecordLocked(rec *walRecord) ([]*tableRT, error) {
	if rec.lsn <= db.lastLSN {
		return nil, fmt.Errorf("record %d does not follow record %d", rec.lsn, db.lastLSN)
	}
	head := db.head.Load()
	newCat := head.cat
	if rec.catalog != nil {
		c, err := unmarshalCatalog(rec.catalog)
		if err != nil {
			return nil, fmt.Errorf("catalog in record %d: %w", rec.lsn, err)
		}
		newCat = c
		if next := max(c.NextID, db.nextTableID.Load()); next > db.nextTableID.Load() {
			db.nextTableID.Store(next)
		}
	}
	var ops []walTableOp
	for _, op := range rec.tables {
		def := newCat.Tables[op.id]
		if def == nil {
			continue
		}
		rt := db.rt(op.id, def.Schema)
		var mine []string
		if ts := head.tables[op.id]; ts != nil {
			mine = segmentNames(ts.segments)
		}
		for _, seg := range op.segments {
			if slices.Contains(mine, seg.name) {
				return nil, fmt.Errorf("record %d lists segment %s of table %d, a file of this server's own: restart the server", rec.lsn, seg.name, op.id)
			}
			seg.path = filepath.Join(rt.dir, seg.name)
			// A file of that name in the cache is not the store's (one
			// this server wrote and dropped): fetched again on first read.
			if err := removeIfExists(seg.path); err != nil {
				return nil, err
			}
			seg.remote = db.home.fetcher()
			rt.countPastSegment(seg)
		}
		for _, b := range op.inserts {
			rt.countPastRows(b)
		}
		ops = append(ops, op)
	}
	next, dropped := db.nextStateLocked(head, rec.lsn, newCat, ops)

	// Unique indexes: new constraints get one built from the new state,
	// the others take the keys of the inserted rows (a read-only opening
	// has none: readonly.go).
	db.idxMu.Lock()
	built := map[*uniqueIndex]bool{}
	if newCat != head.cat && !db.readOnly() {
		for id, def := range newCat.Tables {
			rt := db.rt(id, def.Schema)
			want := map[string]bool{}
			for _, con := range constraintsOf(newCat, def) {
				want[con.sig()] = true
				if rt.uniq[con.sig()] != nil {
					continue
				}
				ix, err := db.buildIndex(next, id, def, con, nil)
				if err != nil {
					db.idxMu.Unlock()
					return nil, err
				}
				rt.uniq[con.sig()] = ix
				built[ix] = true
			}
			for sig := range rt.uniq {
				if !want[sig] {
					delete(rt.uniq, sig)
				}
			}
		}
	}
	for _, op := range ops {
		rt, def := db.lookupRT(op.id), newCat.Tables[op.id]
		added := &tableState{tail: op.inserts, segments: op.segments}
		for _, ix := range rt.uniq {
			if built[ix] {
				continue
			}
			if op.truncate {
				ix.m = newKeyMap()
			}
			if len(op.inserts) == 0 && len(op.segments) == 0 {
				continue
			}
			err := db.scanKeys(next, added, def, ix.con, nil, func(k string, rid int64, _ []arrow.Array, _ []int, _ int) error {
				ix.m.set(k, rid)
				return nil
			})
			if err != nil {
				db.idxMu.Unlock()
				return nil, fmt.Errorf("indexing the rows of record %d: %w", rec.lsn, err)
			}
		}
	}
	db.setHead(next)
	db.idxMu.Unlock()

	minLSN := db.minPinnedLSN()
	refs := map[uint64][]fkRef{}
	for _, op := range ops {
		rt := db.lookupRT(op.id)
		if op.deletes != nil && !op.deletes.IsEmpty() {
			rt.delLog = append(rt.delLog, delLogEntry{lsn: rec.lsn, rows: op.deletes})
		}
		if len(op.inserts) > 0 || len(op.segments) > 0 {
			rt.foreignIns = rec.lsn
		}
		pruneDelLog(rt, minLSN)
		pruneRefLog(rt, minLSN)
		if len(op.refs) > 0 {
			refs[op.id] = op.refs
		}
	}
	db.logRefsLocked(rec.lsn, refs, minLSN)
	db.setSeqsLocked(newCat, head.cat, rec.seqs)
	db.lastLSN = rec.lsn
	return dropped, nil
}

// loseRaceLocked undoes the commits of this server that are not durable,
// after their group commit found its log object taken (db.syncMu and
// db.mu held): their records go, the head returns to the published state,
// the unique indexes take back what the lost commits set (keyUndo) and
// the conflict history forgets them, and every commit waiting for the
// group gets errLostRace (logEpoch; one a group commit put before,
// epochEnds, succeeds), which Tx.Commit rebases.
func (db *DB) loseRaceLocked() error {
	if pub, durable := db.published.Load().lsn, db.durableLSN.Load(); pub != durable {
		// Returning to the published state would drop acknowledged
		// commits: a restart replays them from the log.
		db.broken = fmt.Errorf("the published state (LSN %d) lags the durable log (LSN %d) after a lost commit race: restart the server", pub, durable)
		return db.broken
	}
	if l, ok := db.wal.(*objLog); ok {
		l.drop()
	}
	db.epochEnds[db.logEpoch%uint64(len(db.epochEnds))] = db.durableLSN.Load()
	db.logEpoch++
	// The published state again, under a version past every state of
	// the lost commits (files retired meanwhile name those versions).
	head := db.head.Load()
	pub := db.published.Load().derive()
	pub.version = head.version + 1
	// Its tails without spare capacity: the lost commits' tails extended
	// the same arrays in place (appendTail), and a flush may still read
	// those states; the commits appended from now on must not write
	// over them.
	for id, ts := range pub.tables {
		if len(ts.tail) < cap(ts.tail) {
			ts = ts.clone()
			ts.tail = slices.Clip(ts.tail)
			pub.tables[id] = ts
		}
	}
	db.setHead(pub)
	db.publishLocked(pub)
	db.lastLSN = db.durableLSN.Load()
	db.rtMu.Lock()
	for id := range db.rts {
		if pub.cat.Tables[id] == nil {
			delete(db.rts, id)
		}
	}
	db.rtMu.Unlock()
	db.idxMu.Lock()
	defer db.idxMu.Unlock()
	fresh := map[uint64]bool{}
	for id, def := range pub.cat.Tables {
		rt := db.lookupRT(id)
		if rt == nil {
			// A table a lost commit dropped: its runtime again, with
			// counters past what its state holds, and its indexes
			// rebuilt.
			rt = db.rt(id, def.Schema)
			if ts := pub.tables[id]; ts != nil {
				for _, seg := range ts.segments {
					rt.countPastSegment(seg)
				}
				for _, b := range ts.tail {
					rt.countPastRows(b)
				}
			}
			fresh[id] = true
		}
		keep := rt.delLog[:0:0]
		for _, e := range rt.delLog {
			if e.lsn <= pub.lsn {
				keep = append(keep, e)
			}
		}
		rt.delLog = keep
		keepRefs := rt.refLog[:0:0]
		for _, e := range rt.refLog {
			if e.lsn <= pub.lsn {
				keepRefs = append(keepRefs, e)
			}
		}
		rt.refLog = keepRefs
	}
	if err := db.undoKeysLocked(head, pub, fresh); err != nil {
		db.broken = err
		return err
	}
	return nil
}

// unsent returns the records appended since the last put, which the next
// sync puts (db.mu held).
func (l *objLog) unsent() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.buf)
}

// drop forgets the records appended since the last put (db.mu held).
func (l *objLog) drop() {
	l.mu.Lock()
	l.buf = nil
	l.mu.Unlock()
}

// shared: another server leads (or none does): this one leaves flushes,
// compactions, spills and checkpoints to it (lead.go).
func (h *objectHome) shared() bool { return !h.leads() }

// countPastSegment advances rt's segment number and row ID counters past
// segment seg (one a replayed or applied record lists).
func (rt *tableRT) countPastSegment(seg *segment) {
	var n int64
	if _, err := fmt.Sscanf(seg.name, "seg-%d.parquet", &n); err == nil {
		countPast(&rt.nextSeg, n)
	}
	countPast(&rt.nextRowID, seg.maxRow)
}

// countPastRows advances rt's row ID counter past the rows of b.
func (rt *tableRT) countPastRows(b *tailBatch) {
	for _, r := range b.rowIDs.Int64Values() {
		countPast(&rt.nextRowID, r)
	}
}

// countPast advances counter c past v. A compare-and-swap: transactions
// draw row IDs from the counter meanwhile (Tx.Insert), and it must never
// go back to IDs one of them drew.
func countPast(c *atomic.Int64, v int64) {
	for {
		cur := c.Load()
		if v < cur || c.CompareAndSwap(cur, v+1) {
			return
		}
	}
}
