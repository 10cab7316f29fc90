package storage

// Adopting the checkpoint another server (the leader, lead.go) put: a
// server that does not lead keeps the rows it commits or applies in its
// tables' tails, and the log holds them, until the leader's checkpoint
// has them in segments. It then replaces each table whose manifest the
// checkpoint changed by what recovery would load: the manifest's segments
// and deleted row IDs, plus the records past the manifest's LSN, read
// again from the log objects since the checkpoint's first one (few: those
// put while the leader flushed). The rows the segments hold leave its
// memory; the segments are fetched from the store when first read. The
// table's content is the same before and after (the same rows under the
// same row IDs), so transactions in progress and pinned snapshots are
// unaffected; the row IDs the leader's compactions dropped leave the
// deleted set and the unique indexes.
//
// A leader whose checkpoint lost its race to another's (both believed
// they led) adopts the other's the same way: its own flushes' segments,
// which no checkpoint names, leave its state and, after the retention
// window, the store.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairn-db/cairn/storage/objstore"
)

// adoptNewer adopts the checkpoint object when a catch-up saw one newer
// than this server's (DB.ckptMu held).
func (h *objectHome) adoptNewer() error {
	if h.seenSeq.Load() <= h.ckpt.Seq {
		return nil
	}
	ctx := context.Background()
	rc, info, err := h.store.Get(ctx, storeCheckpointKey)
	if err != nil {
		return fmt.Errorf("reading the checkpoint from the object store: %w", err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	var c storeCheckpoint
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return fmt.Errorf("corrupt checkpoint object %q: %w", storeCheckpointKey, err)
	}
	if c.Seq <= h.ckpt.Seq {
		return nil
	}
	return h.adopt(ctx, c, info.ETag)
}

// adopted is one table's manifest in the checkpoint being adopted, and
// the state it gives the table.
type adopted struct {
	id   uint64
	rt   *tableRT
	body []byte
	sm   storedManifest
	m    *manifest
	ts   *tableState
	// files are the segment files the manifest lists.
	files []string
}

// adopt makes checkpoint c (of version etag) this server's (DB.ckptMu
// held).
func (h *objectHome) adopt(ctx context.Context, c storeCheckpoint, etag string) error {
	db := h.db
	// The tables whose manifest changed, or whose manifest.json this
	// server rewrote since (it led and flushed): their flushMu keeps this
	// server's flushes and compactions away until they are replaced.
	var tables []*adopted
	cat := db.published.Load().cat
	for id, key := range c.Tables {
		if rt := db.lookupRT(id); rt != nil && cat.Tables[id] != nil && filepath.Dir(h.pathOf(key)) == rt.dir {
			tables = append(tables, &adopted{id: id, rt: rt})
		}
	}
	slices.SortFunc(tables, func(a, b *adopted) int { return cmp.Compare(a.id, b.id) })
	for _, a := range tables {
		a.rt.flushMu.Lock()
		defer a.rt.flushMu.Unlock()
	}
	tables = slices.DeleteFunc(tables, func(a *adopted) bool {
		old, ok := h.manifests[a.id]
		if !ok || old.key != c.Tables[a.id] {
			return false
		}
		b, err := os.ReadFile(filepath.Join(a.rt.dir, manifestName))
		return err == nil && sha256.Sum256(b) == old.sum
	})
	err := inParallel(tables, func(a *adopted) error {
		key := c.Tables[a.id]
		b, err := h.getAll(ctx, key)
		if err != nil {
			return fmt.Errorf("reading the manifest of table %d: %w", a.id, err)
		}
		a.body = b
		a.sm, err = h.parseManifest(key, b)
		return err
	})
	if err != nil {
		return err
	}
	// The files the manifests name, and the spills of the records
	// replayed below.
	if err := h.listTables(ctx); err != nil {
		return err
	}
	// The manifests become the tables' manifest.json (flushMu keeps
	// flushes away): a server that leads later checkpoints from them. An
	// adoption that does not finish leaves them for the next one, which
	// finds them unlike the checkpoint's it knows.
	for _, a := range tables {
		if err := os.MkdirAll(a.rt.dir, 0o755); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(a.rt.dir, manifestName), a.body); err != nil {
			return err
		}
	}

	// The log objects from the checkpoint's first one on: those this
	// server applied already are read before the catch-up, which holds
	// syncMu (this server's commits wait for it), and only those put
	// since are read under it.
	readLog := func(from, to int) ([][]byte, error) {
		bodies := make([][]byte, max(to-from, 0))
		err := inParallel(rangeOf(len(bodies)), func(i int) error {
			b, err := h.getAll(ctx, logKey(from+i))
			if errors.Is(err, objstore.ErrNotExist) {
				return fmt.Errorf("log object %s, which checkpoint %d needs, is gone", logKey(from+i), c.Seq)
			}
			bodies[i] = b
			return err
		})
		return bodies, err
	}
	db.syncMu.Lock()
	db.mu.Lock()
	l, ok := db.wal.(*objLog)
	db.mu.Unlock()
	var applied int
	if ok {
		applied = l.next
	}
	db.syncMu.Unlock()
	if !ok {
		return errClosed()
	}
	early, err := readLog(c.LogFrom, applied)
	if err != nil {
		return err
	}

	db.syncMu.Lock()
	defer db.syncMu.Unlock()
	if err := h.catchUpSynced(); err != nil {
		return err
	}
	db.mu.Lock()
	l, ok = db.wal.(*objLog)
	db.mu.Unlock()
	if !ok {
		return errClosed()
	}
	n := l.next
	if c.LogFrom > n {
		return nil // (catchUpSynced fails when the log moved past this server)
	}
	late, err := readLog(max(c.LogFrom, applied), n)
	if err != nil {
		return err
	}
	bodies := append(early, late...)
	var recs []*walRecord
	var logBytes int64
	for i, b := range bodies {
		r, err := decodeLogObject(c.LogFrom+i, b)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
		logBytes += int64(len(b))
	}

	db.mu.Lock()
	if db.lastLSN != db.durableLSN.Load() {
		// Commits appended since the catch-up: they are put now, as the
		// checkpoint's rotation does, and their records replayed with
		// the others'.
		body := l.unsent()
		if err := db.wal.sync(); errors.Is(err, errLogTaken) {
			err = db.loseRaceLocked() // (they are rebased: Tx.Commit)
			db.mu.Unlock()
			if err == nil {
				err = h.catchUpSynced()
			}
			return err // adopted at the next tending
		} else if err != nil {
			db.broken = err
			db.mu.Unlock()
			return err
		}
		db.durableLSN.Store(db.lastLSN)
		db.publishHeadIfDurable()
		r, err := decodeLogObject(n, body)
		if err != nil {
			db.mu.Unlock()
			return err
		}
		recs = append(recs, r...)
		logBytes += int64(len(body))
		n++
	}
	defer db.mu.Unlock()
	head := db.head.Load()
	for _, a := range tables {
		if old := head.tables[a.id]; old != nil && head.cat.Tables[a.id] != nil {
			if err := h.adoptTable(a, old, recs); err != nil {
				return err
			}
		}
	}
	// Only now that every table's new state is built: their unique
	// indexes and the new state.
	next := head.derive()
	var retire []string
	for _, a := range tables {
		if a.ts == nil {
			continue
		}
		old := head.tables[a.id]
		a.rt.manifestLSN = a.m.LSN
		a.rt.manifestFiles = a.files
		h.dropGoneKeys(a.rt, old.deleted, a.ts.deleted)
		next.tables[a.id] = a.ts
		for _, s := range old.segments {
			if !slices.Contains(a.ts.segments, s) {
				retire = append(retire, s.path)
			}
		}
		h.manifests[a.id] = a.sm
	}
	db.setHead(next)
	db.publishLocked(next)
	for _, p := range retire {
		db.retire(p, next.version, false)
	}
	h.ckpt, h.etag = c, etag
	h.adoptedSeq.Store(c.Seq)
	l.objects = n - c.LogFrom
	db.walBytes = logBytes
	db.log.Debug("adopted another server's checkpoint", "seq", c.Seq, "tables", len(tables), "log_objects", len(bodies))
	return nil
}

