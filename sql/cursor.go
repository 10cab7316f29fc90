package sql

// Cursors: DECLARE ... CURSOR FOR query, FETCH / MOVE, CLOSE. cairn's
// cursors read forward only (PostgreSQL's NO SCROLL), which is how
// psycopg's and psycopg2's named cursors and SQLAlchemy's stream_results
// use them.

import (
	"math"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// Cursor option bits of DeclareCursorStmt.Options (PostgreSQL's
// CURSOR_OPT_*).
const (
	cursorBinary = 0x01
	cursorScroll = 0x02
	cursorHold   = 0x20
)

// DeclareCursor is DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH[OUT]
// HOLD] FOR query. Query is bound as it stands, so Plan gives its rows.
type DeclareCursor struct {
	Name string
	Plan Node
	// Hold keeps the cursor past the end of its transaction (WITH HOLD).
	Hold bool
}

// Fetch is FETCH [FORWARD] [n | ALL | NEXT] [FROM|IN] name, or MOVE with
// the same forms. Count is the number of rows; All asks for the rest.
// Backward is FETCH BACKWARD or PRIOR, which no portal of cairn's can do:
// the session answers it once it has found the portal (a portal of the
// protocol's Bind is NO SCROLL in PostgreSQL too, 55000).
type Fetch struct {
	Name     string
	Count    int64
	All      bool
	Move     bool
	Backward bool
}

// CloseCursor is CLOSE name, or CLOSE ALL when Name is "".
type CloseCursor struct {
	Name string
}

// bindDeclareCursor binds DECLARE ... CURSOR FOR query.
func (b *Binder) bindDeclareCursor(s *pg_query.DeclareCursorStmt) (Statement, error) {
	if s.Options&cursorBinary != 0 {
		return nil, pgerr.NotSupported("BINARY cursors (a FETCH through the extended protocol can ask for binary columns)")
	}
	if s.Options&cursorScroll != 0 {
		return nil, pgerr.NotSupported("SCROLL cursors (cairn's cursors read forward only)")
	}
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.NotSupported("cursors over statements other than SELECT")
	}
	plan, err := b.bindSelect(sel, nil)
	if err != nil {
		return nil, err
	}
	return &DeclareCursor{Name: s.Portalname, Plan: regAsText(plan), Hold: s.Options&cursorHold != 0}, nil
}

// bindFetch binds FETCH and MOVE: forward ones, and backward ones that
// the session refuses once it has found the portal.
func bindFetch(s *pg_query.FetchStmt) (Statement, error) {
	f := &Fetch{Name: s.Portalname, Count: s.HowMany, Move: s.Ismove}
	switch {
	case s.Direction == pg_query.FetchDirection_FETCH_FORWARD && s.HowMany == math.MaxInt64:
		f.All = true
	case s.Direction == pg_query.FetchDirection_FETCH_FORWARD && s.HowMany > 0:
	case s.Direction == pg_query.FetchDirection_FETCH_RELATIVE && s.HowMany == 1:
		f.Count = 1 // FETCH RELATIVE 1 is the next row
	case s.Direction == pg_query.FetchDirection_FETCH_BACKWARD && s.HowMany > 0:
		f.Backward = true
	default:
		return nil, ErrFetchDirection()
	}
	return f, nil
}

// ErrFetchDirection is the error of a FETCH or MOVE that cairn's
// forward-only cursors cannot do: a direction other than forward, or
// backward on a cursor of DECLARE (PostgreSQL's may scroll backward
// without SCROLL when its plan can).
func ErrFetchDirection() error {
	return pgerr.NotSupported("FETCH and MOVE other than FORWARD n, NEXT and ALL (cairn's cursors read forward only)")
}
