package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/cairn-db/cairn/sql/catalog"
)

// Background work: a flush writes a table's tail to a new segment and
// rewrites its manifest; a compaction merges small segments into one and
// drops deleted rows. Both work from the published (durable) state, write
// their files completely (tmp, fsync, rename, manifest) and then swap the
// result into the head under DB.mu; readers of older states keep their
// files until they are done with them.

func (db *DB) signal() {
	select {
	case db.work <- struct{}{}:
	default:
	}
}

// requestFlush asks the worker to flush table id (if due) and compact it
// (if it has too many segments).
func (db *DB) requestFlush(id uint64) {
	db.workMu.Lock()
	db.pendingFlush[id] = true
	db.workMu.Unlock()
	db.signal()
}

// requestCheckpoint asks the worker for a checkpoint.
func (db *DB) requestCheckpoint() {
	db.workMu.Lock()
	db.pendingCkpt = true
	db.workMu.Unlock()
	db.signal()
}

// worker runs flushes, compactions and checkpoints until Close. A step
// that fails — with an error or a Go panic, which is recovered and
// logged with its stack — is retried later with a growing delay
// (retryDelay) while the server goes on: the rows stay in the tail and
// the write-ahead log until a flush succeeds, so nothing is lost, and a
// step that keeps failing neither crashes the process nor spins. The
// locked regions of the steps only swap states; their work (encoding,
// writing files) runs outside the locks, so a panic there leaves none
// held.
func (db *DB) worker() {
	defer db.wg.Done()
	// failures counts the consecutive failed attempts per table (flush or
	// compaction), and of checkpoints; only this goroutine uses them.
	failures := map[uint64]int{}
	ckptFailures := 0
	for {
		select {
		case <-db.quit:
			return
		case <-db.work:
		}
		for {
			db.workMu.Lock()
			ids := make([]uint64, 0, len(db.pendingFlush))
			for id := range db.pendingFlush {
				ids = append(ids, id)
			}
			clear(db.pendingFlush)
			ckpt := db.pendingCkpt
			db.pendingCkpt = false
			db.workMu.Unlock()
			if len(ids) == 0 && !ckpt {
				break
			}
			for _, id := range ids {
				select {
				case <-db.quit:
					return
				default:
				}
				err := db.backgroundStep("flush", id, func() error { return db.flushTable(id, false) })
				if err == nil {
					err = db.backgroundStep("compaction", id, func() error { return db.compactTable(id) })
				}
				if err != nil {
					failures[id]++
					time.AfterFunc(retryDelay(failures[id]), func() { db.requestFlush(id) })
					continue
				}
				delete(failures, id)
			}
			if ckpt {
				if err := db.backgroundStep("checkpoint", 0, func() error { return db.checkpoint(false) }); err != nil {
					ckptFailures++
					time.AfterFunc(retryDelay(ckptFailures), db.requestCheckpoint)
				} else {
					ckptFailures = 0
				}
			}
		}
	}
}

// backgroundStep runs one step of the worker (table 0: not a table's),
// logging its failure; a panic becomes its error.
func (db *DB) backgroundStep(what string, table uint64, step func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			db.log.Error(what+" panicked; retrying later", "table", table, "panic", r, "stack", string(debug.Stack()))
		} else if err != nil {
			db.log.Error(what+" failed; retrying later", "table", table, "err", err)
		}
	}()
	if fault := flushFault.Load(); fault != nil && what == "flush" {
		(*fault)(db, table)
	}
	return step()
}

// flushFault, when set (by a test), is called before each background
// flush of a table: the test makes it panic to check that the worker
// survives and retries.
var flushFault atomic.Pointer[func(db *DB, table uint64)]

// retryDelay is the wait before the next attempt after n consecutive
// failures: 100ms doubling up to a minute.
func retryDelay(n int) time.Duration {
	const first, most = 100 * time.Millisecond, time.Minute
	d := first
	for i := 1; i < n && d < most; i++ {
		d *= 2
	}
	return min(d, most)
}

