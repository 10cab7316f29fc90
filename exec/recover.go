package exec

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/storage"
)

// A Go panic while a statement runs — in the session's goroutine or in
// one of the goroutines a parallel plan starts — must fail that statement
// with XX000, not the process: one bad row or one bug in a function must
// not take every other session down with it. Each goroutine that runs
// statement work recovers its own panics (a panic cannot be recovered
// from another goroutine) into a panicError, which travels back to the
// session like any other error; the session logs it with its stack and
// sends the client the plain XX000 error.

// panicError is a panic recovered while a statement ran: the XX000 error
// the client gets, and what to log.
type panicError struct {
	err   *pgerr.Error
	value any
	// stack is the stack of the goroutine that panicked, taken where it
	// was recovered.
	stack []byte
}

func (e *panicError) Error() string { return e.err.Error() }

// Unwrap makes pgerr.From and errors.As see the XX000 error.
func (e *panicError) Unwrap() error { return e.err }

// newPanicError converts a value recovered from a panic; call it in the
// deferred function that recovered, so the stack is the panicking one's.
func newPanicError(r any) *panicError {
	return &panicError{
		err:   pgerr.New(pgerrcode.InternalError, "internal error: %s", fmt.Sprint(r)),
		value: r,
		stack: debug.Stack(),
	}
}

// catchPanic runs fn and returns its error, or a *panicError when it
// panics.
func catchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return fn()
}

// asPanic returns the panic that err carries, or nil.
func asPanic(err error) *panicError {
	var pe *panicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// guard runs fn, the work of one of the session's entry points that parse
// or bind a statement before it runs (Prepare, Bind), so that a panic in
// the parser, binder or planner fails just that protocol message, as
// statement does for a statement's execution: the panic is logged with
// its stack and text, the open transaction is marked failed as after any
// error there, and the caller gets the XX000 error. The wire layer then
// answers as for any other error (the extended protocol skips to Sync).
func (s *Session) guard(what, text string, fn func() error) error {
	err := catchPanic(fn)
	if pe := asPanic(err); pe != nil {
		s.engine.logger.Error("panic "+what, "panic", pe.value, "statement", text, "stack", string(pe.stack))
		s.fail()
		return pe.err
	}
	return err
}

// abandonRun releases what a statement that panicked left open in p: its
// operator and its own read transaction (whose snapshot would otherwise
// pin old files). A second panic while closing is logged and dropped.
func (s *Session) abandonRun(p *Portal) {
	err := catchPanic(func() error {
		p.closeRun()
		return nil
	})
	if pe := asPanic(err); pe != nil {
		s.engine.logger.Error("panic closing a failed statement", "panic", pe.value, "stack", string(pe.stack))
	}
}

// catchFnPanic runs a statement's work in tx, a panic becoming its error,
// so that the transaction is rolled back (its row locks released) as
// after any other failure.
func catchFnPanic(fn func(tx *storage.Tx) (string, error), tx *storage.Tx) (tag string, err error) {
	err = catchPanic(func() error {
		tag, err = fn(tx)
		return err
	})
	return tag, err
}
