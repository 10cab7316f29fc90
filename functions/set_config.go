package functions

// set_config(name, value, is_local): SET as a function, returning the
// setting's new value (pgAdmin and asyncpg call it; SELECT set_config(...)
// runs where SET cannot, inside a query). is_local means SET LOCAL. The
// session applies it through SettingWriter; without one the setting is
// unknown.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// SettingWriter is the optional part of a SessionInfo that set_config
// uses: it sets a run-time parameter as SET [LOCAL] would (with reset, as
// RESET would) and returns its new value as current_setting shows it.
// set_config is volatile, so its plan runs on the session's own goroutine
// and SetSetting is never called concurrently; the parallel partitions of
// a plan get a SessionInfo without it.
type SettingWriter interface {
	SetSetting(name, value string, reset, local bool) (string, error)
}

func init() {
	Register(&Overload{Name: "set_config", Args: targs(tText, tText, tBool), Result: tText, NullCall: true, Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, pgerr.New(pgerrcode.NullValueNotAllowedDataException, "SET requires parameter name")
			}
			name := a[0].(string)
			value, set := a[1].(string) // NULL: back to the default
			local, _ := a[2].(bool)     // NULL: false
			var w SettingWriter
			if ctx != nil {
				w, _ = ctx.Session.(SettingWriter)
			}
			if w == nil {
				return nil, pgerr.New(pgerrcode.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
			}
			return w.SetSetting(name, value, !set, local)
		}})
}