// segmentSpecs lists the columns of def for a segment.
func segmentSpecs(def *catalog.TableDef) []segColumnSpec {
	specs := make([]segColumnSpec, len(def.Columns))
	for i, c := range def.Columns {
		specs[i] = segColumnSpec{id: c.ID, name: c.Name, typ: c.Type.Arrow()}
	}
	return specs
}

// tailChunk lays a tail batch out as the columns of specs (NULLs where
// the batch lacks a column).
func tailChunk(b *tailBatch, specs []segColumnSpec) segmentChunk {
	c := segmentChunk{cols: make([]arrow.Array, len(specs)), rowIDs: b.rowIDs}
	for i, s := range specs {
		if a := b.column(s.id); a != nil && arrow.TypeEqual(a.DataType(), s.typ) {
			c.cols[i] = a
		} else {
			c.cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, s.typ, b.n)
		}
	}
	return c
}

// newSegmentPath reserves the next segment file name of rt. On an object
// store the name carries this server's origin (seg-000042-<origin>.parquet),
// so that no two servers, nor a leader that lost its lease mid-flush and
// the one that took it over, ever write files of one name (lead.go).
func (db *DB) newSegmentPath(rt *tableRT) string {
	n := rt.nextSeg.Add(1) - 1
	if h, ok := db.home.(*objectHome); ok {
		return filepath.Join(rt.dir, fmt.Sprintf("seg-%06d-%016x.parquet", n, h.origin))
	}
	return filepath.Join(rt.dir, fmt.Sprintf("seg-%06d.parquet", n))
}

// flushTable writes table id's durable tail batches to a segment when the
// tail reached FlushRows (or, with force, whenever there are any) and
// rewrites the manifest when that changed anything, when the manifest
// still lists files the table no longer uses (after TRUNCATE), or, with
// force, when the manifest is older than the table's last durable change.
//
// It works from the head's segments and tail (which earlier flushes
// already updated, even if not yet published) but takes only what is
// durable: tail batches and deleted row IDs of the published state.
func (db *DB) flushTable(id uint64, force bool) error {
	rt := db.lookupRT(id)
	if rt == nil || db.home.shared() {
		return nil
	}
	rt.flushMu.Lock()
	defer rt.flushMu.Unlock()
	// The pin keeps the table's directory while the flush writes into it:
	// a DROP TABLE committed meanwhile retires the directory, and it goes
	// once no older state is pinned.
	_, unpin := db.pinPublished()
	defer unpin()
	db.mu.Lock()
	hs, ps := db.head.Load(), db.published.Load()
	hts, pts, def := hs.tables[id], ps.tables[id], ps.cat.Tables[id]
	if hts == nil || pts == nil || def == nil || hts.epoch != pts.epoch {
		db.mu.Unlock()
		return nil
	}
	// The durable prefix of the tail; once taken, commits no longer merge
	// into it.
	k, rows := 0, int64(0)
	for k < len(hts.tail) && hts.tail[k].lsn <= ps.lsn {
		rows += int64(hts.tail[k].n)
		k++
	}
	// A commit whose rows span several batches is flushed whole or not at
	// all: the manifest's LSN cannot cover half of a record.
	for k > 0 && k < len(hts.tail) && hts.tail[k].minLSN <= hts.tail[k-1].lsn {
		k--
		rows -= int64(hts.tail[k].n)
	}
	needSeg := rows > 0 && (force || rows >= int64(db.opts.FlushRows))
	if needSeg {
		for _, b := range hts.tail[:k] {
			b.sealed = true
		}
	} else {
		k, rows = 0, 0
	}
	db.mu.Unlock()
	names := segmentNames(hts.segments)
	stale := false
	for _, f := range rt.manifestFiles {
		if !slices.Contains(names, f) {
			stale = true
		}
	}
	// The manifest covers every record up to the published LSN, except
	// inserts still in the tail.
	lsn := ps.lsn
	if k < len(hts.tail) && hts.tail[k].minLSN <= lsn {
		lsn = hts.tail[k].minLSN - 1
	}
	lsn = max(lsn, rt.manifestLSN)
	// It lists the segments of commits (spills) it covers: recovery
	// replays the records past its LSN, and adds theirs back.
	segs := durableSegments(hts.segments, lsn)
	unlisted := false
	for _, s := range segs {
		if !slices.Contains(rt.manifestFiles, s.name) {
			unlisted = true
		}
	}
	if !needSeg && !stale && !unlisted && !(force && pts.lastMod > rt.manifestLSN) {
		return nil
	}
	var newSeg *segment
	if needSeg {
		if err := mkdirAllDurable(rt.dir); err != nil {
			return err
		}
		specs := segmentSpecs(def)
		sw, err := newSegmentWriter(db.newSegmentPath(rt), specs)
		if err != nil {
			return err
		}
		sw.side, sw.remote = db.newSegSide(def, specs, db.cache.budget/4), db.home.fetcher()
		for _, b := range hts.tail[:k] {
			if err := sw.write(tailChunk(b, specs)); err != nil {
				sw.abort()
				return fmt.Errorf("writing %s: %w", sw.path, err)
			}
		}
		if newSeg, err = sw.finish(); err != nil {
			return fmt.Errorf("writing %s: %w", sw.path, err)
		}
		segs = append(segs, newSeg)
	}
	if err := db.writeTableManifest(rt, lsn, segs, pts.deleted.union()); err != nil {
		return err
	}

	db.mu.Lock()
	if newSeg != nil {
		db.swapTableLocked(id, func(cts *tableState) *tableState {
			if cts == nil || cts.epoch != hts.epoch || len(cts.tail) < k || !slices.Equal(cts.tail[:k], hts.tail[:k]) {
				return nil
			}
			nts := cts.clone()
			// Commits may have added segments since (flushMu keeps the
			// others from changing them).
			nts.segments = append(slices.Clip(cts.segments), newSeg)
			nts.tail = cts.tail[k:]
			nts.tailRows = cts.tailRows - rows
			return nts
		})
	}
	version := db.head.Load().version
	db.mu.Unlock()
	db.retireUnlisted(rt, version)
	return nil
}

