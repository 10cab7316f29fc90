package functions

// pg_stat_statements_reset(): forgets the statement statistics that
// pg_stat_statements shows, through the session's
// StatementStatsResetter. Only the form without arguments exists (not
// PostgreSQL's userid, dbid and queryid filters); it returns NULL text where PostgreSQL
// returns void (cairn has no void type; pg_sleep does the same).

import (
	"github.com/cairn-db/cairn/sql/pgerr"
	"github.com/jackc/pgerrcode"
)

// StatementStatsResetter is the optional part of a SessionInfo that
// pg_stat_statements_reset uses; it fails with 42501 for a role that may
// not reset them. Called on the session's goroutine (the function is
// volatile).
type StatementStatsResetter interface {
	ResetStatementStats() error
}

func init() {
	Register(&Overload{Name: "pg_stat_statements_reset", Result: tText, Volatility: Volatile,
		Eval: func(ctx *Context, a []any) (any, error) {
			if ctx != nil && ctx.Session != nil {
				if r, ok := ctx.Session.(StatementStatsResetter); ok {
					return nil, r.ResetStatementStats()
				}
			}
			return nil, pgerr.New(pgerrcode.FeatureNotSupported, "pg_stat_statements_reset outside a session is not supported")
		}})
}
