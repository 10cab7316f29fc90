package functions

// pg_sleep(seconds): waits that long (not at all for zero, a negative
// number or NaN) and returns void, which cairn, having no void type,
// returns as an empty text (see pg_advisory_unlock_all).
//
// A function does not see its statement's context, so neither a client's
// cancel request nor statement_timeout can interrupt the wait from the
// outside. pg_sleep therefore reads statement_timeout itself: a wait
// longer than the timeout stops when the timeout has passed (counted from
// the call, so never earlier than the statement's own deadline) with
// 57014, as the statement would be cancelled.

import (
	"math"
	"strconv"
	"time"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

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
			if limit := statementTimeout(ctx); limit > 0 && d > limit {
				time.Sleep(limit)
				return nil, pgerr.New(pgerrcode.QueryCanceled, "canceling statement due to statement timeout")
			}
			time.Sleep(d)
			return "", nil
		}})
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
