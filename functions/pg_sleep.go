package functions

// pg_sleep(seconds): waits that long (not at all for zero, a negative
// number or NaN) and returns void, which cairn, having no void type,
// returns as an empty text (see pg_advisory_unlock_all).
//
// The wait ends early, with 57014, when the statement is cancelled (a
// CancelRequest, pg_cancel_backend, a client that went away) or its
// statement_timeout passes: the session hands its running statement's
// context over StatementContexter. Without one (a test's bare Context)
// pg_sleep still honours statement_timeout, counted from the call.

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// StatementContexter is the optional part of a SessionInfo that gives the
// running statement's context, which a function that waits (pg_sleep,
// pg_terminate_backend's timeout) ends its wait with. Called on the
// session's goroutine (the callers are volatile); nil when no statement
// runs.
type StatementContexter interface {
	StatementContext() context.Context
}

func init() {
	Register(&Overload{Name: "pg_sleep", Args: targs(tF8), Result: tText, Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			secs := a[0].(float64)
			if !(secs > 0) {
				return "", nil
			}
			d := time.Duration(math.MaxInt64)
			if secs < float64(math.MaxInt64/int64(time.Second)) {
				d = time.Duration(math.Ceil(secs * float64(time.Second)))
			}
			wait := d
			limit := statementTimeout(ctx)
			if limit > 0 && d > limit {
				wait = limit
			}
			var done <-chan struct{}
			sc := statementContext(ctx)
			if sc != nil {
				done = sc.Done()
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-done:
				return nil, pgerr.From(sc.Err())
			}
			if wait < d {
				return nil, pgerr.New(pgerrcode.QueryCanceled, "canceling statement due to statement timeout")
			}
			return "", nil
		}})
}

// statementContext is the running statement's context, nil when the
// session gives none.
func statementContext(ctx *Context) context.Context {
	if ctx == nil || ctx.Session == nil {
		return nil
	}
	if c, ok := ctx.Session.(StatementContexter); ok {
		return c.StatementContext()
	}
	return nil
}

// statementTimeout is the session's statement_timeout, 0 for none. The
// session keeps the setting in milliseconds.
func statementTimeout(ctx *Context) time.Duration {
	if ctx == nil || ctx.Session == nil {
		return 0
	}
	v, _ := ctx.Session.Setting("statement_timeout")
	ms, _ := strconv.ParseInt(v, 10, 64)
	return time.Duration(ms) * time.Millisecond
}
