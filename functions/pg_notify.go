package functions

// pg_notify(channel, payload) is NOTIFY as a function: the notification
// goes out, to every session listening on the channel, when the calling
// transaction commits (Context.Notify). pg_notification_queue_usage() is
// the fraction of the server's NOTIFY queue that notifications not yet
// sent to listening clients take (NotifyQueueUser; 0 outside a session).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

// NotifyQueueUser is the optional part of a SessionInfo that
// pg_notification_queue_usage() reads. Like SessionInfo it is safe for
// concurrent use.
type NotifyQueueUser interface {
	NotifyQueueUsage() float64
}

func init() {
	Register(&Overload{Name: "pg_notification_queue_usage", Result: tF8, Volatility: Volatile,
		Eval: func(ctx *Context, _ []any) (any, error) {
			if ctx != nil {
				if q, ok := ctx.Session.(NotifyQueueUser); ok {
					return q.NotifyQueueUsage(), nil
				}
			}
			return 0.0, nil
		}})
	Register(&Overload{Name: "pg_notify", Args: targs(tText, tText), Result: tText, Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Notify == nil {
				return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_notify outside a session is not supported")
			}
			channel, _ := a[0].(string)
			payload, _ := a[1].(string)
			return "", ctx.Notify(channel, payload)
		}})
}
