package storage

// Refresh moves the transaction's snapshot to the latest committed state,
// keeping its own changes: READ COMMITTED takes a new snapshot for every
// statement. A transaction that ran DDL keeps its snapshot (its catalog
// changes are built on it); Refresh then reports false. Write conflicts
// stay judged from the oldest snapshot a change was made under, so an
// update made under an earlier statement's snapshot still loses to a
// concurrent commit of the same row. The rows the transaction inserted
// into a table another server inserted into since get new row IDs (theirs
// may be the same: rebase.go), spilled rows too when the other server's
// rows carry one of their IDs (written again to new files); should that
// fail, it keeps its snapshot and its later operations fail with the
// error.
func (tx *Tx) Refresh() bool {
	if tx.done || len(tx.ops) > 0 || tx.cat != tx.snap.cat {
		return false
	}
	if tx.snap == tx.db.published.Load() {
		return true
	}
	// The new snapshot first: the row IDs are judged against every row
	// applied by then, which includes its rows.
	snap, unpin := tx.db.pinPublished()
	// Its rows were written (or deleted) under the old catalog: a rule DDL
	// gave their table since (rulesAdded), or a foreign key referencing
	// it, was filled or validated without them.
	for id, tt := range tx.tables {
		if (len(tt.inserts) > 0 || len(tt.spilled) > 0) && (rulesAdded(tx.cat.Tables[id], snap.cat.Tables[id]) || domainsTightened(tx.cat, snap.cat, snap.cat.Tables[id])) ||
			!tt.deletes.IsEmpty() && referencedSince(tx.cat, snap.cat, id) {
			unpin()
			tx.doomed = serializationFailure()
			return false
		}
	}
	if err := tx.renumberOwn(); err != nil {
		unpin()
		tx.doomed = err
		return false
	}
	changed := false
	for _, tt := range tx.tables {
		if tt.truncated || !tt.deletes.IsEmpty() {
			changed = true
		}
		for sig, li := range tt.local {
			if li.full {
				delete(tt.local, sig) // built from the old snapshot's rows
			}
		}
	}
	if changed && tx.base == nil {
		tx.base, tx.unpinBase = tx.snap, tx.unpin
	} else {
		tx.unpin()
	}
	tx.snap, tx.unpin, tx.cat = snap, unpin, snap.cat
	return true
}

// ReleaseSavepoint forgets savepoint sp and every later one, keeping the
// changes made since (RELEASE SAVEPOINT, or a statement that succeeded).
func (tx *Tx) ReleaseSavepoint(sp int) {
	if sp >= 0 && sp < len(tx.sps) {
		clear(tx.sps[sp:])
		tx.sps = tx.sps[:sp]
		if sp == 0 {
			tx.db.locks.forgetIntLog(tx)
		}
	}
}
