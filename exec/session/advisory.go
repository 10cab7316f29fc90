package session

// Advisory locks (pg_advisory_lock and friends): application-defined
// locks on a number, held by a session until it releases them (or, for
// the _xact_ forms, until its transaction ends), which migration tools
// take so that only one of them migrates at a time. A lock is exclusive or
// shared, and re-entrant: a session releases it as often as it took it.
// As in PostgreSQL, a session's session-level and transaction-level holds
// of one key are counted apart: pg_advisory_unlock and
// pg_advisory_unlock_all give back session-level holds only, and the end
// of a transaction its transaction-level ones only, so that neither
// releases a hold the other still counts on.

import (
	"sync"
	"time"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/functions"
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/syscat"
)

// advisoryTable holds the engine's advisory locks.
type advisoryTable struct {
	mu    sync.Mutex
	locks map[functions.AdvisoryKey]*advisoryLock
}

// advisoryLock is one key's holders: the sessions with their hold counts
// (exclusive holds and shared ones), and a channel closed when the key is
// next released, for waiters; waiting are those waiters (pg_locks).
type advisoryLock struct {
	exclusive map[*Session]advisoryHolds
	shared    map[*Session]advisoryHolds
	released  chan struct{}
	waiting   map[*Session]advisoryWait
}

// advisoryHolds counts a session's holds of a key in one mode: those
// taken by pg_advisory_lock (session) and by pg_advisory_xact_lock (xact).
type advisoryHolds struct {
	session, xact int
}

// add counts one more hold at the level asked (xact: transaction level).
func (h *advisoryHolds) add(xact bool) {
	if xact {
		h.xact++
	} else {
		h.session++
	}
}

// advisoryWait is a session's wait for an advisory lock: the mode it
// asked for and since when.
type advisoryWait struct {
	shared bool
	since  time.Time
}

// grantable reports whether s may take the lock in the mode asked: no
// other session holds it exclusively, nor, for an exclusive lock, at all.
func (l *advisoryLock) grantable(s *Session, shared bool) bool {
	for h := range l.exclusive {
		if h != s {
			return false
		}
	}
	if !shared {
		for h := range l.shared {
			if h != s {
				return false
			}
		}
	}
	return true
}

// sessionAdvisory is a session's view of the table (functions.AdvisoryLocks).
type sessionAdvisory struct {
	s *Session
}

// Lock implements functions.AdvisoryLocks.
func (a sessionAdvisory) Lock(key functions.AdvisoryKey, shared, xact, wait bool) (bool, error) {
	s, t := a.s, &a.s.engine.advisory
	for {
		t.mu.Lock()
		if t.locks == nil {
			t.locks = map[functions.AdvisoryKey]*advisoryLock{}
		}
		l := t.locks[key]
		if l == nil {
			l = &advisoryLock{exclusive: map[*Session]advisoryHolds{}, shared: map[*Session]advisoryHolds{}, released: make(chan struct{}), waiting: map[*Session]advisoryWait{}}
			t.locks[key] = l
		}
		if l.grantable(s, shared) {
			holds := l.exclusive
			if shared {
				holds = l.shared
			}
			h := holds[s]
			h.add(xact)
			holds[s] = h
			t.mu.Unlock()
			if xact {
				s.xactAdvisory = append(s.xactAdvisory, heldAdvisory{key: key, shared: shared, level: len(s.savepoints)})
			}
			return true, nil
		}
		if !wait {
			t.forgetUnused(key, l)
			t.mu.Unlock()
			return false, nil
		}
		released := l.released
		l.waiting[s] = advisoryWait{shared: shared, since: time.Now()}
		t.mu.Unlock()
		ctx := s.statementContext()
		s.lockWait("advisory", true)
		var err error
		select {
		case <-released:
		case <-ctx.Done():
			err = pgerr.From(ctx.Err())
		}
		s.lockWait("advisory", false)
		t.mu.Lock()
		delete(l.waiting, s)
		t.forgetUnused(key, l)
		t.mu.Unlock()
		if err != nil {
			return false, err
		}
	}
}

// Unlock implements functions.AdvisoryLocks: one session-level hold of
// key goes; false, with PostgreSQL's warning, when the session has none
// (a transaction-level hold is no session-level one: it stays until the
// transaction ends).
func (a sessionAdvisory) Unlock(key functions.AdvisoryKey, shared bool) bool {
	ok := a.s.engine.advisory.release(a.s, key, shared, false)
	if !ok {
		mode := "ExclusiveLock"
		if shared {
			mode = "ShareLock"
		}
		a.s.notices = append(a.s.notices, Notice{Severity: "WARNING", Code: pgerrcode.Warning, Message: "you don't own a lock of type " + mode})
	}
	return ok
}

