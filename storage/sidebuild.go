package storage

import (
	"fmt"
	"slices"
)

// Text and trigram indexes of spilled segments. A transaction's spills
// are written without them (newSpillSide): building them was a tenth of a
// bulk load's CPU, spent while the statement waited. Once the commit has
// installed the segments, one background goroutine builds their indexes
// (of segments the next compaction merges, once it has run and only those
// it left: the merged segment gets its own as it is written), a segment
// at a time, and writes their files, as a search would
// (segText, segTrigramIndex). Nothing depends on whether it ran: a search
// that meets a segment without its index (the build has not come to it,
// or the server restarted before it did: no file says it exists) builds
// it then, once, and writes the file; the two never build the same
// segment's index twice (segExtra.textMu, trgmMu).

// sidecarBuild is a queued build of one spilled segment's indexes.
type sidecarBuild struct {
	table uint64
	seg   *segment
}

// testHookSidecarBuild, when set (by tests only), runs before each
// queued build.
var testHookSidecarBuild func(seg *segment)

// queueSidecarBuilds asks for the text and trigram indexes of table's
// segments segs, which a commit has just installed.
func (db *DB) queueSidecarBuilds(table uint64, segs []*segment) {
	db.sideMu.Lock()
	defer db.sideMu.Unlock()
	if db.closed.Load() {
		return
	}
	for _, seg := range segs {
		db.sideQueue = append(db.sideQueue, sidecarBuild{table: table, seg: seg})
	}
	if !db.sideRunning {
		db.sideRunning = true
		db.wg.Add(1)
		go db.runSidecarBuilds()
	}
}

// buildSpilledSidecars queues the index builds of table's segments at
// paths (spilled segments a compaction left as they were) that the table
// still has.
func (db *DB) buildSpilledSidecars(table uint64, paths []string) {
	if len(paths) == 0 {
		return
	}
	db.mu.Lock()
	ts := db.head.Load().tables[table]
	db.mu.Unlock()
	if ts == nil {
		return
	}
	var segs []*segment
	for _, seg := range ts.segments {
		if slices.Contains(paths, seg.path) {
			segs = append(segs, seg)
		}
	}
	if len(segs) > 0 {
		db.queueSidecarBuilds(table, segs)
	}
}

// runSidecarBuilds builds the queued indexes one at a time (the load
// that queued them may still be running on the other cores), until the
// queue is empty or the database closes.
func (db *DB) runSidecarBuilds() {
	defer db.wg.Done()
	for {
		db.sideMu.Lock()
		if len(db.sideQueue) == 0 || db.closed.Load() {
			db.sideRunning = false
			db.sideQueue = nil
			db.sideMu.Unlock()
			return
		}
		job := db.sideQueue[0]
		db.sideQueue = db.sideQueue[1:]
		db.sideMu.Unlock()
		if err := db.buildSidecars(job); err != nil {
			// A search builds what is missing.
			db.log.Warn("building the indexes of a spilled segment", "file", job.seg.path, "err", err)
		}
	}
}

// buildSidecars builds job's segment's text index and its trigram
// indexes, unless the segment is gone (its table dropped or truncated,
// or compacted into another segment, which has its own). The state it
// reads is pinned, so the file stays meanwhile. A panic is its error.
func (db *DB) buildSidecars(job sidecarBuild) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if testHookSidecarBuild != nil {
		testHookSidecarBuild(job.seg)
	}
	state, unpin := db.pinPublished()
	defer unpin()
	ts, def := state.tables[job.table], state.cat.Tables[job.table]
	if ts == nil || def == nil || !slices.Contains(ts.segments, job.seg) || job.seg.x.merged.Load() {
		return nil
	}
	if !db.opts.DisableTextIndex {
		if _, err := db.segText(job.seg, def); err != nil {
			return err
		}
	}
	for _, colID := range state.cat.TrigramColumns(def.ID) {
		if _, ok := job.seg.columnName(colID); ok {
			db.segTrigramIndex(job.seg, def, colID)
		}
	}
	return nil
}
