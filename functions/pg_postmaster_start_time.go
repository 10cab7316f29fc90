package functions

// pg_postmaster_start_time(): when the server started, which monitoring
// tools read for its uptime. cairn's server is one process, so this is
// when the process loaded this package.

import (
	"time"

	"github.com/cairn-db/cairn/sql/types"
)

// serverStart is the time pg_postmaster_start_time returns.
var serverStart = types.Timestamp(time.Now().UnixMicro())

func init() {
	Register(allStable(fn("pg_postmaster_start_time", nil, types.TimestampTZT, func(*Context, []any) (any, error) {
		return serverStart, nil
	}))...)
}
