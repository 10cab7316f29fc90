package session

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// Transactions. cairn gives two of PostgreSQL's isolation levels, both
// over snapshots (writes are never visible to others before COMMIT):
//
//   - READ COMMITTED, the default as in PostgreSQL: every statement of a
//     transaction reads a new snapshot of what was committed when it began,
//     plus the transaction's own writes. A statement that changes a row
//     another transaction is changing waits for it; if that one commits,
//     the statement runs again on a new snapshot (PostgreSQL re-checks the
//     row instead; the outcome is one of the serial orders either way).
//   - REPEATABLE READ: the whole transaction reads the snapshot taken at its
//     first statement (snapshot isolation); changing a row that another
//     transaction changed and committed since fails with 40001.
//
// READ UNCOMMITTED is READ COMMITTED, as in PostgreSQL. SERIALIZABLE is
// refused with 0A000: snapshot isolation allows write skew, so cairn
// cannot honestly give it. Outside BEGIN every statement is its own
// transaction (autocommit); a simple query of several statements, and the
// extended-protocol messages up to Sync, run as one implicit transaction.

// isolationLevel normalises a requested isolation level.
func isolationLevel(v string) (string, error) { return isolationFor("transaction_isolation", v) }

func checkIsolation(v string) (string, error) {
	return isolationFor("default_transaction_isolation", v)
}

func isolationFor(param, v string) (string, error) {
	switch strings.ToLower(strings.Join(strings.Fields(v), " ")) {
	case "read uncommitted", "read committed", "default", "":
		return exec.ReadCommitted, nil
	case "repeatable read":
		return exec.RepeatableRead, nil
	case "serializable":
		return "", pgerr.NotSupported("SERIALIZABLE isolation").
			WithDetail("cairn provides READ COMMITTED and REPEATABLE READ (snapshot isolation, which allows write skew).").
			WithHint("Use REPEATABLE READ, and retry transactions that fail with SQLSTATE 40001.")
	}
	return "", pgerr.New(pgerrcode.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", param, v)
}

// currentIsolation is the isolation level of the open transaction, or the
// one the next transaction gets.
func (s *Session) currentIsolation() string {
	if s.tx != nil && s.isolation != "" {
		return s.isolation
	}
	return s.parsedSettings().defaultIsolation
}

// currentReadOnly reports whether the open (or next) transaction is read
// only.
func (s *Session) currentReadOnly() bool {
	if s.tx != nil && !s.implicit {
		return s.readOnly
	}
	return s.parsedSettings().defaultReadOnly
}

func isOn(v string) bool {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return true
	}
	return false
}

// beginTx opens a transaction with the session's default modes.
func (s *Session) beginTx() {
	s.tx = s.begin()
	s.txStart = time.Now()
	s.txFailed = false
	s.savepoints = nil
	p := s.parsedSettings()
	s.isolation = p.defaultIsolation
	s.readOnly = p.defaultReadOnly
	s.queried = false
}

// endTx forgets the open transaction (already committed or rolled back).
func (s *Session) endTx() {
	s.engine.dropSnapshots(s)
	s.tx, s.txFailed, s.savepoints, s.implicit, s.queried = nil, false, nil, false, false
}

// BeginImplicit opens an implicit transaction block unless a transaction
// is open: the statements of a simple query holding several, or the
// extended-protocol messages up to Sync, commit together at EndImplicit.
func (s *Session) BeginImplicit() {
	if s.tx != nil {
		return
	}
	s.beginTx()
	s.implicit = true
}

// EndImplicit ends an implicit transaction block: it commits unless a
// statement failed, in which case everything the block did is rolled back.
// It returns the commit's error.
func (s *Session) EndImplicit() error {
	if s.tx == nil || !s.implicit {
		return nil
	}
	tx, failed := s.tx, s.txFailed
	var holdErr error
	if !failed {
		holdErr = s.holdCursors()
	}
	s.endTx()
	if failed || holdErr != nil {
		tx.Rollback()
		s.txEnded(false)
		return holdErr
	}
	err := s.commit(tx)
	s.txEnded(err == nil)
	return err
}

// txEnded applies the end of a transaction, already committed or rolled
// back, to the session: its settings, cursors and advisory locks.
func (s *Session) txEnded(committed bool) {
	s.engine.stats.XactEnded(committed)
	if !committed {
		s.forgetNotify()
	}
	s.endTxSettings(committed)
	s.endTxCursors(committed)
	s.endTxAdvisory()
}

