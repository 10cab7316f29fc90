package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-db/cairn/sql/catalog"
)

// recover rebuilds the in-memory state from disk (Open): catalog.json,
// every table's manifest, then the WAL records past what those cover. A
// record cut short or failing its checksum ends the log: it is logged and
// truncated away, and any later WAL file is removed. Nothing of a bad
// record is applied.
func (db *DB) recover() error {
	cat := catalog.New()
	var catLSN uint64
	seqs := map[string]seqEntry{}
	cf, err := readCatalogFile(filepath.Join(db.dir, catalogFileName))
	if err != nil {
		return err
	}
	if cf != nil {
		cat, catLSN = cf.Catalog, cf.LSN
		for k, s := range cf.Sequences {
			seqs[k] = seqEntry{key: k, last: s.Last, called: s.Called}
		}
	}
	os.Remove(filepath.Join(db.dir, catalogFileName+".tmp"))
	maxLSN := catLSN
	maxDirID := uint64(0)

	// Table folders and their manifests.
	tables := map[uint64]*tableState{}
	schemaDirs, err := os.ReadDir(db.tablesDir())
	if err != nil {
		return err
	}
	for _, sd := range schemaDirs {
		if !sd.IsDir() {
			continue
		}
		sdir := filepath.Join(db.tablesDir(), sd.Name())
		tdirs, err := os.ReadDir(sdir)
		if err != nil {
			return err
		}
		for _, td := range tdirs {
			id, err := strconv.ParseUint(td.Name(), 10, 64)
			if err != nil || !td.IsDir() {
				continue
			}
			maxDirID = max(maxDirID, id)
			dir := filepath.Join(sdir, td.Name())
			if db.rts[id] != nil {
				return fmt.Errorf("table %d has two folders: %s and %s", id, db.rts[id].dir, dir)
			}
			rt := &tableRT{id: id, dir: dir, uniq: map[string]*uniqueIndex{}}
			rt.nextSeg.Store(1)
			rt.nextRowID.Store(1)
			db.rts[id] = rt
			m, segs, deleted, err := readManifest(dir)
			if err != nil {
				return err
			}
			ts := newTableState(id)
			if m != nil {
				if m.TableID != 0 && m.TableID != id {
					return fmt.Errorf("corrupt manifest %s: table ID %d", filepath.Join(dir, manifestName), m.TableID)
				}
				rt.manifestLSN = m.LSN
				rt.manifestFiles = segmentNames(segs)
				rt.nextSeg.Store(int64(max(m.NextSegment, 1)))
				next := max(m.NextRowID, 1)
				for _, s := range segs {
					s.remote = db.home.fetcher()
					if err := db.home.exists(s.path); err != nil {
						return fmt.Errorf("manifest %s lists a missing segment: %w", filepath.Join(dir, manifestName), err)
					}
					next = max(next, s.maxRow+1)
				}
				rt.nextRowID.Store(next)
				ts.segments = segs
				ts.deleted = deletedFrom(deleted)
				ts.lastMod = m.LSN
				maxLSN = max(maxLSN, m.LSN)
			}
			tables[id] = ts
		}
	}

	if err := verifySegments(tables); err != nil {
		return err
	}

	// WAL replay.
	files, err := listWALFiles(db.walDir())
	if err != nil {
		return err
	}
	var walBytes int64
	lastSeq := 0
	// Spilled segments of replayed records whose files are gone, by
	// table: fine when a later record truncates the table (the files of
	// a truncated table go once nothing needs them), damage otherwise.
	missing := map[uint64][]string{}
	lastRecLSN := catLSN // the LSN of the last record read
	for i, f := range files {
		lastSeq = f.seq
		good, torn, err := readWALFile(f.path, func(p []byte) error {
			lsn, err := decodeWALHeader(p)
			if err != nil {
				return err
			}
			maxLSN = max(maxLSN, lsn)
			lastRecLSN = lsn
			rec, err := decodeWALRecord(p)
			if err != nil {
				return err
			}
			if rec.lsn > catLSN {
				if rec.catalog != nil {
					c, err := unmarshalCatalog(rec.catalog)
					if err != nil {
						return fmt.Errorf("catalog in record %d: %w", rec.lsn, err)
					}
					cat = c
				}
				for _, s := range rec.seqs {
					seqs[s.key] = s
				}
			}
			for _, op := range rec.tables {
				def := cat.Tables[op.id]
				if def == nil {
					continue // dropped later
				}
				rt := db.rts[op.id]
				if rt == nil {
					rt = &tableRT{id: op.id, dir: db.tableDirFor(def.Schema, op.id), uniq: map[string]*uniqueIndex{}}
					rt.nextSeg.Store(1)
					rt.nextRowID.Store(1)
					db.rts[op.id] = rt
				}
				if rec.lsn <= rt.manifestLSN {
					continue
				}
				ts := tables[op.id]
				if ts == nil {
					ts = newTableState(op.id)
					tables[op.id] = ts
				}
				if op.truncate {
					delete(missing, op.id)
				}
				gone, err := db.replayOp(rt, ts, op, rec.lsn)
				if err != nil {
					return err
				}
				if len(gone) > 0 {
					missing[op.id] = append(missing[op.id], gone...)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("wal %s: %w", f.path, err)
		}
		walBytes += good
		if torn {
			if err := checkWALTail(files, i, good, lastRecLSN); err != nil {
				return err
			}
			size := good
			if st, err := os.Stat(f.path); err == nil {
				size = st.Size()
			}
			db.log.Warn("wal ends with a torn or corrupt record, a commit that was never acknowledged (or damage): dropping it",
				"file", f.path, "offset", good, "dropped_bytes", size-good)
			if err := os.Truncate(f.path, good); err != nil {
				return err
			}
			if fh, err := os.OpenFile(f.path, os.O_WRONLY, 0); err == nil {
				fh.Sync()
				fh.Close()
			}
			for _, later := range files[i+1:] {
				db.log.Warn("removing wal file after a torn record", "file", later.path)
				if err := os.Remove(later.path); err != nil {
					return err
				}
				lastSeq = later.seq
			}
			if err := syncDir(db.walDir()); err != nil {
				return err
			}
			break
		}
	}

	for id, files := range missing {
		if cat.Tables[id] != nil {
			return fmt.Errorf("committed segments are missing: %s", strings.Join(files, ", "))
		}
	}

	// Tables in the catalog all have a state; folders of dropped tables go.
	for id, def := range cat.Tables {
		if tables[id] == nil {
			tables[id] = newTableState(id)
		}
		if db.rts[id] == nil {
			rt := &tableRT{id: id, dir: db.tableDirFor(def.Schema, id), uniq: map[string]*uniqueIndex{}}
			rt.nextSeg.Store(1)
			rt.nextRowID.Store(1)
			db.rts[id] = rt
		}
	}
	for id, rt := range db.rts {
		if cat.Tables[id] == nil {
			delete(tables, id)
			delete(db.rts, id)
			if err := os.RemoveAll(rt.dir); err != nil {
				db.log.Warn("removing folder of dropped table", "dir", rt.dir, "err", err)
			}
			continue
		}
		// The files of the manifest stay even when a replayed truncate
		// dropped them: the manifest lists them until the next flush.
		listed := append(segmentNames(tables[id].segments), rt.manifestFiles...)
		removeUnlisted(db, rt, listed, vecKeysOf(cat, cat.Tables[id]))
	}
	for key, s := range seqs {
		if cat.Sequences[key] != nil {
			db.seqs[key] = &seqState{last: s.last, called: s.called, durLast: s.last, durCalled: s.called}
		}
	}
	next := cat.NextID
	for id := range cat.Tables {
		next = max(next, id+1)
	}
	next = max(next, maxDirID+1)
	db.nextTableID.Store(next)

	state := &dbState{version: 1, lsn: maxLSN, cat: cat, tables: tables}
	db.lastLSN = maxLSN
	db.durableLSN.Store(maxLSN)
	db.head.Store(state)
	db.published.Store(state)

	w, err := db.home.openLog(lastSeq)
	if err != nil {
		return err
	}
	db.wal = w
	db.walBytes = walBytes

	// Unique indexes (a read-only opening checks no keys: readonly.go).
	if db.readOnly() {
		return nil
	}
	for id, def := range cat.Tables {
		rt := db.rts[id]
		for _, con := range constraintsOf(cat, def) {
			ix, err := db.buildIndex(state, id, def, con, nil)
			if err != nil {
				db.log.Error("rebuilding unique index", "table", def.Name, "constraint", con.name, "err", err)
				return fmt.Errorf("rebuilding unique index %q of %q: %w", con.name, def.Name, err)
			}
			rt.uniq[con.sig()] = ix
		}
	}
	// Reclaim the files of tables truncated in the replayed log; compact
	// tables with many segments.
	for id, ts := range tables {
		rt := db.rts[id]
		if !slices.Equal(segmentNames(ts.segments), rt.manifestFiles) || db.wantsMerge(ts) {
			db.pendingFlush[id] = true
		}
	}
	if db.walBytes >= db.opts.WALCheckpointBytes {
		db.pendingCkpt = true
	}
	if len(db.pendingFlush) > 0 || db.pendingCkpt {
		db.signal()
	}
	return nil
}

// replayOp applies op, a table's part of commit record lsn, to ts (which
// no other goroutine sees yet), as recovery replays the records past a
// table's manifest and a server adopting a checkpoint the records past
// the checkpoint's manifests (adopt.go). missing lists the spilled
// segments of op whose files are gone.
func (db *DB) replayOp(rt *tableRT, ts *tableState, op walTableOp, lsn uint64) (missing []string, err error) {
	if op.truncate {
		ts.segments, ts.tail, ts.tailRows = nil, nil, 0
		ts.deleted = deletedRows{}
		ts.epoch++
	}
	ts.deleted = ts.deleted.with(op.deletes)
	for _, b := range op.inserts {
		b.lsn, b.minLSN = lsn, lsn
		ts.tail = appendTail(ts.tail, b)
		ts.tailRows += int64(b.n)
		rt.countPastRows(b)
	}
	for _, seg := range op.segments {
		seg.lsn = lsn
		ok, err := db.replaySpilledSegment(rt, ts, seg)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", lsn, err)
		}
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (record %d)", seg.path, lsn))
		}
	}
	ts.lastMod = lsn
	return missing, nil
}

// replaySpilledSegment adds to ts a segment a replayed commit record
// lists (a transaction's spill), unless the manifest already lists it; ok
// is false when its file does not exist.
func (db *DB) replaySpilledSegment(rt *tableRT, ts *tableState, seg *segment) (ok bool, err error) {
	seg.path = filepath.Join(rt.dir, seg.name)
	seg.remote = db.home.fetcher()
	if slices.Contains(segmentNames(ts.segments), seg.name) {
		return true, nil
	}
	if err := db.home.exists(seg.path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	rt.countPastSegment(seg)
	ts.segments = append(ts.segments, seg)
	return true, nil
}

// removeUnlisted deletes files in a table folder that are not listed
// (the manifest's segments and those of replayed commit records): segments of a flush or compaction cut short, replaced
// segments, spills of transactions that never committed, temporary files,
// and vector index files of indexes (keys vecKeys) the catalog no longer
// has.
func removeUnlisted(db *DB, rt *tableRT, listed []string, vecKeys map[string]bool) {
	ents, err := os.ReadDir(rt.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if name == manifestName || slices.Contains(listed, name) || sidecarOfListed(listed, vecKeys, name) {
			continue
		}
		if strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, "seg-") {
			if err := os.Remove(filepath.Join(rt.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				db.log.Warn("removing unused file", "path", filepath.Join(rt.dir, name), "err", err)
			}
		}
	}
}
