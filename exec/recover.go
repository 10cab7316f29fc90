package exec

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// A Go panic while a statement runs — in the session's goroutine or in
// one of the goroutines a parallel plan starts — must fail that statement
// with XX000, not the process: one bad row or one bug in a function must
// not take every other session down with it. Each goroutine that runs
// statement work recovers its own panics (a panic cannot be recovered
// from another goroutine) into a PanicError, which travels back to the
// session like any other error; the session logs it with its stack and
// sends the client the plain XX000 error.

// PanicError is a panic recovered while a statement ran: the XX000 error
// the client gets, and what to log.
type PanicError struct {
	// Err is the XX000 error the statement fails with.
	Err *pgerr.Error
	// Value is what was passed to panic.
	Value any
	// Stack is the stack of the goroutine that panicked, taken where it
	// was recovered.
	Stack []byte
}

func (e *PanicError) Error() string { return e.Err.Error() }

// Unwrap makes pgerr.From and errors.As see the XX000 error.
func (e *PanicError) Unwrap() error { return e.Err }

// NewPanicError converts a value recovered from a panic; call it in the
// deferred function that recovered, so the stack is the panicking one's.
func NewPanicError(r any) *PanicError {
	return &PanicError{
		Err:   pgerr.New(pgerrcode.InternalError, "internal error: %s", fmt.Sprint(r)),
		Value: r,
		Stack: debug.Stack(),
	}
}

// CatchPanic runs fn and returns its error, or a *PanicError when it
// panics.
func CatchPanic(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = NewPanicError(r)
		}
	}()
	return fn()
}

// AsPanic returns the panic that err carries, or nil.
func AsPanic(err error) *PanicError {
	if err == nil {
		return nil // most statements: no error to unwrap
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
