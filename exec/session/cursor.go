package session

// Cursors (DECLARE, FETCH, MOVE, CLOSE): an open cursor is a named portal
// whose query's operator was started at the DECLARE, read forward a FETCH
// (or a protocol Execute) at a time. Cursors share the portals' namespace,
// as in PostgreSQL. A cursor lives until CLOSE or the end of its
// transaction; WITH HOLD keeps it after a commit, its remaining rows
// computed then, as PostgreSQL does.

import (
	"context"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/exec"
	"github.com/cairn-db/cairn/sql"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
)

// declareCursor opens a cursor: its query's operator is built and started
// now, so it reads the snapshot of the DECLARE.
func (s *Session) declareCursor(ctx context.Context, x *sql.DeclareCursor, decl *Portal) (string, error) {
	if s.tx == nil && !x.Hold {
		return "", pgerr.New(pgerrcode.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.portals[x.Name]; ok {
		return "", pgerr.New(pgerrcode.DuplicateCursor, "cursor \"%s\" already exists", x.Name)
	}
	// A held cursor declared outside a transaction block keeps a read
	// transaction of its own.
	own := s.tx == nil
	tx, endTx := s.readTx()
	op, err := exec.Build(s.runtime(tx, decl.params), x.Plan)
	if err != nil {
		endTx(false)
		return "", err
	}
	run := &portalRun{op: op}
	if own {
		run.endTx = endTx
	}
	// Operators open their scans when first pulled: computing the first
	// batch now makes the cursor read the tables as the DECLARE saw them,
	// not with the writes of later statements of its transaction. The
	// scans it opens outlive the DECLARE under the run's own context
	// (portalRun.pull).
	first, err := run.pull(ctx)
	switch {
	case err != nil:
		run.failed = true
		run.close()
		return "", err
	case first == nil:
		run.close()
	default:
		run.pending = first
	}
	s.portals[x.Name] = &Portal{name: x.Name, stmt: decl.stmt, bound: &sql.Query{Plan: x.Plan}, params: decl.params,
		columns: visibleColumns(x.Plan.Columns()), run: run, cursor: true, hold: x.Hold, inTx: !own, level: len(s.savepoints),
		created: time.Now()}
	return "DECLARE CURSOR", nil
}

// fetch runs FETCH (rows to emit) and MOVE (rows skipped) on a cursor,
// or on a portal of the protocol's Bind, which shares the cursors'
// namespace as in PostgreSQL; the tag counts the rows. A cursor read to
// its end stays open and fetches no more rows.
func (s *Session) fetch(ctx context.Context, x *sql.Fetch, emit func(arrow.Record) error) (Tag, error) {
	c := s.portals[x.Name]
	if c == nil {
		return Tag{}, pgerr.New(pgerrcode.InvalidCursorName, "cursor \"%s\" does not exist", x.Name)
	}
	if x.Backward {
		if c.cursor {
			return Tag{}, sql.ErrFetchDirection()
		}
		return Tag{}, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "cursor can only scan forward").
			WithHint("Declare it with SCROLL option to enable backward scan.")
	}
	verb := "FETCH"
	if x.Move {
		verb = "MOVE"
		emit = func(arrow.Record) error { return nil }
	}
	limit := 0 // all
	if !x.All {
		limit = int(min(x.Count, math.MaxInt32))
	}
	if !c.cursor {
		return s.fetchPortal(ctx, c, verb, limit, emit)
	}
	if c.run.done {
		return rowsTag(verb, 0), nil
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

// fetchPortal is FETCH and MOVE on a portal of Bind: its rows come as an
// Execute with a row limit would send them, and Execute and FETCH read on
// where the other stopped. A portal run to its end fetches no more rows.
// As in PostgreSQL, a portal of a statement that returns no rows cannot
// be fetched from (XX000, PostgreSQL's words).
func (s *Session) fetchPortal(ctx context.Context, p *Portal, verb string, limit int, emit func(arrow.Record) error) (Tag, error) {
	if len(p.columns) == 0 {
		return Tag{}, pgerr.New(pgerrcode.InternalError, "unsupported portal strategy")
	}
	q, ok := p.bound.(*sql.Query)
	if ok {
		_, explain := q.Plan.(*sql.Explain)
		ok = !explain
	}
	if !ok {
		what := "EXPLAIN"
		switch p.bound.(type) {
		case *sql.Show:
			what = "SHOW"
		case *sql.Execute:
			what = "EXECUTE"
		case *sql.Fetch:
			what = "FETCH"
		}
		return Tag{}, pgerr.NotSupported("FETCH from a portal of %s (Execute reads it)", what)
	}
	if p.completed != nil {
		return rowsTag(verb, 0), nil
	}
	var n int64
	count := func(rec arrow.Record) error {
		n += rec.NumRows()
		return emit(rec)
	}
	tag, suspended, err := s.runQuery(ctx, p, q.Plan, limit, count)
	if err != nil {
		return Tag{}, err
	}
	if !suspended {
		p.completed = &tag
	}
	return rowsTag(verb, n), nil
}

// closeCursor runs CLOSE name, of a cursor or a portal of Bind, and
// CLOSE ALL, which closes them all but running, the portal that runs it.
func (s *Session) closeCursor(x *sql.CloseCursor, running *Portal) (string, error) {
	if x.Name == "" {
		s.closePortals(func(p *Portal) bool { return p != running })
		return "CLOSE CURSOR ALL", nil
	}
	c := s.portals[x.Name]
	if c == nil {
		return "", pgerr.New(pgerrcode.InvalidCursorName, "cursor \"%s\" does not exist", x.Name)
	}
	s.ClosePortal(c)
	return "CLOSE CURSOR", nil
}

// holdCursors computes the remaining rows of the held cursors the
// committing transaction declared, while it can still read them.
func (s *Session) holdCursors() error {
	for _, c := range s.portals {
		if !c.cursor || !c.hold || !c.inTx || c.run.done {
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

// endTxCursors closes the portals of a transaction that ended, as
// PostgreSQL drops them at its end: the protocol's (Bind's), and its
// cursors except the held ones of a commit (holdCursors materialised
// them). A portal a later Execute of the same block of messages names is
// gone (34000); its rows, of a snapshot or of writes that were rolled
// back, are not read on.
func (s *Session) endTxCursors(committed bool) {
	s.closePortals(func(c *Portal) bool {
		if !c.cursor {
			return true
		}
		if !c.inTx {
			return false
		}
		if committed && c.hold {
			c.inTx = false
			return false
		}
		return true
	})
}

// cursorRows are the session's open named portals as pg_cursors lists
// them.
func (s *Session) cursorRows() []syscat.Cursor {
	out := make([]syscat.Cursor, 0, len(s.portals))
	for name, p := range s.portals {
		if name == "" {
			continue
		}
		out = append(out, syscat.Cursor{Name: name, Statement: p.stmt.SQL, Holdable: p.hold, CreationTime: p.created})
	}
	return out
}
