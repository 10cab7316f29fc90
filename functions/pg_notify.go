package functions

// pg_notify(channel, payload) is NOTIFY as a function: the notification
// goes out, to every session listening on the channel, when the calling
// transaction commits (Context.Notify).

import (
	"github.com/jackc/pgerrcode"

	"github.com/cairn-db/cairn/sql/pgerr"
)

func init() {
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