// adoptTable builds table a's state (a.ts) from its manifest and the
// records recs past it; it leaves a.ts nil when the records do not reach
// back to the manifest (db.mu held, and a.rt.flushMu). Nothing else
// changes.
func (h *objectHome) adoptTable(a *adopted, old *tableState, recs []*walRecord) error {
	db, rt := h.db, a.rt
	m, segs, deleted, err := decodeManifest(rt.dir, a.body)
	if err != nil {
		return err
	}
	if len(recs) > 0 && (m.LSN+1 < recs[0].lsn || m.LSN > db.lastLSN) {
		db.log.Warn("a checkpoint's manifest does not meet its log; the table stays as it is", "table", a.id, "manifest_lsn", m.LSN, "first_record", recs[0].lsn)
		return nil
	}
	ts := newTableState(a.id)
	for _, s := range segs {
		s.remote = h
	}
	ts.segments, ts.deleted, ts.lastMod = segs, deletedFrom(deleted), m.LSN
	a.files = segmentNames(segs)
	for _, rec := range recs {
		if rec.lsn <= m.LSN {
			continue
		}
		for _, op := range rec.tables {
			if op.id != a.id {
				continue
			}
			missing, err := db.replayOp(rt, ts, op, rec.lsn)
			if err != nil {
				return err
			}
			if len(missing) > 0 {
				return fmt.Errorf("adopting checkpoint: committed segments are missing: %v", missing)
			}
		}
	}
	// The same table as before: its segments this server already read
	// keep what it learnt about them, its epoch stays.
	ts.epoch = old.epoch
	for i, s := range ts.segments {
		for _, o := range old.segments {
			if o.name == s.name {
				ts.segments[i] = o
			}
		}
	}
	a.m, a.ts = m, ts
	return nil
}

// dropGoneKeys removes from rt's unique indexes the rows deleted in the
// old state that the new one no longer holds (the leader's compaction
// dropped them): an entry that still pointed at one would make its key
// look taken (db.mu held).
func (h *objectHome) dropGoneKeys(rt *tableRT, oldDeleted, newDeleted deletedRows) {
	gone := oldDeleted.minus(newDeleted)
	if gone.IsEmpty() {
		return
	}
	h.db.idxMu.Lock()
	defer h.db.idxMu.Unlock()
	for _, ix := range rt.uniq {
		ix.m.deleteRows(func(rid int64) bool { return gone.Contains(uint64(rid)) })
	}
}
