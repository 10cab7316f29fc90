package session

// Cursors (DECLARE, FETCH, MOVE, CLOSE): an open cursor is the running
// operator of its query, read forward a FETCH at a time. A cursor lives
// until CLOSE or the end of its transaction; WITH HOLD keeps it after a
// commit, its remaining rows computed then, as PostgreSQL does.

import (
	"context"
	"io"
	"math"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// cursor is an open cursor.
type cursor struct {
	run  *portalRun
	cols []Column
	hold bool
	// inTx is set while the transaction that declared the cursor is open;
	// the cursor ends with it unless it is held and that transaction
	// commits.
	inTx bool
}

// CursorColumns are the columns of the open cursor name (ok false when
// there is none).
func (s *Session) CursorColumns(name string) (cols []Column, ok bool) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, false
	}
	return c.cols, true
}

// declareCursor opens a cursor: its query's operator is built and started
// now, so it reads the snapshot of the DECLARE.
func (s *Session) declareCursor(ctx context.Context, x *sql.DeclareCursor, params []any) (string, error) {
	if s.tx == nil && !x.Hold {
		return "", pgerr.New(pgerrcode.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[x.Name]; ok {
		return "", pgerr.New(pgerrcode.DuplicateCursor, "cursor \"%s\" already exists", x.Name)
	}
	// A held cursor declared outside a transaction block keeps a read
	// transaction of its own.
	tx, own := s.tx, false
	if tx == nil {
		tx, own = s.engine.db.Begin(), true
	}
	op, err := exec.Build(s.runtime(tx, params), x.Plan)
	if err != nil {
		if own {
			tx.Rollback()
		}
		return "", err
	}
	run := &portalRun{op: op, tx: tx, ownTx: own}
	// Operators open their scans when first pulled: computing the first
	// batch now makes the cursor read the tables as the DECLARE saw them,
	// not with the writes of later statements of its transaction.
	first, err := op.Next(ctx)
	switch {
	case err == io.EOF:
		run.close()
	case err != nil:
		run.close()
		return "", err
	default:
		first.Retain()
		run.pending = first
	}
	s.cursors[x.Name] = &cursor{run: run, cols: visibleColumns(x.Plan.Columns()), hold: x.Hold, inTx: !own}
	return "DECLARE CURSOR", nil
}

// fetch runs FETCH (rows to emit) and MOVE (rows skipped); the tag counts
// them. A cursor read to its end stays open and fetches no more rows.
func (s *Session) fetch(ctx context.Context, x *sql.Fetch, emit func(arrow.Record) error) (Tag, error) {
	c, ok := s.cursors[x.Name]
	if !ok {
		return Tag{}, pgerr.New(pgerrcode.InvalidCursorName, "cursor \"%s\" does not exist", x.Name)
	}
	verb := "FETCH"
	if x.Move {
		verb = "MOVE"
		emit = func(arrow.Record) error { return nil }
	}
	if c.run.done {
		return rowsTag(verb, 0), nil
	}
	limit := 0 // all
	if !x.All {
		limit = int(min(x.Count, math.MaxInt32))
	}
	n, more, err := streamRows(ctx, c.run, limit, emit)
	if err != nil {
		return Tag{}, err
	}
	if !more {
		c.run.close()
	}
	return rowsTag(verb, n), nil
}

// closeCursor runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursor(x *sql.CloseCursor) (string, error) {
	if x.Name == "" {
		for name, c := range s.cursors {
			c.run.close()
			delete(s.cursors, name)
		}
		return "CLOSE CURSOR ALL", nil
	}
	c, ok := s.cursors[x.Name]
	if !ok {
		return "", pgerr.New(pgerrcode.InvalidCursorName, "cursor \"%s\" does not exist", x.Name)
	}
	c.run.close()
	delete(s.cursors, x.Name)
	return "CLOSE CURSOR", nil
}

// holdCursors computes the remaining rows of the held cursors the
// committing transaction declared, while it can still read them.
func (s *Session) holdCursors() error {
	for _, c := range s.cursors {
		if !c.hold || !c.inTx || c.run.done {
			continue
		}
		m, err := exec.Materialize(context.Background(), c.run.op, c.run.pending)
		c.run.pending = nil
		if err != nil {
			return err
		}
		c.run.close()
		c.run = &portalRun{op: m}
	}
	return nil
}

// endTxCursors closes the cursors of a transaction that ended, except the
// held ones of a commit (holdCursors materialised them).
func (s *Session) endTxCursors(committed bool) {
	for name, c := range s.cursors {
		if !c.inTx {
			continue
		}
		if committed && c.hold {
			c.inTx = false
			continue
		}
		c.run.close()
		delete(s.cursors, name)
	}
}

// closeAllCursors releases every cursor (the session is closing).
func (s *Session) closeAllCursors() {
	for name, c := range s.cursors {
		c.run.close()
		delete(s.cursors, name)
	}
}