// swapTableLocked puts what change makes of table id's state (nil: the
// state moved on, and the flush or compaction is dropped) into the head,
// into the state a group commit in flight publishes next (db.syncing) and,
// on an object store when the head holds commits not yet durable, into
// the published state too: a group commit that loses the log to another
// server (loseRaceLocked) returns the head to the published state, which
// must not bring back the tail rows or segments the flush or compaction
// replaced (their files are retired), and the group commit in flight
// must publish its commits with the swap (a state without it would be
// older than the published one, and not published: a lost race after it
// would drop acknowledged commits). db.mu held; it reports whether it
// swapped. The new states' versions follow their LSNs: published, in
// flight, head.
func (db *DB) swapTableLocked(id uint64, change func(*tableState) *tableState) bool {
	cur, pub, inflight := db.head.Load(), db.published.Load(), db.syncing
	nh := change(cur.tables[id])
	if nh == nil {
		return false
	}
	var np, ns *tableState
	_, obj := db.home.(*objectHome)
	pubToo := obj && cur.lsn > db.durableLSN.Load() && pub != cur
	if pubToo {
		if np = change(pub.tables[id]); np == nil {
			return false
		}
	}
	inflightToo := inflight != nil && inflight != cur
	if inflightToo {
		if ns = change(inflight.tables[id]); ns == nil {
			return false
		}
	}
	version := cur.version
	swapped := func(s *dbState, ts *tableState) *dbState {
		n := s.derive()
		version++
		n.version = version
		n.tables[id] = ts
		return n
	}
	if pubToo {
		db.publishLocked(swapped(pub, np))
	}
	if inflightToo {
		db.syncing = swapped(inflight, ns)
	}
	next := swapped(cur, nh)
	if inflight == cur {
		db.syncing = next
	}
	db.setHead(next)
	db.publishHeadIfDurable()
	return true
}

// durableSegments returns the segments of segs a manifest of LSN lsn
// lists: all but those of commits after lsn.
func durableSegments(segs []*segment, lsn uint64) []*segment {
	out := make([]*segment, 0, len(segs)+1)
	for _, s := range segs {
		if s.lsn <= lsn {
			out = append(out, s)
		}
	}
	return out
}