// AbortBlock marks the open transaction failed (an error in the middle of
// a block of messages): an implicit one then rolls back at EndImplicit, an
// explicit one answers 25P02 until ROLLBACK.
func (s *Session) AbortBlock() { s.fail() }

// statementSnapshot gives the open transaction the snapshot the next
// statement reads: a new one for each statement under READ COMMITTED, the
// first statement's under REPEATABLE READ.
func (s *Session) statementSnapshot(st *Statement) {
	if s.tx == nil || s.txFailed || st.parsed == nil || !st.parsed.TakesSnapshot() {
		return
	}
	if !s.queried || s.currentIsolation() == exec.ReadCommitted {
		s.tx.Refresh()
	}
	s.queried = true
}

// runSetTransaction is SET TRANSACTION and SET SESSION CHARACTERISTICS AS
// TRANSACTION.
func (s *Session) runSetTransaction(x *sql.SetTransaction) error {
	var level string
	if x.Isolation != "" {
		var err error
		if level, err = isolationLevel(x.Isolation); err != nil {
			return err
		}
	}
	if x.Session {
		if level != "" {
			s.setValue("default_transaction_isolation", level)
		}
		if x.ReadOnly != nil {
			v := "off"
			if *x.ReadOnly {
				v = "on"
			}
			s.setValue("default_transaction_read_only", v)
			s.changed[showName("default_transaction_read_only")] = v
		}
		return nil
	}
	if s.tx == nil || s.implicit {
		s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "25P01", Message: "SET TRANSACTION can only be used in transaction blocks"})
		return nil
	}
	if x.Snapshot != "" {
		return s.adoptSnapshot(x.Snapshot)
	}
	if level != "" && level != s.isolation {
		if s.queried {
			return pgerr.New(pgerrcode.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
		}
		s.isolation = level
	}
	if x.ReadOnly != nil {
		if !*x.ReadOnly && s.readOnly && s.queried {
			return pgerr.New(pgerrcode.ActiveSQLTransaction, "transaction read-write mode must be set before any query")
		}
		s.readOnly = *x.ReadOnly
	}
	return nil
}

