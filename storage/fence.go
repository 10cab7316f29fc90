package storage

import (
	"errors"
	"sync"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// writeFence counts the open transactions whose DDL fences writes to a
// table (Tx.fenceWrites): while one does, other transactions' writes to
// the table fail to commit, as PostgreSQL's would wait for the ALTER's
// lock, since the DDL's fill or validation does not see them
// (commitLocked). A writer that failed so may wait for the fence to end
// (FenceEnded) and run again, as a lock wait.
type writeFence struct {
	mu sync.Mutex
	n  int
	// ended is closed when n drops back to zero (nil while it is zero).
	ended chan struct{}
}

// raise counts one more fencing transaction.
func (f *writeFence) raise() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.ended = make(chan struct{})
	}
	f.n++
}

// lower counts one fencing transaction fewer.
func (f *writeFence) lower() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.ended)
		f.ended = nil
	}
}

// up reports whether more than own transactions fence the table, and
// returns a channel closed once none does (nil when own is not zero: the
// caller's own fence ends only with the caller).
func (f *writeFence) up(own int) (bool, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n <= own {
		return false, nil
	}
	if own > 0 {
		return true, nil
	}
	return true, f.ended
}

// fencedError is the 40001 of a write that a fence kept from committing.
type fencedError struct {
	err   *pgerr.Error
	ended <-chan struct{}
}

func (e *fencedError) Error() string { return e.err.Error() }
func (e *fencedError) Unwrap() error { return e.err }

// FenceEnded returns, for the 40001 of a write that another transaction's
// DDL fenced out of its table, a channel closed when that DDL's
// transaction (and any other fencing the table) has ended: a statement
// that waits for it and runs again sees the DDL's outcome.
func FenceEnded(err error) (<-chan struct{}, bool) {
	var f *fencedError
	if errors.As(err, &f) && f.ended != nil {
		return f.ended, true
	}
	return nil, false
}
