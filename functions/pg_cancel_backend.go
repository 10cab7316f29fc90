package functions

// pg_cancel_backend(pid): cancels the statement another session (or this
// one) is running, through the session's BackendSignaller. False, with
// PostgreSQL's warning, for a pid no session has.

import (
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// BackendSignaller is the optional part of a SessionInfo that
// pg_cancel_backend and pg_terminate_backend use. Each returns false (and
// queues PostgreSQL's warning) when pid is no session's, and 42501 when
// the current user may not signal it; TerminateBackend with a timeout
// waits that long for the session to end and reports whether it did.
// Called on the session's goroutine (the functions are volatile).
type BackendSignaller interface {
	CancelBackend(pid int64) (bool, error)
	TerminateBackend(pid int64, timeout time.Duration) (bool, error)
}

// signaller is the session's BackendSignaller.
func signaller(ctx *Context, name string) (BackendSignaller, error) {
	if ctx != nil && ctx.Session != nil {
		if b, ok := ctx.Session.(BackendSignaller); ok {
			return b, nil
		}
	}
	return nil, pgerr.New(pgerrcode.FeatureNotSupported, "%s outside a session is not supported", name)
}

func init() {
	Register(&Overload{Name: "pg_cancel_backend", Args: targs(tInt4), Result: tBool, Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			b, err := signaller(ctx, "pg_cancel_backend")
			if err != nil {
				return nil, err
			}
			return b.CancelBackend(a[0].(int64))
		}})
}
