package functions

// pg_export_snapshot(): PostgreSQL hands out an identifier of the
// transaction's snapshot for other sessions to adopt (SET TRANSACTION
// SNAPSHOT), as pg_dump -j does so that its workers read what the leader
// reads. cairn cannot share a snapshot between sessions yet, so the call
// fails with 0A000, naming pg_dump's way around it.

import "github.com/cairn-db/cairn/sql/pgerr"

func init() {
	Register(&Overload{Name: "pg_export_snapshot", Result: tText, Volatility: Volatile,
		Eval: func(*Context, []any) (any, error) {
			return nil, pgerr.NotSupported("pg_export_snapshot").
				WithDetail("cairn cannot share a transaction's snapshot with other sessions.").
				WithHint("With pg_dump -j, add --no-synchronized-snapshots, and keep writers away while it runs.")
		}})
}
