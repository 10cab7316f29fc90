package functions

// pg_notify(channel, payload) is NOTIFY as a function: the notification
// goes out, to every session listening on the channel, when the calling
// transaction commits (Context.Notify). pg_notification_queue_usage() is
// the fraction of the server's NOTIFY queue that notifications not yet
// sent to listening clients take (NotifyQueueUser; 0 outside a session);
// pg_listening_channels() the channels the session listens on
// (ChannelLister; none outside a session).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
)

// NotifyQueueUser is the optional part of a SessionInfo that
// pg_notification_queue_usage() reads. Like SessionInfo it is safe for
// concurrent use.
type NotifyQueueUser interface {
	NotifyQueueUsage() float64
}

// ChannelLister is the optional part of a SessionInfo that
// pg_listening_channels() reads: the channels the session listened on
// when the statement started. Like SessionInfo it is safe for concurrent
// use.
type ChannelLister interface {
	ListeningChannels() []string
}

func init() {
	RegisterSetReturning(&SetReturning{Name: "pg_listening_channels",
		Type: func(args []types.T, _ func([]types.T) (types.T, error)) (SetSignature, bool, error) {
			return SetSignature{Out: []types.Field{{Name: "pg_listening_channels", T: types.TextT}}}, len(args) == 0, nil
		},
		Rows: func(ctx *Context, _ []any, _ []types.T) (NextRow, error) {
			var channels []string
			if ctx != nil {
				if l, ok := ctx.Session.(ChannelLister); ok {
					channels = l.ListeningChannels()
				}
			}
			i := 0
			return func() ([]any, bool, error) {
				if i >= len(channels) {
					return nil, false, nil
				}
				i++
				return []any{channels[i-1]}, true, nil
			}, nil
		}})
	Register(&Overload{Name: "pg_notification_queue_usage", Result: tF8, Volatility: Volatile,
		Eval: func(ctx *Context, _ []any) (any, error) {
			if ctx != nil {
				if q, ok := ctx.Session.(NotifyQueueUser); ok {
					return q.NotifyQueueUsage(), nil
				}
			}
			return 0.0, nil
		}})
	// Not strict, as in PostgreSQL: a NULL channel is an empty one
	// (22023), a NULL payload an empty one.
	Register(&Overload{Name: "pg_notify", Args: targs(tText, tText), Result: tText, Volatility: Volatile, NullCall: true,
		Eval: func(ctx *Context, a []any) (any, error) {
			if ctx == nil || ctx.Notify == nil {
				return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_notify outside a session is not supported")
			}
			channel, _ := a[0].(string)
			payload, _ := a[1].(string)
			return "", ctx.Notify(channel, payload)
		}})
}
