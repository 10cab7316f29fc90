package functions

// pg_is_in_recovery(): whether the server is a standby replaying WAL,
// which tools check before writing. A cairn server never is, so
// pg_is_wal_replay_paused() fails as it does on a primary (pgAdmin calls
// it only when pg_is_in_recovery() is true).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

func init() {
	Register(allVolatile(fn("pg_is_in_recovery", nil, tBool, func(*Context, []any) (any, error) { return false, nil }))...)
	Register(allVolatile(fn("pg_is_wal_replay_paused", nil, tBool, func(*Context, []any) (any, error) {
		return nil, pgerr.New(pgerrcode.ObjectNotInPrerequisiteState, "recovery is not in progress").
			WithHint("Recovery control functions can only be executed during recovery.")
	}))...)
}
