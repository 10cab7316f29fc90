package session

// pg_locks and pg_blocking_pids: storage's row and key locks (under the
// pid of the session whose transaction holds or waits for each) and the
// engine's advisory locks.

import (
	"slices"

	"github.com/cairn-db/cairn/sql/syscat"
)

// locks returns every lock held or waited for now.
func (e *Engine) locks() []syscat.Lock {
	held := e.db.Locks()
	out := make([]syscat.Lock, 0, len(held))
	for _, l := range held {
		kind := syscat.LockRow
		if l.Key {
			kind = syscat.LockKey
		}
		out = append(out, syscat.Lock{Kind: kind, Table: l.Table, ID: l.ID, PID: l.Owner, Shared: l.Shared, Granted: l.Granted, WaitStart: l.WaitStart})
	}
	return append(out, e.advisory.rows()...)
}

// blockingPIDs returns the pids of the sessions holding a lock that the
// session with pid waits for in a mode that conflicts (two shared holds
// of an advisory lock do not), each once, in order.
func (e *Engine) blockingPIDs(pid int32) []int64 {
	locks := e.locks()
	var out []int64
	for _, w := range locks {
		if w.PID != pid || w.Granted {
			continue
		}
		for _, h := range locks {
			if h.Granted && h.PID != pid && h.Kind == w.Kind && h.Table == w.Table && h.ID == w.ID && h.Pair == w.Pair &&
				!(h.Shared && w.Shared) && !slices.Contains(out, int64(h.PID)) {
				out = append(out, int64(h.PID))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Locks implements exec.SessionViews: pg_locks.
func (e *statementEnv) Locks() []syscat.Lock { return e.sess.engine.locks() }

// BlockingPIDs implements functions.LockReporter: pg_blocking_pids.
func (e *statementEnv) BlockingPIDs(pid int64) []int64 {
	return e.sess.engine.blockingPIDs(int32(pid))
}
