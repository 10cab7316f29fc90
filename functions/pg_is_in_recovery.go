package functions

// pg_is_in_recovery(): whether the server is a standby replaying WAL,
// which tools check before writing. A cairn server never is, so
// pg_is_wal_replay_paused() fails as it does on a primary (pgAdmin calls
// it only when pg_is_in_recovery() is true), and
// pg_last_xact_replay_timestamp(), the time of the last transaction a
// standby replayed, is NULL, as on a primary.

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/cairn-db/cairn/sql/types"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(allVolatile(fn("pg_is_in_recovery", nil, tBool, func(*Context, []any) (any, error) { return false, nil }))...)
	Register(allVolatile(fn("pg_last_xact_replay_timestamp", nil, types.TimestampTZT, func(*Context, []any) (any, error) { return nil, nil }))...)
	Register(allVolatile(fn("pg_is_wal_replay_paused", nil, tBool, func(*Context, []any) (any, error) {
		return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "recovery is not in progress").
			WithHint("Recovery control functions can only be executed during recovery.")
	}))...)
}