// writeTableManifest writes rt's manifest listing segs and records what it
// lists (flushMu held).
func (db *DB) writeTableManifest(rt *tableRT, lsn uint64, segs []*segment, deleted *roaring64.Bitmap) error {
	m, err := manifestOf(rt.id, lsn, rt.nextRowID.Load(), int(rt.nextSeg.Load()), segs, deleted)
	if err != nil {
		return err
	}
	if err := writeManifest(rt.dir, m); err != nil {
		return err
	}
	prev := rt.manifestFiles
	rt.manifestFiles = segmentNames(segs)
	rt.manifestLSN = lsn
	rt.retired = append(rt.retired, prev...)
	return nil
}

// mergeRows is the most rows compaction merges into one segment: 16
// flushes' worth, 1M rows by default. A segment of at least half of it is
// full, and stays as it is unless a quarter of its rows are deleted: a bulk load
// of 10M rows becomes about ten segments, not one, so that each segment's
// vector index is built on its own in minutes with bounded memory, and a
// search walks one graph per million rows.
func (db *DB) mergeRows() int64 { return 16 * int64(db.opts.FlushRows) }

// mergePlan chooses the segments (by their row counts, in table order, and
// whether a committed transaction spilled them) that one compaction merges:
// when more than smallSegments of them are small (below limit/2 rows),
// or a transaction spilled two or more small ones, the small ones, smallest
// first, as many as the merged segment holds within limit rows (the two
// smallest always fit). more reports that, after this merge, more than
// smallSegments small segments are left: another round has work.
func mergePlan(rows []int64, spilled []bool, limit int64) (chosen []bool, more bool) {
	chosen = make([]bool, len(rows))
	var small []int
	spills := 0
	for i, n := range rows {
		if n < limit/2 {
			small = append(small, i)
			if spilled[i] {
				spills++
			}
		}
	}
	if len(small) <= smallSegments && spills < 2 {
		return chosen, false
	}
	sort.SliceStable(small, func(a, b int) bool { return rows[small[a]] < rows[small[b]] })
	take, sum := 0, int64(0)
	for _, i := range small {
		if take >= 2 && sum+rows[i] > limit {
			break
		}
		chosen[i] = true
		take++
		sum += rows[i]
	}
	left := len(small) - take
	if sum < limit/2 {
		left++ // the merged segment is small too
	}
	return chosen, left > smallSegments
}

// wantsMerge reports whether compaction would merge some of ts's segments
// (a transaction's spills aside).
func (db *DB) wantsMerge(ts *tableState) bool {
	chosen, _ := mergePlan(ts.segmentRows(), make([]bool, len(ts.segments)), db.mergeRows())
	return slices.Contains(chosen, true)
}

// retireUnlisted schedules the removal of files an older manifest listed
// and the current one does not (flushMu held).
func (db *DB) retireUnlisted(rt *tableRT, version uint64) {
	for _, f := range rt.retired {
		if !slices.Contains(rt.manifestFiles, f) {
			db.retire(filepath.Join(rt.dir, f), version, false)
		}
	}
	rt.retired = rt.retired[:0]
}

func segmentNames(segs []*segment) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.name
	}
	return out
}

// testCompactBatch, when set by a test, runs before compactTable merges
// each batch of rows it reads or copies a segment's row groups.
var testCompactBatch func()

// sameTable reports whether table id is in the head state with the given
// epoch: not dropped or truncated since a state with that epoch.
func (db *DB) sameTable(id, epoch uint64) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	ts := db.head.Load().tables[id]
	return ts != nil && ts.epoch == epoch
}

