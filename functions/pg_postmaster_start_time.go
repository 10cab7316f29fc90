package functions

// pg_postmaster_start_time(): when the server started, which monitoring
// tools read for its uptime. cairn's server is one process, so this is
// when the process loaded this package. pg_conf_load_time(), when the
// configuration was last loaded, is the same time: cairn reads its
// configuration once, at start.

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// serverStart is the time pg_postmaster_start_time returns.
var serverStart = types.Timestamp(time.Now().UnixMicro())

func init() {
	start := func(*Context, []any) (any, error) { return serverStart, nil }
	Register(allStable(
		fn("pg_postmaster_start_time", nil, types.TimestampTZT, start),
		fn("pg_conf_load_time", nil, types.TimestampTZT, start),
	)...)
}
