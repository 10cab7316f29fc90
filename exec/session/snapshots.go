package session

// Exported snapshots: pg_export_snapshot names the snapshot of the
// session's transaction, and SET TRANSACTION SNAPSHOT makes another
// session's new transaction read that same snapshot, until the exporting
// transaction ends. pg_dump -j's workers read what its leader reads this
// way.

import (
	"fmt"
	"sync"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// exportedSnapshots are the snapshots open transactions exported.
type exportedSnapshots struct {
	mu   sync.Mutex
	next uint64
	byID map[string]exportedSnapshot
}

// exportedSnapshot is one: a transaction on the exporter's snapshot that
// nothing runs on, from which importers begin theirs (storage's
// BeginShared), and the session whose transaction exported it.
type exportedSnapshot struct {
	owner *Session
	tx    *storage.Tx
}

// ExportSnapshot implements functions.SnapshotExporter: pg_export_snapshot.
// The snapshot must not move under its importers, so the transaction
// must be REPEATABLE READ or SERIALIZABLE, as pg_dump's is (PostgreSQL
// exports a READ COMMITTED statement's snapshot, which cairn's
// transactions do not keep).
func (e *statementEnv) ExportSnapshot() (string, error) {
	s := e.sess
	if s.tx == nil || s.implicit {
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "pg_export_snapshot outside a transaction block is not supported")
	}
	if s.isolation == exec.ReadCommitted {
		return "", pgerr.New(pgerrcode.FeatureNotSupported, "pg_export_snapshot in a READ COMMITTED transaction is not supported").
			WithHint("Begin the transaction with ISOLATION LEVEL REPEATABLE READ.")
	}
	x := &s.engine.snapshots
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byID == nil {
		x.byID = map[string]exportedSnapshot{}
	}
	x.next++
	id := fmt.Sprintf("%08X-%08X-1", uint32(s.pid), x.next)
	x.byID[id] = exportedSnapshot{owner: s, tx: s.tx.BeginShared()}
	s.exported = true // pg_export_snapshot is volatile: on the session's goroutine
	return id, nil
}

// importSnapshot begins a transaction on the snapshot exported as id.
func (e *Engine) importSnapshot(id string) (*storage.Tx, error) {
	x := &e.snapshots
	x.mu.Lock()
	defer x.mu.Unlock()
	snap, ok := x.byID[id]
	if !ok {
		return nil, pgerr.New(pgerrcode.InvalidParameterValue, "invalid snapshot identifier: \"%s\"", id)
	}
	return snap.tx.BeginShared(), nil
}

// dropSnapshots forgets the snapshots session s's transaction exported,
// when it ends.
func (e *Engine) dropSnapshots(s *Session) {
	if !s.exported {
		return
	}
	s.exported = false
	x := &e.snapshots
	x.mu.Lock()
	defer x.mu.Unlock()
	for id, snap := range x.byID {
		if snap.owner == s {
			snap.tx.Rollback()
			delete(x.byID, id)
		}
	}
}