// compactTable merges some of table id's small segments into one, as
// mergePlan chooses them, with the segments whose rows are mostly deleted,
// dropping deleted rows (and their entries in the deleted set and the
// unique indexes). When more small segments remain than one merge takes (a
// bulk load's many spilled segments), it asks the worker for another round.
func (db *DB) compactTable(id uint64) error {
	// Taken first, so that a table dropped meanwhile or a server that
	// does not write segments keeps no marks (a merge is only an
	// optimisation: one that cannot run now is not retried).
	db.workMu.Lock()
	spilled := db.spillMerges[id]
	delete(db.spillMerges, id)
	db.workMu.Unlock()
	// The spilled segments this round does not merge: the next round's
	// when there is one (more), otherwise their indexes are built now.
	unmerged, more := spilled, false
	defer func() {
		if more {
			db.workMu.Lock()
			db.spillMerges[id] = append(db.spillMerges[id], unmerged...)
			db.workMu.Unlock()
		} else {
			db.buildSpilledSidecars(id, unmerged)
		}
	}()
	rt := db.lookupRT(id)
	if rt == nil || db.home.shared() {
		return nil
	}
	rt.flushMu.Lock()
	defer rt.flushMu.Unlock()
	snap, unpin := db.pinPublished()
	defer unpin()
	db.mu.Lock()
	hts := db.head.Load().tables[id]
	db.mu.Unlock()
	pts, def := snap.tables[id], snap.cat.Tables[id]
	if hts == nil || pts == nil || def == nil || hts.epoch != pts.epoch {
		return nil
	}
	if !slices.Equal(segmentNames(hts.segments), rt.manifestFiles) {
		return nil // a truncate is not yet reflected in the manifest
	}
	// Segments as in the head (flushes update it first), deleted row IDs
	// as durable.
	ts := &tableState{segments: hts.segments, deleted: pts.deleted, epoch: hts.epoch}
	isSpilled := make([]bool, len(ts.segments))
	for i, seg := range ts.segments {
		isSpilled[i] = slices.Contains(spilled, seg.path)
	}
	var chosen []bool
	chosen, more = mergePlan(ts.segmentRows(), isSpilled, db.mergeRows())
	if more {
		defer db.requestFlush(id) // the worker merges the next ones
	}
	// Rewrite the segments whose rows are mostly deleted, so that disk
	// use follows the live data.
	for i, seg := range ts.segments {
		if !chosen[i] && db.mostlyDeleted(seg, ts.deleted) {
			chosen[i] = true
		}
	}
	if !slices.Contains(chosen, true) {
		return nil
	}

	specs := segmentSpecs(def)
	cons := constraintsOf(snap.cat, def)
	type droppedKey struct {
		sig string
		key string
		row int64
	}
	var droppedKeys []droppedKey
	dropped := roaring64.New()
	if err := mkdirAllDurable(rt.dir); err != nil {
		return err
	}
	sw, err := newSegmentWriter(db.newSegmentPath(rt), specs)
	if err != nil {
		return err
	}
	sw.side, sw.remote = db.newSegSide(def, specs, db.cache.budget/16), db.home.fetcher()
	positions := make([]int, len(def.Columns))
	for i := range positions {
		positions[i] = i
	}
	colIDs := make([]int, len(specs))
	for i, s := range specs {
		colIDs[i] = s.id
	}
	var keybuf []byte
	// proceed runs before each batch of rows is merged and each segment
	// copied: false when the table was dropped or truncated meanwhile (the
	// merge would be thrown away: a bulk load into a staging table
	// dropped right after it cost a whole merge).
	proceed := func() bool {
		if testCompactBatch != nil {
			testCompactBatch()
		}
		return db.sameTable(id, ts.epoch)
	}
	for i, seg := range ts.segments {
		if !chosen[i] {
			continue
		}
		if noneDeleted(seg, ts.deleted) {
			if !proceed() {
				sw.abort()
				return nil
			}
			if copied, err := db.copyIntoMerge(snap, def, sw, seg); err != nil {
				sw.abort()
				return err
			} else if copied {
				continue
			}
		}
		// Read every row (deleted ones too, to drop their index entries).
		r := db.newScan(context.Background(), snap, &tableState{segments: []*segment{seg}}, def, positions, true, nil, nil, nil)
		r.uncached = true
		for r.Next() {
			if !proceed() {
				r.Release()
				sw.abort()
				return nil
			}
			rec := r.Record()
			cols := rec.Columns()
			ids := cols[len(cols)-1].(*array.Int64)
			runs, kept, all := keptRuns(ids.Int64Values(), ts.deleted.layers()...)
			if !all {
				keepSet := make([]bool, len(ids.Int64Values()))
				for _, run := range runs {
					for k := run.lo; k < run.hi; k++ {
						keepSet[k] = true
					}
				}
				// The key arrays of each constraint (computed ones
				// computed once for the record).
				keyArrs := make([][]arrow.Array, len(cons))
				keyPos := make([][]int, len(cons))
				for ci, con := range cons {
					kc, pos, ok, err := keyColumns(con, colIDs, cols[:len(cols)-1])
					if err != nil {
						r.Release()
						sw.abort()
						return err
					}
					if ok {
						keyArrs[ci], keyPos[ci] = kc, pos
					}
				}
				for k, rid := range ids.Int64Values() {
					if keepSet[k] {
						continue
					}
					dropped.Add(uint64(rid))
					for ci, con := range cons {
						if keyPos[ci] == nil {
							continue
						}
						var ok2 bool
						keybuf, ok2 = con.rowKey(keybuf, keyTypes(def, con), keyArrs[ci], keyPos[ci], k)
						if ok2 {
							droppedKeys = append(droppedKeys, droppedKey{con.sig(), string(keybuf), rid})
						}
					}
				}
			}
			if kept == 0 {
				continue
			}
			chunk := segmentChunk{cols: make([]arrow.Array, len(specs))}
			for c := range specs {
				a, err := takeRuns(cols[c], runs)
				if err != nil {
					r.Release()
					sw.abort()
					return err
				}
				chunk.cols[c] = a
			}
			a, err := takeRuns(ids, runs)
			if err != nil {
				r.Release()
				sw.abort()
				return err
			}
			chunk.rowIDs = a.(*array.Int64)
			err = sw.write(chunk)
			releaseAll(chunk.cols)
			chunk.rowIDs.Release()
			if err != nil {
				r.Release()
				sw.abort()
				return fmt.Errorf("writing %s: %w", sw.path, err)
			}
		}
		err := r.Err()
		r.Release()
		if err != nil {
			sw.abort()
			return err
		}
	}
	merged, err := sw.finish()
	if err != nil {
		return fmt.Errorf("writing %s: %w", sw.path, err)
	}
	var segs []*segment
	placed := false
	for i, s := range ts.segments {
		if !chosen[i] {
			segs = append(segs, s)
		} else if !placed {
			if merged.rows > 0 {
				segs = append(segs, merged)
			}
			placed = true
		}
	}
	if err := db.writeTableManifest(rt, rt.manifestLSN, segs, roaring64.AndNot(ts.deleted.union(), dropped)); err != nil {
		return err
	}
	if merged.rows == 0 {
		rt.retired = append(rt.retired, merged.name)
	}

	db.mu.Lock()
	db.idxMu.Lock()
	// Commits may have appended segments since; nothing else changed them.
	swapped := db.swapTableLocked(id, func(cts *tableState) *tableState {
		if cts == nil || cts.epoch != ts.epoch || len(cts.segments) < len(ts.segments) ||
			!slices.Equal(segmentNames(cts.segments[:len(ts.segments)]), segmentNames(ts.segments)) {
			return nil
		}
		nts := cts.clone()
		nts.segments = slices.Concat(segs, cts.segments[len(ts.segments):])
		nts.deleted = cts.deleted.without(dropped)
		return nts
	})
	if swapped {
		unmerged = nil
		for i, seg := range ts.segments {
			if chosen[i] {
				seg.x.merged.Store(true)
			} else if isSpilled[i] {
				unmerged = append(unmerged, seg.path)
			}
		}
		for _, dk := range droppedKeys {
			if ix := rt.uniq[dk.sig]; ix != nil {
				if r, hit := ix.m.get(dk.key); hit && r == dk.row {
					ix.m.del(dk.key)
				}
			}
		}
	}
	db.idxMu.Unlock()
	version := db.head.Load().version
	db.mu.Unlock()
	db.retireUnlisted(rt, version)
	db.counters.compactions.Add(1)
	db.log.Debug("compacted", "table", id, "segments", len(chosen), "rows", merged.rows, "dropped", dropped.GetCardinality())
	return nil
}
