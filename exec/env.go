package exec

// What a statement's operators know of the session that runs it. The
// session (package exec/session) hands each statement a Runtime whose
// function context carries a read-only copy of the session taken when the
// statement started (functions.SessionInfo): user, database, search path
// and settings. Operators read that copy and never the session itself, so
// the session stays free to change while a portal is suspended, and a
// parallel plan's partitions cannot race with it. The few functions that
// change session state (set_config, the advisory locks) are volatile, so
// their plans run on the session's goroutine, and reach it only through
// the narrow interfaces package functions declares for them.

import (
	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/syscat"
	"github.com/cairn-db/cairn/sql/types"
)

// The transaction isolation levels, as transaction_isolation reports them.
const (
	ReadCommitted  = "read committed"
	RepeatableRead = "repeatable read"
)

// SessionViews is the optional part of a statement's functions.SessionInfo
// that the system views read: the rows of pg_settings,
// pg_prepared_statements, pg_cursors, pg_stat_activity, pg_stat_statements, pg_locks and the progress views. All return copies the
// caller may keep.
type SessionViews interface {
	SettingRows() []syscat.Setting
	PreparedStatements() []syscat.PreparedStatement
	Cursors() []syscat.Cursor
	Activity() []syscat.Activity
	Statements() []syscat.StatementStat
	Locks() []syscat.Lock
	Progress() []syscat.Progress
}

// readOnlySession is a SessionInfo with its optional writers hidden:
// parallel partitions get it, so that not even a planning mistake could
// let them change session state.
type readOnlySession struct{ functions.SessionInfo }

// textOptions are the settings of the statement's session that text
// output of values follows (error details show values as they print).
func (rt *Runtime) textOptions() *types.TextOptions {
	if rt.Fn == nil {
		return nil
	}
	return &types.TextOptions{Location: rt.Fn.Location, Now: rt.Fn.Now, DateStyle: rt.Fn.DateStyle, Floats: rt.Fn.Floats, ByteaEscape: rt.Fn.ByteaEscape, IntervalStyle: rt.Fn.IntervalStyle}
}
