package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/types"
)

// catalogFileName is catalog.json in the data directory.
const catalogFileName = "catalog.json"

// catalogFile is the JSON form of catalog.json: the catalog and sequence
// states as of WAL LSN LSN (records up to it are reflected).
type catalogFile struct {
	LSN       uint64                  `json:"lsn"`
	Catalog   *catalog.Catalog        `json:"catalog"`
	Sequences map[string]seqFileEntry `json:"sequences,omitempty"`
}

type seqFileEntry struct {
	Last   int64 `json:"last"`
	Called bool  `json:"called"`
}

func readCatalogFile(path string) (*catalogFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cf := &catalogFile{}
	if err := json.Unmarshal(b, cf); err != nil {
		return nil, fmt.Errorf("corrupt %s: %w", path, err)
	}
	if cf.Catalog == nil {
		return nil, fmt.Errorf("corrupt %s: no catalog", path)
	}
	for _, t := range cf.Catalog.Tables {
		if t == nil {
			continue
		}
		for _, c := range t.Columns {
			if c.Type.Family == types.ArrayFamily && (c.Type.Elem == nil || c.Type.Elem.Family == types.ArrayFamily) {
				return nil, fmt.Errorf("corrupt %s: column %q of table %q is an array without an element type", path, c.Name, t.Name)
			}
		}
	}
	cf.Catalog.Normalize()
	return cf, nil
}

// checkpoint makes the WAL written so far unnecessary: it starts a new
// part of the WAL, flushes every table's tail to a segment and writes its
// manifest, saves the catalog (catalog.json, or the object home's
// checkpoint), then drops the older parts of the log. final (Close)
// records the exact sequence states.
//
// On an object store shared with other servers, only the leader
// checkpoints (lead.go); it first adopts a newer checkpoint of another
// server, if there is one (adopt.go), and applies what the others
// committed, so that the checkpoint covers the log up to where it
// rotates. The others keep their rows in memory, and the log holds them,
// until they adopt the leader's checkpoint; at Close the leader gives the
// lease up after its last checkpoint.
func (db *DB) checkpoint(final bool) error {
	db.ckptMu.Lock()
	defer db.ckptMu.Unlock()
	h, _ := db.home.(*objectHome)
	if h != nil {
		if final {
			defer h.releaseLease()
		}
		if !final || h.leads() {
			if err := h.adoptNewer(); err != nil {
				return err
			}
		}
	}
	if db.home.shared() {
		return nil
	}

	// 1. Rotate: everything up to here is durable and published.
	db.syncMu.Lock()
	if h != nil {
		if err := h.catchUpSynced(); err != nil {
			db.syncMu.Unlock()
			return err
		}
	}
	db.mu.Lock()
	if db.wal == nil || db.broken != nil {
		err := db.broken
		db.mu.Unlock()
		db.syncMu.Unlock()
		return err
	}
	if err := db.wal.sync(); errors.Is(err, errLogTaken) {
		// Another server's commit took the log object: this one's
		// pending commits are rebased (rebase.go), and the next
		// request checkpoints.
		err = db.loseRaceLocked()
		db.mu.Unlock()
		if err == nil {
			err = h.catchUpSynced()
		}
		db.syncMu.Unlock()
		return err
	} else if err != nil {
		db.broken = err
		db.mu.Unlock()
		db.syncMu.Unlock()
		return err
	}
	db.durableLSN.Store(db.lastLSN)
	db.publishHeadIfDurable()
	rotated := db.lastLSN
	// No later commit may merge into a tail batch holding records of the
	// older parts: the flushes below must be able to write all of them.
	for _, ts := range db.head.Load().tables {
		for _, b := range ts.tail {
			b.sealed = true
		}
	}
	nw, logFrom, err := db.wal.rotate()
	if err == nil {
		db.wal = nw
		db.walBytes = 0
	}
	db.mu.Unlock()
	db.syncMu.Unlock()
	if err != nil {
		return err
	}

	// 2. Segments and manifests.
	ids := make([]uint64, 0)
	for id := range db.published.Load().tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		if err := db.flushTable(id, true); err != nil {
			return err
		}
		if ts := db.head.Load().tables[id]; !final && ts != nil && db.wantsMerge(ts) {
			db.requestFlush(id) // the worker compacts it
		}
	}

	// 3. The catalog (the state first, then the sequences, which are at
	// least as new). The pin keeps every file of the state until the
	// home has saved the checkpoint.
	s, unpin := db.pinPublished()
	defer unpin()
	seqs := db.seqSnapshot(final)
	cf := catalogFile{LSN: s.lsn, Catalog: s.cat, Sequences: map[string]seqFileEntry{}}
	for k, e := range seqs {
		cf.Sequences[k] = seqFileEntry{Last: e.last, Called: e.called}
	}
	b, err := json.MarshalIndent(cf, "", " ")
	if err != nil {
		return err
	}

	// 4. The older parts of the log are no longer needed, unless a
	// table's manifest does not cover them yet (a flush skipped for a
	// truncate not yet durable): the next checkpoint drops them.
	for id, ts := range s.tables {
		rt := db.lookupRT(id)
		if rt == nil {
			continue
		}
		rt.flushMu.Lock()
		covered := rt.manifestLSN >= min(rotated, ts.lastMod)
		rt.flushMu.Unlock()
		if !covered {
			db.log.Info("checkpoint keeps the older wal files: a table's manifest does not cover them yet", "table", id)
			logFrom = 0
			break
		}
	}
	return db.home.saveCheckpoint(s, b, logFrom)
}

// Checkpoint runs a checkpoint now (normally the background worker does
// when the WAL passes WALCheckpointBytes, and Close does).
func (db *DB) Checkpoint() error {
	if db.closed.Load() {
		return errClosed()
	}
	return db.checkpoint(false)
}
