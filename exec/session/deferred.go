package session

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// Deferred foreign key checks (exec.DeferredChecks): the session keeps
// those of its open transaction, runs them at COMMIT and at SET
// CONSTRAINTS ... IMMEDIATE, and undoes them with ROLLBACK TO.

// deferredChecks are the deferred checks statements running in tx join:
// those of the session's transaction, or of tx itself when it is a
// statement's own (autocommit); nil for any other transaction, whose
// checks then run at once.
func (s *Session) deferredChecks(tx *storage.Tx) *exec.DeferredChecks {
	if tx == nil || s.tx != nil && tx != s.tx {
		return nil
	}
	return s.deferred.For(tx)
}

// checkDeferred runs tx's deferred checks that are due (all of them at
// COMMIT), on a new snapshot under READ COMMITTED as PostgreSQL fires
// deferred triggers.
func (s *Session) checkDeferred(tx *storage.Tx, all bool) error {
	if !s.deferred.Pending(tx) {
		return nil
	}
	if s.currentIsolation() == exec.ReadCommitted {
		tx.Refresh()
	}
	ctx := s.statementContext()
	tx.SetContext(ctx)
	defer tx.SetContext(nil)
	return s.deferred.Check(ctx, s.runtime(tx, nil), all)
}

// runSetConstraints is SET CONSTRAINTS: outside a transaction block it
// does nothing but warn (25P01), as in PostgreSQL; IMMEDIATE checks at
// once what the constraints it names had deferred.
func (s *Session) runSetConstraints(x *sql.SetConstraints) error {
	if s.tx == nil {
		s.notices = append(s.notices, Notice{Severity: "WARNING", Code: "25P01", Message: "SET CONSTRAINTS can only be used in transaction blocks"})
		return nil
	}
	s.deferred.For(s.tx).Set(x)
	if x.Deferred {
		return nil
	}
	return s.checkDeferred(s.tx, false)
}

// notPendingChecks fails with 55006 when tx has deferred checks waiting
// on rows of the table def, which command (ALTER TABLE, DROP TABLE,
// TRUNCATE) would change under them, as PostgreSQL's CheckTableNotInUse.
func (s *Session) notPendingChecks(tx *storage.Tx, def *catalog.TableDef, command string) error {
	if s.deferred.PendingOn(tx, def.ID) {
		return pgerr.New(pgerrcode.ObjectInUse, "cannot %s \"%s\" because it has pending trigger events", command, def.Name)
	}
	return nil
}