// UnlockAll implements functions.AdvisoryLocks: the session's
// session-level holds go (pg_advisory_unlock_all); its transaction's stay.
func (a sessionAdvisory) UnlockAll() { a.s.engine.advisory.releaseAll(a.s, false) }

// release drops one hold of key by s at the level asked (xact:
// transaction level); false if s held none in that mode at that level.
func (t *advisoryTable) release(s *Session, key functions.AdvisoryKey, shared, xact bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.locks[key]
	if l == nil {
		return false
	}
	holds := l.exclusive
	if shared {
		holds = l.shared
	}
	h := holds[s]
	n := &h.session
	if xact {
		n = &h.xact
	}
	if *n == 0 {
		return false
	}
	*n--
	if h == (advisoryHolds{}) {
		delete(holds, s)
		t.wake(key, l)
	} else {
		holds[s] = h
	}
	return true
}

// releaseAll drops the session-level holds of s (pg_advisory_unlock_all,
// DISCARD ALL), and with xact its transaction-level ones too (the
// session's end).
func (t *advisoryTable) releaseAll(s *Session, xact bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key, l := range t.locks {
		changed := false
		for _, holds := range []map[*Session]advisoryHolds{l.exclusive, l.shared} {
			h, ok := holds[s]
			if !ok || h.session == 0 && !xact {
				continue
			}
			if h.session = 0; xact || h.xact == 0 {
				delete(holds, s)
				changed = true
			} else {
				holds[s] = h
			}
		}
		if changed {
			t.wake(key, l)
		}
	}
}

// wake tells the key's waiters it changed and forgets an unused key.
func (t *advisoryTable) wake(key functions.AdvisoryKey, l *advisoryLock) {
	close(l.released)
	l.released = make(chan struct{})
	t.forgetUnused(key, l)
}

// forgetUnused drops key's entry l when no session holds or waits for it
// (t.mu held).
func (t *advisoryTable) forgetUnused(key functions.AdvisoryKey, l *advisoryLock) {
	if len(l.exclusive) == 0 && len(l.shared) == 0 && len(l.waiting) == 0 && t.locks[key] == l {
		delete(t.locks, key)
	}
}

// rows returns the advisory locks held and waited for, as pg_locks
// shows them: one row per session and mode held, one per waiter.
func (t *advisoryTable) rows() []syscat.Lock {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []syscat.Lock
	for key, l := range t.locks {
		base := syscat.Lock{Kind: syscat.LockAdvisory, ID: uint64(key.ID), Pair: key.Pair}
		for s := range l.exclusive {
			r := base
			r.PID, r.Granted = s.pid, true
			out = append(out, r)
		}
		for s := range l.shared {
			r := base
			r.PID, r.Shared, r.Granted = s.pid, true, true
			out = append(out, r)
		}
		for s, w := range l.waiting {
			r := base
			r.PID, r.Shared, r.WaitStart = s.pid, w.shared, w.since
			out = append(out, r)
		}
	}
	return out
}

// heldAdvisory is a transaction-level advisory hold, released when the
// transaction ends, or when the savepoint level it was taken at (the
// number of savepoints then) is rolled back or fails.
type heldAdvisory struct {
	key    functions.AdvisoryKey
	shared bool
	level  int
}

// endTxAdvisory releases the transaction-level advisory locks.
func (s *Session) endTxAdvisory() { s.releaseXactAdvisory(0) }

// releaseXactAdvisory releases the transaction-level advisory locks
// taken at savepoint level from or deeper: as in PostgreSQL, where an
// aborted (sub)transaction gives its locks back at once, an error in a
// transaction block releases those taken since its last savepoint (all
// of them without one), and ROLLBACK TO those taken after the savepoint.
func (s *Session) releaseXactAdvisory(from int) {
	kept := s.xactAdvisory[:0]
	for _, h := range s.xactAdvisory {
		if h.level >= from {
			s.engine.advisory.release(s, h.key, h.shared, true)
		} else {
			kept = append(kept, h)
		}
	}
	clear(s.xactAdvisory[len(kept):])
	s.xactAdvisory = kept
	if len(kept) == 0 {
		s.xactAdvisory = nil
	}
}

// releasedSavepointAdvisory moves the holds taken after savepoint level
// i to that level, as RELEASE merges the savepoint into the one before.
func (s *Session) releasedSavepointAdvisory(i int) {
	for j := range s.xactAdvisory {
		s.xactAdvisory[j].level = min(s.xactAdvisory[j].level, i)
	}
}
