package functions

// pg_terminate_backend(pid [, timeout]): ends another session (or this
// one): its connection closes with FATAL 57P01. With a timeout in
// milliseconds it waits that long for the session to end and returns
// whether it did (false with a warning when not), as PostgreSQL 14+ does.

import (
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	terminate := func(ctx *Context, a []any) (any, error) {
		var timeout int64
		if len(a) > 1 {
			timeout = a[1].(int64)
		}
		if timeout < 0 {
			return nil, pgerr.New(pgerrcode.InvalidParameterValue, "\"timeout\" must not be negative")
		}
		b, err := signaller(ctx, "pg_terminate_backend")
		if err != nil {
			return nil, err
		}
		return b.TerminateBackend(a[0].(int64), time.Duration(timeout)*time.Millisecond)
	}
	Register(
		&Overload{Name: "pg_terminate_backend", Args: targs(tInt4), Result: tBool, Volatility: Volatile, Eval: terminate},
		&Overload{Name: "pg_terminate_backend", Args: targs(tInt4, types.Int8T), Result: tBool, Volatility: Volatile, Eval: terminate},
	)
}
