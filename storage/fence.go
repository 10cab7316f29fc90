package storage

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// writeFence holds the open transactions whose DDL fences writes to a
// table (Tx.fenceWrites): while one does, other transactions' writes to
// the table fail to commit, as PostgreSQL's would wait for the ALTER's
// lock, since the DDL's fill or validation does not see them
// (commitLocked). A writer that failed so may wait for the fence to end
// (WaitFence) and run again, as a lock wait.
type writeFence struct {
	mu      sync.Mutex
	holders []*Tx
	// ended is closed when the last holder ends (nil while there is none).
	ended chan struct{}
}

// raise adds tx to the fencing transactions.
func (f *writeFence) raise(tx *Tx) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.holders) == 0 {
		f.ended = make(chan struct{})
	}
	f.holders = append(f.holders, tx)
}

// lower removes tx, ended, from the fencing transactions.
func (f *writeFence) lower(tx *Tx) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holders = slices.DeleteFunc(f.holders, func(h *Tx) bool { return h == tx })
	if len(f.holders) == 0 && f.ended != nil {
		close(f.ended)
		f.ended = nil
	}
}

// up returns a transaction other than tx that fences the table (nil when
// none does) and a channel closed once none does (nil when tx fences it
// too: its own fence ends only with it).
func (f *writeFence) up(tx *Tx) (by *Tx, ended <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.holders {
		if h != tx {
			by = h
			break
		}
	}
	if by == nil || slices.Contains(f.holders, tx) {
		return by, nil
	}
	return by, f.ended
}

// fencedError is the 40001 of a write that a fence kept from committing:
// by is a transaction fencing the table, ended closed once none does.
type fencedError struct {
	err   *pgerr.Error
	by    *Tx
	ended <-chan struct{}
}

func (e *fencedError) Error() string { return e.err.Error() }
func (e *fencedError) Unwrap() error { return e.err }

// IsFenced reports whether err is the 40001 of a write that another
// transaction's open DDL fenced out of its table, which WaitFence can
// wait out: a statement that waits and runs again sees the DDL's outcome.
func IsFenced(err error) bool {
	var f *fencedError
	return errors.As(err, &f) && f.ended != nil
}

// WaitFence waits for the fence of fenced (IsFenced) to end, as a lock
// wait: ctx ends it (57014), timeout (lock_timeout; 0: none) fails it with
// 55P03. tx, when not nil, is the open transaction that waits, keeping the
// locks it holds: its wait counts in deadlock detection, so that it and a
// fencing transaction waiting for one of its rows fail with 40P01 rather
// than wait for each other forever, the table fenced for every writer.
func WaitFence(ctx context.Context, fenced error, timeout time.Duration, tx *Tx) error {
	var f *fencedError
	if !errors.As(fenced, &f) || f.ended == nil {
		return fenced
	}
	if tx != nil {
		lt := &tx.db.locks
		lt.mu.Lock()
		for w := f.by; w != nil; w = w.waitingFor {
			if w == tx {
				lt.mu.Unlock()
				return deadlockDetected()
			}
		}
		tx.waitingFor = f.by
		lt.mu.Unlock()
		defer func() {
			lt.mu.Lock()
			tx.waitingFor = nil
			lt.mu.Unlock()
		}()
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-f.ended:
		return nil
	case <-expired:
		return lockTimedOut()
	case <-ctx.Done():
		return pgerr.From(ctx.Err())
	}
}