// checkWritable refuses a statement that writes in a read-only
// transaction (25006).
func (s *Session) checkWritable(st sql.Statement) error {
	if !s.currentReadOnly() {
		return nil
	}
	return pgerr.New(pgerrcode.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", sql.CommandName(st))
}

// maxStatementRetries bounds how often a statement runs again after
// meeting concurrent updates.
const maxStatementRetries = 1000

// retryBackoff sleeps a little before a statement runs again.
func retryBackoff(ctx context.Context, attempt int) {
	d := time.Duration(min(attempt+1, 20)) * 500 * time.Microsecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// inTx runs fn in the open transaction, or in a new one that commits when
// fn succeeds (autocommit). Under READ COMMITTED a statement that met a
// concurrent update (storage.IsConflict) runs again on a new snapshot;
// an autocommit statement whose commit lost to a concurrent one too.
func (s *Session) inTx(ctx context.Context, fn func(tx *storage.Tx) (Tag, error)) (Tag, error) {
	return s.inTxUnless(ctx, fn, nil)
}

// inTxUnless is inTx for a statement that cannot always run again: once
// final (when set) reports true, its error is returned as it is (a COPY
// FROM that let the data it read go).
func (s *Session) inTxUnless(ctx context.Context, fn func(tx *storage.Tx) (Tag, error), final func() bool) (Tag, error) {
	for attempt := 0; ; attempt++ {
		tag, err := s.inTxOnce(ctx, fn)
		if err == nil || s.currentIsolation() != exec.ReadCommitted || attempt >= maxStatementRetries || ctx.Err() != nil ||
			(final != nil && final()) {
			return tag, err
		}
		if storage.IsFenced(err) {
			// Another transaction's ALTER TABLE fenced the table: wait
			// for it as PostgreSQL's statement waits for its lock, then
			// run again (the wait is not one of the attempts), in an
			// open transaction on a snapshot and catalog taken after it
			// — which one that made DDL of its own cannot take: the
			// 40001 stands.
			if err := s.waitFence(ctx, err); err != nil {
				return Tag{}, err
			}
			if s.tx != nil && !s.tx.Refresh() {
				return tag, err
			}
			attempt--
			continue
		}
		if !storage.IsConflict(err) && !(s.tx == nil && pgerr.Code(err) == pgerrcode.SerializationFailure) {
			return tag, err
		}
		retryBackoff(ctx, attempt)
		if s.tx != nil {
			s.tx.Refresh()
		}
	}
}

// waitFence waits for the fence of fenced (storage.IsFenced) to end, as a
// lock wait of the session's open transaction, if any: lock_timeout bounds
// it (55P03), a cancel or statement_timeout ends it, a deadlock with the
// fencing transaction fails it (40P01).
func (s *Session) waitFence(ctx context.Context, fenced error) error {
	timeout, _ := parseDuration(s.get("lock_timeout"))
	return storage.WaitFence(ctx, fenced, timeout, s.tx)
}

func (s *Session) inTxOnce(ctx context.Context, fn func(tx *storage.Tx) (Tag, error)) (Tag, error) {
	lockTimeout, _ := parseDuration(s.get("lock_timeout"))
	if s.tx != nil {
		mark := s.tx.Savepoint()
		// A statement a trigger runs gives the writing statement's
		// context back when it ends.
		prev := s.tx.Context()
		s.tx.SetContext(ctx)
		s.tx.SetLockTimeout(lockTimeout)
		tag, err := catchFnPanic(fn, s.tx)
		s.tx.SetContext(prev)
		if err != nil {
			// The statement leaves no effect even though the transaction
			// stays open (aborted) until ROLLBACK.
			s.tx.RollbackTo(mark)
		}
		s.tx.ReleaseSavepoint(mark)
		return tag, err
	}
	tx := s.begin()
	tx.SetContext(ctx)
	tx.SetLockTimeout(lockTimeout)
	tag, err := catchFnPanic(fn, tx)
	if err != nil {
		tx.Rollback()
		s.forgetNotify()
		s.endTxSettings(false) // a PL/pgSQL body's SETs (borrowTx)
		s.engine.stats.XactEnded(false)
		return Tag{}, err
	}
	tx.SetContext(nil)
	if err := s.commit(tx); err != nil {
		s.endTxSettings(false)
		s.engine.stats.XactEnded(false)
		return Tag{}, err
	}
	s.endTxSettings(true)
	s.engine.stats.XactEnded(true)
	return tag, nil
}

// commit commits tx after running its deferred foreign key checks and
// applying the ON COMMIT clauses of temporary
// tables (when those fail, tx is rolled back), then its LISTEN, UNLISTEN
// and notifications (notify.go).
func (s *Session) commit(tx *storage.Tx) error {
	// Deferred foreign keys are checked first, as PostgreSQL fires
	// deferred triggers before ON COMMIT actions.
	if err := s.checkDeferred(tx, true); err != nil {
		tx.Rollback()
		s.forgetNotify()
		return err
	}
	if len(s.onCommit) > 0 {
		if err := s.applyOnCommit(tx); err != nil {
			tx.Rollback()
			s.forgetNotify()
			return err
		}
	}
	// As PostgreSQL's PreCommit_Notify: the transaction's notifications
	// take their place in the queue before it commits, and a full queue
	// rolls it back.
	if err := s.reserveNotify(tx); err != nil {
		tx.Rollback()
		s.forgetNotify()
		return err
	}
	if err := tx.Commit(); err != nil {
		s.forgetNotify()
		return err
	}
	s.committedNotify(tx)
	return nil
}

// begin starts a storage transaction for the session: its locks show in
// pg_locks under the session's pid.
func (s *Session) begin() *storage.Tx {
	tx := s.engine.db.Begin()
	tx.SetOwner(s.pid)
	s.xid = s.engine.nextXid()
	return tx
}

// runCheckpoint is CHECKPOINT, for superusers only (PostgreSQL 15 also
// admits pg_checkpoint's members; cairn has no predefined roles).
func (s *Session) runCheckpoint() error {
	if !s.currentRole(s.catalog()).Superuser {
		return denied("must be superuser or have privileges of pg_checkpoint to do CHECKPOINT")
	}
	return s.engine.db.Checkpoint()
}

// adoptSnapshot is SET TRANSACTION SNAPSHOT: the transaction, which has
// not read anything yet, reads the exported snapshot from now on.
func (s *Session) adoptSnapshot(id string) error {
	switch {
	case s.queried:
		return pgerr.New(pgerrcode.ActiveSQLTransaction, "SET TRANSACTION SNAPSHOT must be called before any query")
	case s.isolation == exec.ReadCommitted:
		return pgerr.New(pgerrcode.FeatureNotSupported, "a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ")
	}
	tx, err := s.engine.importSnapshot(id)
	if err != nil {
		return err
	}
	tx.SetOwner(s.pid)
	s.tx.Rollback()
	// The snapshot is taken: the next statement must not take another.
	s.tx, s.queried = tx, true
	return nil
}
